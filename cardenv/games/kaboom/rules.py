"""The rules engine of "KABOOM" (kaboom_v0), per the rules in docs/kaboom.md (K-01 … K-19).

A pure state machine: :class:`KaboomState` with ``current_player``,
``legal_action_mask()``, ``apply(action)``, ``is_terminal`` and the scores.

Every decision is its own step of one flat action table: a turn (draw or call KABOOM),
the drawn card (discard it or put it into a slot), each step of a power (pick a slot,
pick a target, and for the black King take, leave or give), every player's decision
in a snap window (pass, or select own slots one by one and confirm), and a successful
snapper's decision to close the gap or leave it.

Environment rules where the rules leave a choice (docs/kaboom.md explains them):

* K-09: every player sees their bottom row, slots 2 and 3.
* K-11: a snap window's deciders are, clockwise from the player whose turn it is, the
  players who hold cards, are not frozen and have room for two penalty cards (K-13);
  a window without such a player does not open.
* K-12: every attempt is judged against the card that opened the window; the cards of a
  successful attempt go onto the pile in the order they were selected.
* K-13: penalty cards go into the first slot after the hand's last card (an emptied slot
  at the end of the hand is reused, a slot between cards never is), else a new slot:
  the rules' "either edge" is always the end, so no card already in a hand changes slot.
  An attempt is legal only while two such places fit within ``max_hand_slots``.
* K-13b: the slide is one decision of the snapper, asked only when some own card lies
  after the emptied slots: close the gap (the cards after it move up, in order) or leave
  it; the next window opens after it.
* K-14: the first caller's lap is the players in play other than the first caller;
  a later caller's call is their final turn.
* K-19: when everyone still in play reaches the target in the same round, those with the
  lowest total win; ranks follow the order in which players went out, then totals.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from cardenv.core.actions import ActionTable
from cardenv.core.cards import IS_RED, JACK, JOKER_RANK, KING, QUEEN, RANK_NAMES, TEN, deck_with_jokers, points_table
from cardenv.core.events import PUBLIC
from cardenv.core.reaction import PASS, ReactionWindow
from cardenv.core.table import EMPTY
from cardenv.engine.options import SlotGameConfig
from cardenv.engine.rounds import RoundResult
from cardenv.engine.slots import SlotGameState
from cardenv.engine.table_view import DISCARD_PILE, DRAW_PILE

SIX, SEVEN, EIGHT, NINE = (RANK_NAMES.index(r) for r in ("6", "7", "8", "9"))
CALL_BONUS = 10  # K-16: per player the caller lost to, or the reward for winning alone
WRONG_SNAP_PENALTY = 2  # K-12
LATE_SNAP_PENALTY = 1  # K-12
PENALTY_ROOM = WRONG_SNAP_PENALTY  # the most cards one attempt can bring (K-13)


def _points(card_type: int) -> int:
    """K-02: A = 1, 2–10 face value, J = Q = 10, black K = 10, red K = −2, joker = 0."""
    rank = card_type >> 2
    if rank == JOKER_RANK:
        return 0
    if rank == KING:
        return -2 if IS_RED[card_type] else 10
    if rank >= JACK:
        return 10
    return rank + 1


POINTS = points_table(_points)


def snaps_onto(card_type: int, top_type: int) -> bool:
    """K-11: same rank and the opposite colour (a black 9 on a red 9, BJ on RJ)."""
    return (card_type >> 2) == (top_type >> 2) and IS_RED[card_type] != IS_RED[top_type]


class Phase(IntEnum):
    TURN = 0  # call KABOOM or draw (K-09a, K-14)
    DRAWN = 1  # a drawn card is held: put it into a slot or discard it (K-09b)
    BLACK_SIX_FIRST = 2  # black 6: first own slot (K-03)
    BLACK_SIX_SECOND = 3  # black 6: second own slot; the two swap (K-03)
    RED_SIX_FIRST = 4  # red 6: first other player's slot (K-04)
    RED_SIX_SECOND = 5  # red 6: second other player's slot; the two swap (K-04)
    LOOK_OWN = 6  # 7 or 8: look at an own slot, or decline (K-05)
    LOOK_OTHER = 7  # 9 or 10: look at another player's slot, or decline (K-06)
    BLIND_OWN = 8  # J or Q: own slot (K-07)
    BLIND_TARGET = 9  # J or Q: another player's slot; the two swap unseen (K-07)
    KING_LOOK = 10  # black K: look at another player's slot, or decline (K-08)
    KING_DECIDE = 11  # black K: take it, leave it or give it to a third player (K-08)
    WINDOW = 12  # a snap window collects decisions (K-11, K-12)
    SLIDE = 13  # the successful snapper closes the gap or leaves it (K-13b)
    GAME_OVER = 14


@dataclass(frozen=True)
class KaboomConfig(SlotGameConfig):
    min_players: ClassVar[int] = 2  # K-01
    max_players: ClassVar[int] = 8
    full_deck: ClassVar = staticmethod(deck_with_jokers)  # K-02
    target_score: int = 100  # K-18
    # K-19: a player who reaches the target leaves; the last one in play wins.
    elimination: bool = False
    # Shown events since a player's previous decision, measured with heuristic players:
    # 99% of decisions see at most 6 with 4 players (0.8% more than 8; 8 players: 0.2%).
    recent_events: int = 8
    # One observation piece derived from the observer's own shown cards and the top
    # discard: which own slots would snap onto it (what the heuristic works out before
    # it snaps); off by default, so the default observation stays the plain facts.
    snap_hints: bool = False


@dataclass(frozen=True)
class KaboomRoundResult(RoundResult):
    """A round's result; ``caller`` is the first caller, ``callers`` all of them in order."""

    callers: tuple[int, ...] = ()


