"""The rules engine of "Cut!" (cut_v0), per the rules in docs/cut.md (C-01 … C-17).

A pure state machine: :class:`CutState` with ``current_player``,
``legal_action_mask()``, ``apply(action)``, ``is_terminal`` and the scores.

Every decision is its own step of one flat action table: a turn (draw or call Cut!),
the drawn card (discard it or place it into a slot), each step of a power (5, 6, Q, K:
pick a slot, pick a target, and for the King swap or keep), every player's decision in
a match window (pass, match an own slot, call out an opponent's slot) and a successful
caller's give.

Environment rules where the source leaves a choice (docs/cut.md explains them):

* C-03: every player sees their bottom row, slots 2 and 3 (all four are interchangeable
  before any is seen, so a fixed pair carries no information).
* Match windows (C-08): every player decides, one at a time, clockwise from the player
  whose turn it is — a player with no card too (pass or call out). The attempts resolve
  in an order drawn from the game's RNG. A successful call-out pauses the resolution
  for the caller's give; the attempts still pending then fail as too late. An attempt
  whose claimed card has left its slot before it resolves is late without anything
  being shown (the slot may hold a given or penalty card by then, which the attempt
  never claimed). When a window closes without a success, the turn passes to the next
  player clockwise from the player whose turn it was.
* An attempt (match or call-out) is legal only while the attempting hand has an empty
  slot or fewer than ``max_hand_slots`` slots, so a penalty card always fits.
* A power with nothing to act on (a 5 with no own occupied slot, a 6 with no occupied
  opponent slot, a Q or K lacking either) does not fire. The player may decline a power
  at every step before it takes effect; the King's last step is swap or keep.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from cardenv.core.actions import ActionTable
from cardenv.core.cards import JACK, KING, QUEEN, RANK_NAMES, points_table, standard_deck
from cardenv.core.events import PUBLIC
from cardenv.core.reaction import PASS, ReactionWindow
from cardenv.core.table import EMPTY
from cardenv.engine.options import SlotGameConfig
from cardenv.engine.rounds import RoundResult
from cardenv.engine.slots import SlotGameState, mark_occupied_slots, occupied_slot_run
from cardenv.engine.table_view import DISCARD_PILE, DRAW_PILE

CALLER_PENALTY = 10  # C-16
FIVE = RANK_NAMES.index("5")
SIX = RANK_NAMES.index("6")


def _points(card_type: int) -> int:
    """C-02: A = 1, 2–10 face value, J = 0, Q = K = 20."""
    rank = card_type >> 2
    if rank >= 13:
        raise ValueError("no jokers in Cut!")
    if rank == JACK:
        return 0
    if rank >= QUEEN:
        return 20
    return rank + 1


POINTS = points_table(_points)


class Phase(IntEnum):
    TURN = 0  # draw or call Cut! (C-05, C-14)
    DRAWN = 1  # a drawn card is held: discard it or place it (C-06)
    PEEK_OWN = 2  # 5: look at an own slot (C-10)
    PEEK_OTHER = 3  # 6: look at an opponent's slot (C-10)
    QUEEN_OWN = 4  # Q: pick an own slot (C-10)
    QUEEN_TARGET = 5  # Q: pick an opponent's slot; the blind swap happens (C-10)
    KING_OWN = 6  # K: pick an own slot (C-10)
    KING_TARGET = 7  # K: pick an opponent's slot; both cards are seen (C-10)
    KING_DECIDE = 8  # K: swap or keep (C-10)
    WINDOW = 9  # a match window is collecting decisions (C-08)
    GIVE = 10  # a successful caller picks the card to give (C-09)
    GAME_OVER = 11


# The phases whose decision picks an own slot / an opponent's slot for a power.
_OWN_SLOT_POWER = {Phase.PEEK_OWN: "peek_own", Phase.QUEEN_OWN: "queen_own", Phase.KING_OWN: "king_own"}
_TARGET_POWER = {Phase.PEEK_OTHER: "peek_other", Phase.QUEEN_TARGET: "queen_target",
                 Phase.KING_TARGET: "king_target"}


@dataclass(frozen=True)
class CutConfig(SlotGameConfig):
    min_players: ClassVar[int] = 2  # C-01
    max_players: ClassVar[int] = 6
    target_score: int = 100  # C-17
    power_on_replace: bool = True  # C-07
    # Shown events since a player's previous decision, measured with heuristic players:
    # at most 8 with 4 players (6 players: 12); windows make everyone decide often.
    recent_events: int = 8
    # One observation piece derived from the cards the observer is shown and the top
    # discard: which slots, own or another player's, hold a card of its rank (what the
    # heuristic works out before it matches or calls out); off by default, so the default
    # observation stays the plain facts.
    match_hints: bool = False


@lru_cache(maxsize=None)
def build_action_table(num_players: int, max_slots: int) -> ActionTable:
    opponents = range(1, num_players)
    table = ActionTable()
    table.add("draw", "draw", "C-05: draw the top card of the deck")
    table.add("cut", "call Cut!", "C-14: call Cut! instead of drawing (once per round)")
    table.add("discard", "discard drawn", "C-06a: discard the drawn card face up (a 5, 6, Q or K fires its power)")
    table.add_slots("replace", "place drawn into slot {slot}", max_slots,
                    "C-06b: put the drawn card into own occupied slot; the card there is discarded")
    table.add_slots("peek_own", "5: look at own slot {slot}", max_slots, "C-10: 5, look at own occupied slot")
    table.add_seat_slots("peek_other", "6: look at opponent +{offset} slot {slot}", opponents, max_slots,
                         "C-10: 6, look at an opponent's occupied slot (seats clockwise from you)")
    table.add_slots("queen_own", "Q: own slot {slot}", max_slots, "C-10: Q, own occupied slot to swap")
    table.add_seat_slots("queen_target", "Q: swap with opponent +{offset} slot {slot}", opponents, max_slots,
                         "C-10: Q, blind swap with an opponent's occupied slot")
    table.add_slots("king_own", "K: own slot {slot}", max_slots, "C-10: K, own occupied slot to look at")
    table.add_seat_slots("king_target", "K: look at opponent +{offset} slot {slot}", opponents, max_slots,
                         "C-10: K, opponent's occupied slot to look at (both cards are then seen)")
    table.add("king_swap", "K: swap", "C-10: K, swap the two cards seen")
    table.add("king_keep", "K: keep", "C-10: K, leave both cards where they are")
    table.add("decline", "decline power", "C-10: decline the power in progress before it takes effect")
    table.add("pass", "pass", "C-08: make no match attempt in this window")
    table.add_slots("match", "match own slot {slot}", max_slots,
                    "C-08: claim own occupied slot has the top card's rank")
    table.add_seat_slots("call_out", "call out opponent +{offset} slot {slot}", opponents, max_slots,
                         "C-08: claim an opponent's occupied slot has the top card's rank")
    table.add_slots("give", "give own slot {slot}", max_slots,
                    "C-09: after a successful call-out, the own card that fills the opponent's empty slot")
    # The window masks (CutState._mask_window_attempts) write every seat's slots, from the
    # decider's own, as one run of ids.
    attempts = [table.first("match"), *table.seat_firsts("call_out").values()]
    if attempts != [attempts[0] + offset * max_slots for offset in range(num_players)]:
        raise AssertionError("the match and call-out ids must lie one after another, seat offset 0 first")
    return table


class CutState(SlotGameState):
    """A game of Cut! in progress."""

    # What each phase asks of the player to act, in words (the text table's "now:" line).
    # Where each kind of action points on the table besides its slot (a front end's click targets).
    action_places = MappingProxyType({"draw": DRAW_PILE, "discard": DISCARD_PILE})
    phase_words = MappingProxyType({
        Phase.TURN: "the start of a turn: draw a card, or call the round's end",
        Phase.DRAWN: "a drawn card is held: put it into a slot, or discard it",
        Phase.PEEK_OWN: "a card's power: look at one of your own cards",
        Phase.PEEK_OTHER: "a card's power: look at an opponent's card",
        Phase.QUEEN_OWN: "the queen's power: pick one of your own cards to exchange unseen",
        Phase.QUEEN_TARGET: "the queen's power: pick an opponent's card; the two are exchanged unseen",
        Phase.KING_OWN: "the king's power: pick one of your own cards to look at",
        Phase.KING_TARGET: "the king's power: pick an opponent's card; both cards are then seen",
        Phase.KING_DECIDE: "the king's power: decide what becomes of the card looked at",
        Phase.WINDOW: "a window is open on the discarded card: answer it with a card of yours of its rank, or pass",
        Phase.GIVE: "your call-out succeeded: pick a card of yours to give into the empty slot",
        Phase.GAME_OVER: "the game is over",
    })

    points = POINTS
    game_name = "cut_v0"
    rules_summary = """\
