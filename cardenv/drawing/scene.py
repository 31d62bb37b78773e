"""The drawn table as shapes: a :class:`~cardenv.engine.table_view.TableView` laid out once,
as a list of rectangles, circles, polygons, lines and text in pixels, which the frame
(``cardenv.drawing.frame``, pygame) and the SVG of the HTML replay (``cardenv.drawing.svg``)
both draw. Pure Python: no drawing library.

Every scene is ``SCENE_SIZE`` pixels whatever the ruleset, its options or the game's moment
(video writers need one size): the felt with every seat around it (the viewer's seat at the
bottom, the others clockwise in seat order), each seat's cards face up or face down as the
viewer may know them, the players who know a card as numbered dots under it, the draw and
discard piles with their counts and the discard's top card, a rummy's melds on the felt;
beside the felt, the status in words (whose turn, the ruleset's facts such as an open
reaction window, what the phase asks), the scores and the recent events. The cards are
drawn, not loaded: no asset files. A scene depends on the view alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cardenv.engine.table_view import (
    DISCARD_PILE,
    DRAW_PILE,
    SeatView,
    TableView,
    card_target,
    meld_target,
    seat_name,
    slot_target,
)

SCENE_SIZE = (1280, 720)  # width, height in pixels
FELT_WIDTH = 880  # the felt's width; the panel of words takes the rest
CARD = (46, 66)  # a seat's card, width and height
SMALL_CARD = (26, 36)  # a meld's card
SEAT_BOX = (280, 136)
SEAT_RADII = (320, 262)  # the ellipse the seats' boxes are centred on
# The text's mean advance per pixel of font size (the font both drawings use; wrapping and
# placing words after words read it).
ADVANCE = 0.52

Colour = tuple[int, int, int]
FELT = (22, 94, 58)
FELT_EDGE = (14, 66, 40)
SEAT_FILL = (16, 70, 44)
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


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: Colour | None = None
    stroke: Colour | None = None
    stroke_width: int = 1
    radius: int = 0


@dataclass(frozen=True)
class Ellipse:
    x: float
    y: float
    width: float
    height: float
    fill: Colour


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    radius: float
    fill: Colour


@dataclass(frozen=True)
class Polygon:
    points: tuple[tuple[float, float], ...]
    fill: Colour


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    colour: Colour


@dataclass(frozen=True)
class Text:
    """One line of text of ``size`` pixels; (x, y) is its ``anchor`` point: a side
    (``left``, ``center``, ``right``) and a level (``top``, ``middle``, ``bottom``)."""

    x: float
    y: float
    text: str
    size: int
    colour: Colour
    bold: bool = False
    anchor: tuple[str, str] = ("left", "top")


@dataclass(frozen=True)
class Card:
    """A card of ``width`` × ``height`` at (x, y): its face (``name``) or its back (None);
    ``raised``: a held card, outlined; ``pile``: the draw pile's back, no card in
    particular. Its shapes: :func:`card_shapes`."""

    x: float
    y: float
    width: int
    height: int
    name: str | None
    raised: bool = False
    pile: bool = False


@dataclass(frozen=True)
class Target:
    """A place a person may click to take an action, named by its ``key`` (the keys of
    ``cardenv.engine.table_view``: a seat's slot, a card type in a hand, a pile, a meld; what
    ``GameState.action_target`` returns). Nothing is drawn: the browser's table
    (:class:`cardenv.drawing.svg.SvgTable` with ``targets``) makes it a region to click,
    the visible part of its card where later cards overlap it."""

    x: float
    y: float
    width: float
    height: float
    key: str


Shape = Rect | Ellipse | Circle | Polygon | Line | Text | Card | Target


def text_width(words: str, size: int) -> float:
    return ADVANCE * size * len(words)


def table_scene(view: TableView) -> list[Shape]:
    """The shapes of ``view``'s table, back to front."""
    width, height = SCENE_SIZE
    shapes: list[Shape] = [Rect(0, 0, width, height, fill=PANEL), Rect(0, 0, FELT_WIDTH, height, fill=FELT_EDGE),
                           Ellipse(12, 12, FELT_WIDTH - 24, height - 24, FELT)]
    centre = (FELT_WIDTH // 2, height // 2)
    bottom = view.viewer if view.viewer is not None else 0
    n = len(view.seats)
    for seat in view.seats:
        k = (seat.seat - bottom) % n
        angle = math.pi / 2 + 2 * math.pi * k / n  # the bottom first, then clockwise
        x = centre[0] + SEAT_RADII[0] * math.cos(angle) - SEAT_BOX[0] / 2
        y = centre[1] + SEAT_RADII[1] * math.sin(angle) - SEAT_BOX[1] / 2
        # inside the felt's margin
        x = min(max(round(x), 6), FELT_WIDTH - 6 - SEAT_BOX[0])
        y = min(max(round(y), 6), height - 6 - SEAT_BOX[1])
        shapes += _seat(view, seat, x, y)
    shapes += _piles(view, centre[0], centre[1] - 70)
    if view.melds:
        shapes += _melds(view, centre[0] - 140, centre[1] - 10, 280, 190)
    shapes += _panel(view, FELT_WIDTH + 16, 16, width - FELT_WIDTH - 32, height - 32)
    return shapes


def _seat(view: TableView, seat: SeatView, x: int, y: int) -> list[Shape]:
    box_width, box_height = SEAT_BOX
    to_act = seat.seat == view.to_act and not view.game_over
    shapes: list[Shape] = [Rect(x, y, box_width, box_height, fill=SEAT_FILL, radius=10),
                           Rect(x, y, box_width, box_height, stroke=HIGHLIGHT if to_act else FELT_EDGE,
                                stroke_width=3 if to_act else 1, radius=10)]
    name = seat_name(seat.seat, view.viewer)
    shapes.append(Text(x + 10, y + 6, name, 15, SEAT_COLOURS[seat.seat % len(SEAT_COLOURS)], bold=True))
    right = x + 10 + text_width(name, 15) + 10
    score = f"score {seat.score}"
    shapes.append(Text(right, y + 7, score, 13, INK))
    if seat.flags:
        shapes.append(Text(right + text_width(score, 13) + 10, y + 7, ", ".join(seat.flags), 12, HIGHLIGHT))
    cards = list(seat.cards) + list(seat.held)
    if not cards:
        return shapes
    left, top = x + 10, y + 30
    room = box_width - 20 - CARD[0]
    step = min(CARD[0] + 4, room / max(1, len(cards) - 1))
    for i, card in enumerate(cards):
        held = i >= len(seat.cards)
        cx = round(left + i * step)
        if card is None:
            shapes.append(Rect(cx, top, *CARD, stroke=FELT_EDGE, radius=5))
        else:
            shapes.append(Card(cx, top - 8 if held else top, *CARD, card.name, raised=held))
        key = (slot_target(seat.seat, i) if view.slots else
               card_target(seat.seat, card.name) if card is not None and card.name is not None else None)
        if key is not None and not held:
            visible = CARD[0] if i == len(cards) - 1 else min(CARD[0], round(left + (i + 1) * step) - cx)
            shapes.append(Target(cx, top, visible, CARD[1], key))
        if view.slots and not held and step >= CARD[0] - 6:
            shapes.append(Text(cx + CARD[0] // 2, top + CARD[1] + 2, str(i), 10, DIM_INK, anchor=("center", "top")))
        if card is not None and card.knowers and step >= 14:
            shapes += _knowers(card.knowers, cx + 2, top + CARD[1] + 16, step)
    return shapes


def _knowers(knowers: tuple[int, ...], x: int, y: int, room: float) -> list[Shape]:
    """One numbered dot per player who knows the card (the text's ``(n)``)."""
    per_row = max(1, int(min(room, CARD[0]) // 12))
    shapes: list[Shape] = []
    for j, q in enumerate(knowers):
        cx, cy = x + 6 + 12 * (j % per_row), y + 6 + 12 * (j // per_row)
        shapes.append(Circle(cx, cy, 6, SEAT_COLOURS[q % len(SEAT_COLOURS)]))
        shapes.append(Text(cx, cy + 1, str(q), 9, BLACK, anchor=("center", "middle")))
    return shapes


def _ink(name: str) -> Colour:
    if name == "JK":
        return JOKER_INK
    if name == "RJ" or name[-1] in "HD":
        return RED
    return BLACK


def card_shapes(card: Card) -> list[Shape]:
    """The shapes of a card face up (its rank and a drawn suit) or face down (the back)."""
    x, y, width, height, raised = card.x, card.y, card.width, card.height, card.raised
    edge = Rect(x, y, width, height, stroke=HIGHLIGHT if raised else CARD_EDGE, stroke_width=2 if raised else 1,
                radius=5)
    if card.name is None:
        shapes: list[Shape] = [Rect(x, y, width, height, fill=CARD_BACK, radius=5)]
        ix, iy, iw, ih = x + 4, y + 4, width - 8, height - 8
        shapes.append(Rect(ix, iy, iw, ih, stroke=CARD_BACK_LINE, radius=3))
        for d in range(-ih, iw, 8):  # diagonal hatching inside the border
            sx, sy = ix + max(0, d), iy + max(0, -d)
            length = min(iw - max(0, d), ih - max(0, -d))
            if length > 0:
                shapes.append(Line(sx, sy, sx + length - 1, sy + length - 1, CARD_BACK_LINE))
        return [*shapes, edge]
    shapes = [Rect(x, y, width, height, fill=CARD_FACE, radius=5)]
    ink = _ink(card.name)
    small = width < CARD[0]
    rank_size = 12 if small else 16
    if card.name in ("RJ", "BJ", "JK"):
        shapes.append(Text(x + 4, y + 3, "JK" if card.name == "JK" else card.name[0] + "J", rank_size, ink, bold=True))
        shapes.append(_star(ink, x + width / 2, y + height / 2 + height // 8, width // 4))
    else:
        rank, suit = card.name[:-1], card.name[-1]
        shapes.append(Text(x + 3, y + 3, rank, rank_size, ink, bold=True))
        if small:  # the corner: rank and a small suit, which overlapping cards leave in sight
            shapes += suit_shapes(suit, ink, x + 3 + text_width(rank, rank_size) + 5, y + 10, 4)
        else:
            shapes += suit_shapes(suit, ink, x + 10, y + 30, 5)
        shapes += suit_shapes(suit, ink, x + width / 2 + width // 8, y + height / 2 + height // 6, width // 4)
    return [*shapes, edge]


def _star(ink: Colour, cx: float, cy: float, radius: float) -> Polygon:
    points = []
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.45
        a = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return Polygon(tuple(points), ink)


def suit_shapes(suit: str, ink: Colour, cx: float, cy: float, r: float) -> list[Shape]:
    """A suit drawn from circles and polygons (fonts rarely carry the symbols)."""
    half = max(2, r // 2)
    if suit == "D":
        return [Polygon(((cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)), ink)]
    if suit == "H":
        return [Circle(cx - half, cy - half // 2, half + 1, ink), Circle(cx + half, cy - half // 2, half + 1, ink),
                Polygon(((cx - r - 1, cy - half // 2 + 1), (cx + r + 1, cy - half // 2 + 1), (cx, cy + r)), ink)]
    stem = Polygon(((cx, cy), (cx - half, cy + r + 1), (cx + half, cy + r + 1)), ink)
    if suit == "S":
        return [Circle(cx - half, cy + half // 2, half + 1, ink), Circle(cx + half, cy + half // 2, half + 1, ink),
                Polygon(((cx - r - 1, cy + half // 2 - 1), (cx + r + 1, cy + half // 2 - 1), (cx, cy - r)), ink), stem]
    return [Circle(cx, cy - half, half + 1, ink), Circle(cx - half - 1, cy + 1, half + 1, ink),
            Circle(cx + half + 1, cy + 1, half + 1, ink), stem]  # clubs


def _piles(view: TableView, cx: int, cy: int) -> list[Shape]:
    """The draw pile (face down, its count) and the discard pile (its top card, its count)."""
    shapes: list[Shape] = []
    for pile, x, top in ((view.draw, cx - CARD[0] - 24, None), (view.discard, cx + 24, view.discard.top)):
        y = cy - CARD[1] // 2
        if pile.count and (top is not None or pile is view.draw):
            for depth in (4, 2):  # a little stack
                if pile.count > depth // 2:
                    shapes.append(Rect(x + depth, y - depth, *CARD, stroke=CARD_EDGE, radius=5))
            shapes.append(Card(x, y, *CARD, None, pile=True) if top is None else Card(x, y, *CARD, top.name))
        else:
            shapes.append(Rect(x, y, *CARD, stroke=FELT_EDGE, radius=5))
        shapes.append(Target(x, y - 4, CARD[0] + 4, CARD[1] + 4, DRAW_PILE if pile is view.draw else DISCARD_PILE))
        middle = x + CARD[0] // 2
        shapes.append(Text(middle, y + CARD[1] + 4, f"{pile.name} {pile.count}", 12, INK, anchor=("center", "top")))
        if pile.note:
            shapes.append(Text(middle, y + CARD[1] + 20, pile.note, 10, DIM_INK, anchor=("center", "top")))
    return shapes


def _melds(view: TableView, x: int, y: int, width: int, height: int) -> list[Shape]:
    """The melds on the table as rows of small cards, two columns, as many as fit."""
    per_column = height // (SMALL_CARD[1] + 6)
    room = 2 * per_column
    shown = view.melds if len(view.melds) <= room else view.melds[:room - 1]
    column_width = width // 2
    shapes: list[Shape] = []
    for m, (owner, cards) in enumerate(shown):
        mx = x + (m // per_column) * column_width
        my = y + (m % per_column) * (SMALL_CARD[1] + 6)
        shapes.append(Circle(mx + 6, my + SMALL_CARD[1] // 2, 5, SEAT_COLOURS[owner % len(SEAT_COLOURS)]))
        step = min(SMALL_CARD[0] - 8, (column_width - 20 - SMALL_CARD[0]) / max(1, len(cards) - 1))
        for i, name in enumerate(cards):
            shapes.append(Card(round(mx + 14 + i * step), my, *SMALL_CARD, name.split("=")[0]))
        shapes.append(Target(mx, my, 14 + (len(cards) - 1) * step + SMALL_CARD[0], SMALL_CARD[1], meld_target(m)))
    if len(shown) < len(view.melds):
        shapes.append(Text(x + width, y + height, f"+{len(view.melds) - len(shown)} more melds", 10, INK,
                           anchor=("right", "bottom")))
    return shapes


def wrapped(words: str, size: int, width: float) -> list[str]:
    """``words`` in lines of at most ``width`` pixels (a longer word stays whole)."""
    lines, line = [], ""
    for word in words.split(" "):
        attempt = f"{line} {word}" if line else word
        if text_width(attempt, size) <= width or not line:
            line = attempt
        else:
            lines.append(line)
            line = word
    return [*lines, line] if line else lines


def _panel(view: TableView, x: int, y: int, width: int, height: int) -> list[Shape]:
    """The words beside the felt: title, status, scores, selection, the newest events that fit."""
    shapes: list[Shape] = []
    bottom = y + height

    def write(words: str, size: int, colour: Colour, bold: bool = False, gap: int = 2) -> None:
        nonlocal y
        for line in wrapped(words, size, width):
            if y + size > bottom:
                return
            shapes.append(Text(x, y, line, size, colour, bold))
            y += size + gap

    write(view.title, 15, HIGHLIGHT, bold=True, gap=8)
    for line in view.status:
        write(line, 13, INK, gap=5)
    y += 6
    write("scores  " + "   ".join(f"player_{s.seat} {s.score}" for s in view.seats), 12, DIM_INK, gap=8)
    if view.selected:
        write("selected: " + " ".join(view.selected), 12, HIGHLIGHT, gap=8)
    if view.events is not None:
        y += 4
        write("recent events", 12, DIM_INK, bold=True, gap=6)
        lines: list[str] = []
        for event in reversed(view.events):
            more = wrapped(event, 12, width)
            if y + (len(lines) + len(more)) * 16 > bottom:
                break
            lines[:0] = more
        for line in lines:
            shapes.append(Text(x, y, line, 12, INK))
            y += 16
    return shapes