@lru_cache(maxsize=None)
def build_action_table(num_players: int, max_slots: int) -> ActionTable:
    """The action table of one configuration (shared by every state: never mutate it)."""
    others = range(1, num_players)
    table = ActionTable()
    table.add("draw", "draw", "K-09a: draw the top card of the deck")
    table.add("kaboom", "call KABOOM", "K-14: call KABOOM instead of drawing; your cards freeze")
    table.add("discard", "discard drawn", "K-09b: discard the drawn card face up and resolve its power")
    table.add_slots("replace", "put drawn into slot {slot}", max_slots,
                    "K-09b: put the drawn card into own occupied slot; the card there is discarded (no power)")
    table.add_slots("black_six", "black 6: own slot {slot}", max_slots,
                    "K-03: black 6, pick an own card (twice: the two swap places)")
    table.add_seat_slots("red_six", "red 6: player +{offset} slot {slot}", others, max_slots,
                         "K-04: red 6, pick another player's card (twice: the two swap places, unseen)")
    table.add_slots("look_own", "7/8: look at own slot {slot}", max_slots, "K-05: 7 or 8, look at an own card")
    table.add_seat_slots("look_other", "9/10: look at player +{offset} slot {slot}", others, max_slots,
                         "K-06: 9 or 10, look at another player's card")
    table.add_slots("blind_own", "J/Q: own slot {slot}", max_slots, "K-07: J or Q, own card to exchange blind")
    table.add_seat_slots("blind_target", "J/Q: exchange with player +{offset} slot {slot}", others, max_slots,
                         "K-07: J or Q, the other player's card the own card is exchanged with, unseen")
    table.add_seat_slots("king_look", "black K: look at player +{offset} slot {slot}", others, max_slots,
                         "K-08: black K, look at another player's card")
    table.add_slots("king_take", "black K: take it, giving own slot {slot}", max_slots,
                    "K-08a: take the card looked at; the own card picked goes to its place")
    table.add("king_leave", "black K: leave it", "K-08b: leave the card looked at where it is")
    table.add_seat_slots("king_give", "black K: give it to player +{offset} slot {slot}", others, max_slots,
                         "K-08c: give the card looked at to a third player for the card picked there (unseen)")
    table.add("decline", "decline power", "K-05, K-06, K-08: decline an optional power")
    table.add("pass", "pass", "K-11: make no snap in this window")
    table.add_slots("snap_select", "snap select own slot {slot}", max_slots,
                    "K-11: add own occupied slot to the snap being built")
    table.add("snap_confirm", "snap confirm", "K-12: snap the selected cards onto the discard pile")
    table.add("close_gap", "close the gap",
              "K-13b: after your snap, your cards after the emptied slots move up into them, in order")
    table.add("leave_gap", "leave the gap", "K-13b: after your snap, your cards stay in their slots")
    return table


