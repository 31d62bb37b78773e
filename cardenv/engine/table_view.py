"""The table as one viewer sees it, as a record: what the text rendering writes and the
drawn table draws (``cardenv.drawing``), built once per ruleset family from the state.

A card the viewer may not know has no name (it is drawn face down, written ``??``); a
card's ``knowers`` are the players who know it (written ``(n)`` after it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

SlotGameState = Any  # a cardenv.engine.slots.SlotGameState


@dataclass(frozen=True)
class CardView:
    """One card: its name, or None where the viewer may not know it; who knows it."""

    name: str | None
    knowers: tuple[int, ...] = ()


@dataclass(frozen=True)
class PileView:
    """A pile: its name in the ruleset's words, how many cards it holds, its top card where
    that is face up (the discard pile's), and a note (``pile turned over``)."""

    name: str
    count: int
    top: CardView | None = None
    note: str = ""


@dataclass(frozen=True)
class SeatView:
    """One seat: its score and cards. ``cards`` are a slot game's slots in order (None: an
    empty slot) or a hand (the cards the viewer knows first, in type order); ``held`` the
    cards it holds apart (a slot game's drawn card); ``flags`` the ruleset's words for its
    state (a rummy's ``started``, say)."""

    seat: int
    score: int
    cards: tuple[CardView | None, ...]
    held: tuple[CardView, ...] = ()
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableView:
    """The whole table for ``viewer`` (None: every card shown)."""

    game_name: str
    round_number: int
    viewer: int | None
    to_act: int | None
    game_over: bool
    status: tuple[str, ...]  # whose turn, the ruleset's facts (an open window), what the phase asks
    draw: PileView
    discard: PileView
    seats: tuple[SeatView, ...]
    slots: bool  # the cards are numbered slots of a grid (else a hand)
    melds: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (owner, the cards in words) per meld on the table
    selected: tuple[str, ...] = ()  # the cards the player to act has selected, where the viewer may see them
    events: tuple[str, ...] | None = None  # the recent events as the viewer saw them, oldest first (None: not asked)

    @property
    def title(self) -> str:
        view = "omniscient view" if self.viewer is None else f"view of player_{self.viewer}"
        return f"{self.game_name} — round {self.round_number}, {view}"


# Where on the table an action points: the place a person clicks to take it (a key the drawn
# scene gives that place, see ``GameState.action_target``), or None for a choice with no
# place (a button: pass, call, confirm).
DRAW_PILE = "draw pile"
DISCARD_PILE = "discard pile"


def slot_target(seat: int, slot: int) -> str:
    """The place of a seat's slot (a slot game's card)."""
    return f"player_{seat} slot {slot}"


def card_target(seat: int, name: str) -> str:
    """The place of every card of type ``name`` in a seat's hand (a hand game's card)."""
    return f"player_{seat} card {name}"


def meld_target(meld: int) -> str:
    """The place of a meld on the table (its index among the melds)."""
    return f"meld {meld}"


def seat_name(seat: int, viewer: int | None) -> str:
    """``player_2``, or ``player_2 (you)`` for the viewer's own seat."""
    return f"player_{seat} (you)" if seat == viewer else f"player_{seat}"


def shown_cards(state: SlotGameState, viewer: int | None, memory: str) -> np.ndarray:
    """Per physical card, whether ``viewer`` may know it under ``memory``."""
    table = state.table
    return np.ones(table.num_cards, dtype=bool) if viewer is None else table.knowledge.shown_to(viewer, memory)


def slot_table_view(state: SlotGameState, viewer: int | None, memory: str = "perfect",
                    recent_events: int = 8) -> TableView:
    """The view of a slot-and-pile game (:class:`cardenv.engine.slots.SlotGameState`)."""
    viewer = state.checked_seat("viewer", viewer, none_means="every card shown")
    table = state.table
    shown = shown_cards(state, viewer, memory)
    known = table.knowledge.known
    players = range(state.num_players)

    def card(c: int) -> CardView:
        return CardView(state.card_name(c) if shown[c] else None, tuple(q for q in players if known[q, c]))

    seats = tuple(SeatView(p, state.scores[p], tuple(None if c < 0 else card(c) for c in table.hands[p]),
                           tuple(CardView(state.card_name(c) if shown[c] else None) for c in table.held[p]))
                  for p in players)
    top = table.top_discard
    return TableView(
        game_name=state.game_name, round_number=state.round_index + 1, viewer=viewer,
        to_act=state.current_player, game_over=state.is_terminal, status=tuple(slot_status_lines(state, viewer)),
        draw=PileView("draw pile", len(table.draw_pile)),
        discard=PileView("discard pile", len(table.discard_pile), None if top is None else CardView(state.card_name(top))),
        seats=seats, slots=True,
        events=tuple(state.describe_events(viewer, recent_events)) if recent_events else None)


def slot_status_lines(state: SlotGameState, viewer: int | None = None) -> list[str]:
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
