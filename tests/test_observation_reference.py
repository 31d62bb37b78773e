"""The fast observer against a straightforward reference, bit for bit (issue 12).

:class:`ReferenceObserver` below writes the observation of the slot rulesets
(onefifty_v0, cut_v0, kaboom_v0) and their global state (``env.state()``) from the
pieces' descriptions and docs/<ruleset>.md alone: plain loops over seats, slots, cards
and events, one piece at a time, by name. It keeps nothing between calls. The tests
play seeded random games and compare, at every visited state, every seat's observation
from ``observer.observe`` and the global state from ``observer.encode_state`` with it.

The fast observer keeps per-seat rows of encoded events between calls, keyed by the
events list it last saw; the walks therefore also visit states out of order: snapshots
(``state.clone()`` and ``copy.deepcopy``) observed again after later states, branches
played on from a snapshot, and new games, all through one long-lived observer.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import cardenv
from cardenv.core.table import EMPTY

SUITS = 4
RED_SUITS = (1, 2)  # hearts, diamonds (spades 0, clubs 3)
STANDARD_TYPES = 52
RED_JOKER = 52
# The docs: the round's start, the deal's look at the bottom row and a draw are implied
# by the rules, so the recent-events piece leaves them out.
IMPLIED_EVENT_KINDS = ("start", "peek", "draw")
DRAW_PILE_LOOKAHEAD = 4  # the global state shows this many next draw-pile cards


def rank_of(card_type: int) -> int:
    """A … K are ranks 0 … 12; both jokers share rank 13."""
    return card_type // SUITS


def is_red(card_type: int) -> bool:
    """Hearts, diamonds and the red joker (K-01)."""
    return card_type == RED_JOKER or (card_type < STANDARD_TYPES and card_type % SUITS in RED_SUITS)


@dataclass(frozen=True)
class Ruleset:
    """What the reference needs to know of a ruleset beyond its engine state: whether
    cards show their colour, the ruleset's own pieces (player view and global state),
    and the options the walks cover."""

    name: str
    shows_colour: bool
    player_counts: tuple[int, ...]
    fill_own_pieces: Callable  # (reference, state, observer | None, views) -> None
    own_pieces: Callable  # (num_players, slots, omniscient) -> [(name, shape)], in layout order
    extra_options: tuple[dict, ...] = ({},)
    # Further configurations walked as well: one event row (the event rows' bookkeeping
    # at its smallest), the smallest hands, other player counts, short games.
    edge_options: tuple[dict, ...] = ()


# --- the ruleset's own pieces ---------------------------------------------------------
def onefifty_pieces(n: int, slots: int, omniscient: bool) -> list:
    return [("match_selected", (slots,)), ("jack_own_slot", (slots,))]


def fill_onefifty(ref: ReferenceObserver, state, observer: int | None, v: dict) -> None:
    # O-07 / O-11: only the acting player is part-way through a match or a Jack trade;
    # the global state shows the acting player's.
    if observer is not None and observer != state.current_player:
        return
    for slot in state.selected:
        v["match_selected"][slot] = 1
    if state.jack_slot >= 0:
        v["jack_own_slot"][state.jack_slot] = 1


def write_window(v: dict, window, observer: int | None, write_attempt: Callable) -> None:
    """An open reaction window: for a player, whether it has decided, never what anyone
    decided; in the global state, who decided and, through ``write_attempt(decider,
    decision)``, every attempt not yet resolved."""
    v["window_open"][0] = 1
    deciders = window.players[: len(window.decisions)]
    if observer is not None:
        v["window_decided"][0] = 1 if observer in deciders else 0
        return
    for decider, decision in zip(deciders, window.decisions):
        v["window_decided"][decider] = 1
        if decision is not None:  # None is a pass
            write_attempt(decider, decision)


def cut_pieces(n: int, slots: int, omniscient: bool) -> list:
    window = ([("window_decided", (n,)), ("window_claims", (n, n, slots))] if omniscient
              else [("window_decided", (1,))])
    return [("turn_player", (n,)), ("window_open", (1,)), ("window_rank", (13,)), *window,
            ("power_slots", (n, slots)), ("give_slot", (n, slots))]


def fill_cut(ref: ReferenceObserver, state, observer: int | None, v: dict) -> None:
    row = ref.row_of(observer)
    if state.current_player is not None:
        v["turn_player"][row(state.turn_player)] = 1
    if state.window is not None:  # C-08: a match window collects decisions, then resolves
        v["window_rank"][state.window_rank] = 1

        def claim(decider: int, decision) -> None:  # (action, the card then in the claimed slot)
            spec = state.action_table.specs[decision[0]]
            owner = decider if spec.kind == "match" else (decider + spec.offset) % ref.n
            v["window_claims"][decider, owner, spec.slot] = 1

        write_window(v, state.window, observer, claim)
    # C-11: the slots a power picked are public.
    if state.power_own_slot >= 0:
        v["power_slots"][row(state.turn_player), state.power_own_slot] = 1
    if state.power_target is not None:
        seat, slot = state.power_target
        v["power_slots"][row(seat), slot] = 1
    if state.give_target is not None:  # C-09
        seat, slot = state.give_target
        v["give_slot"][row(seat), slot] = 1


def kaboom_pieces(n: int, slots: int, omniscient: bool) -> list:
    window = ([("window_decided", (n,)), ("window_attempts", (n, slots))] if omniscient
              else [("window_decided", (1,))])
    return [("turn_player", (n,)), ("window_open", (1,)), *window, ("snap_selected", (slots,)),
            ("power_slots", (n, slots)), ("snap_gaps", (n, slots)), ("frozen", (n,)), ("out", (n,))]


def kaboom_gaps(state) -> list[tuple[int, int]]:
    """K-13b from the public record, not the engine's own ``snap_gaps``: while the player
    to act decides whether to slide (closing or leaving the gap are its actions), the
    gaps are the places of the last successful snap (a "snap" event, not a late or wrong
    one), which was that player's; at any other time there is none."""
    if state.current_player is None:
        return []
    legal = {state.action_table.specs[a].kind for a in state.legal_actions()}
    if legal != {"close_gap", "leave_gap"}:
        return []
    snap = next(event for event in reversed(state.events) if event.kind == "snap")
    assert all(seat == state.current_player for seat, _ in snap.places), snap
    return list(snap.places)


