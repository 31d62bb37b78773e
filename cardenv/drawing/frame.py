"""The drawn table: a :class:`~cardenv.engine.table_view.TableView` as an RGB frame, with
pygame (the ``render`` extra), as PettingZoo's classic games draw theirs.

Every frame is ``FRAME_SIZE`` pixels whatever the ruleset, its options or the game's
moment (video writers need one size): the felt with every seat around it (the viewer's
seat at the bottom, the others clockwise in seat order), each seat's cards face up or
face down as the viewer may know them, the players who know a card as numbered dots under
it, the draw and discard piles with their counts and the discard's top card, carte's melds
on the felt; beside the felt, the status in words (whose turn, the ruleset's facts such as
an open reaction window, what the phase asks), the scores and the recent events. The
cards are drawn, not loaded: no asset files. A frame depends on the view alone.
"""

from __future__ import annotations

import math
import os
from functools import cache

import numpy as np

from cardenv.engine.table_view import CardView, SeatView, TableView, seat_name

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

FRAME_SIZE = (1280, 720)  # width, height in pixels
FELT_WIDTH = 880  # the felt's width; the panel of words takes the rest
CARD = (46, 66)  # a seat's card, width and height
SMALL_CARD = (26, 36)  # a meld's card
SEAT_BOX = (280, 136)

FELT = (22, 94, 58)
FELT_EDGE = (14, 66, 40)
PANEL = (24, 28, 36)
INK = (235, 235, 230)
DIM_INK = (160, 168, 176)
HIGHLIGHT = (250, 204, 21)
CARD_FACE = (250, 250, 246)
CARD_EDGE = (60, 60, 60)
CARD_BACK = (40, 70, 150)
CARD_BACK_LINE = (95, 130, 210)
RED = (200, 30, 40)
BLACK = (20, 20, 24)
JOKER_INK = (120, 40, 160)
# One colour per seat (knowledge dots, seat names): up to six players.
SEAT_COLOURS = ((239, 68, 68), (59, 130, 246), (234, 179, 8), (168, 85, 247), (20, 184, 166), (249, 115, 22))


def import_pygame():
    """pygame, or one clear error naming the extra that installs it."""
    try:
        import pygame
    except ImportError as error:
        raise ImportError("drawing the table needs pygame: pip install 'cardenv[render]'") from error
    return pygame


@cache
def _font(size: int, bold: bool = False):
    pygame = import_pygame()
    if not pygame.font.get_init():
        pygame.font.init()
    font = pygame.font.Font(None, size)  # pygame's own font file: the same glyphs everywhere
    font.set_bold(bold)
    return font


def draw_frame(view: TableView) -> np.ndarray:
    """The table of ``view`` as an ``(height, width, 3)`` uint8 array."""
    pygame = import_pygame()
    surface = pygame.Surface(FRAME_SIZE)
    draw_on(surface, view)
    return np.ascontiguousarray(pygame.surfarray.pixels3d(surface).transpose(1, 0, 2))


