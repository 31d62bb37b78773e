"""Text rendering of a slot-and-pile game (the ``ansi`` render mode, ``cardenv play`` and
the HTML replay): the table as one viewer sees it, a status line in words, and the recent
events. A card a viewer may not know shows as ``??``; ``(n)`` after a card names the
players who know it."""

from __future__ import annotations

from typing import Any

import numpy as np

SlotGameState = Any  # a cardenv.engine.slots.SlotGameState (which renders itself through this module)


def slot_table(state: SlotGameState, viewer: int | None, memory: str = "perfect", recent_events: int = 8) -> str:
    """A text table of the game as ``viewer`` sees it (``None``: every card shown): the
    status line, the piles, every seat's slots and held cards, the recent events."""
    viewer = state.checked_seat("viewer", viewer, none_means="every card shown")
    table = state.table
    shown = np.ones(table.num_cards, dtype=bool) if viewer is None else table.knowledge.shown_to(viewer, memory)
    view = "omniscient view" if viewer is None else f"view of player_{viewer}"
    lines = [f"{state.game_name} — round {state.round_index + 1}, {view}", *status_lines(state, viewer)]
    top = table.top_discard
    lines.append(
        f"draw pile {len(table.draw_pile)} | discard pile {len(table.discard_pile)}"
        f" | top discard {state.card_name(top) if top is not None else '--'}"
    )
    lines += [seat_line(state, p, viewer, shown) for p in range(state.num_players)]
    lines.append("(n) after a card: the players who know it")
    if recent_events:
        lines.append("recent events:")
        lines += ["  " + line for line in state.describe_events(viewer, recent_events)]
    return "\n".join(lines)


def seat_line(state: SlotGameState, p: int, viewer: int | None, shown: np.ndarray) -> str:
    """Seat ``p``'s score, slots (``??`` where the viewer may not know the card) and held cards."""
    table = state.table
    known = table.knowledge.known
    cells = []
    for s, card in enumerate(table.hands[p]):
        if card < 0:
            cells.append(f"{s}:--")
            continue
        name = state.card_name(card) if shown[card] else "??"
        knowers = "".join(str(q) for q in range(state.num_players) if known[q, card])
        cells.append(f"{s}:{name}" + (f"({knowers})" if knowers else ""))
    for card in table.held[p]:
        cells.append(f"holding:{state.card_name(card) if shown[card] else '??'}")
    marker = "*" if p == state.current_player else " "
    you = " (you)" if p == viewer else ""
    return f"{marker}player_{p}{you} score {state.scores[p]:>3} | " + "  ".join(cells)


def status_lines(state: SlotGameState, viewer: int | None = None) -> list[str]:
    """Whose turn it is against the round's cap of turns, the ruleset's own facts
    (``state.status_details()``) and the call in progress; then what the phase asks, in
    words. The ranks once the game is over."""
    if state.is_terminal:
        return ["game over; ranks " + ", ".join(f"player_{p}: {r}" for p, r in enumerate(state.ranks()))]
    line = (f"turn {state.turns_completed + 1} of at most {state.config.max_turns_per_round} this round, "
            f"{seat_name(state.current_player, viewer)} to act")
    line += "".join(f"; {detail}" for detail in state.status_details())
    if state.caller is not None:
        line += f"; player_{state.caller} called, {state.final_turns_left} final turn(s) left"
    return [line, f"now: {state.phase_in_words()}"]


def seat_name(seat: int, viewer: int | None) -> str:
    """``player_2``, or ``player_2 (you)`` for the viewer's own seat."""
    return f"player_{seat} (you)" if seat == viewer else f"player_{seat}"