def fill_kaboom(ref: ReferenceObserver, state, observer: int | None, v: dict) -> None:
    row = ref.row_of(observer)
    if state.current_player is not None:
        v["turn_player"][row(state.turn_player)] = 1
    if state.window is not None:  # K-11: a snap window collects decisions

        def attempt(decider: int, decision) -> None:  # K-12: ((slot, card), ...) of the attempt
            for slot, _card in decision:
                v["window_attempts"][decider, slot] = 1

        write_window(v, state.window, observer, attempt)
    if observer is None or observer == state.current_player:  # K-11: the snap being built
        for slot in state.snap_selected:
            v["snap_selected"][slot] = 1
    for seat, slot in state.power_picks:
        v["power_slots"][row(seat), slot] = 1
    for seat, slot in kaboom_gaps(state):  # K-13b: the snapper, deciding now, may close them
        v["snap_gaps"][row(seat), slot] = 1
    for caller in state.callers:  # K-14
        v["frozen"][row(caller)] = 1
    for seat in range(ref.n):  # K-19
        if state.eliminated[seat]:
            v["out"][row(seat)] = 1


RULESETS = {
    "onefifty_v0": Ruleset("onefifty_v0", False, (3, 6), fill_onefifty, onefifty_pieces, edge_options=(
        {"num_players": 4, "recent_events": 1},
        {"num_players": 5, "recent_events": 2, "max_hand_slots": 5, "memory": "none"},
        {"num_players": 3, "max_turns_per_round": 20, "target_score": 30})),
    "cut_v0": Ruleset("cut_v0", False, (3, 6), fill_cut, cut_pieces, edge_options=(
        {"num_players": 2, "recent_events": 1},
        {"num_players": 5, "recent_events": 2, "max_hand_slots": 5, "memory": "none"},
        {"num_players": 4, "max_hand_slots": 20, "max_turns_per_round": 20, "target_score": 30})),
    "kaboom_v0": Ruleset("kaboom_v0", True, (2, 4, 8), fill_kaboom, kaboom_pieces,
                         # K-19's elimination variant, with a low target so players leave.
                         ({}, {"elimination": True, "target_score": 40}), edge_options=(
        {"num_players": 3, "recent_events": 1},
        {"num_players": 7, "recent_events": 2, "max_hand_slots": 5, "memory": "none", "elimination": True,
         "target_score": 20},
        {"num_players": 5, "max_rounds": None, "target_score": 30})),
}