def draw_on(surface, view: TableView) -> None:
    """Draw ``view`` onto a pygame surface of ``FRAME_SIZE``."""
    pygame = import_pygame()
    width, height = FRAME_SIZE
    surface.fill(PANEL)
    felt = pygame.Rect(0, 0, FELT_WIDTH, height)
    pygame.draw.rect(surface, FELT_EDGE, felt)
    pygame.draw.ellipse(surface, FELT, felt.inflate(-24, -24))
    centre = (FELT_WIDTH // 2, height // 2)
    bottom = view.viewer if view.viewer is not None else 0
    n = len(view.seats)
    for seat in view.seats:
        k = (seat.seat - bottom) % n
        angle = math.pi / 2 + 2 * math.pi * k / n  # the bottom first, then clockwise
        x = centre[0] + 320 * math.cos(angle)
        y = centre[1] + 262 * math.sin(angle)
        _draw_seat(surface, view, seat, (int(x), int(y)), felt.inflate(-12, -12))
    _draw_piles(surface, view, (centre[0], centre[1] - 70))
    if view.melds:
        _draw_melds(surface, view, pygame.Rect(centre[0] - 140, centre[1] - 10, 280, 190))
    _draw_panel(surface, view, pygame.Rect(FELT_WIDTH + 16, 16, width - FELT_WIDTH - 32, height - 32))


def _text(surface, words: str, position: tuple[int, int], size: int = 20, colour=INK, bold: bool = False,
          anchor: str = "topleft") -> int:
    """Blit one line; its right edge."""
    image = _font(size, bold).render(words, True, colour)
    rect = image.get_rect(**{anchor: position})
    surface.blit(image, rect)
    return rect.right


def _draw_seat(surface, view: TableView, seat: SeatView, centre: tuple[int, int], felt) -> None:
    pygame = import_pygame()
    box = pygame.Rect(0, 0, *SEAT_BOX)
    box.center = centre
    box.clamp_ip(felt)
    to_act = seat.seat == view.to_act and not view.game_over
    pygame.draw.rect(surface, (16, 70, 44), box, border_radius=10)
    pygame.draw.rect(surface, HIGHLIGHT if to_act else FELT_EDGE, box, width=3 if to_act else 1, border_radius=10)
    name = seat_name(seat.seat, view.viewer)
    right = _text(surface, name, (box.x + 10, box.y + 6), 21, SEAT_COLOURS[seat.seat % len(SEAT_COLOURS)], bold=True)
    right = _text(surface, f"score {seat.score}", (right + 10, box.y + 7), 19, INK)
    if seat.flags:
        _text(surface, ", ".join(seat.flags), (right + 10, box.y + 7), 17, HIGHLIGHT)
    cards = list(seat.cards) + list(seat.held)
    if not cards:
        return
    left, top = box.x + 10, box.y + 30
    room = box.width - 20 - CARD[0]
    step = min(CARD[0] + 4, room / max(1, len(cards) - 1))
    for i, card in enumerate(cards):
        held = i >= len(seat.cards)
        x = int(left + i * step)
        if card is None:
            pygame.draw.rect(surface, FELT_EDGE, (x, top, *CARD), width=1, border_radius=5)
        else:
            _draw_card(surface, card, (x, top), CARD, raised=held)
        if view.slots and not held and step >= CARD[0] - 6:
            _text(surface, str(i), (x + CARD[0] // 2, top + CARD[1] + 2), 15, DIM_INK, anchor="midtop")
        if card is not None and card.knowers and step >= 14:
            _draw_knowers(surface, card.knowers, (x + 2, top + CARD[1] + 16), step)


def _draw_knowers(surface, knowers: tuple[int, ...], at: tuple[int, int], room: float) -> None:
    """One numbered dot per player who knows the card (the text's ``(n)``)."""
    pygame = import_pygame()
    per_row = max(1, int(min(room, CARD[0]) // 12))
    for j, q in enumerate(knowers):
        x = at[0] + 6 + 12 * (j % per_row)
        y = at[1] + 6 + 12 * (j // per_row)
        pygame.draw.circle(surface, SEAT_COLOURS[q % len(SEAT_COLOURS)], (x, y), 6)
        _text(surface, str(q), (x, y + 1), 13, BLACK, anchor="center")


def _suit_colour(name: str):
    if name in ("JK",):
        return JOKER_INK
    if name in ("RJ",) or name[-1] in "HD":
        return RED
    return BLACK


def _draw_card(surface, card: CardView, at: tuple[int, int], size: tuple[int, int], raised: bool = False) -> None:
    """A card face up (its rank and a drawn suit) or face down (the back)."""
    pygame = import_pygame()
    x, y = at
    if raised:
        y -= 8
    rect = pygame.Rect(x, y, *size)
    if card.name is None:
        pygame.draw.rect(surface, CARD_BACK, rect, border_radius=5)
        inner = rect.inflate(-8, -8)
        pygame.draw.rect(surface, CARD_BACK_LINE, inner, width=1, border_radius=3)
        for d in range(-inner.height, inner.width, 8):
            start = (inner.x + max(0, d), inner.y + max(0, -d))
            length = min(inner.width - max(0, d), inner.height - max(0, -d))
            if length > 0:
                pygame.draw.line(surface, CARD_BACK_LINE, start, (start[0] + length - 1, start[1] + length - 1))
    else:
        pygame.draw.rect(surface, CARD_FACE, rect, border_radius=5)
        colour = _suit_colour(card.name)
        small = size[0] < CARD[0]
        if card.name in ("RJ", "BJ", "JK"):
            _text(surface, "JK" if card.name == "JK" else card.name[0] + "J", (rect.x + 4, rect.y + 3),
                  16 if small else 22, colour, bold=True)
            _draw_star(surface, colour, (rect.centerx, rect.centery + size[1] // 8), size[0] // 4)
        else:
            rank, suit = card.name[:-1], card.name[-1]
            right = _text(surface, rank, (rect.x + 3, rect.y + 3), 17 if small else 23, colour, bold=True)
            if small:  # the corner: rank and a small suit, which overlapping cards leave in sight
                _draw_suit(surface, suit, colour, (right + 5, rect.y + 10), 4)
            else:
                _draw_suit(surface, suit, colour, (rect.x + 10, rect.y + 30), 5)
            _draw_suit(surface, suit, colour, (rect.centerx + size[0] // 8, rect.centery + size[1] // 6),
                       size[0] // 4)
    pygame.draw.rect(surface, HIGHLIGHT if raised else CARD_EDGE, rect, width=2 if raised else 1, border_radius=5)


def _draw_star(surface, colour, centre: tuple[int, int], radius: int) -> None:
    pygame = import_pygame()
    points = []
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.45
        a = -math.pi / 2 + i * math.pi / 5
        points.append((centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)))
    pygame.draw.polygon(surface, colour, points)


def _draw_suit(surface, suit: str, colour, centre: tuple[int, int], r: int) -> None:
    """A suit drawn from circles and polygons (fonts rarely carry the symbols)."""
    pygame = import_pygame()
    cx, cy = centre
    half = max(2, r // 2)
    if suit == "D":
        pygame.draw.polygon(surface, colour, [(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)])
    elif suit == "H":
        pygame.draw.circle(surface, colour, (cx - half, cy - half // 2), half + 1)
        pygame.draw.circle(surface, colour, (cx + half, cy - half // 2), half + 1)
        pygame.draw.polygon(surface, colour, [(cx - r - 1, cy - half // 2 + 1), (cx + r + 1, cy - half // 2 + 1),
                                              (cx, cy + r)])
    elif suit == "S":
        pygame.draw.circle(surface, colour, (cx - half, cy + half // 2), half + 1)
        pygame.draw.circle(surface, colour, (cx + half, cy + half // 2), half + 1)
        pygame.draw.polygon(surface, colour, [(cx - r - 1, cy + half // 2 - 1), (cx + r + 1, cy + half // 2 - 1),
                                              (cx, cy - r)])
        pygame.draw.polygon(surface, colour, [(cx, cy), (cx - half, cy + r + 1), (cx + half, cy + r + 1)])
    else:  # clubs
        pygame.draw.circle(surface, colour, (cx, cy - half), half + 1)
        pygame.draw.circle(surface, colour, (cx - half - 1, cy + 1), half + 1)
        pygame.draw.circle(surface, colour, (cx + half + 1, cy + 1), half + 1)
        pygame.draw.polygon(surface, colour, [(cx, cy), (cx - half, cy + r + 1), (cx + half, cy + r + 1)])


def _draw_piles(surface, view: TableView, centre: tuple[int, int]) -> None:
    """The draw pile (face down, its count) and the discard pile (its top card, its count)."""
    pygame = import_pygame()
    cx, cy = centre
    for pile, x, top in ((view.draw, cx - CARD[0] - 24, CardView(None)), (view.discard, cx + 24, view.discard.top)):
        rect = pygame.Rect(x, cy - CARD[1] // 2, *CARD)
        if pile.count and top is not None:
            for depth in (4, 2):  # a little stack
                if pile.count > depth // 2:
                    pygame.draw.rect(surface, CARD_EDGE, rect.move(depth, -depth), width=1, border_radius=5)
            _draw_card(surface, top, rect.topleft, CARD)
        else:
            pygame.draw.rect(surface, FELT_EDGE, rect, width=1, border_radius=5)
        _text(surface, f"{pile.name} {pile.count}", (rect.centerx, rect.bottom + 4), 17, INK, anchor="midtop")
        if pile.note:
            _text(surface, pile.note, (rect.centerx, rect.bottom + 20), 15, DIM_INK, anchor="midtop")


def _draw_melds(surface, view: TableView, area) -> None:
    """carte's melds as rows of small cards, two columns, as many as fit."""
    per_column = area.height // (SMALL_CARD[1] + 6)
    room = 2 * per_column
    shown = view.melds if len(view.melds) <= room else view.melds[:room - 1]
    column_width = area.width // 2
    for m, (owner, cards) in enumerate(shown):
        x = area.x + (m // per_column) * column_width
        y = area.y + (m % per_column) * (SMALL_CARD[1] + 6)
        pygame = import_pygame()
        pygame.draw.circle(surface, SEAT_COLOURS[owner % len(SEAT_COLOURS)], (x + 6, y + SMALL_CARD[1] // 2), 5)
        step = min(SMALL_CARD[0] - 8, (column_width - 20 - SMALL_CARD[0]) / max(1, len(cards) - 1))
        for i, name in enumerate(cards):
            _draw_card(surface, CardView(name.split("=")[0]), (int(x + 14 + i * step), y), SMALL_CARD)
    if len(shown) < len(view.melds):
        _text(surface, f"+{len(view.melds) - len(shown)} more melds", (area.right, area.bottom), 15, INK,
              anchor="bottomright")


def _wrapped(words: str, size: int, width: int) -> list[str]:
    font = _font(size)
    lines, line = [], ""
    for word in words.split(" "):
        attempt = f"{line} {word}" if line else word
        if font.size(attempt)[0] <= width or not line:
            line = attempt
        else:
            lines.append(line)
            line = word
    return [*lines, line] if line else lines


def _draw_panel(surface, view: TableView, area) -> None:
    """The words beside the felt: title, status, scores, selection, recent events."""
    y = area.y

    def write(words: str, size: int = 19, colour=INK, bold: bool = False, gap: int = 2) -> None:
        nonlocal y
        for line in _wrapped(words, size, area.width):
            if y + size > area.bottom:
                return
            _text(surface, line, (area.x, y), size, colour, bold)
            y += size - 3 + gap

    write(view.title, 22, HIGHLIGHT, bold=True, gap=6)
    for line in view.status:
        write(line, 19, INK, gap=4)
    y += 6
    write("scores  " + "   ".join(f"player_{s.seat} {s.score}" for s in view.seats), 18, DIM_INK, gap=6)
    if view.selected:
        write("selected: " + " ".join(view.selected), 18, HIGHLIGHT, gap=6)
    if view.events:
        y += 4
        write("recent events", 18, DIM_INK, bold=True, gap=4)
        # the newest events that fit, oldest first
        lines: list[str] = []
        for event in reversed(view.events):
            wrapped = _wrapped(event, 17, area.width)
            if y + (len(lines) + len(wrapped)) * 17 > area.bottom:
                break
            lines[:0] = wrapped
        for line in lines:
            _text(surface, line, (area.x, y), 17, INK)
            y += 17