# Phases in which the acting player picks one own slot / another player's slot, and the
# action kind of the pick.
_OWN_PICKS = {Phase.BLACK_SIX_FIRST: "black_six", Phase.BLACK_SIX_SECOND: "black_six",
              Phase.LOOK_OWN: "look_own", Phase.BLIND_OWN: "blind_own"}
_OTHER_PICKS = {Phase.RED_SIX_FIRST: "red_six", Phase.RED_SIX_SECOND: "red_six",
                Phase.LOOK_OTHER: "look_other", Phase.BLIND_TARGET: "blind_target", Phase.KING_LOOK: "king_look"}
_OPTIONAL = (Phase.LOOK_OWN, Phase.LOOK_OTHER, Phase.KING_LOOK)


class KaboomState(SlotGameState):
    """A game of KABOOM in progress."""

    # What each phase asks of the player to act, in words (the text table's "now:" line).
    # Where each kind of action points on the table besides its slot (a front end's click targets).
    action_places = MappingProxyType({"draw": DRAW_PILE, "discard": DISCARD_PILE})
    phase_words = MappingProxyType({
        Phase.TURN: "the start of a turn: draw a card, or call the round's end",
        Phase.DRAWN: "a drawn card is held: put it into a slot, or discard it",
        Phase.BLACK_SIX_FIRST: "the black six's power: pick the first of two of your own cards to swap",
        Phase.BLACK_SIX_SECOND: "the black six's power: pick the second of your own cards; the two swap",
        Phase.RED_SIX_FIRST: "the red six's power: pick the first of two other players' cards to swap",
        Phase.RED_SIX_SECOND: "the red six's power: pick the second other player's card; the two swap",
        Phase.LOOK_OWN: "a card's power: look at one of your own cards (or decline)",
        Phase.LOOK_OTHER: "a card's power: look at an opponent's card (or decline)",
        Phase.BLIND_OWN: "a card's power: pick one of your own cards to exchange unseen",
        Phase.BLIND_TARGET: "a card's power: pick another player's card; the two are exchanged unseen",
        Phase.KING_LOOK: "the king's power: look at an opponent's card (or decline)",
        Phase.KING_DECIDE: "the king's power: decide what becomes of the card looked at",
        Phase.WINDOW: "a snap window is open on the discarded card: snap a card of its rank, or pass",
        Phase.SLIDE: "your snap left a gap: close it, or leave it",
        Phase.GAME_OVER: "the game is over",
    })

    points = POINTS
    game_name = "kaboom_v0"
    rules_summary = """\
KABOOM, for 2-8 players with two jokers: keep your hand total low. Everyone adds their
total each round; the game ends when a total reaches the target ({target_score}), lowest wins.
Points: A 1, 2-10 face value, J/Q 10, black K 10, red K -2, joker 0. At the deal you
see your own slots 2 and 3.
Your turn: draw (discard the card and use its power, or put it into a slot, the card
there going to the pile without power) or call KABOOM (your cards freeze, everyone
else has one more turn; a caller adds their total +10 per player lower, or -10 when
lowest alone).
Powers: black 6 swaps two of your cards; red 6 swaps two other players' cards, unseen;
7/8 look at one of yours; 9/10 look at another player's; J/Q exchange one of yours
with another player's, unseen; black K looks at another player's card, then takes it
(for one of yours), leaves it, or gives it to a third player.
Whenever a card lands on the pile a snap window opens: select your cards of its rank
and the opposite colour, then confirm (or pass). Wrong costs 2 penalty cards, late 1.
After a good snap of your own cards you may close the gap (your later cards move up)."""
    selection_kinds = frozenset({"snap_select"})
    event_kinds = SlotGameState.event_kinds + (
        "black six", "red six", "look own", "look other", "blind swap", "king look", "king take", "king leave",
        "king give", "decline", "snap", "wrong snap", "late snap", "out", "slide",
    )

    def __init__(self, config: KaboomConfig, rng: np.random.Generator, options: dict | None = None):
        self.action_table = build_action_table(config.num_players, config.max_hand_slots)
        super().__init__(config, deck_with_jokers(), rng)
        # K-19: the round in which each eliminated player went out (ranks follow it).
        self.out_in_round: list[int | None] = [None] * self.num_players
        self._reset_round_fields()
        self._start_round(self._scenario(options))

    def _reset_round_fields(self) -> None:
        self.phase = Phase.TURN
        self.turn_player = 0
        self.callers: list[int] = []  # K-14: in calling order; their cards are frozen
        # The places a power in progress has picked: (seat, slot) pairs.
        self.power_picks: list[tuple[int, int]] = []
        # The snap window: decisions are PASS or ((slot, card), ...) in selection order.
        self.window: ReactionWindow | None = None
        self.snap_selected: list[int] = []  # the deciding player's slots so far
        self.snap_gaps: list[int] = []  # K-13b: the slots a successful snap emptied, while its snapper decides

    @property
    def reaction_window(self) -> ReactionWindow | None:
        return self.window

    def _clone_extra(self, other: KaboomState) -> None:
        other.window = self.window.clone() if self.window is not None else None
        other.callers = self.callers.copy()
        other.power_picks = self.power_picks.copy()
        other.snap_selected = self.snap_selected.copy()
        other.snap_gaps = self.snap_gaps.copy()
        other.out_in_round = self.out_in_round.copy()

    def is_frozen(self, player: int) -> bool:
        """K-14: a caller's cards are frozen."""
        return player in self.callers

    # --- rounds ---------------------------------------------------------------------
    def _start_round(self, layout: dict | None) -> None:
        self._deal_round(layout)  # K-09
        self._reset_round_fields()
        # K-09, K-19: the deal rotates, not the start: the seat after the last starter is
        # not the next starter when the last starter has left the game.
        self.starter = self._next_dealer_and_starter(layout)
        self.turn_player = self.current_player = self.starter
        self.log("start", self.starter, text=f"starts round {self.round_index + 1}")

    def _score_round(self, reason: str) -> KaboomRoundResult:
        playing = self.seats_in_play()
        totals = [self._hand_total(p) for p in range(self.num_players)]  # K-13a: an empty hand is 0
        added = list(totals)
        for caller in self.callers:  # K-16
            own = totals[caller]
            lost_to = sum(1 for p in playing if p != caller
                          and (totals[p] < own or (totals[p] == own and p not in self.callers)))
            if lost_to:
                added[caller] += CALL_BONUS * lost_to
            elif not any(totals[q] == own for q in self.callers if q != caller):
                added[caller] -= CALL_BONUS
        return KaboomRoundResult(tuple(totals), tuple(added), self.callers[0] if self.callers else None, reason,
                                 tuple(self.callers))

    def _round_ends_game(self) -> bool:
        """K-18; K-19: with elimination, players at the target leave the game, which goes
        on while two or more are left."""
        if not self.config.elimination:
            return super()._round_ends_game()
        for p in self.seats_in_play():
            if self.scores[p] >= self.config.target_score:
                self.eliminate(p)
                self.out_in_round[p] = self.round_index
                self.log("out", p, text=f"reaches {self.scores[p]} and leaves the game")
        return len(self.seats_in_play()) <= 1

    def ranks(self) -> list[int]:
        """K-18: lowest total first, equal totals share a rank. K-19: the players left
        rank first, then those who went out later, each group by total."""
        if not self.config.elimination:
            return super().ranks()
        keys = [self._elimination_key(p) for p in range(self.num_players)]
        return [1 + sum(1 for other in keys if other < own) for own in keys]

    def winners(self) -> list[int]:
        if not self.config.elimination:
            return super().winners()
        keys = [self._elimination_key(p) for p in range(self.num_players)]
        best = min(keys)
        return [p for p, key in enumerate(keys) if key == best]

    def _elimination_key(self, p: int) -> tuple[int, int, int]:
        """Smaller is better: in play, then out in a later round, then a lower total."""
        out = self.out_in_round[p]
        return (0, 0, self.scores[p]) if out is None else (1, -out, self.scores[p])

    def _end_round(self, reason: str) -> None:
        super()._end_round(reason)
        if self.is_terminal:
            # A round can end inside a window or a power (K-15); nothing of it outlives the game.
            self._reset_round_fields()
            self.phase = Phase.GAME_OVER

    # --- legal actions -------------------------------------------------------------
    def own_slots(self, player: int) -> list[int]:
        """Occupied slots of ``player``, none if frozen (K-08a)."""
        return [] if self.is_frozen(player) else self.table.occupied_slots(player)

    def other_places(self, player: int, skip: tuple[int, ...] = ()) -> list[tuple[int, int]]:
        """(seat, slot) of every card another player holds that a power may touch: not
        frozen (K-08a), not of a seat in ``skip``."""
        return [(q, s) for q in range(self.num_players) if q != player and q not in skip and not self.is_frozen(q)
                for s in self.table.occupied_slots(q)]

    def room_for_penalties(self, player: int) -> int:
        """K-13: how many penalty cards fit after the hand's last card."""
        hand = self.table.hands[player]
        end = len(hand)  # one past the last card
        while end and hand[end - 1] == EMPTY:
            end -= 1
        return self.config.max_hand_slots - end

    def _fill_legal_mask(self, mask: memoryview) -> None:
        at = self.action_table
        p = self.current_player
        phase = self.phase
        if phase == Phase.TURN:
            mask[at.first("draw")] = 1
            mask[at.first("kaboom")] = 1
        elif phase == Phase.DRAWN:
            mask[at.first("discard")] = 1
            self._mask_own(mask, "replace", self.own_slots(p))
        elif phase in _OWN_PICKS:
            picks = [slot for seat, slot in self.power_picks if seat == p]
            self._mask_own(mask, _OWN_PICKS[phase], [s for s in self.own_slots(p) if s not in picks])
        elif phase in _OTHER_PICKS:
            places = [place for place in self.other_places(p) if place not in self.power_picks]
            self._mask_others(mask, _OTHER_PICKS[phase], p, places)
        elif phase == Phase.KING_DECIDE:
            (target, _), = self.power_picks
            mask[at.first("king_leave")] = 1
            self._mask_own(mask, "king_take", self.own_slots(p))
            self._mask_others(mask, "king_give", p, self.other_places(p, skip=(target,)))
        elif phase == Phase.WINDOW:
            # Every own card may be tried whatever it is: a mask that knew would leak it.
            selected = self.snap_selected
            self._mask_own(mask, "snap_select", [s for s in self.own_slots(p) if s not in selected])
            mask[at.first("snap_confirm" if selected else "pass")] = 1
        elif phase == Phase.SLIDE:
            mask[at.first("close_gap")] = 1
            mask[at.first("leave_gap")] = 1
        if phase in _OPTIONAL:
            mask[at.first("decline")] = 1

    def _mask_own(self, mask: memoryview, kind: str, slots: list[int]) -> None:
        first = self.action_table.first(kind)
        for s in slots:
            mask[first + s] = 1

    def _mask_others(self, mask: memoryview, kind: str, p: int, places: list[tuple[int, int]]) -> None:
        firsts, n = self.action_table.seat_firsts(kind), self.num_players
        for seat, slot in places:
            mask[firsts[(seat - p) % n] + slot] = 1

    # --- applying actions -------------------------------------------------------------
    def _apply(self, action: int) -> None:
        spec = self.action_table.specs[action]
        kind, slot = spec.kind, spec.slot
        p = self.current_player
        table = self.table
        other = None if spec.offset is None else (p + spec.offset) % self.num_players
        # The window's decisions first: most decisions are in snap windows.
        if kind == "pass":
            self._decide(p, PASS)
        elif kind == "snap_select":
            self.snap_selected.append(slot)
        elif kind == "snap_confirm":
            attempt = tuple((s, table.card_at(p, s)) for s in self.snap_selected)
            self.snap_selected = []
            self._decide(p, attempt)
        elif kind == "draw":
            if self._draw_to_hold(p):  # K-09a; K-15 ends the round when nothing can be drawn
                self.phase = Phase.DRAWN
        elif kind == "kaboom":
            self._call_kaboom(p)
        elif kind == "discard":  # K-09b (b)
            card = table.held[p].pop()
            table.discard_face_up(card)
            self.log("discard", p, (card,), PUBLIC, "discards the drawn {cards}")
            self._start_power(p, card)
        elif kind == "replace":  # K-09b (a): the replaced card fires no power
            self._swap_held_into_slot(p, slot)
            self._open_window()
        elif kind in ("black_six", "red_six", "blind_own"):
            self._pick(p, kind, p if other is None else other, slot)
        elif kind == "look_own" or kind == "look_other" or kind == "king_look":
            owner = p if other is None else other
            card = table.card_at(owner, slot)
            table.knowledge.reveal(p, card)
            whose = "own" if owner == p else f"player_{owner}"
            event = {"look_own": "look own", "look_other": "look other", "king_look": "king look"}[kind]
            self.log(event, p, (card,), (p,), f"looks at {whose} slot {slot}: {{cards}}", places=((owner, slot),))
            if kind == "king_look":
                self.power_picks = [(owner, slot)]
                self.phase = Phase.KING_DECIDE
            else:
                self._open_window()
        elif kind == "blind_target":  # K-07
            (_, own_slot), = self.power_picks
            table.swap_slots(p, own_slot, other, slot)
            self.log("blind swap", p, text=f"exchanges own slot {own_slot} blind with player_{other} slot {slot}",
                     places=((p, own_slot), (other, slot)))
            self._end_power()
        elif kind == "king_take":  # K-08 (a)
            (target, target_slot), = self.power_picks
            table.swap_slots(p, slot, target, target_slot)
            self.log("king take", p, text=f"takes player_{target} slot {target_slot}, giving own slot {slot}",
                     places=((target, target_slot), (p, slot)))
            self._end_power()
        elif kind == "king_leave":  # K-08 (b)
            (target, target_slot), = self.power_picks
            self.log("king leave", p, text=f"leaves player_{target} slot {target_slot}",
                     places=((target, target_slot),))
            self._end_power()
        elif kind == "king_give":  # K-08 (c)
            (target, target_slot), = self.power_picks
            table.swap_slots(target, target_slot, other, slot)
            self.log("king give", p,
                     text=f"gives player_{target} slot {target_slot} to player_{other} for their slot {slot}",
                     places=((target, target_slot), (other, slot)))
            self._end_power()
        elif kind == "decline":
            self.log("decline", p, text="declines the power")
            self._end_power()
        elif kind == "close_gap" or kind == "leave_gap":
            self._slide(p, close=kind == "close_gap")
        else:  # pragma: no cover - the action table and this dispatch are built together
            raise AssertionError(kind)

    def _call_kaboom(self, p: int) -> None:
        """K-14: the caller's cards freeze; the first call starts the final lap, in which
        a later call is that player's final turn."""
        if not self.callers:
            self._call(p, "KABOOM")
            self.final_turns_left = len(self.seats_in_play()) - 1
        else:
            self.log("call", p, text="calls KABOOM too")
        self.callers.append(p)
        self._end_turn()

    # --- powers (K-03 … K-08) ---------------------------------------------------------
    def _start_power(self, p: int, card: int) -> None:
        """The power of a card discarded straight from the draw; a power with nothing it
        may act on is skipped (K-13a: an empty hand skips the parts on own cards)."""
        card_type = self.table.type_of(card)
        rank, red = card_type >> 2, bool(IS_RED[card_type])
        own, others = len(self.own_slots(p)), len(self.other_places(p))
        if rank == SIX and not red and own >= 2:
            self.phase = Phase.BLACK_SIX_FIRST  # K-03
        elif rank == SIX and red and others >= 2:
            self.phase = Phase.RED_SIX_FIRST  # K-04
        elif rank in (SEVEN, EIGHT) and own:
            self.phase = Phase.LOOK_OWN  # K-05
        elif rank in (NINE, TEN) and others:
            self.phase = Phase.LOOK_OTHER  # K-06
        elif rank in (JACK, QUEEN) and own and others:
            self.phase = Phase.BLIND_OWN  # K-07
        elif rank == KING and not red and others:
            self.phase = Phase.KING_LOOK  # K-08
        else:
            self._open_window()

    def _pick(self, p: int, kind: str, owner: int, slot: int) -> None:
        """A slot picked for a two-step power; the second pick of a 6 swaps the two."""
        self.power_picks.append((owner, slot))
        if kind == "blind_own":
            self.phase = Phase.BLIND_TARGET
        elif len(self.power_picks) == 1:
            self.phase = Phase.BLACK_SIX_SECOND if kind == "black_six" else Phase.RED_SIX_SECOND
        else:
            (seat_a, slot_a), (seat_b, slot_b) = self.power_picks
            self.table.swap_slots(seat_a, slot_a, seat_b, slot_b)
            what = (f"swaps own slots {slot_a} and {slot_b}" if kind == "black_six"
                    else f"swaps player_{seat_a} slot {slot_a} with player_{seat_b} slot {slot_b}")
            self.log("black six" if kind == "black_six" else "red six", p, text=what,
                     places=((seat_a, slot_a), (seat_b, slot_b)))
            self._end_power()

    def _end_power(self) -> None:
        self.power_picks = []
        self._open_window()

    # --- snap windows (K-11 … K-13) ----------------------------------------------------
    def _open_window(self) -> None:
        """K-11: a window on the top discard for everyone holding unfrozen cards with
        room for a penalty (K-13), clockwise from the player whose turn it is."""
        start = self.turn_player
        order = [(start + k) % self.num_players for k in range(self.num_players)]
        players = [q for q in order if self.own_slots(q)
                   and self.room_for_penalties(q) >= PENALTY_ROOM]
        if not players or self.table.top_discard is None:
            self._end_turn()
            return
        self.window = ReactionWindow(self.table.top_discard, players)
        self.snap_selected = []
        self.phase = Phase.WINDOW
        self.current_player = players[0]

    def _decide(self, p: int, decision) -> None:
        window = self.window
        window.decide(p, decision)
        if not window.is_complete:
            self.current_player = window.current_player
            return
        self._resolve_window()

    def _resolve_window(self) -> None:
        """K-12: attempts in an order drawn from the game's RNG; the first that qualifies
        succeeds, a wrong one costs 2 penalty cards, a late one 1 (K-13)."""
        table = self.table
        window = self.window
        top_type = table.type_of(window.trigger)
        succeeded = False
        for player, attempt in window.resolution_order(self.chance):
            slots = [s for s, _ in attempt]
            cards = tuple(card for _, card in attempt)
            places = tuple((player, s) for s in slots)
            qualifies = all(snaps_onto(table.type_of(c), top_type) for c in cards)
            if qualifies and not succeeded:
                succeeded = True
                snapper, gaps = player, slots
                for s, card in attempt:
                    table.take_from_slot(player, s)
                    table.discard_face_up(card)
                self.log("snap", player, cards, PUBLIC, f"snaps {{cards}} from slots {slots}", places=places)
                continue
            table.knowledge.reveal_to_all(cards)
            if qualifies:
                self.log("late snap", player, cards, PUBLIC, f"snaps {{cards}} from slots {slots} too late",
                         places=places)
            else:
                self.log("wrong snap", player, cards, PUBLIC, f"snaps {{cards}} from slots {slots} wrongly",
                         places=places)
            for _ in range(LATE_SNAP_PENALTY if qualifies else WRONG_SNAP_PENALTY):
                if not self._take_penalty_card(player, self._place_penalty):  # K-15 may end the round
                    return
        self.window = None
        if not succeeded:
            self._end_turn()
        elif any(card != EMPTY for card in table.hands[snapper][min(gaps) + 1:]):
            # K-13b: some own card could slide into the gap; the new window waits for the choice.
            self.snap_gaps = gaps
            self.phase = Phase.SLIDE
            self.current_player = snapper
        else:  # K-12: the new top card opens a new window
            self._open_window()

    def _slide(self, p: int, close: bool) -> None:
        """K-13b: the snapper's cards after the gap move up into it, or stay; then the
        snapped card opens its window (K-12)."""
        if close:
            moves = self.table.close_gaps(p, self.snap_gaps)
            changed = sorted({slot for move in moves for slot in move})
            self.log("slide", p, text="closes the gap: " + ", ".join(f"slot {a} to {b}" for a, b in moves),
                     places=tuple((p, slot) for slot in changed))
        self.snap_gaps = []
        self._open_window()

    def _place_penalty(self, player: int, card: int) -> int:
        """K-13: into the first slot after the hand's last card."""
        slot = self.config.max_hand_slots - self.room_for_penalties(player)
        hand = self.table.hands[player]
        if slot < len(hand):
            hand[slot] = card
            return slot
        return self.table.append_slot(player, card)

    def _end_turn(self) -> None:
        self.window = None
        p = self.turn_player
        if self._count_turn_and_continue(p):  # K-14, K-15a
            self.turn_player = self.current_player = self.next_seat_in_play(p)
            self.phase = Phase.TURN

    # --- results -----------------------------------------------------------------------
    def status_details(self) -> list[str]:
        details = [f"turn of player_{self.turn_player}"]
        if self.callers:
            details.append("frozen: " + ", ".join(f"player_{c}" for c in self.callers))
        if self.window is not None:
            # Whether others decided is public; what they decided is not, so it is never shown.
            details.append(f"snap window on {self.card_name(self.window.trigger)}")
        if self.power_picks:
            details.append("picked " + ", ".join(f"player_{s} slot {t}" for s, t in self.power_picks))
        if self.snap_gaps:
            details.append(f"gap in slots {self.snap_gaps}")
        return details