# --- the reference ----------------------------------------------------------------------
class ReferenceObserver:
    """The observation and global state of one configuration, written plainly."""

    def __init__(self, ruleset: Ruleset, config, state):
        self.ruleset = ruleset
        self.config = config
        self.n = config.num_players
        deck = [int(t) for t in state.table.card_types]
        self.deck_size = len(deck)
        self.num_ranks = max(rank_of(t) for t in deck) + 1
        self.points = [int(p) for p in state.points]
        # The *_points pieces divide by the highest card's points (docs: / 20, / 10).
        self.points_scale = max(self.points[t] for t in deck)
        self.copies = [0] * (max(deck) + 1)
        self.rank_copies = [0] * self.num_ranks
        self.suit_copies = [0] * SUITS
        self.colour_copies = [0, 0]  # black, red
        for t in deck:
            self.copies[t] += 1
            self.rank_copies[rank_of(t)] += 1
            if t < STANDARD_TYPES:  # a joker has no suit
                self.suit_copies[t % SUITS] += 1
            self.colour_copies[int(is_red(t))] += 1
        self.shown_kinds = [kind for kind in state.event_kinds if kind not in IMPLIED_EVENT_KINDS]
        self.num_phases = len(type(state.phase))

    def row_of(self, observer: int | None):
        """Seat → row: relative to the observer (row 0 is the observer), absolute for None."""
        if observer is None:
            return lambda seat: seat
        return lambda seat: (seat - observer) % self.n

    # The expected layouts, piece by piece, as the docs list them.
    def card_pieces(self, prefix: str, lead: tuple[int, ...]) -> list:
        colour = [(f"{prefix}_red", lead or (1,))] if self.ruleset.shows_colour else []
        return [(f"{prefix}_rank", (*lead, self.num_ranks)), *colour, (f"{prefix}_points", lead or (1,))]

    def turn_pieces(self) -> list:
        n = self.n
        return [("caller", (n,)), ("final_turns_left", (1,)), ("turns_in_round", (1,)), ("draw_pile_size", (1,)),
                ("discard_pile_size", (1,)), ("scores", (n,))]

    def expected_pieces(self) -> list:
        n, s, e = self.n, self.config.max_hand_slots, self.config.recent_events
        colour = [("event_face_up_colour", (e, 2))] if self.ruleset.shows_colour else []
        return [
            ("slot_present", (n, s)), ("slot_known", (n, s)), *self.card_pieces("slot", (n, s)),
            ("slot_known_by", (n, s, n)),
            ("top_discard_present", (1,)), *self.card_pieces("top_discard", ()),
            ("drawn_card_present", (1,)), *self.card_pieces("drawn_card", ()),
            ("phase", (self.num_phases,)), ("current_player", (n,)),
            *self.ruleset.own_pieces(n, s, False), *self.turn_pieces(),
            ("accounted", (len(self.copies),)),
            ("event_kind", (e, len(self.shown_kinds))), ("event_actor", (e, n)), ("event_places", (e, n, s)),
            ("event_face_up_rank", (e, self.num_ranks)), ("event_face_up_suit", (e, SUITS)), *colour,
            ("event_new", (e,)), ("events_dropped", (1,)),
        ]

    def expected_state_pieces(self) -> list:
        n, s, types = self.n, self.config.max_hand_slots, len(self.copies)
        return [
            ("slot_present", (n, s)), ("slot_card", (n, s, types)), ("slot_known_by", (n, s, n)),
            ("held_card", (n, types)), ("top_discard", (types,)), ("discard_pile", (types,)),
            ("draw_pile", (types,)), ("draw_pile_next", (DRAW_PILE_LOOKAHEAD, types)),
            ("phase", (self.num_phases,)), ("current_player", (n,)),
            *self.ruleset.own_pieces(n, s, True), *self.turn_pieces(),
        ]

    # --- the player's observation -------------------------------------------------------
    def observe(self, layout, state, observer: int) -> np.ndarray:
        config, n = self.config, self.n
        vector = np.zeros(layout.size, dtype=np.float32)
        v = layout.views(vector)
        table = state.table
        knowledge = table.knowledge
        row = self.row_of(observer)

        def shown(card: int) -> bool:
            """Memory models: "perfect" shows every card the observer knows (and can still
            locate); "none" only those learned since the observer's last decision."""
            if not knowledge.known[observer, card]:
                return False
            return config.memory == "perfect" or knowledge.learned_at[observer, card] >= knowledge.decided_at[observer]

        for seat in range(n):
            for slot, card in enumerate(table.hands[seat]):
                if card == EMPTY:
                    continue
                r = row(seat)
                v["slot_present"][r, slot] = 1
                for knower in range(n):  # public: who knows it, never what it is
                    if knowledge.known[knower, card]:
                        v["slot_known_by"][r, slot, row(knower)] = 1
                if shown(card):
                    card_type = int(table.card_types[card])
                    v["slot_known"][r, slot] = 1
                    v["slot_rank"][r, slot, rank_of(card_type)] = 1
                    if self.ruleset.shows_colour:
                        v["slot_red"][r, slot] = is_red(card_type)
                    v["slot_points"][r, slot] = self.points[card_type] / self.points_scale

        top = table.discard_pile[-1] if table.discard_pile else None
        if top is not None:  # face up for everyone
            self.write_card(v, "top_discard", int(table.card_types[top]))
            v["top_discard_present"][0] = 1
        actor = state.current_player
        if actor is not None and table.held[actor]:
            v["drawn_card_present"][0] = 1  # that a card is held is public; what it is is not
            if actor == observer:
                self.write_card(v, "drawn_card", int(table.card_types[table.held[actor][-1]]))

        v["phase"][int(state.phase)] = 1
        if actor is not None:
            v["current_player"][row(actor)] = 1
        self.ruleset.fill_own_pieces(self, state, observer, v)
        self.write_turn_pieces(v, state, observer)

        # Every card the observation shows, wherever it lies, and the top discard.
        accounted = [0] * len(self.copies)
        for card in range(self.deck_size):
            if shown(card) or card == top:
                accounted[int(table.card_types[card])] += 1
        for card_type, count in enumerate(accounted):
            if self.copies[card_type]:
                v["accounted"][card_type] = count / self.copies[card_type]

        self.write_events(v, state, observer)
        return vector

    def write_card(self, v: dict, prefix: str, card_type: int) -> None:
        v[f"{prefix}_rank"][rank_of(card_type)] = 1
        if self.ruleset.shows_colour:
            v[f"{prefix}_red"][0] = is_red(card_type)
        v[f"{prefix}_points"][0] = self.points[card_type] / self.points_scale

    def write_turn_pieces(self, v: dict, state, observer: int | None) -> None:
        config, n, row = self.config, self.n, self.row_of(observer)
        if state.caller is not None:
            v["caller"][row(state.caller)] = 1
            v["final_turns_left"][0] = state.final_turns_left / (n - 1)
        v["turns_in_round"][0] = state.turns_completed / config.max_turns_per_round
        v["draw_pile_size"][0] = len(state.table.draw_pile) / self.deck_size
        v["discard_pile_size"][0] = len(state.table.discard_pile) / self.deck_size
        for seat in range(n):
            v["scores"][row(seat)] = state.scores[seat] / config.target_score

    def write_events(self, v: dict, state, observer: int) -> None:
        """The recent public events, newest in row 0 (docs, "Recent public events")."""
        capacity, n, row = self.config.recent_events, self.n, self.row_of(observer)
        public = [event for event in state.events if event.kind not in IMPLIED_EVENT_KINDS]
        # New: since the observer's previous decision, that decision's own events included
        # (an event's clock is the clock of the decision that caused it).
        last_decision = state.table.knowledge.decided_at[observer]
        new = sum(1 for event in public if event.clock >= last_decision)
        if self.config.memory == "none":
            shown_rows = min(new, capacity)
        else:
            shown_rows = min(len(public), capacity)
        newest_first = list(reversed(public))[:shown_rows]
        for r, event in enumerate(newest_first):
            v["event_kind"][r, self.shown_kinds.index(event.kind)] = 1
            if event.player >= 0:  # the round's end has no actor
                v["event_actor"][r, row(event.player)] = 1
            for seat, slot in event.places:
                v["event_places"][r, row(seat), slot] = 1
            # Each face-up card weighs 1 / the copies of its rank (suit, colour) in the
            # deck; float32 sums, card by card in the event's order.
            for card_type in event.face_up_types:
                rank = rank_of(card_type)
                v["event_face_up_rank"][r, rank] += np.float32(1 / self.rank_copies[rank])
                if card_type < STANDARD_TYPES:
                    suit = card_type % SUITS
                    v["event_face_up_suit"][r, suit] += np.float32(1 / self.suit_copies[suit])
                if self.ruleset.shows_colour:
                    colour = int(is_red(card_type))
                    v["event_face_up_colour"][r, colour] += np.float32(1 / self.colour_copies[colour])
        for r in range(min(new, capacity)):
            v["event_new"][r] = 1
        v["events_dropped"][0] = 1 if new > capacity else 0

    # --- the global state -------------------------------------------------------------------
    def encode_state(self, layout, state) -> np.ndarray:
        """Omniscient: every identity, seats absolute."""
        vector = np.zeros(layout.size, dtype=np.float32)
        v = layout.views(vector)
        table = state.table
        for seat in range(self.n):
            for slot, card in enumerate(table.hands[seat]):
                if card == EMPTY:
                    continue
                v["slot_present"][seat, slot] = 1
                v["slot_card"][seat, slot, int(table.card_types[card])] = 1
                for knower in range(self.n):
                    if table.knowledge.known[knower, card]:
                        v["slot_known_by"][seat, slot, knower] = 1
            for card in table.held[seat]:
                v["held_card"][seat, int(table.card_types[card])] = 1
        if table.discard_pile:
            v["top_discard"][int(table.card_types[table.discard_pile[-1]])] = 1
        for pile_name, pile in (("discard_pile", table.discard_pile), ("draw_pile", table.draw_pile)):
            counts = [0] * len(self.copies)
            for card in pile:
                counts[int(table.card_types[card])] += 1
            for card_type, count in enumerate(counts):
                if self.copies[card_type]:
                    v[pile_name][card_type] = count / self.copies[card_type]
        # The draw pile's top is its last card: the next to be drawn comes first.
        for i, card in enumerate(reversed(table.draw_pile)):
            if i == DRAW_PILE_LOOKAHEAD:
                break
            v["draw_pile_next"][i, int(table.card_types[card])] = 1
        v["phase"][int(state.phase)] = 1
        if state.current_player is not None:
            v["current_player"][state.current_player] = 1
        self.ruleset.fill_own_pieces(self, state, None, v)
        self.write_turn_pieces(v, state, None)
        return vector


