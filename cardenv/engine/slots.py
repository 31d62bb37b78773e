"""Slot mechanics: the game state of every slot-and-pile ruleset (:class:`SlotGameState`:
grids of face-down slots, a draw pile and a discard pile; dealing and the bottom-row
peek, calls and their final lap, drawing, penalty cards, swapping a held card into a
slot, turn counting and round scoring) and the legal-mask helpers for slots."""

from __future__ import annotations

from array import array
from collections.abc import Callable

import numpy as np

from cardenv.core.chance import Chance
from cardenv.core.events import PUBLIC
from cardenv.core.table import EMPTY
from cardenv.engine import text
from cardenv.engine.options import MAX_HAND_SLOTS_LIMIT
from cardenv.engine.rounds import GameState, RoundResult
from cardenv.engine.scenarios import layout_from_options
from cardenv.engine.table_view import TableView, slot_table_view

_ONES = memoryview(b"\x01" * MAX_HAND_SLOTS_LIMIT).cast("b")  # a run of legal ids, for mark_occupied_slots
_ONE_RUN = array("b", _ONES)  # the same, for occupied_slot_run


def mark_occupied_slots(mask: memoryview, first: int, hand: list[int]) -> None:
    """Mark ``first + s`` legal in ``mask`` (a legal mask as a memoryview) for every
    occupied slot ``s`` of ``hand``: a full hand in one slice assignment, which costs
    about half the loop over its slots."""
    if EMPTY not in hand and len(hand) <= len(_ONES):
        mask[first: first + len(hand)] = _ONES[: len(hand)]
        return
    for s, card in enumerate(hand):
        if card != EMPTY:
            mask[first + s] = 1


def occupied_slot_run(hands: list[list[int]], num_slots: int) -> array:
    """Every seat's slots one after another, ``num_slots`` per seat (seats absolute): 1
    where a slot holds a card, 0 for an empty or missing slot. Slices of it go straight
    into a legal mask's memoryview (same item type, int8)."""
    run = array("b", bytes(len(hands) * num_slots))
    for p, hand in enumerate(hands):
        start = p * num_slots
        if EMPTY not in hand and len(hand) <= num_slots:
            run[start: start + len(hand)] = _ONE_RUN[: len(hand)]  # a full hand in one slice
            continue
        for s, card in enumerate(hand):
            if card != EMPTY:
                run[start + s] = 1
    return run


