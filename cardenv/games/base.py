"""What every rules engine shares: the state machine interface, rounds and cumulative
scores, the event log, illegal-action errors and information-set sampling.

A ruleset subclasses :class:`CardGameState` (slot grids and piles) or, when its cards lie
elsewhere (multiset hands, melds), :class:`RoundGameState`, and fills in the round logic.
Nothing here imports PettingZoo: search agents, tests and other front ends use engines directly.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache, partial
from typing import Any, ClassVar

import numpy as np

from cardenv.core import validation
from cardenv.core.actions import ActionTable
from cardenv.core.cards import card_name, card_name_accepted, parse_card, parse_cards, standard_deck
from cardenv.core.chance import Chance, SeededChance, as_chance
from cardenv.core.events import PUBLIC, Event, append_event_record, new_event_records
from cardenv.core.knowledge import MEMORY_MODELS
from cardenv.core.scoring import lowest, shared_ranks
from cardenv.core.table import EMPTY, CardTable


INITIAL_SLOTS = 4  # a 2×2 grid: slots 0, 1 on top, 2, 3 below (the bottom row is seen: peeked_slots)
MAX_HAND_SLOTS_LIMIT = 64  # the largest max_hand_slots accepted
MAX_RECENT_EVENTS = 256  # the largest recent_events accepted


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


@lru_cache(maxsize=4096)
def _card_fields(first: int, count: int) -> str:
    """``{first} {first+1} …`` for ``count`` cards of an event's text, or "no cards"."""
    return " ".join(f"{{{first + i}}}" for i in range(count)) or "no cards"


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


class IllegalActionError(ValueError):
    """An action that the current player may not take now."""


@dataclass(frozen=True)
class RoundResult:
    """How a round ended and what each player added to their cumulative score."""

    TURN_CAP: ClassVar[str] = "the turn cap was reached"
    """The ``reason`` of a round that ended at the ruleset's turn cap."""

    hand_totals: tuple[int, ...]
    points_added: tuple[int, ...]
    caller: int | None
    reason: str


@dataclass(frozen=True)
class GameConfig:
    """Table-driven validation of a ruleset's options (no fields of its own): every field
    of a subclass is validated and normalised (numpy integers to ``int`` and so on) when
    a config is made, by the checks of :meth:`option_checks`. A subclass declares each
    field with its type; a ``bool``, ``int`` or ``float`` field is then checked from its
    annotation alone, and ``option_checks`` adds bounds or choices. The checks below are
    those of the options most rulesets share (a check for a field a config lacks is
    never used).
    """

    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6

    @classmethod
    def option_checks(cls) -> dict[str, Callable[[str, Any], Any]]:
        """Per field: a check ``(name, value) -> normalised value`` that raises TypeError
        or ValueError (see :mod:`cardenv.core.validation`). A subclass extends the dict
        of ``super().option_checks()``; fields missing here are checked by annotation."""
        return {
            "num_players": partial(validation.integer, low=cls.min_players, high=cls.max_players),
            "max_turns_per_round": partial(validation.integer, low=1),
            "memory": partial(validation.choice, options=MEMORY_MODELS),
            "max_rounds": partial(validation.optional_integer, low=1),
            "recent_events": partial(validation.integer, low=0, high=MAX_RECENT_EVENTS),
        }

    @classmethod
    def option_names(cls) -> list[str]:
        """The keyword arguments a config accepts, in declaration order."""
        return [f.name for f in fields(cls)]

    def __post_init__(self):
        checks = self.option_checks()
        for option in fields(self):
            check = checks.get(option.name) or _check_by_annotation(type(self), option)
            # Frozen: the normalised value replaces the given one through object.__setattr__.
            object.__setattr__(self, option.name, check(option.name, getattr(self, option.name)))