Cut!, for 2-6 players: keep your hand total low. Everyone adds their total each round;
the game ends when a total reaches the target ({target_score}), lowest wins. Points: A 1, 2-10
face value, J 0, Q/K 20. At the deal you see your own slots 2 and 3.
Your turn: draw (discard the card, or place it into a slot, the card there going to
the pile) or call Cut! (once a round: everyone else has one more turn; the caller adds
10 unless strictly lowest).
Powers of a 5, 6, Q or K reaching the pile, all optional: 5 looks at one of your cards,
6 at an opponent's; Q swaps one of yours with an opponent's, unseen; K looks at both
and may swap them.
Whenever a card lands on the pile a match window opens: each player in turn passes,
matches an own card of that rank, or calls out an opponent's. Wrong or late costs a
penalty card; a successful call-out gives one of your cards to that opponent."""
    event_kinds = SlotGameState.event_kinds + (
        "five", "six", "queen", "king look", "king swap", "king keep", "decline",
        "match", "call out", "failed attempt", "give",
    )

    def __init__(self, config: CutConfig, rng: np.random.Generator, options: dict | None = None):
        self.action_table = build_action_table(config.num_players, config.max_hand_slots)
        # The ids the window masks write on most decisions, looked up once.
        self._pass_id, self._match_id = self.action_table.first("pass"), self.action_table.first("match")
        super().__init__(config, standard_deck(), rng)
        self._reset_round_fields()
        self.starter = 0
        self._start_round(self._scenario(options))

    def _reset_round_fields(self) -> None:
        self.phase = Phase.TURN
        self.turn_player = 0
        # The power in progress: own slot picked, and the opponent's (seat, slot) for the King.
        self.power_own_slot = -1
        self.power_target: tuple[int, int] | None = None
        # The match window: its decisions — PASS or (action, the card claimed) — then
        # the attempts still to resolve.
        self.window: ReactionWindow | None = None
        self.window_rank = -1
        self.window_succeeded = False
        self.pending_attempts: list[tuple[int, tuple[int, int]]] = []
        # After a successful call-out: the opponent's (seat, slot) the caller's give fills.
        self.give_target: tuple[int, int] | None = None
        self._window_targets: tuple[ReactionWindow | None, array] = (None, array("b"))  # see _mask_window_attempts

    @property
    def reaction_window(self) -> ReactionWindow | None:
        return self.window

    def mark_changed(self) -> None:
        """Also forget the window's targets: a change by other means may touch the hands."""
        super().mark_changed()
        self._window_targets = (None, array("b"))

    def _clone_extra(self, other: CutState) -> None:
        other.window = self.window.clone() if self.window is not None else None
        other.pending_attempts = self.pending_attempts.copy()

    # --- rounds ---------------------------------------------------------------------
    def _start_round(self, layout: dict | None) -> None:
        self._deal_round(layout)  # C-03
        previous_starter = self.starter
        self._reset_round_fields()
        if layout and "starter" in layout:
            self.starter = layout["starter"]
        elif self.round_index == 0:  # C-04
            self.starter = self._first_starter()
        else:
            self.starter = (previous_starter + 1) % self.num_players
        self.turn_player = self.current_player = self.starter
        self.log("start", self.starter, text=f"starts round {self.round_index + 1}")

    def _score_round(self, reason: str) -> RoundResult:
        totals = [self._hand_total(p) for p in range(self.num_players)]
        added = list(totals)
        caller = self.caller
        if caller is not None:  # C-16
            strictly_lowest = all(totals[caller] < t for p, t in enumerate(totals) if p != caller)
            if not strictly_lowest:
                added[caller] += CALLER_PENALTY
        return RoundResult(tuple(totals), tuple(added), caller, reason)

    def _end_round(self, reason: str) -> None:
        super()._end_round(reason)
        if self.is_terminal:
            # A round can end inside a window (C-15); nothing of it outlives the game.
            self._reset_round_fields()
            self.phase = Phase.GAME_OVER

    # --- legal actions -------------------------------------------------------------
    def _fill_legal_mask(self, mask: memoryview) -> None:
        at = self.action_table
        p = self.current_player
        phase = self.phase
        if phase == Phase.WINDOW:  # first: most decisions are in windows
            mask[self._pass_id] = 1
            # Every occupied slot is a legal target whether or not it matches: a mask
            # that knew would leak the cards.
            if self._has_room_for_penalty(p):
                self._mask_window_attempts(mask, p)
        elif phase == Phase.TURN:
            mask[at.first("draw")] = 1
            if self.caller is None:
                mask[at.first("cut")] = 1
        elif phase == Phase.DRAWN:
            mask[at.first("discard")] = 1
            self._mask_own_slots(mask, "replace", p)
        elif phase in _OWN_SLOT_POWER:
            self._mask_own_slots(mask, _OWN_SLOT_POWER[phase], p)
            mask[at.first("decline")] = 1
        elif phase in _TARGET_POWER:
            self._mask_opponent_slots(mask, _TARGET_POWER[phase], p)
            mask[at.first("decline")] = 1
        elif phase == Phase.KING_DECIDE:
            mask[at.first("king_swap")] = 1
            mask[at.first("king_keep")] = 1
        elif phase == Phase.GIVE:
            self._mask_own_slots(mask, "give", p)

    def _mask_own_slots(self, mask: memoryview, kind: str, p: int) -> None:
        mark_occupied_slots(mask, self.action_table.first(kind), self.table.hands[p])

    def _mask_opponent_slots(self, mask: memoryview, kind: str, p: int) -> None:
        n = self.num_players
        firsts, hands = self.action_table.seat_firsts(kind), self.table.hands
        for offset in range(1, n):
            mark_occupied_slots(mask, firsts[offset], hands[(p + offset) % n])

    def _mask_window_attempts(self, mask: memoryview, p: int) -> None:
        """Match any own occupied slot, call out any opponent's. No hand changes while a
        window collects decisions, so every seat's occupied slots (seats absolute) are
        found once per window; a decider's ids are that run turned to start at its own
        seat (the match and call-out ids lie one after another, see build_action_table)."""
        window, targets = self._window_targets
        if window is not self.window:
            targets = occupied_slot_run(self.table.hands, self.config.max_hand_slots)
            self._window_targets = (self.window, targets)
        first = self._match_id
        split = p * self.config.max_hand_slots  # where the decider's own seat starts
        after = first + len(targets) - split
        mask[first: after] = targets[split:]
        mask[after: first + len(targets)] = targets[:split]

    def _has_room_for_penalty(self, p: int) -> bool:
        hand = self.table.hands[p]
        return len(hand) < self.config.max_hand_slots or EMPTY in hand

    # --- applying actions -------------------------------------------------------------
    def _apply(self, action: int) -> None:
        spec = self.action_table.specs[action]
        kind, slot = spec.kind, spec.slot
        p = self.current_player
        table = self.table
        target = None if spec.offset is None else (p + spec.offset) % self.num_players
        if kind == "pass" or kind == "match" or kind == "call_out":  # first: most decisions are in windows
            self._decide_in_window(p, PASS if kind == "pass" else action)
        elif kind == "draw":
            self._draw_for(p)
        elif kind == "cut":  # C-14
            self._call(p, "Cut!")
            self._end_turn()
        elif kind == "discard":
            card = table.held[p].pop()
            table.discard_face_up(card)
            self.log("discard", p, (card,), PUBLIC, "discards the drawn {cards}")
            self._after_card_reaches_pile(p, card, fires_power=True)
        elif kind == "replace":
            replaced = self._swap_held_into_slot(p, slot)
            self._after_card_reaches_pile(p, replaced, fires_power=self.config.power_on_replace)  # C-07
        elif kind == "peek_own":
            card = table.card_at(p, slot)
            table.knowledge.reveal(p, card)
            self.log("five", p, (card,), (p,), f"looks at own slot {slot}: {{cards}}", places=((p, slot),))
            self._open_window()
        elif kind == "peek_other":
            card = table.card_at(target, slot)
            table.knowledge.reveal(p, card)
            self.log("six", p, (card,), (p,), f"looks at player_{target} slot {slot}: {{cards}}",
                     places=((target, slot),))
            self._open_window()
        elif kind == "queen_own" or kind == "king_own":
            self.power_own_slot = slot
            self.phase = Phase.QUEEN_TARGET if kind == "queen_own" else Phase.KING_TARGET
        elif kind == "queen_target":
            table.swap_slots(p, self.power_own_slot, target, slot)
            self.log("queen", p, text=f"swaps own slot {self.power_own_slot} blind with player_{target} slot {slot}",
                     places=((p, self.power_own_slot), (target, slot)))
            self.power_own_slot = -1
            self._open_window()
        elif kind == "king_target":
            self.power_target = (target, slot)
            cards = (table.card_at(p, self.power_own_slot), table.card_at(target, slot))
            table.knowledge.reveal(p, cards)
            self.log("king look", p, cards, (p,),
                     f"looks at own slot {self.power_own_slot} and player_{target} slot {slot}: {{cards}}",
                     places=((p, self.power_own_slot), (target, slot)))
            self.phase = Phase.KING_DECIDE
        elif kind == "king_swap" or kind == "king_keep":
            target, target_slot = self.power_target
            if kind == "king_swap":
                table.swap_slots(p, self.power_own_slot, target, target_slot)
            verb = "swaps" if kind == "king_swap" else "keeps"
            self.log("king swap" if kind == "king_swap" else "king keep", p,
                     text=f"{verb} own slot {self.power_own_slot} and player_{target} slot {target_slot}",
                     places=((p, self.power_own_slot), (target, target_slot)))
            self.power_own_slot = -1
            self.power_target = None
            self._open_window()
        elif kind == "decline":
            self.log("decline", p, text="declines the power")
            self.power_own_slot = -1
            self._open_window()
        elif kind == "give":
            self._give(p, slot)
        else:  # pragma: no cover - the action table and this dispatch are built together
            raise AssertionError(kind)

    def _draw_for(self, p: int) -> None:
        if self._draw_to_hold(p):  # C-05; C-15 ends the round when nothing can be drawn
            self.phase = Phase.DRAWN

    def _after_card_reaches_pile(self, p: int, card: int, fires_power: bool) -> None:
        """C-10: the power of a 5, 6, Q or K fires (when it can act on something);
        C-08: the match window opens once the power is resolved."""
        rank = self.table.rank_of(card)
        has_own = self.table.num_occupied(p) > 0
        has_opponent = self.opponent_has_card(p)
        if fires_power and rank == FIVE and has_own:
            self.phase = Phase.PEEK_OWN
        elif fires_power and rank == SIX and has_opponent:
            self.phase = Phase.PEEK_OTHER
        elif fires_power and rank == QUEEN and has_own and has_opponent:
            self.phase = Phase.QUEEN_OWN
        elif fires_power and rank == KING and has_own and has_opponent:
            self.phase = Phase.KING_OWN
        else:
            self._open_window()

    # --- match windows (C-08, C-09) ---------------------------------------------------
    def _open_window(self) -> None:
        """C-08: a window on the top discard; every player decides, clockwise from the
        player whose turn it is (one with no card may still call out or pass)."""
        n = self.num_players
        table = self.table
        players = [(self.turn_player + k) % n for k in range(n)]
        top = table.top_discard
        self.window = ReactionWindow(top, players)
        self.window_rank = table.rank_of(top)
        self.window_succeeded = False
        self.phase = Phase.WINDOW
        self.current_player = players[0]

    def claimed_place(self, player: int, action: int) -> tuple[int, int]:
        """(owner, slot) that ``player``'s window attempt ``action`` claims (C-08)."""
        spec = self.action_table.specs[action]
        owner = player if spec.kind == "match" else (player + spec.offset) % self.num_players
        return owner, spec.slot

    def _decide_in_window(self, p: int, action: int | None) -> None:
        window = self.window
        # An attempt is judged against the card that lay in the claimed slot when it was
        # made (C-09): if that card has left the slot by the time it resolves, it is late.
        if action is None:
            window.decide(p, PASS)
        else:
            window.decide(p, (action, self.table.card_at(*self.claimed_place(p, action))))
        deciding = window.current_player  # None once everyone decided
        if deciding is not None:
            self.current_player = deciding
            return
        self.pending_attempts = window.resolution_order(self.chance)
        self._resolve_attempts()

    def _resolve_attempts(self) -> None:
        """C-09: resolve the pending attempts in their drawn order; pause for a give."""
        table = self.table
        while self.pending_attempts:
            player, (action, claimed) = self.pending_attempts.pop(0)
            owner, slot = self.claimed_place(player, action)
            where = "own" if owner == player else f"player_{owner}"
            if table.card_at(owner, slot) != claimed:
                # An earlier success took the claimed card, or a give or a penalty card
                # filled the emptied slot since: late, and nothing is shown.
                self.log("failed attempt", player, text=f"claims {where} slot {slot}, already gone (too late)",
                         places=((owner, slot),))
            elif table.rank_of(claimed) == self.window_rank and not self.window_succeeded:
                self.window_succeeded = True
                table.take_from_slot(owner, slot)
                table.discard_face_up(claimed)
                if owner == player:
                    self.log("match", player, (claimed,), PUBLIC, f"matches {{cards}} from own slot {slot}",
                             places=((owner, slot),))
                else:
                    self.log("call out", player, (claimed,), PUBLIC,
                             f"calls out {{cards}} from player_{owner} slot {slot}", places=((owner, slot),))
                    if table.num_occupied(player) > 0:  # a caller with no card gives nothing
                        self.give_target = (owner, slot)
                        self.phase = Phase.GIVE
                        self.current_player = player
                        return
                continue
            else:
                table.knowledge.reveal_to_all(claimed)
                correct = table.rank_of(claimed) == self.window_rank
                self.log("failed attempt", player, (claimed,), PUBLIC,
                         f"claims {where} slot {slot} ({'too late' if correct else 'wrong'}), showing {{cards}}",
                         places=((owner, slot),))
            if not self._take_penalty_card(player, table.first_empty_or_new_slot):  # C-09; C-15
                return
        succeeded = self.window_succeeded
        self.window = None
        self.window_rank = -1
        self.window_succeeded = False
        if succeeded:  # C-09: the matched card on top opens a new window
            self._open_window()
        else:
            self._end_turn()

    def _give(self, p: int, slot: int) -> None:
        owner, owner_slot = self.give_target
        card = self.table.take_from_slot(p, slot)
        self.table.put_in_slot(owner, owner_slot, card)
        self.log("give", p, (card,), (p,) if self.table.knowledge.knows(p, card) else (),
                 f"gives own slot {slot} {{cards}} to player_{owner} slot {owner_slot}",
                 places=((p, slot), (owner, owner_slot)))
        self.give_target = None
        self.phase = Phase.WINDOW
        self._resolve_attempts()

    def _end_turn(self) -> None:
        p = self.turn_player
        if self._count_turn_and_continue(p):  # C-14, C-15
            self.turn_player = self.current_player = (p + 1) % self.num_players
            self.phase = Phase.TURN

    # --- rendering ------------------------------------------------------------------------
    def status_details(self) -> list[str]:
        details = [f"turn of player_{self.turn_player}"]
        if self.window is not None:
            # Whether others decided is public; what they decided is not, so it is never shown.
            details.append(f"match window on rank {RANK_NAMES[self.window_rank]}")
        if self.give_target is not None:
            details.append(f"give into player_{self.give_target[0]} slot {self.give_target[1]}")
        return details
