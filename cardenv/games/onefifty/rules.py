"""The rules engine of "150" (onefifty_v0), per the rules in docs/onefifty.md (O-01 … O-23).

A pure state machine: :class:`OneFiftyState` with ``current_player``,
``legal_action_mask()``, ``apply(action)``, ``is_terminal`` and the scores. Each
multi-step choice is its own decision (select slots then confirm a match; Jack: own
slot, then an opponent's slot), so one flat action table covers the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache, partial
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from cardenv.core import validation
from cardenv.core.actions import ActionTable
from cardenv.core.cards import IS_RED, JACK, KING, QUEEN, TEN, points_table, standard_deck
from cardenv.core.events import PUBLIC
from cardenv.core.scoring import first_clockwise_after, lowest
from cardenv.core.table import EMPTY
from cardenv.engine.options import INITIAL_SLOTS, SlotGameConfig
from cardenv.engine.rounds import RoundResult
from cardenv.engine.slots import SlotGameState, mark_occupied_slots
from cardenv.engine.table_view import DISCARD_PILE, DRAW_PILE


def _points(card_type: int) -> int:
    """O-02: A = 1, 2–9 face value, red 10 = 0, black 10 = 10, J/Q/K = 20."""
    rank = card_type >> 2
    if rank >= 13:
        raise ValueError("no jokers in 150")
    if rank == TEN:
        return 0 if IS_RED[card_type] else 10
    if rank >= JACK:
        return 20
    return rank + 1


POINTS = points_table(_points)


class Phase(IntEnum):
    MAIN = 0  # choose the turn's main action (O-07 … O-10)
    MATCH_SELECT = 1  # select more slots, or confirm the match (O-07)
    DRAWN = 2  # a drawn card is held: swap it in or discard it (O-08)
    JACK_OWN = 3  # Jack: pick own slot (O-11)
    JACK_TARGET = 4  # Jack: pick an opponent's slot (O-11)
    QUEEN_PEEK = 5  # Queen: pick own slot to look at (O-12)
    AFTER_ACTION = 6  # call END or pass (O-10a)
    GAME_OVER = 7


@dataclass(frozen=True)
class OneFiftyConfig(SlotGameConfig):
    min_players: ClassVar[int] = 3  # O-01
    max_players: ClassVar[int] = 6
    target_score: int = 150  # O-22
    max_hand_slots: int = 12
    # Shown events since a player's previous decision, measured with heuristic players:
    # 99% of decisions see at most 12 with 4 players (3: 10, 6: 17); older ones drop out first.
    recent_events: int = 12
    # One observation piece derived from the observer's own shown cards and the top
    # discard: which own slots hold a card of its rank (what the heuristic works out
    # before it matches); off by default, so the default observation stays the plain facts.
    match_hints: bool = False

    @classmethod
    def option_checks(cls):
        # Also one card each (seen, as the lower row of a one-card grid): with three
        # players at least (O-01), a deal of two each has 5,040 orders even from seven
        # cards, too many for the mini variant's tree (the ruleset's mini.py).
        return {**super().option_checks(),
                "initial_slots": partial(validation.choice, options=(INITIAL_SLOTS, 2, 1))}


@lru_cache(maxsize=None)
def build_action_table(num_players: int, max_slots: int) -> ActionTable:
    """The action table of one configuration (shared by every state: never mutate it)."""
    table = ActionTable()
    table.add_slots("match_select", "match select slot {slot}", max_slots,
                    "O-07: add own occupied slot to a match (starts or extends the selection)")
    table.add("match_confirm", "match confirm", "O-07: reveal the selected slots against the top discard")
    table.add("draw", "draw", "O-08: draw from the draw pile")
    table.add_slots("take", "take discard into slot {slot}", max_slots,
                    "O-09: take the top discard into own occupied slot; the replaced card is discarded")
    table.add("call", "call END", "O-10: call the end of the round (as the main action or after it)")
    table.add("pass", "pass", "O-10a: end the turn without calling")
    table.add_slots("swap", "swap drawn into slot {slot}", max_slots,
                    "O-08: put the drawn card into own occupied slot; the replaced card is discarded")
    table.add("discard", "discard drawn", "O-08: discard the drawn card (a J/Q/K fires its power)")
    table.add_slots("jack_own", "jack: give own slot {slot}", max_slots, "O-11: own slot to trade")
    table.add_seat_slots("jack_target", "jack: take opponent +{offset} slot {slot}", range(1, num_players),
                         max_slots, "O-11: opponent (seats clockwise from you) and slot to trade with")
    table.add_slots("queen_peek", "queen: peek own slot {slot}", max_slots, "O-12: look at own occupied slot")
    return table


class OneFiftyState(SlotGameState):
    """A game of 150 in progress."""

    # What each phase asks of the player to act, in words (the text table's "now:" line).
    # Where each kind of action points on the table besides its slot (a front end's click targets).
    action_places = MappingProxyType({"draw": DRAW_PILE, "discard": DISCARD_PILE})
    phase_words = MappingProxyType({
        Phase.MAIN: "the start of a turn: choose the turn's main action",
        Phase.MATCH_SELECT: "a match in progress: select more of your slots, or confirm the match",
        Phase.DRAWN: "a drawn card is held: put it into a slot, or discard it",
        Phase.JACK_OWN: "the jack's power: pick one of your own cards to give",
        Phase.JACK_TARGET: "the jack's power: pick the opponent's card to take",
        Phase.QUEEN_PEEK: "the queen's power: look at one of your own cards",
        Phase.AFTER_ACTION: "the turn's action is done: call the round's end, or pass",
        Phase.GAME_OVER: "the game is over",
    })

    points = POINTS
    event_kinds = SlotGameState.event_kinds + ("take", "match", "failed match", "jack", "queen")

    def __init__(self, config: OneFiftyConfig, rng: np.random.Generator, options: dict | None = None):
        self.action_table = build_action_table(config.num_players, config.max_hand_slots)
        self.first_ids = self.action_table.first_ids
        super().__init__(config, standard_deck(), rng)
        self.phase = Phase.MAIN
        self.starter = 0
        self.selected: list[int] = []
        self.jack_slot = -1
        self._start_round(self._scenario(options))

    game_name = "onefifty_v0"
    rules_summary = """\