# --- comparing ------------------------------------------------------------------------
def first_difference(layout, fast: np.ndarray, reference: np.ndarray) -> str:
    """The first entry where the vectors differ, named by piece and index."""
    index = int(np.flatnonzero(fast.view(np.uint32) != reference.view(np.uint32))[0])
    for piece in layout.pieces.values():
        if piece.start <= index < piece.stop:
            where = np.unravel_index(index - piece.start, piece.shape)
            return (f"piece {piece.name!r} at {tuple(int(i) for i in where)}: fast {fast[index]!r}, "
                    f"reference {reference[index]!r}")
    raise AssertionError(f"index {index} lies in no piece")


def assert_same(layout, fast: np.ndarray, reference: np.ndarray, what: str) -> None:
    assert fast.dtype == np.float32 and fast.shape == reference.shape, (what, fast.dtype, fast.shape)
    # Bit for bit (np.array_equal would let -0.0 equal 0.0).
    if not np.array_equal(fast.view(np.uint32), reference.view(np.uint32)):
        raise AssertionError(f"{what}: {first_difference(layout, fast, reference)}")


@dataclass
class Walk:
    """One configuration's seeded random walk through games, checked at every state."""

    ruleset: Ruleset
    options: dict
    seed: int
    env: object = field(init=False)
    reference: ReferenceObserver = field(init=False)
    states: int = 0
    out_of_order: int = 0

    def __post_init__(self):
        self.env = getattr(cardenv, self.ruleset.name).raw_env(**self.options)
        self.env.reset(seed=self.seed)
        game = self.env.unwrapped.game
        self.reference = ReferenceObserver(self.ruleset, self.env.unwrapped.config, game)
        self.rng = np.random.default_rng(self.seed)
        # Entries the reference ever set non-zero: what the walk exercised.
        self.observation_reached = np.zeros(self.observer.layout.size, dtype=bool)
        self.state_reached = np.zeros(self.observer.state_layout.size, dtype=bool)

    @property
    def observer(self):
        return self.env.unwrapped.observer

    def check(self, state, how: str) -> None:
        """Every seat's observation and the global state of ``state``, fast vs reference."""
        observer, reference = self.observer, self.reference
        where = f"{self.ruleset.name} {self.options} seed {self.seed}, state {self.states} ({how})"
        for seat in range(reference.n):
            # Alternately into a new array and into a reused buffer.
            out = None if self.states % 2 else np.full(observer.layout.size, np.nan, dtype=np.float32)
            fast = observer.observe(state, seat, out)
            expected = reference.observe(observer.layout, state, seat)
            assert_same(observer.layout, fast, expected, f"{where}, observation of seat {seat}")
            self.observation_reached |= expected != 0
        expected = reference.encode_state(observer.state_layout, state)
        assert_same(observer.state_layout, observer.encode_state(state), expected, f"{where}, global state")
        self.state_reached |= expected != 0
        self.states += 1

    def random_action(self, state) -> int:
        """A random legal action: a random kind of the legal ones, then a random action of
        that kind (so powers and windows come up as often as plain swaps). A call ending
        the round is taken only now and then, so rounds run long (reshuffles, many
        events) as well as short."""
        specs = state.action_table.specs
        by_kind: dict[str, list[int]] = {}
        for action in state.legal_actions():
            by_kind.setdefault(specs[action].kind, []).append(action)
        kinds = list(by_kind)
        quiet = [kind for kind in kinds if kind not in ("call", "cut", "kaboom")]
        if quiet and self.rng.random() < 0.95:
            kinds = quiet
        actions = by_kind[kinds[int(self.rng.integers(len(kinds)))]]
        return actions[int(self.rng.integers(len(actions)))]

    def run(self, num_states: int) -> None:
        rng = self.rng
        state = self.env.unwrapped.game
        snapshots: list = []
        abandoned = None  # the line a branch left, observed again a few states later
        how = "a new game"
        step = 0
        while self.states < num_states:
            step += 1
            self.check(state, how)
            if abandoned is not None and step % 41 == 5:
                # As many events as the branch or more, but other ones since the branch point.
                self.check(abandoned, "the line a branch left, revisited")
                self.out_of_order += 1
            if step % 10 == 1:  # alternately a clone and a deep copy
                copier = copy.deepcopy if len(snapshots) % 2 else type(state).clone
                snapshots.append(copier(state))
                if len(snapshots) > 12:
                    snapshots.pop(int(rng.integers(len(snapshots))))
            if step % 15 == 0:
                # An earlier state (or a later one of an abandoned branch) observed again.
                self.check(snapshots[int(rng.integers(len(snapshots)))], "a snapshot revisited")
                self.out_of_order += 1
            if state.is_terminal:
                self.env.reset(seed=int(rng.integers(2**31)))
                state, how = self.env.unwrapped.game, "a new game"
            elif step % 41 == 0:
                # Rewind: play on from a copy of a snapshot, a branch with other events.
                abandoned = state
                state, how = snapshots[int(rng.integers(len(snapshots)))].clone(), "a branch from a snapshot"
            else:
                state.apply(self.random_action(state))
                how = "after a random action"