class SlotGameState(GameState):
    """A slot-and-pile game in progress: rounds of play until a cumulative total reaches
    the target.

    Subclasses provide ``action_table``, ``points``, ``phase``, ``_fill_legal_mask(mask)``,
    ``_apply(action)``, ``_start_round(layout)`` and ``_score_round(reason)``; they call
    ``_end_round`` when a round is over. The turn bookkeeping every such game has (turns
    played, the call in progress and its final lap) lives here.
    """

    # Every kind of event the ruleset logs, in a fixed order (the observation one-hot).
    event_kinds: tuple[str, ...] = ("start", "peek", "call", "draw", "penalty", "swap", "discard", "round end")
    # Kinds the observation's event piece leaves out because the rules and the events
    # that follow imply them: a round starts with every player seeing their bottom row,
    # and a draw is always followed, before anyone else decides, by what became of the
    # drawn card (or by the round's end).
    implied_event_kinds: tuple[str, ...] = ("start", "peek", "draw")

    def __init__(self, config, deck: np.ndarray, rng: np.random.Generator | Chance):
        super().__init__(config, config.deck_types(deck), rng)
        self.caller: int | None = None
        self.final_turns_left = 0

    def opponent_has_card(self, player: int) -> bool:
        """Whether any other player holds a card (a power aimed at an opponent needs one)."""
        return any(self.table.num_occupied(q) for q in range(self.num_players) if q != player)

    # --- rounds and turns ----------------------------------------------------------------
    def _scenario(self, options: dict | None) -> dict | None:
        """Check and parse the scenario of ``reset(options=...)`` against this config,
        take its starting scores, and return the layout of the first round."""
        config = self.config
        layout = layout_from_options(options, self.num_players, max_hand_slots=config.max_hand_slots,
                                     score_bounds=(0, config.target_score - 1,
                                                   f"below target_score={config.target_score}"))
        if layout and "scores" in layout:
            self.scores = list(layout["scores"])
        return layout

    def _deal_round(self, layout: dict | None) -> None:
        """Deal a round (or lay out the scenario) and let every player see their own
        bottom row; reset the turn bookkeeping."""
        table = self.table
        if layout and "hands" in layout:  # checked against max_hand_slots by _scenario
            table.arrange(self.chance, layout["hands"], layout["draw_pile"], layout["discard_pile"])
        else:
            table.gather_and_shuffle(self.chance)
            # An eliminated seat gets no cards.
            table.deal(self.config.initial_slots, self.seats_in_play(), self.chance)
        peeked_slots = self.config.peeked_slots
        for p in self.seats_in_play():
            hand = table.hands[p]
            slots = [s for s in peeked_slots if table.is_occupied(p, s)]
            peeked = tuple([hand[s] for s in slots])
            table.knowledge.reveal(p, peeked)
            self.log("peek", p, peeked, (p,), "sees own bottom row: {cards}", places=tuple([(p, s) for s in slots]))
        self.turns_completed = 0
        self.caller = None
        self.final_turns_left = 0

    def _first_starter(self) -> int:
        """The seat that starts round 1 in the rulesets whose starter is not the dealer's
        neighbour: the ``first_starter`` option, or drawn at random."""
        first = self.config.first_starter
        return first if first >= 0 else self.chance.seat(self.num_players, "the starter")

    def _call(self, player: int, call_name: str) -> None:
        """``player`` calls the end of the round: every other player has one final turn."""
        self.caller = player
        self.final_turns_left = self.num_players - 1
        self.log("call", player, text=f"calls {call_name}")

    def _draw_to_hold(self, player: int) -> bool:
        """``player`` draws a card that only they see and holds it; when no card can be
        drawn even after a reshuffle the round ends and this returns False."""
        card = self.table.draw(self.chance)
        if card is None:
            self._end_round("no card can be drawn")
            return False
        self.table.held[player].append(card)
        self.table.knowledge.reveal(player, card)
        self.log("draw", player, (card,), (player,), "draws {cards}")
        return True

    def _take_penalty_card(self, player: int, place: Callable[[int, int], int]) -> bool:
        """``player`` takes a penalty card face down (nobody sees it), put where ``place``
        (a table method: player, card -> slot) says; when no card can be drawn even after
        a reshuffle the round ends and this returns False."""
        penalty = self.table.draw(self.chance)
        if penalty is None:
            self._end_round("no card can be drawn")
            return False
        slot = place(player, penalty)
        self.log("penalty", player, (penalty,), (), f"takes a penalty card {{cards}} into slot {slot}",
                 places=((player, slot),))
        return True

    def _swap_held_into_slot(self, player: int, slot: int) -> int:
        """The card ``player`` holds goes into an occupied slot of theirs; the card there
        goes face up onto the discard pile and is returned."""
        table = self.table
        held = table.held[player].pop()
        replaced = table.replace_in_slot(player, slot, held)
        table.discard_face_up(replaced)
        self.log("swap", player, (held,), (player,), f"puts the drawn {{cards}} into slot {slot}",
                 places=((player, slot),))
        self.log("discard", player, (replaced,), PUBLIC, f"discards {{cards}} from slot {slot}",
                 places=((player, slot),))
        return replaced

    def _count_turn_and_continue(self, turn_player: int) -> bool:
        """Count ``turn_player``'s finished turn; end the round when the final lap after
        a call is over or the turn cap is reached. Returns whether the round goes on."""
        self.turns_completed += 1
        if self.caller is not None and turn_player != self.caller:
            self.final_turns_left -= 1
        if self.caller is not None and self.final_turns_left == 0:
            self._end_round("the final lap after the call is over")
            return False
        if self.turns_completed >= self.config.max_turns_per_round:
            self._end_round(RoundResult.TURN_CAP)
            return False
        return True

    # --- rounds and scores ---------------------------------------------------------------
    def _end_round(self, reason: str) -> None:
        result = self._score_round(reason)
        self.round_results.append(result)
        for p, points in enumerate(result.points_added):
            self.scores[p] += points
        hands = [self.table.cards_in_hand(p) for p in range(self.num_players)]
        self.table.knowledge.reveal_to_all([c for hand in hands for c in hand])
        self._log_round_end(reason, hands, [f"hand {total}, adds {points}" for total, points
                                            in zip(result.hand_totals, result.points_added)])
        self._next_round_unless(self._round_ends_game())

    def _round_ends_game(self) -> bool:
        """Whether the round just scored ends the game: by default once a cumulative
        total reaches the target. A ruleset with an elimination variant eliminates here."""
        return max(self.scores) >= self.config.target_score

    # --- rendering ------------------------------------------------------------------------
    game_name = "card game"

    def table_view(self, viewer: int | None, memory: str = "perfect", recent_events: int = 8) -> TableView:
        """The table as ``viewer`` sees it (``None``: every card shown), as a record."""
        return slot_table_view(self, viewer, memory, recent_events)

    def render_text(self, viewer: int | None, memory: str = "perfect", recent_events: int = 8) -> str:
        """A text table of the game as ``viewer`` sees it (``None``: every card shown)."""
        return text.slot_table_text(self.table_view(viewer, memory, recent_events))

    def status_details(self) -> list[str]:
        """The ruleset's own facts for the status line (:func:`cardenv.engine.table_view.slot_status_lines`)."""
        return []
