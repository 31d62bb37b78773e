"""The drawn table as an RGB frame (the ``rgb_array`` and ``human`` render modes): the
shapes of :func:`cardenv.drawing.scene.table_scene` drawn with pygame (the ``render`` extra),
as PettingZoo's classic games draw theirs. A frame is ``FRAME_SIZE`` pixels."""

from __future__ import annotations

import os

import numpy as np

from cardenv.drawing.scene import (
    SCENE_SIZE,
    Card,
    Circle,
    Ellipse,
    Line,
    Polygon,
    Rect,
    Shape,
    Target,
    Text,
    card_shapes,
    table_scene,
)
from cardenv.engine.table_view import TableView

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

FRAME_SIZE = SCENE_SIZE  # width, height in pixels
# pygame's own font draws a size-s request at about 0.6875 s pixels: asked for size / that.
PYGAME_FONT_SCALE = 0.6875


def import_pygame():
    """pygame, or one clear error naming the extra that installs it."""
    try:
        import pygame
    except ImportError as error:
        raise ImportError("drawing the table needs pygame: pip install 'cardenv[render]'") from error
    return pygame


_FONTS: dict[tuple[int, bool], object] = {}  # loaded fonts, valid while pygame's font module stays initialised
_CARD_IMAGES: dict[tuple, object] = {}  # each card drawn once, as an image with see-through corners


def _forget() -> None:
    _FONTS.clear()
    _CARD_IMAGES.clear()


def font(size: int, bold: bool = False):
    """pygame's own font file (the same glyphs everywhere) at ``size`` pixels. Fonts loaded
    before ``pygame.quit()`` (another env's ``close()``, say) are loaded again, even when
    something else starts pygame again in between."""
    pygame = import_pygame()
    if not pygame.font.get_init():
        _forget()
        pygame.font.init()
    if not _FONTS:
        # pygame.quit() (PettingZoo's classic envs call it in close()) frees every font
        # object; another env may start pygame again before the next frame.
        pygame.register_quit(_forget)
    key = (size, bold)
    if key not in _FONTS:
        loaded = pygame.font.Font(None, round(size / PYGAME_FONT_SCALE))
        loaded.set_bold(bold)
        _FONTS[key] = loaded
    return _FONTS[key]


def card_image(card: Card, pygame):
    """The card's image (its shapes drawn once on a see-through surface of its size)."""
    key = (card.name, card.width, card.height, card.raised)
    image = _CARD_IMAGES.get(key)
    if image is None:
        font(10)  # the fonts' cache, and its clearing at pygame.quit(), first
        image = pygame.Surface((card.width, card.height), pygame.SRCALPHA)
        for part in card_shapes(Card(0, 0, card.width, card.height, card.name, card.raised)):
            draw_shape(image, part, pygame)
        _CARD_IMAGES[key] = image
    return image


def draw_frame(view: TableView) -> np.ndarray:
    """The table of ``view`` as an ``(height, width, 3)`` uint8 array."""
    pygame = import_pygame()
    surface = pygame.Surface(FRAME_SIZE)
    draw_on(surface, view)
    # row-major RGB bytes, copied into a writable array (twice as fast as transposing pixels3d)
    width, height = FRAME_SIZE
    return np.frombuffer(pygame.image.tobytes(surface, "RGB"), dtype=np.uint8).reshape(height, width, 3).copy()


def draw_on(surface, view: TableView) -> None:
    """Draw ``view`` onto a pygame surface of ``FRAME_SIZE``."""
    pygame = import_pygame()
    for shape in table_scene(view):
        draw_shape(surface, shape, pygame)


def draw_shape(surface, shape: Shape, pygame=None) -> None:
    pygame = pygame or import_pygame()
    if isinstance(shape, Rect):
        rect = pygame.Rect(round(shape.x), round(shape.y), round(shape.width), round(shape.height))
        if shape.fill is not None:
            pygame.draw.rect(surface, shape.fill, rect, border_radius=shape.radius)
        if shape.stroke is not None:
            pygame.draw.rect(surface, shape.stroke, rect, width=shape.stroke_width, border_radius=shape.radius)
    elif isinstance(shape, Text):
        image = font(shape.size, shape.bold).render(shape.text, True, shape.colour)
        side, level = shape.anchor
        x = shape.x - {"left": 0, "center": image.get_width() / 2, "right": image.get_width()}[side]
        y = shape.y - {"top": 0, "middle": image.get_height() / 2, "bottom": image.get_height()}[level]
        surface.blit(image, (round(x), round(y)))
    elif isinstance(shape, Circle):
        pygame.draw.circle(surface, shape.fill, (round(shape.x), round(shape.y)), round(shape.radius))
    elif isinstance(shape, Polygon):
        pygame.draw.polygon(surface, shape.fill, shape.points)
    elif isinstance(shape, Line):
        pygame.draw.line(surface, shape.colour, (shape.x1, shape.y1), (shape.x2, shape.y2))
    elif isinstance(shape, Card):
        surface.blit(card_image(shape, pygame), (round(shape.x), round(shape.y)))
    elif isinstance(shape, Ellipse):
        pygame.draw.ellipse(surface, shape.fill, pygame.Rect(shape.x, shape.y, shape.width, shape.height))
    elif isinstance(shape, Target):
        pass  # a place to click: nothing drawn
    else:
        raise TypeError(f"not a shape of the table's scene: {shape!r}")