def walk_options(ruleset: Ruleset) -> list[dict]:
    """num_players × memory × recent_events (default, 3, 0), the ruleset's extra options
    taking turns, then its edge options."""
    combos = []
    for num_players in ruleset.player_counts:
        for memory in ("perfect", "none"):
            for recent in (None, 3, 0):
                options = {"num_players": num_players, "memory": memory}
                if recent is not None:
                    options["recent_events"] = recent
                combos.append(options)
    extras = ruleset.extra_options
    return [{**options, **extras[i % len(extras)]} for i, options in enumerate(combos)] + list(ruleset.edge_options)


def check_ruleset(name: str, total_states: int) -> list[Walk]:
    ruleset = RULESETS[name]
    combos = walk_options(ruleset)
    per_walk = -(-total_states // len(combos))
    walks = []
    for i, options in enumerate(combos):
        walk = Walk(ruleset, options, seed=1000 + i)
        walk.run(per_walk)
        walks.append(walk)
    assert sum(w.states for w in walks) >= total_states
    assert all(w.out_of_order for w in walks), "every walk revisits states out of order"
    return walks


def pieces_never_reached(walks: list[Walk]) -> tuple[set[str], set[str]]:
    """The pieces (observation, global state) that stayed all zero in every walk."""
    never = []
    for layout_of, reached_of in ((lambda w: w.observer.layout, lambda w: w.observation_reached),
                                  (lambda w: w.observer.state_layout, lambda w: w.state_reached)):
        reached = set()
        for walk in walks:
            layout, entries = layout_of(walk), reached_of(walk)
            reached |= {p.name for p in layout.pieces.values() if entries[p.start:p.stop].any()}
        never.append(set(layout_of(walks[0]).pieces) - reached)
    return never[0], never[1]


# --- the tests ---------------------------------------------------------------------------
SLOT_RULESETS = [name for name in RULESETS if hasattr(cardenv, name)]


@pytest.mark.parametrize("name", SLOT_RULESETS)
def test_layouts_are_the_documented_pieces(name):
    """The reference knows every piece, in the documented order and shape: a piece added
    to the fast observer without a reference fails here."""
    for options in walk_options(RULESETS[name]):
        walk = Walk(RULESETS[name], options, seed=0)
        observer, reference = walk.observer, walk.reference
        assert [(p.name, p.shape) for p in observer.layout.pieces.values()] == reference.expected_pieces(), options
        assert [(p.name, p.shape) for p in observer.state_layout.pieces.values()] == \
            reference.expected_state_pieces(), options


INITIAL_PEEK_RULE = {"onefifty_v0": "O-05", "cut_v0": "C-04", "kaboom_v0": "K-09"}


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("name", SLOT_RULESETS)
def test_the_reference_shows_the_initial_peek(name, memory):
    """The reference follows the rules, not the fast code: at a round's start every
    player sees its own bottom row, slots 2 and 3, and no other card (O-05, C-04, K-09);
    nobody has decided yet, so memory="none" shows them too."""
    walk = Walk(RULESETS[name], {"num_players": 3, "memory": memory}, seed=11)
    layout, game = walk.observer.layout, walk.env.unwrapped.game
    for seat in range(3):
        known = layout.view(walk.reference.observe(layout, game, seat), "slot_known")
        expected = np.zeros_like(known)
        expected[0, 2:4] = 1
        assert np.array_equal(known, expected), (INITIAL_PEEK_RULE[name], seat, known)


@pytest.mark.parametrize("name", SLOT_RULESETS)
def test_fast_observations_match_the_reference(name):
    """Every configuration of the walks, a short walk each (the slow test runs 10,000+)."""
    walks = check_ruleset(name, total_states=1_200)
    assert pieces_never_reached(walks) == (set(), set()), "pieces the walks never exercised"


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOT_RULESETS)
def test_fast_observations_match_the_reference_over_10000_states(name):
    walks = check_ruleset(name, total_states=10_000)
    assert pieces_never_reached(walks) == (set(), set()), "pieces the walks never exercised"