@dataclass(frozen=True)
class RoundGameConfig(GameConfig):
    """Options every slot-and-pile ruleset has; a ruleset's config subclasses it, sets
    ``min_players``/``max_players`` and may change the defaults."""

    num_players: int = 4
    target_score: int = 100
    max_turns_per_round: int = 200
    single_round: bool = False
    memory: str = "perfect"
    max_hand_slots: int = 8
    max_rounds: int | None = 100
    recent_events: int = 16
    # Part of the ruleset's deck (card names separated by spaces; "" is the whole deck)
    # and a smaller initial grid: what a mini variant changes (cardenv.games.mini).
    deck: str = ""
    initial_slots: int = INITIAL_SLOTS
    # The seat that starts the first round; -1: drawn at random (from the seed).
    first_starter: int = -1

    # The ruleset's whole deck (card types), which ``deck`` takes cards from.
    full_deck: ClassVar[Callable[[], np.ndarray]] = staticmethod(standard_deck)

    @classmethod
    def option_checks(cls) -> dict[str, Callable[[str, Any], Any]]:
        return {
            **super().option_checks(),
            "target_score": partial(validation.integer, low=1),
            # A Match or a penalty must be able to add a slot to the initial grid; the
            # upper bound keeps the action table and the observation a sane size.
            "max_hand_slots": partial(validation.integer, low=INITIAL_SLOTS + 1, high=MAX_HAND_SLOTS_LIMIT),
            "deck": partial(check_deck, full_deck=cls.full_deck()),
            # A grid of two rows: 2×2, or one card above another.
            "initial_slots": partial(validation.choice, options=(INITIAL_SLOTS, 2)),
        }

    def __post_init__(self):
        super().__post_init__()
        check_first_starter(self)
        if self.deck:
            cards, need = len(self.deck.split()), self.num_players * self.initial_slots + 1
            if cards < need:
                raise ValueError(f"deck has {cards} cards; {self.num_players} players with initial_slots="
                                 f"{self.initial_slots} need at least {need} (the deal and one card to draw)")

    def deck_types(self, full_deck: np.ndarray) -> np.ndarray:
        return deck_types(self.deck, full_deck)

    @property
    def peeked_slots(self) -> tuple[int, ...]:
        """The bottom row of the initial grid, which each player sees at a round's start."""
        return tuple(range(self.initial_slots // 2, self.initial_slots))


def deck_types(deck: str, full_deck: np.ndarray) -> np.ndarray:
    """The card types of the deck a game is played with: its ``deck`` option's cards, or
    the ruleset's ``full_deck`` when the option is ``""``."""
    return np.asarray(parse_cards(deck), dtype=np.int64) if deck else full_deck


def check_first_starter(config) -> None:
    """A config's ``first_starter`` option: a seat, or -1 (drawn at random)."""
    high = config.num_players - 1
    validation.integer("first_starter", config.first_starter, -1, high,
                       accepted=f"a seat from 0 to {high}, or -1 (drawn at random)")


def check_deck(name: str, value: Any, full_deck: np.ndarray) -> str:
    """A ``deck`` option: card names of ``full_deck`` (no more copies than it has),
    returned space-separated in deck order."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be card names separated by spaces (a str), got {validation.show(value)}")
    if not value.strip():
        return ""
    try:
        types = parse_cards(value.split())
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    have = np.bincount(full_deck, minlength=64)
    want = np.bincount(types, minlength=64)
    too_many = [card_name(t) for t in np.flatnonzero(want > have)]
    if too_many:
        raise ValueError(f"{name} has more copies of {', '.join(too_many)} than this ruleset's deck "
                         f"(its cards are {' '.join(sorted(set(map(card_name, full_deck.tolist())), key=parse_card))})")
    return " ".join(card_name(t) for t in sorted(types))


# Fields without an entry in option_checks() are checked by their annotation (a string,
# since the ruleset modules use ``from __future__ import annotations``).
_CHECKS_BY_ANNOTATION: dict[str, Callable[[str, Any], Any]] = {
    "int": validation.integer,
    "bool": validation.boolean,
    "float": validation.real,
    "int | None": validation.optional_integer,
}


def _check_by_annotation(config_class: type, option) -> Callable[[str, Any], Any]:
    annotation = option.type if isinstance(option.type, str) else getattr(option.type, "__name__", str(option.type))
    try:
        return _CHECKS_BY_ANNOTATION[annotation]
    except KeyError:
        # A programming error in a ruleset, not a user's bad value.
        raise TypeError(
            f"{config_class.__name__}.{option.name} is annotated {annotation!r}, which has no default check; "
            f"add one to {config_class.__name__}.option_checks()"
        ) from None


class RoundGameState:
    """A game in progress, played in rounds, whatever its cards lie in (slot grids,
    multiset hands, melds): the state machine interface, cumulative scores and round
    results, players who leave, the event log, copies and information-set sampling.

    Subclasses provide ``action_table``, ``points``, ``phase``, ``event_kinds``,
    ``_fill_legal_mask(mask)`` (the zeroed int8 mask as a memoryview: set legal ids to
    1), ``_apply(action)`` and their rounds. The slot-and-pile
    rulesets build on :class:`CardGameState` below.
    """

    action_table: ActionTable
    current_player: int | None
    # Every kind of event the ruleset logs, in a fixed order (the observation one-hot).
    event_kinds: tuple[str, ...] = ()
    # Kinds the observation's event piece leaves out because the rules imply them.
    implied_event_kinds: tuple[str, ...] = ()
    # The rules in a few lines, for a person at the table (``cardenv play``'s help), with
    # ``{option}`` fields filled from the config (:meth:`rules_in_short`); the ruleset's
    # docs page holds every rule.
    rules_summary: ClassVar[str] = ""
    # The action kinds that add to a selection a later action commits: the selection is
    # the selecting player's alone and nothing happens until it is committed, so a front
    # end may take such steps back (the game is then as if they were never taken).
    selection_kinds: ClassVar[frozenset[str]] = frozenset()
    # The index of each of ``event_kinds``, and whether its events go into
    # ``event_records`` (the kinds an observation shows: not the implied ones); made
    # for every subclass.
    event_kind_index: ClassVar[dict[str, int]] = {}
    recorded_event_kinds: ClassVar[tuple[bool, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.event_kind_index = {kind: i for i, kind in enumerate(cls.event_kinds)}
        cls.recorded_event_kinds = tuple(kind not in cls.implied_event_kinds for kind in cls.event_kinds)

    def __init__(self, config, deck: np.ndarray, rng: np.random.Generator | Chance):
        self.config = config
        self.num_players: int = config.num_players
        # Every random outcome of the game comes from here (a generator is wrapped in a
        # SeededChance; an ExternalChance takes them from outside, see cardenv.core.chance).
        self.chance: Chance = as_chance(rng)
        self.table = CardTable(deck, self.num_players)
        self.scores = [0] * self.num_players
        self.round_results: list[RoundResult] = []
        self.round_index = 0
        self.is_terminal = False
        self.is_truncated = False
        self.current_player = None
        self._events: list[Event] = []  # see ``events``
        self._unread_events: list[tuple] = []
        # The public parts of the events an observation may show (every kind but the
        # implied ones) as int records, for compiled observers (append_event_record).
        self.event_records = new_event_records()
        self.turns_completed = 0
        # Seats that have left the game for good (an elimination variant); they take no
        # more turns and their agents leave the env.
        self.eliminated = [False] * self.num_players
        self.dealer = 0  # see ``_next_dealer_and_starter``
        # A fresh token after every change: caches (the mask here, observations in the
        # env) are valid only for the token they were built for. Tokens are objects, not
        # clock values, so two states (a clone and its original, a rewound branch) never
        # share one; a copy or an unpickled state keeps its caches consistent because the
        # token is copied along with them.
        self.version = object()
        self._mask_version = None
        self._mask = np.zeros(len(self.action_table), dtype=np.int8)

    @property
    def rng(self) -> np.random.Generator:
        """The generator of a seeded game (what ``env.reset(seed=...)`` gives)."""
        chance = self.chance
        if not isinstance(chance, SeededChance):
            raise AttributeError("this game takes its random outcomes from outside: it has no generator")
        return chance.rng

    # --- the interface ---------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return len(self.action_table)

    def legal_action_mask(self) -> np.ndarray:
        """int8 per action id, 1 where legal for ``current_player`` (all 0 once over).

        The returned array is reused by the state: copy it to keep it."""
        if self._mask_version is not self.version:
            self._mask.fill(0)  # a third of the cost of ``[:] = 0``
            if not self.is_terminal:
                # A dozen entries written through a memoryview cost less than through numpy.
                self._fill_legal_mask(memoryview(self._mask))
            self._mask_version = self.version
        return self._mask

    def mark_changed(self) -> None:
        """Invalidate every cache of this state; ``apply`` does it, and so must code that
        changes a state by other means (a test arranging a position by hand)."""
        self.version = object()

    @property
    def reaction_window(self):
        """The open :class:`~cardenv.core.reaction.ReactionWindow` (decisions being
        collected), or None. Rulesets with windows override this."""
        return None

    def eliminate(self, seat: int) -> None:
        """``seat`` leaves the game for good (the ruleset logs why)."""
        self.eliminated[seat] = True

    def next_seat_in_play(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that has not been eliminated (``seat``
        itself when every other one has)."""
        n = self.num_players
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if not self.eliminated[candidate]:
                return candidate
        raise RuntimeError("every seat has been eliminated; the game should have ended")

    def _next_dealer_and_starter(self, layout: dict | None) -> int:
        """Move the deal on for a new round and return the seat that starts it, for the
        rulesets whose deal rotates: round 1's dealer is random (seeded); each later round
        the dealer is the next seat clockwise still in play, and the seat in play after
        the dealer starts. A scenario's ``starter`` starts round 1, dealt by the seat
        before it."""
        starter = layout.get("starter") if layout else None
        if starter is None and self.round_index == 0 and getattr(self.config, "first_starter", -1) >= 0:
            starter = self.config.first_starter
        if starter is not None:
            self.dealer = (starter - 1) % self.num_players
            return starter
        if self.round_index == 0:
            self.dealer = self.chance.seat(self.num_players, "the first dealer")
        else:
            self.dealer = self.next_seat_in_play(self.dealer)
        return self.next_seat_in_play(self.dealer)

    def seats_in_play(self) -> list[int]:
        """The seats not eliminated, in seat order."""
        return [p for p in range(self.num_players) if not self.eliminated[p]]

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def is_legal(self, action: int) -> bool:
        if action.__class__ is not int:
            action = validation.action_id(action)
        mask = self.legal_action_mask()
        return 0 <= action < len(mask) and mask.item(action) != 0

    def apply(self, action: int) -> None:
        """Apply ``current_player``'s action; raises :class:`IllegalActionError`."""
        if action.__class__ is not int:
            action = validation.action_id(action)
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        self.table.knowledge.tick(self.current_player)
        self.version = object()
        self._apply(action)

    def _illegal_message(self, action: int) -> str:
        if self.is_terminal:
            return f"the game is over; no action is legal (got {action})"
        what = self.action_name(action) if 0 <= action < self.num_actions else "out of range"
        legal = ", ".join(f"{a} ({self.action_name(a)})" for a in self.legal_actions())
        return f"illegal action {action} ({what}) for player_{self.current_player}; legal actions: {legal}"

    def action_name(self, action: int) -> str:
        return self.action_table.name(action)

    def rules_in_short(self) -> str:
        """:attr:`rules_summary` with this game's options (its target score, say)."""
        return self.rules_summary.format_map(vars(self.config))

    def action_name_for(self, action: int, seat: int) -> str:
        """``action``'s name as ``seat`` reads it, the players its seat offsets point at
        named (see :meth:`ActionTable.name_for_seat`)."""
        return self.action_table.name_for_seat(action, seat, self.num_players)

    def action_from_name(self, name: str) -> int:
        return self.action_table.from_name(name)

    def _log_round_end(self, reason: str, hands: list[list[int]], facts: list[str]) -> None:
        """Log the round's end with every hand shown to all, grouped by player (empty
        seats that left the game earlier skipped): each player's cards, then ``facts[p]``
        (their total, their points), so that a reader sees whose cards are whose."""
        cards: list[int] = []
        groups = []
        for p, hand in enumerate(hands):
            if self.eliminated[p] and not hand:
                continue
            shown = _card_fields(len(cards), len(hand))
            groups.append(f"player_{p} {shown} ({facts[p]})")
            cards += hand
        self.log("round end", -1, tuple(cards), PUBLIC,
                 f"round {self.round_index + 1} ends ({reason}): " + "; ".join(groups))

    def _next_round_unless(self, game_over: bool) -> None:
        """After a round: end the game when ``game_over`` (or with ``single_round``),
        truncate it once ``max_rounds`` rounds were played, else deal the next round."""
        config = self.config
        if game_over or config.single_round:
            self._end_game()
        elif config.max_rounds is not None and len(self.round_results) >= config.max_rounds:
            self.is_truncated = True
            self._end_game()
        else:
            self.round_index += 1
            self._start_round(None)

    def _end_game(self) -> None:
        self.is_terminal = True
        self.current_player = None

    def checked_seat(self, name: str, seat: Any, none_means: str = "") -> int | None:
        """``seat`` as an ``int`` seat of this game (a numpy integer accepted), or one
        clear error naming ``name``; None is accepted where ``none_means`` says what it is."""
        if seat.__class__ is int and 0 <= seat < self.num_players:  # the rules' own calls
            return seat
        high = self.num_players - 1
        if none_means:
            if seat is None:
                return None
            return validation.integer(name, seat, 0, high, accepted=f"a seat from 0 to {high} or None ({none_means})")
        return validation.integer(name, seat, 0, high, accepted=f"a seat from 0 to {high}")

    def hand_total(self, player: int) -> int:
        return self._hand_total(self.checked_seat("player", player))

    def _hand_total(self, player: int) -> int:
        """``hand_total`` for a seat of the rules' own (Python ints: numpy scalars per card
        would cost more than the sum)."""
        point_of, type_of = self.points.item, self.table.card_types.item
        return sum([point_of(type_of(card)) for card in self.table.hands[player] if card != EMPTY])

    def ranks(self) -> list[int]:
        """Final ranking by cumulative total, lowest first; equal totals share a rank."""
        return shared_ranks(self.scores)

    def winners(self) -> list[int]:
        return lowest(self.scores)

    # --- copies and sampling -------------------------------------------------------------
    def clone(self) -> RoundGameState:
        return self._copy_with(self.table.clone(), self.chance.clone())

    def _copy_with(self, table: CardTable, chance: Chance) -> RoundGameState:
        """A copy of this state holding ``table`` and ``chance`` (not copied again)."""
        other = copy.copy(self)
        other.table = table
        other.scores = self.scores.copy()
        other.eliminated = self.eliminated.copy()
        other.round_results = self.round_results.copy()
        other._events = self.events.copy()
        other._unread_events = []
        other.event_records = self.event_records[:]
        other.chance = chance
        other._mask = self._mask.copy()
        other.version = object()
        other._mask_version = other.version if self._mask_version is self.version else None
        self._clone_extra(other)
        return other

    def _clone_extra(self, other: RoundGameState) -> None:
        """Copy the ruleset's own mutable attributes into ``other``."""

    def sample_world(self, observer: int, rng: np.random.Generator) -> RoundGameState:
        """A copy in which every card ``observer`` does not know is dealt at random into
        the places ``observer`` cannot see, consistently with all ``observer`` knows.

        The copy gets a fresh generator drawn from ``rng``, so future shuffles are not
        the real game's either.
        """
        observer = self.checked_seat("observer", observer)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(...)), got {validation.show(rng)}")
        # The sampled table and the fresh generator go straight into the copy (a clone would
        # copy the real ones first, a fifth of a simulation's cost in the search).
        table = self.table.sample_world(observer, rng)
        world = self._copy_with(table, SeededChance(np.random.default_rng(rng.integers(2**63))))
        world._mask_version = None  # identities changed: the cached mask is not this world's
        return world

    # --- the event log ---------------------------------------------------------------
    def log(
        self,
        kind: str,
        player: int,
        cards: tuple[int, ...] = (),
        visible_to: tuple[int, ...] | None = PUBLIC,
        text: str = "",
        places: tuple[tuple[int, int], ...] = (),
    ) -> None:
        """Record an event; ``text`` may place the cards with ``{cards}``; ``places`` are
        the ``(seat, slot)`` pairs involved. ``kind`` is one of the ruleset's
        ``event_kinds``, which the observation's event piece is built from."""
        try:
            kind_id = self.event_kind_index[kind]
        except KeyError:
            raise AssertionError(f"event kind {kind!r} is not in {type(self).__name__}.event_kinds") from None
        face_up = self._card_types_of(cards) if visible_to is PUBLIC and cards else ()
        clock = self.table.knowledge.clock
        self._unread_events.append((clock, self.round_index, kind, player, cards, visible_to, text, places, face_up))
        if self.recorded_event_kinds[kind_id]:
            append_event_record(self.event_records, clock, kind_id, player, places, face_up)

    @property
    def events(self) -> list[Event]:
        """Every event logged, oldest first. ``log`` keeps an event as a plain tuple until
        the log is read: an :class:`Event` costs three times as much to make, and a
        training run reads none (the observations read ``event_records``)."""
        if self._unread_events:
            self._events += map(Event._make, self._unread_events)
            self._unread_events.clear()
        return self._events

    def _card_types_of(self, cards: tuple[int, ...]) -> tuple[int, ...]:
        """The card types of physical ``cards`` (what a face-up event shows)."""
        return tuple(map(self.table.card_types.item, cards))

    def card_name(self, card: int) -> str:
        """ASCII name of a physical card's type."""
        return card_name(int(self.table.card_types[card]))

    def describe_events(self, viewer: int | None, last: int | None = None) -> list[str]:
        """One line per event (the ``last`` newest, or all) as ``viewer`` saw it."""
        return [e.describe(self.card_name, viewer) for e in self._events_for(viewer, last)]

    def _events_for(self, viewer: int | None, last: int | None) -> list[Event]:
        """The events ``describe_events`` describes, its arguments checked."""
        viewer = self.checked_seat("viewer", viewer, none_means="every card shown")
        last = validation.optional_integer("last", last, 0)
        return self.events if last is None else self.events[len(self.events) - last:]



class CardGameState(RoundGameState):
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
    def render_text(self, viewer: int | None, memory: str = "perfect", recent_events: int = 8) -> str:
        """A text table of the game as ``viewer`` sees it (``None``: every card shown)."""
        viewer = self.checked_seat("viewer", viewer, none_means="every card shown")
        table = self.table
        n = self.num_players
        if viewer is None:
            shown = np.ones(table.num_cards, dtype=bool)
        else:
            shown = table.knowledge.shown_to(viewer, memory)
        known = table.knowledge.known
        view = "omniscient view" if viewer is None else f"view of player_{viewer}"
        lines = [f"{self.game_name} — round {self.round_index + 1}, {view}"]
        lines += self._status_lines(viewer)
        top = table.top_discard
        lines.append(
            f"draw pile {len(table.draw_pile)} | discard pile {len(table.discard_pile)}"
            f" | top discard {self.card_name(top) if top is not None else '--'}"
        )
        for p in range(n):
            cells = []
            for s, card in enumerate(table.hands[p]):
                if card < 0:
                    cells.append(f"{s}:--")
                    continue
                name = self.card_name(card) if shown[card] else "??"
                knowers = "".join(str(q) for q in range(n) if known[q, card])
                cells.append(f"{s}:{name}" + (f"({knowers})" if knowers else ""))
            for card in table.held[p]:
                cells.append(f"holding:{self.card_name(card) if shown[card] else '??'}")
            marker = "*" if p == self.current_player else " "
            you = " (you)" if p == viewer else ""
            lines.append(f"{marker}player_{p}{you} score {self.scores[p]:>3} | " + "  ".join(cells))
        lines.append("(n) after a card: the players who know it")
        if recent_events:
            lines.append("recent events:")
            lines += ["  " + line for line in self.describe_events(viewer, recent_events)]
        return "\n".join(lines)

    game_name = "card game"

    def _status_lines(self, viewer: int | None) -> list[str]:
        """Lines under the title: who acts in which phase, the call in progress."""
        if self.is_terminal:
            ranks = self.ranks()
            return ["game over; ranks " + ", ".join(f"player_{p}: {r}" for p, r in enumerate(ranks))]
        line = (f"turn {self.turns_completed + 1}/{self.config.max_turns_per_round}, "
                f"player_{self.current_player} to act, phase {self.phase.name.lower()}")
        line += "".join(f"; {detail}" for detail in self._status_details())
        if self.caller is not None:
            line += f"; player_{self.caller} called, {self.final_turns_left} final turn(s) left"
        return [line]

    def _status_details(self) -> list[str]:
        """The ruleset's own facts for the status line."""
        return []


SCENARIO_KEYS = ("hands", "draw_pile", "discard_pile", "starter", "scores")
"""The keys of ``reset(options=...)`` that set up a scenario."""
PETTINGZOO_PROBE_KEY = "options"
"""PettingZoo's api_test and parallel_test reset with ``options={"options": 1}`` only to
check that ``reset`` takes the keyword: that one key alone, with a value that is no
mapping, sets nothing and is accepted quietly. Any other unknown key is an error (a typo
such as ``hand`` must not be ignored, nor scenario keys nested one level too deep)."""


def _is_pettingzoo_probe(options: Mapping) -> bool:
    return list(options) == [PETTINGZOO_PROBE_KEY] and not isinstance(options[PETTINGZOO_PROBE_KEY], Mapping)


def layout_from_options(
    options: Mapping | None,
    num_players: int,
    *,
    max_hand_slots: int | None = None,
    score_bounds: tuple[int, int, str],
) -> dict | None:
    """Check the scenario keys of ``reset(options=...)`` and parse them into card types.

    Keys: ``hands`` (one list of card names per player, slot by slot), ``draw_pile``
    (the top of the draw pile, top card first), ``discard_pile`` (bottom first),
    ``starter`` (seat) and ``scores`` (cumulative totals to start from, one per player).
    Any other key is a ValueError, except PettingZoo's probe (:data:`PETTINGZOO_PROBE_KEY`).
    With ``max_hand_slots`` a hand may hold at most that many cards. A score must lie in
    ``score_bounds``, ``(lowest, highest, why)``: the ruleset's range of totals a game in
    progress can have, and why (its error message says both). Raises TypeError or ValueError as
    :mod:`cardenv.core.validation` describes.
    """
    options = validation.mapping("options", options)
    if not options or _is_pettingzoo_probe(options):
        return None
    unknown = [key for key in options if key not in SCENARIO_KEYS]
    if unknown:
        # Keys are shown by repr: they need not be strings.
        what = "an unknown reset option" if len(unknown) == 1 else "unknown reset options"
        raise ValueError(f"options has {what} {', '.join(map(repr, unknown))}; the scenario keys are "
                         f"{', '.join(SCENARIO_KEYS)}")
    layout: dict = {}
    if "hands" in options:
        hands = validation.sequence("hands", options["hands"], "hands (lists of card names), one per player",
                                    num_players)
        layout["hands"] = [_scenario_cards(f"hands[{p}]", hand) for p, hand in enumerate(hands)]
        if max_hand_slots is not None:
            for p, hand in enumerate(hands):
                if len(hand) > max_hand_slots:
                    raise ValueError(f"hands[{p}] may hold at most max_hand_slots={max_hand_slots} cards, "
                                     f"got {len(hand)}: {validation.show(hand)}")
        layout["draw_pile"] = _scenario_cards("draw_pile", options.get("draw_pile", []))
        layout["discard_pile"] = _scenario_cards("discard_pile", options.get("discard_pile", []))
    else:
        for pile in ("draw_pile", "discard_pile"):
            if pile in options:
                raise ValueError(f"{pile} needs hands as well (a scenario lays out the whole table), "
                                 f"got {pile}={validation.show(options[pile])} without hands")
    if "starter" in options:
        layout["starter"] = validation.integer("starter", options["starter"], 0, num_players - 1,
                                               accepted=f"a seat, an integer from 0 to {num_players - 1}")
    if "scores" in options:
        scores = validation.sequence("scores", options["scores"], "integer totals, one per player", num_players)
        low, high, why = score_bounds
        accepted = f"an integer from {low} to {high} ({why})"
        layout["scores"] = [validation.integer(f"scores[{p}]", score, low, high, accepted=accepted)
                            for p, score in enumerate(scores)]
    return layout


def _scenario_cards(name: str, value: Any) -> list[int]:
    """Card types of a scenario's list of card names; ``name`` says where it is."""
    cards = validation.sequence(name, value, "card names")
    types = []
    for i, card in enumerate(cards):
        if not isinstance(card, str):
            raise TypeError(f"{name}[{i}] must be {card_name_accepted(card)}, got {validation.show(card)}")
        try:
            types.append(parse_card(card))
        except ValueError:
            raise ValueError(f"{name}[{i}] must be {card_name_accepted(card)}, got {validation.show(card)}") from None
    return types
