"""The rules engine of carte (carte_v0), family rummy with "carte", per the rules in
docs/carte.md (R-01 … R-18).

A pure state machine: :class:`CarteState` with ``current_player``,
``legal_action_mask()``, ``apply(action)``, ``is_terminal`` and the scores. Nothing here
is a slot grid: a hand is a multiset of card types (two identical cards exist), melds
lie face up on the table (``table.melds``), and every decision is one step of one flat
action table: draw (stock or pile), select cards one type at a time then put them down
or add the one selected card to a meld, say carte, discard, and every other player's
decision in a catch window.

Environment rules where the rules leave a choice (docs/carte.md explains them):

* R-06/R-09: a selection is made in card-type order (jokers last), so every meld has
  exactly one selection path; a type is selectable only while the selection can still
  become a legal put-down (or, for a first card, a legal add), so every selection can
  be completed and no go can loop (there is no cancel).
* R-07: of two identical cards, the one taken from the pile is the one put down or added
  (a copy that everyone knows to be in the hand is preferred over a private one); a
  discard is never the pile card.
* R-13/R-14: the catch window's decisions are collected one seat at a time clockwise
  from the offender's left; if anyone catches, the offender takes three cards. Who
  caught is public once everyone decided.
* R-15: ``max_turns_per_round`` goes (default 200) end a round as if the stock had run
  out for the second time (scored normally).
* R-18: a game that ends with several players still in (``single_round``, or the
  ``max_rounds`` safety cap, which truncates) is won by the highest total among them.
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
from cardenv.core.cards import ACE, JACK, double_deck_with_jokers, points_table
from cardenv.core.events import PUBLIC
from cardenv.core.melds import (
    JOKER,
    MELD_TYPE_NAMES,
    NUM_MELD_TYPES,
    accepted_types,
    accepts,
    classify,
    completable,
    startable_types,
    type_at,
)
from cardenv.core.reaction import PASS, ReactionWindow
from cardenv.engine.options import GameConfig, check_deck, check_deck_size, check_first_starter, deck_types
from cardenv.engine.rounds import GameState, RoundResult
from cardenv.engine.scenarios import layout_from_options
from cardenv.engine.table_view import (
    DISCARD_PILE,
    DRAW_PILE,
    CardView,
    PileView,
    SeatView,
    TableView,
    seat_name,
    shown_cards,
)

HAND_SIZE = 10
CATCH_CARDS = 3
DECK_SIZE = 108
MAX_MELDS = DECK_SIZE // 3  # every meld holds at least three of the 108 cards (docs/carte.md proves it)
MAX_MELD_SIZE = 13  # the longest run, 2 … A
MAX_STARTING_SCORE = 10_000


def _points(card_type: int) -> int:
    """R-02: A = 15; J, Q, K = 10; joker = 25; 2–10 face value."""
    rank = card_type >> 2
    if rank == 13:
        return 25
    if rank == ACE:
        return 15
    if rank >= JACK:
        return 10
    return rank + 1


POINTS = points_table(_points)  # per core card type (54)
MELD_POINTS = POINTS[:NUM_MELD_TYPES].copy()  # per meld type (53: the joker once)


class Phase(IntEnum):
    DRAW = 0  # stock or pile
    PLAY = 1  # select, put down, add, say carte, discard
    CATCH = 2  # an other player decides whether to catch
    GAME_OVER = 3


@dataclass(frozen=True)
class CarteConfig(GameConfig):
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    num_players: int = 4
    starting_score: int = 100
    max_turns_per_round: int = 200  # R-15's safety cap, in goes
    single_round: bool = False
    memory: str = "perfect"
    max_rounds: int | None = 100
    recent_events: int = 16
    # What the mini variant changes (the ruleset's mini.py): part of the deck (card names
    # separated by spaces; "" is the whole deck), the cards dealt to each player
    # and the seat that starts round 1 (-1: drawn at random, R-04).
    deck: str = ""
    hand_size: int = HAND_SIZE
    first_starter: int = -1
    # Three observation pieces derived from the observer's own hand and the pile's top
    # card (what the heuristic computes to choose its draw and discard); off by default,
    # so the default observation stays the plain facts.
    meld_hints: bool = False

    @classmethod
    def option_checks(cls):
        return {**super().option_checks(),
                "starting_score": partial(validation.integer, low=1, high=MAX_STARTING_SCORE),
                "deck": partial(check_deck, full_deck=double_deck_with_jokers()),
                "hand_size": partial(validation.integer, low=1, high=HAND_SIZE)}

    def __post_init__(self):
        super().__post_init__()
        check_first_starter(self)
        check_deck_size(self, self.num_players * self.hand_size + 2,
                        f"{self.num_players} players with hand_size={self.hand_size}",
                        "the deal, the pile's first card and one card of stock")


@lru_cache(maxsize=None)
def build_action_table() -> ActionTable:
    names = MELD_TYPE_NAMES
    table = ActionTable()
    table.add("draw_stock", "draw stock", "R-05: take the top card of the stock")
    table.add("draw_pile", "draw pile", "R-05: take the top card of the pile")
    table.add_slots("select", "select {slot_name}", NUM_MELD_TYPES,
                    "R-06: select a card of this type (types in order, JK last) while the selection can still "
                    "become a put-down or, alone, an add", slot_names=names)
    table.add("put_down", "put down", "R-06/R-09: put the selected cards down as a new meld (jokers placed by R-11)")
    table.add_slots("add_to", "add to meld {slot}", MAX_MELDS,
                    "R-06/R-12: add the one selected card to this meld (once started)")
    table.add_slots("discard", "discard {slot_name}", NUM_MELD_TYPES,
                    "R-07: discard a card of this type, never the card taken from the pile this go; ends the go",
                    slot_names=names)
    table.add("carte", "say carte", "R-13: say carte (holding two cards, once a round)")
    table.add("catch", "catch", "R-14: catch the player who did not say carte")
    table.add("pass", "no catch", "R-14: do not catch")
    return table


_FIRST = {kind: build_action_table().first(kind) for kind in (
    "draw_stock", "draw_pile", "select", "put_down", "add_to", "discard", "carte", "catch", "pass")}
"""The first action id of each kind (the table is the same for every configuration)."""


class Meld:
    """A meld on the table (public): a set of rank ``key`` or a run of suit ``key`` over
    positions ``low`` … ``high`` (0 = 2 … 12 = A). Its cards are ``table.melds[index]``;
    for a run ``positions[i]`` is where card i stands (a joker's stand-in, R-11)."""

    __slots__ = ("owner", "is_run", "key", "low", "high", "positions")

    def __init__(self, owner: int, is_run: bool, key: int, low: int, high: int, positions: list[int]):
        self.owner, self.is_run, self.key, self.low, self.high = owner, is_run, key, low, high
        self.positions = positions

    def clone(self) -> Meld:
        return Meld(self.owner, self.is_run, self.key, self.low, self.high, self.positions.copy())


class CarteState(GameState):
    """A game of carte in progress."""

    # What each phase asks of the player to act, in words (the text table's "now:" line).
    # Where each kind of action points on the table (a front end's click targets).
    action_places = MappingProxyType({"draw_stock": DRAW_PILE, "draw_pile": DISCARD_PILE, "select": "card",
                                      "discard": "card", "add_to": "meld"})
    phase_words = MappingProxyType({
        Phase.DRAW: "the start of a go: draw from the stock, or take the pile's top card",
        Phase.PLAY: "the rest of the go: select cards, put down or add to melds, and discard to end it",
        Phase.CATCH: "a catch window is open: catch the player who did not say carte, or let it go",
        Phase.GAME_OVER: "the game is over",
    })

    points = POINTS
    game_name = "carte_v0"
    rules_summary = """\
carte, a rummy for 2-6 players on two packs with four jokers. Everyone starts on
{starting_score}; what you hold at a round's end comes off it (A 15, J/Q/K 10, joker 25,
2-10 face value). At 0 or below you are out; the last player in wins.
Your go: draw from the stock or take the pile's top card; put down melds of 3 or more
cards (select them, then put down: a set of one rank or a run of one suit; a joker
stands for any card) and, once you have put one down, add single cards to any meld
(select one, then add); then discard, which ends the go. An empty hand ends the round.
Say carte before you discard down to one card: if you do not, any player may catch you,
and you take three cards."""
    selection_kinds = frozenset({"select"})
    event_kinds = ("start", "draw stock", "draw pile", "put down", "add", "discard", "carte", "catch",
                   "not caught", "penalty", "turnover", "round end")
    implied_event_kinds = ("start",)

    def __init__(self, config: CarteConfig, rng: np.random.Generator, options: dict | None = None):
        self.action_table = build_action_table()
        super().__init__(config, deck_types(config.deck, double_deck_with_jokers()), rng)
        self.scores = [config.starting_score] * self.num_players
        self.out_in_round: list[int | None] = [None] * self.num_players
        self._reset_round_fields()
        self._start_round(self._scenario(options))

    def _reset_round_fields(self) -> None:
        n = self.num_players
        self.phase = Phase.DRAW
        self.turn_player = 0
        self.melds: list[Meld] = []
        self.melds_version = object()  # a new token whenever the melds change (observers cache them)
        self.started = [False] * n
        self.said_carte = [False] * n
        self.selection = np.zeros(NUM_MELD_TYPES, dtype=np.int64)
        self.selected_count = 0  # the selection's cards, which the mask reads on every play decision
        self.pile_card: int | None = None  # the card taken from the pile this go
        self.turnovers = 0
        self.window: ReactionWindow | None = None
        self.offender: int | None = None
        self.turns_completed = 0
        self._accepted: tuple[object, set[int]] = (None, set())  # (melds_version, accepted_types_now()) last built

    def _index_cards(self) -> None:
        """Derive what the mask, the log and the observer read on every step from the
        table: every card's type and meld type (fixed for a table; a sampled world has
        its own), every hand's count per meld type, kept up to date by every move into or
        out of a hand (``_to_hand``, ``_take_from_hand``), and per card whether every
        player knows it (the knowledge table's columns that are all true), kept up to date
        with every reveal (``_reveal_to_all``, ``_reveal``)."""
        table = self.table
        self.card_core_types: list[int] = table.card_types.tolist()
        self.card_meld_types: list[int] = np.minimum(table.card_types, JOKER).tolist()
        self.card_public: list[bool] = table.knowledge.known.all(axis=0).tolist()
        self.hand_type_counts: list[list[int]] = []
        for hand in table.hands:
            counts = [0] * NUM_MELD_TYPES
            for card in hand:
                counts[self.card_meld_types[card]] += 1
            self.hand_type_counts.append(counts)

    def _to_hand(self, player: int, card: int) -> None:
        self.table.hands[player].append(card)
        self.hand_type_counts[player][self.card_meld_types[card]] += 1

    def _reveal(self, player: int, card: int) -> bool:
        """``player`` sees ``card``; returns whether every player knows it now."""
        knowledge = self.table.knowledge
        knowledge.reveal(player, card)
        public = self.card_public[card] = all(knowledge.known[:, card].tolist())  # a sixth of numpy's all()
        return public

    def _reveal_to_all(self, cards: list[int]) -> None:
        self.table.knowledge.reveal_to_all(cards)
        for card in cards:
            self.card_public[card] = True

    @property
    def reaction_window(self) -> ReactionWindow | None:
        return self.window

    def mark_changed(self) -> None:
        """Also derive the per-card lists and the selection's count afresh, and give the
        melds a new token (observers cache them): a change made by other means than
        ``apply`` may touch any of them."""
        super().mark_changed()
        self._index_cards()
        self.selected_count = int(self.selection.sum())
        self.melds_version = object()

    def _clone_extra(self, other: CarteState) -> None:
        other.melds = [m.clone() for m in self.melds]
        other.started = self.started.copy()
        other.said_carte = self.said_carte.copy()
        other.selection = self.selection.copy()
        other.out_in_round = self.out_in_round.copy()
        other.window = self.window.clone() if self.window is not None else None
        other.hand_type_counts = [counts.copy() for counts in self.hand_type_counts]
        other.card_public = self.card_public.copy()

    def sample_world(self, observer: int, rng: np.random.Generator) -> CarteState:
        world = super().sample_world(observer, rng)
        world._index_cards()  # other identities for the cards ``observer`` does not know
        return world

    def _card_types_of(self, cards: tuple[int, ...]) -> tuple[int, ...]:
        """From the list this state keeps (cheaper than indexing the numpy table card by card)."""
        types = self.card_core_types
        return tuple([types[c] for c in cards])

    # --- scenario and rounds ----------------------------------------------------------
    def _scenario(self, options: dict | None) -> dict | None:
        start = self.config.starting_score
        # a player on 0 or below is out, so a game in progress has totals from 1 up.
        layout = layout_from_options(options, self.num_players,
                                     score_bounds=(1, start, f"starting_score={start}"))
        if layout and "hands" in layout:
            in_hands = sum(map(len, layout["hands"]))
            if in_hands >= self.table.num_cards:
                # R-15 would end the round before its first go: no round to play.
                raise ValueError(f"hands must leave a card for the stock or the pile, at most {self.table.num_cards - 1} "
                                 f"cards in all (with neither the round ends before its first go, R-15), "
                                 f"got {in_hands}")
        if layout and "scores" in layout:
            self.scores = list(layout["scores"])
        return layout

    def _start_round(self, layout: dict | None) -> None:
        table = self.table
        self._reset_round_fields()
        in_play = self.seats_in_play()
        if layout and "hands" in layout:
            table.arrange(self.chance, layout["hands"], layout["draw_pile"], layout["discard_pile"])
        else:  # ten cards (hand_size) each to the players still in, then one card face up
            table.gather_and_shuffle(self.chance)
            table.deal(self.config.hand_size, in_play, self.chance)
            table.discard_face_up(table.take_top(self.chance))
        for p in range(self.num_players):
            table.knowledge.reveal(p, table.hands[p])
        self._index_cards()
        starter = self._next_dealer_and_starter(layout)
        self.log("start", starter, text=f"starts round {self.round_index + 1}")
        self._start_go(starter)

    def _start_go(self, player: int) -> None:
        """R-15: the stock is checked when a go starts."""
        self.turn_player = self.current_player = player
        self.phase = Phase.DRAW
        self.pile_card = None
        if not self.table.draw_pile:
            self._stock_ran_out()

    def _stock_ran_out(self) -> bool:
        """R-15: turn the pile over the first time; else end the round. Returns whether
        play goes on."""
        table = self.table
        if self.turnovers == 0 and table.discard_pile:
            self.turnovers = 1
            # Not shuffled: the card first discarded becomes the top. The cards stay known.
            table.turn_over_discards()
            self.log("turnover", -1, text="the stock ran out: the pile is turned over")
            return True
        reason = "the stock ran out again" if self.turnovers else "the stock ran out and the pile is empty"
        self._end_round(reason)
        return False

    def _score_round(self, reason: str) -> RoundResult:
        totals = tuple(self._hand_total(p) for p in range(self.num_players))
        return RoundResult(totals, totals, None, reason)

    def _end_round(self, reason: str) -> None:
        """R-16: every hand is shown and counted; R-17: a player on 0 or below is out;
        R-18: the game ends when at most one player is left in."""
        result = self._score_round(reason)
        self.round_results.append(result)
        table = self.table
        for p, points in enumerate(result.points_added):
            self.scores[p] -= points
        hands = [list(table.hands[p]) for p in range(self.num_players)]
        self._reveal_to_all([c for hand in hands for c in hand])
        self._log_round_end(reason, hands, [f"hand {total}, score {score}"
                                            for total, score in zip(result.hand_totals, self.scores)])
        for p in self.seats_in_play():
            if self.scores[p] <= 0:
                self.eliminate(p)
                self.out_in_round[p] = self.round_index
        self.window = None
        self.offender = None
        self._clear_selection()
        self._next_round_unless(len(self.seats_in_play()) <= 1)

    def _end_game(self) -> None:
        super()._end_game()
        self.phase = Phase.GAME_OVER
        self.window = None

    def winners(self) -> list[int]:
        """R-18: the last player in; if the last players all went out in the same round,
        the highest total among them (equal totals share); a game ended with several
        players in (single_round, max_rounds) is won by the highest total among them."""
        contenders = self.seats_in_play()
        if not contenders:
            last = max(r for r in self.out_in_round if r is not None)
            contenders = [p for p in range(self.num_players) if self.out_in_round[p] == last]
        best = max(self.scores[p] for p in contenders)
        return [p for p in contenders if self.scores[p] == best]

    def ranks(self) -> list[int]:
        """1 for the winners; the others by how long they stayed in, then by total."""
        winners = set(self.winners())
        last_round = len(self.round_results)

        def key(p: int) -> tuple:
            stayed = last_round if self.out_in_round[p] is None else self.out_in_round[p]
            return (p in winners, stayed, self.scores[p])

        keys = [key(p) for p in range(self.num_players)]
        return [1 + sum(1 for other in keys if other > own) for own in keys]

    # --- hands as multisets -------------------------------------------------------------
    def hand_counts(self, player: int) -> np.ndarray:
        """Cards in ``player``'s hand per meld type (53: both jokers as one)."""
        return np.array(self.hand_type_counts[player], dtype=np.int64)

    def _pile_type_in_hand(self, player: int) -> int:
        """Meld type of the card taken from the pile this go while still in hand, else -1."""
        card = self.pile_card
        if card is None or card not in self.table.hands[player]:
            return -1
        return self.card_meld_types[card]

    def _take_from_hand(self, player: int, t: int, for_discard: bool) -> int:
        """Remove a card of meld type ``t`` from the hand and return it: the pile card
        first (R-07), never the pile card for a discard; then a copy every player knows
        to be in the hand, then the first copy."""
        table = self.table
        hand = table.hands[player]
        types = self.card_meld_types
        pile_card = self.pile_card
        if for_discard:
            copies = [c for c in hand if types[c] == t and c != pile_card]
        else:
            copies = [c for c in hand if types[c] == t]
            if pile_card in copies:
                copies = [pile_card]
        if len(copies) == 1:
            card = copies[0]
        else:
            public = [c for c in copies if self.card_public[c]]
            card = (public or copies)[0]
        hand.remove(card)
        self.hand_type_counts[player][t] -= 1
        return card

    # --- legal actions -------------------------------------------------------------
    def _fill_legal_mask(self, legal: memoryview) -> None:
        p = self.current_player
        phase = self.phase
        if phase == Phase.DRAW:
            legal[_FIRST["draw_stock"]] = bool(self.table.draw_pile)
            # with an empty hand (a scenario's) the pile card would be the only card,
            # with nothing to discard.
            legal[_FIRST["draw_pile"]] = bool(self.table.discard_pile) and bool(self.table.hands[p])
        elif phase == Phase.CATCH:
            legal[_FIRST["catch"]] = 1
            legal[_FIRST["pass"]] = 1
        elif phase == Phase.PLAY:
            self._mask_play(legal, p)

    def _mask_play(self, legal: memoryview, p: int) -> None:
        """Mark the legal actions of ``p`` in the play phase."""
        hand = self.hand_type_counts[p]
        pile_type = self._pile_type_in_hand(p)
        cards = self.table.hands[p]
        hand_size = len(cards)
        present = sorted(set(map(self.card_meld_types.__getitem__, cards)))
        allowed = None
        if pile_type >= 0 and hand[pile_type] == 1 and hand_size <= MAX_MELD_SIZE + 1 and _may_be_one_meld(
                present, pile_type):
            # R-07 vetoes one meld only: the whole hand but the pile card, and only if
            # that is a valid meld (else no completion or put-down can be it).
            rest = [self.card_meld_types[card] for card in cards if card != self.pile_card]
            if classify(rest) is not None:
                hand = hand.copy()  # the search below changes and restores it
                allowed = partial(_leaves_a_discard, hand, hand_size, pile_type)
        select_first = _FIRST["select"]
        if not self.selected_count:
            addable = self.accepted_types_now() if self.started[p] else ()
            discard_first = _FIRST["discard"]
            if allowed is None:
                # a started player may add a card some meld takes (unless that
                # leaves the pile card alone, R-07).
                stranded = pile_type >= 0 and hand_size == 2
                for t, startable in zip(present, startable_types(hand, present)):
                    if startable or (t in addable and not (stranded and t != pile_type)):
                        legal[select_first + t] = 1
                    if hand[t] > (t == pile_type):
                        legal[discard_first + t] = 1
            else:
                alone = [0] * NUM_MELD_TYPES
                for t in present:
                    alone[t] = 1
                    hand[t] -= 1
                    if (t in addable and allowed(alone)) or completable(alone, hand, t, allowed):
                        legal[select_first + t] = 1
                    hand[t] += 1
                    alone[t] = 0
                    if hand[t] > (t == pile_type):
                        legal[discard_first + t] = 1
            if hand_size == 2 and not self.said_carte[p]:
                legal[_FIRST["carte"]] = 1
            return
        selection = self.selection.tolist()
        selected = self.selected_count
        chosen = [t for t in range(NUM_MELD_TYPES) if selection[t]]
        last = chosen[-1]
        first_real = chosen[0]  # the joker type, last in order, when only jokers are selected
        rest = [h - c for h, c in zip(hand, selection)]
        for t in present:
            # Only a type from the last selected up that the hand holds more of, a joker,
            # a card of the selection's rank (a set) or of its suit (a run) can join it.
            if t >= last and rest[t] and (t == JOKER or t >> 2 == first_real >> 2 or t & 3 == first_real & 3):
                selection[t] += 1
                rest[t] -= 1
                if completable(selection, rest, t, allowed):
                    legal[select_first + t] = 1
                selection[t] -= 1
                rest[t] += 1
        permitted = allowed(selection) if allowed is not None else not (
            pile_type >= 0 and hand_size == selected + 1 and not selection[pile_type])
        if permitted and classify([t for t in chosen for _ in range(selection[t])]) is not None:
            legal[_FIRST["put_down"]] = 1
        if selected == 1 and self.started[p] and permitted:
            first = _FIRST["add_to"]
            for m in range(len(self.melds)):
                if self._accepts(m, last) is not None:
                    legal[first + m] = 1

    def accepted_types_now(self) -> set[int]:
        """The meld types some meld on the table takes now (R-12); kept until the melds
        change (a new ``melds_version``). Read it, never change it."""
        version, taken = self._accepted
        if version is not self.melds_version:
            taken = set()
            for m, meld in enumerate(self.melds):
                taken.update(accepted_types(meld.is_run, meld.key, meld.low, meld.high, len(self.table.melds[m])))
            self._accepted = (self.melds_version, taken)
        return taken

    def _accepts(self, m: int, t: int) -> int | None:
        meld = self.melds[m]
        return accepts(meld.is_run, meld.key, meld.low, meld.high, len(self.table.melds[m]), t)

    def _clear_selection(self) -> None:
        self.selection[:] = 0
        self.selected_count = 0

    def _selection_types(self) -> list[int]:
        return _types_of(self.selection.tolist())

    # --- applying actions -------------------------------------------------------------
    def _apply(self, action: int) -> None:
        spec = self.action_table.specs[action]
        kind = spec.kind
        p = self.current_player
        if kind == "discard":  # the most frequent decisions first
            self._discard(p, spec.slot)
        elif kind == "draw_stock":
            self._draw_stock(p)
        elif kind == "draw_pile":
            self._draw_pile(p)
        elif kind == "select":  # private until put down or added: nothing is logged
            self.selection[spec.slot] += 1
            self.selected_count += 1
        elif kind == "put_down":
            self._put_down(p)
        elif kind == "add_to":
            self._add_to(p, spec.slot)
        elif kind == "carte":
            self.said_carte[p] = True
            self.log("carte", p, text="says carte")
        elif kind == "catch" or kind == "pass":
            self._decide_catch(p, kind == "catch")
        else:  # pragma: no cover - the action table and this dispatch are built together
            raise AssertionError(kind)

    def _draw_stock(self, p: int) -> None:
        table = self.table
        card = table.take_top(self.chance)
        self._to_hand(p, card)
        # After the turnover the stock's cards are known to all: the draw is public.
        visible = PUBLIC if self._reveal(p, card) else (p,)
        self.log("draw stock", p, (card,), visible, "draws {cards} from the stock")
        self.phase = Phase.PLAY

    def _draw_pile(self, p: int) -> None:
        table = self.table
        card = table.discard_pile.pop()
        self._to_hand(p, card)  # known to everyone, face up before (the knowledge table keeps it)
        self.pile_card = card
        self.log("draw pile", p, (card,), PUBLIC, "takes {cards} from the pile")
        self.phase = Phase.PLAY

    def _put_down(self, p: int) -> None:
        types = self._selection_types()
        shape = classify(types)
        cards = [self._take_from_hand(p, t, for_discard=False) for t in types]
        if shape.is_run:
            order = sorted(range(len(cards)), key=lambda i: shape.positions[i])
            cards = [cards[i] for i in order]
            positions = [shape.positions[i] for i in order]
        else:
            positions = [-1] * len(cards)
        self.table.melds.append(cards)
        self.melds.append(Meld(p, shape.is_run, shape.key, shape.low, shape.high, positions))
        self._reveal_to_all(cards)
        self._clear_selection()
        self.started[p] = True
        self.melds_version = object()
        m = len(self.melds) - 1
        self.log("put down", p, tuple(cards), PUBLIC, f"puts down meld {m}: {{cards}}", places=((p, m),))
        self._after_card_left_hand(p)

    def _add_to(self, p: int, m: int) -> None:
        t = int(np.flatnonzero(self.selection)[0])
        position = self._accepts(m, t)
        card = self._take_from_hand(p, t, for_discard=False)
        meld, cards = self.melds[m], self.table.melds[m]
        if meld.is_run and position < meld.low:  # on the low end
            meld.low = position
            cards.insert(0, card)
            meld.positions.insert(0, position)
        else:
            if meld.is_run:
                meld.high = position
            cards.append(card)
            meld.positions.append(position)
        self._reveal_to_all([card])
        self._clear_selection()
        self.melds_version = object()
        self.log("add", p, (card,), PUBLIC, f"adds {{cards}} to meld {m}", places=((meld.owner, m),))
        self._after_card_left_hand(p)

    def _after_card_left_hand(self, p: int) -> None:
        if not self.table.hands[p]:  # out by putting down the last card
            self._end_round(f"player_{p} went out")

    def _discard(self, p: int, t: int) -> None:
        card = self._take_from_hand(p, t, for_discard=True)
        self.table.discard_face_up(card)
        self.card_public[card] = True  # face up
        self.log("discard", p, (card,), PUBLIC, "discards {cards}")
        left = len(self.table.hands[p])
        if left == 0:  # out by discarding the last card
            self._end_round(f"player_{p} went out")
        elif left == 1 and not self.said_carte[p]:
            self._open_catch_window(p)
        else:
            self._end_go(p)

    # --- the catch window (R-14) ----------------------------------------------------------
    def _open_catch_window(self, offender: int) -> None:
        deciders, seat = [], self.next_seat_in_play(offender)
        while seat != offender:
            deciders.append(seat)
            seat = self.next_seat_in_play(seat)
        self.window = ReactionWindow(offender, deciders)
        self.offender = offender
        self.phase = Phase.CATCH
        self.current_player = deciders[0]

    def _decide_catch(self, p: int, catch: bool) -> None:
        window = self.window
        window.decide(p, "catch" if catch else PASS)
        if not window.is_complete:
            self.current_player = window.current_player
            return
        offender = self.offender
        catchers = [q for q, _ in window.attempts()]
        self.window = None
        self.offender = None
        if not catchers:
            self.log("not caught", offender, text="was not caught")
            self._end_go(offender)
            return
        for q in catchers:
            self.log("catch", q, text=f"catches player_{offender}")
        table = self.table
        taken = []
        for _ in range(CATCH_CARDS):
            if not table.draw_pile and not self._stock_ran_out():
                return
            card = table.take_top(self.chance)
            self._to_hand(offender, card)
            self._reveal(offender, card)
            taken.append(card)
        public = all(self.card_public[c] for c in taken)
        self.log("penalty", offender, tuple(taken), PUBLIC if public else (offender,),
                 "takes {cards} from the stock (caught)")
        self._end_go(offender)

    def _end_go(self, p: int) -> None:
        self.turns_completed += 1
        if self.turns_completed >= self.config.max_turns_per_round:  # R-15's safety cap
            self._end_round(RoundResult.TURN_CAP)
            return
        self._start_go(self.next_seat_in_play(p))

    # --- names and rendering --------------------------------------------------------------
    def meld_name(self, card: int) -> str:
        """A card's name in carte's terms (both jokers are ``JK``)."""
        return MELD_TYPE_NAMES[min(int(self.table.card_types[card]), JOKER)]

    def describe_meld(self, m: int) -> str:
        meld, cards = self.melds[m], self.table.melds[m]
        if not meld.is_run:
            return " ".join(self.meld_name(c) for c in cards)
        shown = []
        for card, position in zip(cards, meld.positions):
            name = self.meld_name(card)
            shown.append(f"JK={MELD_TYPE_NAMES[type_at(meld.key, position)]}" if name == "JK" else name)
        return " ".join(shown)

    def describe_events(self, viewer: int | None, last: int | None = None) -> list[str]:
        return [e.describe(self.meld_name, viewer) for e in self._events_for(viewer, last)]

    def table_view(self, viewer: int | None, memory: str = "perfect", recent_events: int = 8) -> TableView:
        """The table as ``viewer`` sees it (``None``: every card shown), as a record: each
        hand's known cards in type order, then one face-down card per hidden one (their
        order would tell)."""
        viewer = self.checked_seat("viewer", viewer, none_means="every card shown")
        table = self.table
        shown = shown_cards(self, viewer, memory)
        if self.is_terminal:
            status = ("game over; winners " + ", ".join(f"player_{p}" for p in self.winners()),)
        else:
            going = (f"go {self.turns_completed + 1} of at most {self.config.max_turns_per_round} this round, "
                     f"turn of player_{self.turn_player}, {seat_name(self.current_player, viewer)} to act")
            status = (going, f"now: {self.phase_in_words()}")
        seats = []
        for p in range(self.num_players):
            known = sorted((c for c in table.hands[p] if shown[c]), key=lambda c: min(int(table.card_types[c]), JOKER))
            hidden = sum(1 for c in table.hands[p] if not shown[c])
            flags = tuple(f for f, on in (("out", self.eliminated[p]), ("started", self.started[p]),
                                          ("said carte", self.said_carte[p])) if on)
            seats.append(SeatView(p, self.scores[p], tuple([CardView(self.meld_name(c)) for c in known]
                                                           + [CardView(None)] * hidden), flags=flags))
        top = table.top_discard
        selected = ()
        if (viewer is None or viewer == self.current_player) and self.selection.any():
            selected = tuple(MELD_TYPE_NAMES[t] for t in self._selection_types())
        return TableView(
            game_name=self.game_name, round_number=self.round_index + 1, viewer=viewer,
            to_act=self.current_player, game_over=self.is_terminal, status=status,
            draw=PileView("stock", len(table.draw_pile), note="pile turned over" if self.turnovers else ""),
            discard=PileView("pile", len(table.discard_pile), None if top is None else CardView(self.meld_name(top))),
            seats=tuple(seats), slots=False,
            melds=tuple((self.melds[m].owner, tuple(self.describe_meld(m).split())) for m in range(len(self.melds))),
            selected=selected,
            events=tuple(self.describe_events(viewer, recent_events)) if recent_events else None)

    def render_text(self, viewer: int | None, memory: str = "perfect", recent_events: int = 8) -> str:
        view = self.table_view(viewer, memory, recent_events)
        top, draw = view.discard.top, view.draw
        piles = (f"{draw.name} {draw.count}{f' ({draw.note})' if draw.note else ''} | "
                 f"{view.discard.name} {view.discard.count} | top {top.name if top is not None else '--'}")
        lines = [view.title, *view.status, piles]
        for seat in view.seats:
            marker = "*" if seat.seat == view.to_act else " "
            names = " ".join(card.name or "??" for card in seat.cards)
            lines.append(f"{marker}{seat_name(seat.seat, view.viewer)} score {seat.score:>4} {','.join(seat.flags)} | {names}")
        if view.selected:
            lines.append("selected: " + " ".join(view.selected))
        for m, (owner, cards) in enumerate(view.melds):
            lines.append(f"meld {m} (player_{owner}): {' '.join(cards)}")
        if view.events is not None:
            lines.append("recent events:")
            lines += ["  " + line for line in view.events]
        return "\n".join(lines)


def _types_of(counts: list[int]) -> list[int]:
    """The meld types of ``counts`` (per type) in type order, one per card."""
    return [t for t in range(NUM_MELD_TYPES) if counts[t] for _ in range(counts[t])]


def _may_be_one_meld(present: list[int], left_out: int) -> bool:
    """False when the types ``present`` but ``left_out`` (jokers aside) hold two that
    differ in both rank and suit, so that no set (one rank) or run (one suit) holds them
    all: the cheap test that spares ``classify`` a whole hand nearly every time."""
    reals = [t for t in present if t != left_out and t != JOKER]
    if len(reals) < 2:
        return True
    first = reals[0]
    rank, suit = first >> 2, first & 3
    same_rank = same_suit = True
    for t in reals:
        same_rank = same_rank and t >> 2 == rank
        same_suit = same_suit and t & 3 == suit
    return same_rank or same_suit


def _leaves_a_discard(hand: list[int], hand_size: int, pile_type: int, meld: list[int]) -> bool:
    """R-07: putting ``meld`` (counts) down or adding it must not leave the card taken
    from the pile as the only card in hand (the pile card goes first when the meld has
    its type, so only a meld without that type can leave it alone)."""
    if meld[pile_type]:
        return True
    return not (hand[pile_type] == 1 and hand_size - sum(meld) == 1)