150, for 3-6 players: keep your hand total low. At a round's end the points are added
to your score; the game ends when a score reaches the target ({target_score}), lowest wins.
Points: A 1, 2-9 face value, red 10 0, black 10 10, J/Q/K 20. At the deal you see your
own slots 2 and 3.
Your turn is one main action, then call END or pass: match (select your cards of the
top discard's rank, then confirm; a wrong match shows them and costs a penalty card),
draw (swap the card into a slot, the card there is discarded, or discard it), or take
the top discard into a slot.
Powers, only for a J/Q/K you draw and discard: J trades one of your cards with an
opponent's, Q peeks at one of yours, K draws again.
After END every other player has one more turn. A caller strictly lowest adds 0 and
everyone else their total; otherwise the caller adds double and those below add 0."""
    selection_kinds = frozenset({"match_select"})

    def status_details(self) -> list[str]:
        return [f"selected slots {self.selected}"] if self.selected else []

    def _clone_extra(self, other: OneFiftyState) -> None:
        other.selected = self.selected.copy()

    # --- rounds ---------------------------------------------------------------------
    def _start_round(self, layout: dict | None) -> None:
        self._deal_round(layout)  # O-04, O-05
        if layout and "starter" in layout:
            self.starter = layout["starter"]
        elif self.round_index == 0:  # O-06
            self.starter = self._first_starter()
        else:
            self.starter = first_clockwise_after(lowest(self.scores), self.starter, self.num_players)
        self.current_player = self.starter
        self.phase = Phase.MAIN
        self.selected = []
        self.jack_slot = -1
        self.log("start", self.starter, text=f"starts round {self.round_index + 1}")

    def _score_round(self, reason: str) -> RoundResult:
        totals = [self._hand_total(p) for p in range(self.num_players)]
        caller = self.caller
        if caller is not None:  # O-19
            caller_total = totals[caller]
            if all(t > caller_total for p, t in enumerate(totals) if p != caller):
                added = [0 if p == caller else t for p, t in enumerate(totals)]
            else:
                added = [2 * t if p == caller else (0 if t < caller_total else t) for p, t in enumerate(totals)]
        else:  # O-20
            best = min(totals)
            added = [0 if t == best else t for t in totals]
        return RoundResult(tuple(totals), tuple(added), caller, reason)

    def _end_round(self, reason: str) -> None:
        self.phase = Phase.MAIN
        self.selected = []
        super()._end_round(reason)
        if self.is_terminal:
            self.phase = Phase.GAME_OVER

    # --- legal actions -------------------------------------------------------------
    def _fill_legal_mask(self, mask: memoryview) -> None:
        table = self.table
        first = self.first_ids  # looked up once per table: masks are built at every move
        p = self.current_player
        hand = table.hands[p]
        phase = self.phase
        if phase == Phase.MAIN:
            if table.discard_pile:
                if len(hand) < self.config.max_hand_slots:  # room for a penalty slot
                    mark_occupied_slots(mask, first.match_select, hand)
                mark_occupied_slots(mask, first.take, hand)
            mask[first.draw] = 1
            if self.caller is None:
                mask[first.call] = 1
        elif phase == Phase.MATCH_SELECT:
            match_select = first.match_select
            for s, card in enumerate(hand):
                if card != EMPTY and s not in self.selected:
                    mask[match_select + s] = 1
            mask[first.match_confirm] = 1
        elif phase == Phase.DRAWN:
            mark_occupied_slots(mask, first.swap, hand)
            mask[first.discard] = 1
        elif phase == Phase.JACK_OWN or phase == Phase.QUEEN_PEEK:
            mark_occupied_slots(mask, first.jack_own if phase == Phase.JACK_OWN else first.queen_peek, hand)
        elif phase == Phase.JACK_TARGET:
            n = self.num_players
            firsts = self.action_table.seat_firsts("jack_target")
            for offset in range(1, n):
                mark_occupied_slots(mask, firsts[offset], table.hands[(p + offset) % n])
        elif phase == Phase.AFTER_ACTION:
            mask[first.pass_] = 1
            if self.caller is None:
                mask[first.call] = 1

    # --- applying actions -------------------------------------------------------------
    def _apply(self, action: int) -> None:
        spec = self.action_table.specs[action]
        kind, slot = spec.kind, spec.slot
        p = self.current_player
        table = self.table
        if kind == "match_select":
            self.selected.append(slot)
            self.phase = Phase.MATCH_SELECT
        elif kind == "match_confirm":
            self._confirm_match(p)
        elif kind == "draw":
            self._draw_for(p)
        elif kind == "take":
            taken = table.discard_pile.pop()
            replaced = table.replace_in_slot(p, slot, taken)
            table.discard_face_up(replaced)
            self.log("take", p, (taken,), PUBLIC, f"takes the top discard {{cards}} into slot {slot}",
                     places=((p, slot),))
            self.log("discard", p, (replaced,), PUBLIC, f"discards {{cards}} from slot {slot}", places=((p, slot),))
            self._after_main_action()
        elif kind == "call":
            self._call(p, "END")
            self._end_turn()
        elif kind == "pass":
            self._end_turn()
        elif kind == "swap":
            self._swap_held_into_slot(p, slot)
            self._after_main_action()
        elif kind == "discard":
            self._discard_drawn(p)
        elif kind == "jack_own":
            self.jack_slot = slot
            self.phase = Phase.JACK_TARGET
        elif kind == "jack_target":
            target = (p + spec.offset) % self.num_players
            table.swap_slots(p, self.jack_slot, target, slot)
            received = table.hands[p][self.jack_slot]
            table.knowledge.reveal(p, received)  # O-11: the trader sees what they took
            self.log("jack", p, (received,), (p,),
                     f"trades own slot {self.jack_slot} with player_{target} slot {slot}, receiving {{cards}}",
                     places=((p, self.jack_slot), (target, slot)))
            self.jack_slot = -1
            self._after_main_action()
        elif kind == "queen_peek":
            card = table.hands[p][slot]
            table.knowledge.reveal(p, card)
            self.log("queen", p, (card,), (p,), f"peeks at own slot {slot}: {{cards}}", places=((p, slot),))
            self._after_main_action()
        else:  # pragma: no cover - the action table and this dispatch are built together
            raise AssertionError(kind)

    def _draw_for(self, p: int) -> None:
        if self._draw_to_hold(p):  # O-08; O-17 ends the round when nothing can be drawn
            self.phase = Phase.DRAWN

    def _discard_drawn(self, p: int) -> None:
        table = self.table
        card = table.held[p].pop()
        table.discard_face_up(card)
        self.log("discard", p, (card,), PUBLIC, "discards the drawn {cards}")
        rank = table.rank_of(card)
        # A power with nothing to act on is skipped (only a stacked scenario can leave a
        # live player with an empty hand, or every opponent's hand empty).
        has_own = table.num_occupied(p) > 0
        if rank == JACK and has_own and self.opponent_has_card(p):
            self.phase = Phase.JACK_OWN  # O-11
        elif rank == QUEEN and has_own:
            self.phase = Phase.QUEEN_PEEK  # O-12
        elif rank == KING:  # O-13: draw again, resolved as a fresh draw
            self._draw_for(p)
        else:
            self._after_main_action()

    def _confirm_match(self, p: int) -> None:
        table = self.table
        top_rank = table.rank_of(table.top_discard)
        cards = [table.hands[p][s] for s in self.selected]
        slots = self.selected
        self.selected = []
        if all(table.rank_of(c) == top_rank for c in cards):
            for s in slots:
                table.discard_face_up(table.take_from_slot(p, s))
            self.log("match", p, tuple(cards), PUBLIC, f"matches {{cards}} from slots {slots}",
                     places=tuple((p, s) for s in slots))
            if table.num_occupied(p) == 0:  # O-16
                self._end_round("a match emptied a hand")
                return
        else:
            table.knowledge.reveal_to_all(cards)
            self.log("failed match", p, tuple(cards), PUBLIC, f"fails a match, showing {{cards}} from slots {slots}",
                     places=tuple((p, s) for s in slots))
            if not self._take_penalty_card(p, table.append_slot):  # O-07: a new slot; O-17
                return
        self._after_main_action()

    def _after_main_action(self) -> None:
        # O-10a: with a call in progress, passing is the only choice, so it is not asked.
        if self.caller is None:
            self.phase = Phase.AFTER_ACTION
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        p = self.current_player
        if self._count_turn_and_continue(p):  # O-15, O-18
            self.current_player = (p + 1) % self.num_players
            self.phase = Phase.MAIN
