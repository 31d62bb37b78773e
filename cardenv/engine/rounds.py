"""The round state machine every rules engine shares (:class:`GameState`): the state
machine interface (``current_player``, ``legal_actions``, ``apply``, ``is_terminal``),
rounds and cumulative scores, players who leave, the event log, copies and
information-set sampling, and the illegal-action error.

A ruleset whose cards lie in slot grids and piles builds on
:class:`cardenv.engine.slots.SlotGameState`; one whose cards lie elsewhere (multiset hands,
melds) subclasses :class:`GameState` directly. Nothing here imports PettingZoo: search
agents, tests and other front ends use engines directly.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from cardenv.core import validation
from cardenv.core.actions import ActionTable
from cardenv.core.cards import card_name
from cardenv.core.chance import Chance, SeededChance, as_chance
from cardenv.core.events import PUBLIC, Event, append_event_record, new_event_records
from cardenv.core.scoring import lowest, shared_ranks
from cardenv.core.table import EMPTY, CardTable
from cardenv.engine.table_view import DISCARD_PILE, DRAW_PILE, card_target, meld_target, slot_target

# The places an action may point at besides a seat's slot (``GameState.action_places``).
ACTION_PLACES = (DRAW_PILE, DISCARD_PILE, "card", "meld")


@lru_cache(maxsize=4096)
def _card_fields(first: int, count: int) -> str:
    """``{first} {first+1} …`` for ``count`` cards of an event's text, or "no cards"."""
    return " ".join(f"{{{first + i}}}" for i in range(count)) or "no cards"


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


class GameState:
    """A game in progress, played in rounds, whatever its cards lie in (slot grids,
    multiset hands, melds): the state machine interface, cumulative scores and round
    results, players who leave, the event log, copies and information-set sampling.

    Subclasses provide ``action_table``, ``points``, ``phase``, ``event_kinds``,
    ``_fill_legal_mask(mask)`` (the zeroed int8 mask as a memoryview: set legal ids to
    1), ``_apply(action)`` and their rounds. The slot-and-pile
    rulesets build on :class:`SlotGameState` below.
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
    # What each phase asks of the player to act, in words (the text table's "now:" line);
    # a phase not listed reads as its name.
    phase_words: ClassVar[Mapping] = MappingProxyType({})
    # The action kinds that add to a selection a later action commits: the selection is
    # the selecting player's alone and nothing happens until it is committed, so a front
    # end may take such steps back (the game is then as if they were never taken).
    selection_kinds: ClassVar[frozenset[str]] = frozenset()
    # Where each kind of action points on the table, for a front end that takes an action by
    # a click on its place (``action_target``): ``"draw pile"``, ``"discard pile"``,
    # ``"card"`` (the slot is a card type in the actor's hand) or ``"meld"`` (the slot is a
    # meld's index). A kind not listed points at a seat's slot where it has one (the
    # actor's own; with a seat offset, that seat's), else at no place (a button).
    action_places: ClassVar[Mapping[str, str]] = MappingProxyType({})
    # The index of each of ``event_kinds``, and whether its events go into
    # ``event_records`` (the kinds an observation shows: not the implied ones); made
    # for every subclass.
    event_kind_index: ClassVar[dict[str, int]] = {}
    recorded_event_kinds: ClassVar[tuple[bool, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        unknown = set(cls.action_places.values()) - set(ACTION_PLACES)
        if unknown:
            raise ValueError(f"{cls.__name__}.action_places: unknown places {sorted(unknown)}; "
                             f"the places are {', '.join(ACTION_PLACES)}")
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
        # The actions applied since the round was dealt (a search replays them in a world
        # it sampled).
        self.round_actions: list[int] = []
        # A copy of the state as this round was dealt, kept only once ``keep_round_starts``
        # asked for it (see there).
        self.round_start: GameState | None = None
        self._keeps_round_starts = False

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
        self.round_actions.append(action)  # (a new round dealt by this action starts the list afresh)
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

    def phase_in_words(self) -> str:
        """What the current phase asks of the player to act (:attr:`phase_words`)."""
        return self.phase_words.get(self.phase, self.phase.name.lower().replace("_", " "))

    def rules_in_short(self) -> str:
        """:attr:`rules_summary` with this game's options (its target score, say)."""
        return self.rules_summary.format_map(vars(self.config))

    def action_name_for(self, action: int, seat: int) -> str:
        """``action``'s name as ``seat`` reads it, the players its seat offsets point at
        named (see :meth:`ActionTable.name_for_seat`)."""
        return self.action_table.name_for_seat(action, seat, self.num_players)

    def action_from_name(self, name: str) -> int:
        return self.action_table.from_name(name)

    def action_target(self, action: int, seat: int | None = None) -> str | None:
        """The place on the table ``action`` points at when ``seat`` (default: the player to
        act) takes it: the key the drawn table gives that place (``cardenv.engine.table_view``:
        a pile, a seat's slot, a card type in the actor's hand, a meld), or None where it
        points at no place (:attr:`action_places`)."""
        spec = self.action_table.specs[validation.integer("action", action, 0, self.num_actions - 1)]
        seat = self.checked_seat("seat", self.current_player if seat is None else seat)
        place = self.action_places.get(spec.kind)
        if place in (DRAW_PILE, DISCARD_PILE):
            return place
        if place == "card":
            return card_target(seat, spec.slot_name)
        if place == "meld":
            return meld_target(spec.slot)
        if spec.slot is None:
            return None
        return slot_target((seat + (spec.offset or 0)) % self.num_players, spec.slot)

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
            self.round_actions = []
            self._start_round(None)
            if self._keeps_round_starts:
                self._keep_round_start()

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
    def keep_round_starts(self) -> None:
        """From now on keep :attr:`round_start`, a copy of the state as each round is dealt
        (this round's too while none of its actions is applied): a search replays the round
        from there, ``round_actions`` in hand. A copy of the state keeps none."""
        self._keeps_round_starts = True
        if not self.round_actions and not self.is_terminal:
            self._keep_round_start()

    def _keep_round_start(self) -> None:
        self.round_start = self.clone()

    def clone(self) -> GameState:
        return self._copy_with(self.table.clone(), self.chance.clone())

    def _copy_with(self, table: CardTable, chance: Chance) -> GameState:
        """A copy of this state holding ``table`` and ``chance`` (not copied again)."""
        other = copy.copy(self)
        other.table = table
        other.scores = self.scores.copy()
        other.eliminated = self.eliminated.copy()
        other.round_results = self.round_results.copy()
        other._events = self.events.copy()
        other._unread_events = []
        other.event_records = self.event_records[:]
        other.round_actions = self.round_actions.copy()
        other.round_start, other._keeps_round_starts = None, False
        other.chance = chance
        other._mask = self._mask.copy()
        other.version = object()
        other._mask_version = other.version if self._mask_version is self.version else None
        self._clone_extra(other)
        return other

    def _clone_extra(self, other: GameState) -> None:
        """Copy the ruleset's own mutable attributes into ``other``."""

    def sample_world(self, observer: int, rng: np.random.Generator) -> GameState:
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
