"""Text rendering of a slot-and-pile game (the ``ansi`` render mode, ``cardenv play`` and
the HTML replay): the table as one viewer sees it (:mod:`cardenv.engine.table_view`), a
status line in words, and the recent events. A card a viewer may not know shows as ``??``;
``(n)`` after a card names the players who know it."""

from __future__ import annotations

from cardenv.engine.table_view import CardView, SeatView, TableView, seat_name


def slot_table_text(view: TableView) -> str:
    """The text table of a slot game's view: the status line, the piles, every seat's slots
    and held cards, the recent events."""
    top = view.discard.top
    piles = (f"{view.draw.name} {view.draw.count} | {view.discard.name} {view.discard.count}"
             f" | top discard {top.name if top is not None else '--'}")
    lines = [view.title, *view.status, piles]
    lines += [seat_line(seat, view) for seat in view.seats]
    lines.append("(n) after a card: the players who know it")
    if view.events is not None:
        lines.append("recent events:")
        lines += ["  " + line for line in view.events]
    return "\n".join(lines)


def card_text(card: CardView) -> str:
    """``KS``, ``??`` where the viewer may not know it, then ``(knowers)``."""
    knowers = "".join(str(q) for q in card.knowers)
    return (card.name or "??") + (f"({knowers})" if knowers else "")


def seat_line(seat: SeatView, view: TableView) -> str:
    """A seat's score, slots (``??`` where the viewer may not know the card) and held cards."""
    cells = [f"{s}:--" if card is None else f"{s}:{card_text(card)}" for s, card in enumerate(seat.cards)]
    cells += [f"holding:{card.name or '??'}" for card in seat.held]
    marker = "*" if seat.seat == view.to_act else " "
    return f"{marker}{seat_name(seat.seat, view.viewer)} score {seat.score:>3} | " + "  ".join(cells)
