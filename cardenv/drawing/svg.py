"""The drawn table as SVG (the HTML replay): the shapes of
:func:`cardenv.drawing.scene.table_scene` as SVG elements. Pure Python.

Cards are drawn once each, as symbols (``<symbol id="card-N">``), and placed with
``<use>``: a page of many frames holds one ``defs`` (:meth:`SvgTable.defs`) and each frame
only its placements. A placed card carries ``class="card"`` and ``data-card`` (its name,
``??`` face down; the draw pile's back is ``class="pile"``), so that a page's script and
tests can read what a frame shows. With ``targets``, the places a person may click to act
(:class:`cardenv.drawing.scene.Target`) are transparent regions ``<rect class="target"
data-target="KEY">`` over their cards, for the browser's table (``cardenv play --web``).
"""

from __future__ import annotations

from html import escape

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

# The look of pygame's own font (the frames') where the reader has it, else the nearest.
FONT = "FreeSans, 'Liberation Sans', Arial, Helvetica, sans-serif"
ANCHORS = {"left": "start", "center": "middle", "right": "end"}
BASELINES = {"top": "hanging", "middle": "central", "bottom": "text-after-edge"}


def _number(value: float) -> str:
    text = f"{value:.1f}"
    return text.removesuffix(".0")


def _colour(rgb) -> str:
    red, green, blue = rgb
    return f"#{red:02x}{green:02x}{blue:02x}"


def shape_svg(shape: Shape) -> str:
    """One shape as an SVG element (a card as its own shapes: see :class:`SvgTable` for symbols)."""
    n = _number
    if isinstance(shape, Rect):
        paint = f' fill="{_colour(shape.fill)}"' if shape.fill is not None else ' fill="none"'
        if shape.stroke is not None:
            paint += f' stroke="{_colour(shape.stroke)}" stroke-width="{shape.stroke_width}"'
        corner = f' rx="{shape.radius}"' if shape.radius else ""
        return (f'<rect x="{n(shape.x)}" y="{n(shape.y)}" width="{n(shape.width)}" height="{n(shape.height)}"'
                f'{corner}{paint}/>')
    if isinstance(shape, Text):
        side, level = shape.anchor
        return (f'<text x="{n(shape.x)}" y="{n(shape.y)}" font-size="{shape.size}" fill="{_colour(shape.colour)}"'
                f' text-anchor="{ANCHORS[side]}" dominant-baseline="{BASELINES[level]}">{escape(shape.text)}</text>')
    if isinstance(shape, Circle):
        return f'<circle cx="{n(shape.x)}" cy="{n(shape.y)}" r="{n(shape.radius)}" fill="{_colour(shape.fill)}"/>'
    if isinstance(shape, Polygon):
        points = " ".join(f"{n(x)},{n(y)}" for x, y in shape.points)
        return f'<polygon points="{points}" fill="{_colour(shape.fill)}"/>'
    if isinstance(shape, Line):
        return (f'<line x1="{n(shape.x1)}" y1="{n(shape.y1)}" x2="{n(shape.x2)}" y2="{n(shape.y2)}"'
                f' stroke="{_colour(shape.colour)}"/>')
    if isinstance(shape, Ellipse):
        return (f'<ellipse cx="{n(shape.x + shape.width / 2)}" cy="{n(shape.y + shape.height / 2)}"'
                f' rx="{n(shape.width / 2)}" ry="{n(shape.height / 2)}" fill="{_colour(shape.fill)}"/>')
    if isinstance(shape, Card):
        return "".join(shape_svg(part) for part in card_shapes(shape))
    if isinstance(shape, Target):
        return (f'<rect class="target" data-target="{escape(shape.key)}" x="{n(shape.x)}" y="{n(shape.y)}"'
                f' width="{n(shape.width)}" height="{n(shape.height)}" rx="5" fill="transparent"/>')
    raise TypeError(f"not a shape of the table's scene: {shape!r}")


class SvgTable:
    """Frames of one page: each frame's elements, the cards placed as symbols kept here."""

    def __init__(self, targets: bool = False) -> None:
        self.symbols: dict[tuple, int] = {}  # (name, width, height, raised) -> symbol number
        self.targets = targets  # whether the places to click are drawn as regions

    def frame(self, view: TableView) -> str:
        """The elements of ``view``'s table (no ``<svg>`` around them)."""
        parts = []
        for shape in table_scene(view):
            if isinstance(shape, Card):
                key = (shape.name, shape.width, shape.height, shape.raised)
                number = self.symbols.setdefault(key, len(self.symbols))
                what = ' class="pile"' if shape.pile else f' class="card" data-card="{escape(shape.name or "??")}"'
                parts.append(f'<use href="#card-{number}" x="{_number(shape.x)}" y="{_number(shape.y)}"{what}/>')
            elif isinstance(shape, Target):
                if self.targets:
                    parts.append(shape_svg(shape))
            else:
                parts.append(shape_svg(shape))
        return "".join(parts)

    def defs(self, start: int = 0) -> str:
        """The symbols of every card placed so far (from symbol number ``start`` on: a page
        that holds the earlier ones already)."""
        symbols = []
        for (name, width, height, raised), number in list(self.symbols.items())[start:]:
            card = Card(0, 0, width, height, name, raised)
            symbols.append(f'<symbol id="card-{number}" overflow="visible">{shape_svg(card)}</symbol>')
        return f"<defs>{''.join(symbols)}</defs>"


def svg_open(document: bool = False) -> str:
    """The opening ``<svg>`` tag of a table (its size, viewBox and font); ``document``: with
    the namespace an SVG file needs (an ``<svg>`` inside HTML needs none)."""
    width, height = SCENE_SIZE
    namespace = ' xmlns="http://www.w3.org/2000/svg"' if document else ""
    return (f'<svg{namespace} viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
            f' font-family="{FONT}" font-weight="bold">')


def table_svg(view: TableView) -> str:
    """``view``'s table as one SVG document."""
    table = SvgTable()
    body = table.frame(view)
    return f"{svg_open(document=True)}{table.defs()}{body}</svg>"