@pytest.mark.parametrize("name", SLOT_RULESETS)
def test_env_observations_and_state_match_the_reference(name):
    """Through the AEC env (its per-seat buffers), across copies of the env: deepcopy and
    pickle rebuild the observer's buffers and caches."""
    ruleset = RULESETS[name]
    options = {"num_players": ruleset.player_counts[-1], "recent_events": 3}
    env = getattr(cardenv, name).raw_env(**options)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    reference = ReferenceObserver(ruleset, env.unwrapped.config, env.unwrapped.game)
    layout = env.unwrapped.observer.layout
    for step in range(300):
        if not env.agents:
            env.reset(seed=step)
        game = env.unwrapped.game
        for agent in env.agents:
            seat = env.unwrapped.agent_name_mapping[agent]
            assert_same(layout, env.observe(agent)["observation"], reference.observe(layout, game, seat),
                        f"{name} step {step}, env.observe({agent!r})")
        assert_same(env.unwrapped.observer.state_layout, env.state(),
                    reference.encode_state(env.unwrapped.observer.state_layout, game), f"{name} step {step}, state()")
        if step % 50 == 49:
            env = copy.deepcopy(env) if step % 100 == 49 else pickle.loads(pickle.dumps(env))
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))


class BrokenScaleObserver:
    """A stand-in for a fast observer with a wrong ``slot_points`` scale."""

    def __init__(self, observer):
        self.observer = observer
        self.layout, self.state_layout = observer.layout, observer.state_layout

    def observe(self, state, seat, out=None):
        vector = self.observer.observe(state, seat, out)
        self.layout.view(vector, "slot_points")[:] *= 2
        return vector

    def encode_state(self, state):
        return self.observer.encode_state(state)


def test_a_difference_is_reported_with_its_piece_and_seat():
    """The comparison can fail, and says where."""
    walk = Walk(RULESETS["cut_v0"], {"num_players": 3}, seed=3)
    walk.env.unwrapped.observer = BrokenScaleObserver(walk.env.unwrapped.observer)
    with pytest.raises(AssertionError, match=r"observation of seat 0: piece 'slot_points' at \(0, [23]\)"):
        walk.run(5)
