"""The observation pieces every slot-and-pile ruleset shares, written once.

:class:`TableObserver` declares and fills what all these games show a player: every
seat's slots (present, identity when the observer may know it, who knows it), the top
discard, the drawn card, phase, whose decision it is, the call in progress, turns, pile
sizes, scores, card counting and the recent public events. It also encodes the
omniscient global state (``env.state()``). A ruleset subclasses it, names its points
table, phases, event kinds and deck, and adds its own pieces in ``_add_ruleset_pieces``
/ ``_fill_ruleset_pieces``.

In an observation seats are relative: row 0 is the observer, row k the player k seats
clockwise (on every seat axis, the third axis of ``slot_known_by`` included). In the
global state seats are absolute: row k is ``player_k``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping
from enum import IntEnum
from types import MappingProxyType

import numpy as np

from cardenv.core import validation
from cardenv.core.cards import IS_RED, NUM_STANDARD_TYPES, NUM_SUITS, RANK_OF, SUIT_NAMES, copies_per_type
from cardenv.core.observation import ObservationLayout
from cardenv.core.table import EMPTY
from cardenv.engine.slots import SlotGameState

DRAW_PILE_LOOKAHEAD = 4
"""How many of the next draw-pile cards the global state shows, in order."""

encoders = None  # cardenv.engine.encoders (and numba), once an observer is built

MAX_ACCEPTED_OUTS = 64
"""How many checked ``out`` buffers an observer remembers (then it forgets them all)."""


def load_encoders() -> None:
    """Import the compiled encoders (and numba) when the first observer is built, not
    when cardenv is imported."""
    global encoders
    if encoders is None:
        from cardenv.engine import encoders as module

        encoders = module


class Observer:
    """What every observer shares, whatever its game's cards lie in: a buffer of
    ``size`` float32 entries reused between calls, and scratch attributes (buffers, views
    into them, caches) that a copy (deepcopy, pickle) must not carry — a copied view
    would be detached from the copied buffer — so copies drop the ``scratch`` attributes
    and rebuild them with ``_make_buffers()``."""

    size: int
    scratch: tuple[str, ...] = ()
    # Options that only append pieces worked out from the rest of the observation:
    # option -> function(layout, vector) giving their values from an observation without
    # them. A policy trained with such an option plays an env without it (cardenv.agents.ppo).
    derived_pieces: Mapping[str, Callable[[ObservationLayout, np.ndarray], np.ndarray]] = MappingProxyType({})
    # The buffers found fit to write into, by id (the arrays held, so no id is reused):
    # an env keeps one per seat. Per instance, made on the first check.
    _accepted_outs: Mapping[int, np.ndarray] = MappingProxyType({})

    def _make_buffers(self) -> None:
        raise NotImplementedError

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in (*self.scratch, "_accepted_outs"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_buffers()

    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def compiled_call(self, name: str, compiled_function) -> Callable:
        """What to keep as the attribute ``name`` (a ``scratch`` one) to call the compiled
        ``compiled_function``: a first call through numba's dispatcher that replaces the
        attribute with the function's entry point for those argument types (see
        ``encoders.fixed_type_entry``), which later calls take."""
        def first_call(*args) -> None:
            setattr(self, name, encoders.fixed_type_entry(compiled_function, args))
        return first_call

    def observe(self, state: SlotGameState, observer: int, out: np.ndarray | None = None,
                recent_events: bool = True) -> np.ndarray:
        """Write ``observer``'s view of ``state`` into ``out`` (or a new array) and return
        it; ``out`` must be a writeable, C-contiguous float32 array of shape ``(size,)``.

        ``recent_events=False`` leaves the recent-events pieces (``event_*`` and
        ``events_dropped``) at zero where the ruleset allows: for agents that never read
        them (``Agent.needs_recent_events``), whose observations then cost less."""
        # A Python int seat and a buffer accepted before cost two comparisons; anything
        # else is checked in full.
        if not (observer.__class__ is int and 0 <= observer < self.config.num_players
                and (out is None or self._accepted_outs.get(id(out)) is out)):
            observer = self.checked_call(observer, out)
        return self.write(state, observer, out, recent_events)

    def write(self, state: SlotGameState, observer: int, out: np.ndarray | None = None,
              recent_events: bool = True) -> np.ndarray:
        """:meth:`observe` without checking ``observer`` and ``out``: for callers that
        pass seats and buffers of their own making (the envs, the search)."""
        raise NotImplementedError

    def checked_call(self, observer: object, out: object) -> int:
        """``observer`` as an ``int`` seat, after checking it and ``out`` (see
        :meth:`checked_out`, and remembering ``out`` as accepted); a bad value is one
        clear error."""
        seat = validation.integer("observer", observer, 0, self.config.num_players - 1)
        if out is not None:
            self.checked_out(out, self.size)
            if "_accepted_outs" not in self.__dict__ or len(self._accepted_outs) >= MAX_ACCEPTED_OUTS:
                self._accepted_outs = {}
            self._accepted_outs[id(out)] = out
        return seat

    @staticmethod
    def checked_out(out: object, size: int) -> np.ndarray:
        """``out`` if a vector can be written into it: a writeable, C-contiguous float32
        numpy array of shape ``(size,)``; else a TypeError (not an array) or ValueError."""
        accepted = f"a writeable, contiguous float32 numpy array of shape ({size},)"
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be {accepted} or None, got {validation.show(out)}")
        if out.dtype != np.float32 or out.shape != (size,) or not out.flags.c_contiguous or not out.flags.writeable:
            flaws = [] if out.flags.c_contiguous else ["not contiguous"]
            flaws += [] if out.flags.writeable else ["read-only"]
            got = ", ".join([f"{out.dtype} of shape {out.shape}", *flaws])
            raise ValueError(f"out must be {accepted}, got an array of {got}")
        return out

    def seat_row(self, seat: int, observer: int | None) -> int:
        """Row of ``seat`` on a seat axis: relative to ``observer``, absolute for None."""
        return seat if observer is None else (seat - observer) % self.config.num_players


def hands_array(hands: list[list[int]]) -> array:
    """Every hand as the compiled loops read them: each hand's length, then its cards, seat
    after seat (a short ``array``: numpy's cost per entry would exceed the loops' work)."""
    flat = array("q")
    for hand in hands:
        flat.append(len(hand))
        flat.fromlist(hand)
    return flat


def piece_destinations(layout: ObservationLayout, columns: list[tuple[str, int, int]], rows: int) -> np.ndarray:
    """Where each entry of a ``rows`` × width block lands in a vector of ``layout``, for a
    block that holds pieces side by side (``columns``: name, first and end column), each
    piece being ``rows`` × its width in the layout: writing a block is then one scatter."""
    width = columns[-1][2]
    destination = np.empty((rows, width), dtype=np.intp)
    for name, low, high in columns:
        start = layout.pieces[name].start
        destination[:, low:high] = start + np.arange(rows * (high - low)).reshape(rows, high - low)
    return destination


def seat_relative_destinations(in_layout_order: np.ndarray, seat_blocks: list[tuple[int, int]],
                               num_players: int) -> list[np.ndarray]:
    """Per observer, ``in_layout_order`` (destinations of a block whose columns are in
    layout order, see :func:`piece_destinations`) for a block whose seat columns are
    absolute: ``seat_blocks`` are ``(first column, columns per seat)`` runs of
    ``num_players`` seats each, which the observation shows relative to the observer."""
    n = num_players
    destinations = []
    for observer in range(n):
        relative = np.arange(in_layout_order.shape[1])  # the relative column of each absolute one
        for start, per_seat in seat_blocks:
            relative[start: start + n * per_seat] = [start + (seat - observer) % n * per_seat + j
                                                     for seat in range(n) for j in range(per_seat)]
        destinations.append(in_layout_order[:, relative])
    return destinations


def row_scatter(destinations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``destinations`` (rows × columns, from :func:`piece_destinations`) as two vectors,
    ``base`` and ``step``: entry j of row i lands at ``base[j] + i * step[j]``, since
    each column's pieces hold one row after another: a map an observer reads in a few
    hundred bytes, not kilobytes."""
    rows, width = destinations.shape
    base = destinations[0].copy() if rows else np.zeros(width, dtype=np.intp)
    step = destinations[1] - destinations[0] if rows > 1 else np.zeros(width, dtype=np.intp)
    if not np.array_equal(destinations, base + np.arange(rows)[:, None] * step):
        raise ValueError("destinations do not hold one row after another in every column")
    return np.ascontiguousarray(base, dtype=np.intp), np.ascontiguousarray(step, dtype=np.intp)


class EventEncoding:
    """How an observer's ``event_*`` rows are read from a state's event records
    (``state.event_records``, see :func:`~cardenv.core.events.append_event_record`):
    the tables of :func:`~cardenv.engine.encoders.write_recent_events`, which
    writes the newest shown events straight from the records, so no event is encoded
    in Python and nothing is kept between observations.

    Columns are those of one event row, seats absolute: ``kind_column`` + the kind's
    index among ``shown_kinds``, ``actor_column`` + the acting seat, ``places_column`` +
    seat × ``slots_per_seat`` + slot for each place. A face-up card of type t counts in
    each of ``face_columns[t]`` (-1: none), where k cards weigh ``face_sums[column -
    face_low, k]``.
    """

    __slots__ = ("kind_columns", "actor_column", "places_column", "slots_per_seat", "face_columns", "face_low",
                 "face_sums")

    def __init__(self, state_class: type, shown_kinds: tuple[str, ...], kind_column: int, actor_column: int,
                 places_column: int, slots_per_seat: int, face_columns: np.ndarray,
                 face_sums: Mapping[int, list[float]]):
        all_kinds = state_class.event_kinds
        self.kind_columns = np.array([kind_column + shown_kinds.index(kind) if kind in shown_kinds else -1
                                      for kind in all_kinds], dtype=np.int64)
        self.actor_column, self.places_column, self.slots_per_seat = actor_column, places_column, slots_per_seat
        self.face_columns = np.ascontiguousarray(face_columns, dtype=np.int64)
        self.face_low = min(face_sums)
        width = max(face_sums) - self.face_low + 1
        self.face_sums = np.zeros((width, max(len(sums) for sums in face_sums.values())), dtype=np.float32)
        for column, sums in face_sums.items():
            self.face_sums[column - self.face_low, : len(sums)] = sums

    def tables_for(self, scatter: tuple[np.ndarray, np.ndarray], new_start: int,
                   capacity: int) -> tuple[dict[str, np.ndarray], dict[str, int]]:
        """One observer's tables of its event pieces and their settings, each by its
        name in ``encoders.Table`` / ``encoders.Setting`` (lower-case): its ``scatter``
        (:func:`row_scatter`), ``event_new`` at ``new_start``, ``capacity`` rows; see
        ``write_recent_events``."""
        column_base, column_step = scatter
        tables = {"kind_columns": self.kind_columns, "face_columns": self.face_columns, "column_base": column_base,
                  "column_step": column_step}
        settings = {"actor_column": self.actor_column, "places_column": self.places_column,
                    "slots_per_seat": self.slots_per_seat, "face_low": self.face_low,
                    "faces_per_type": self.face_columns.shape[1], "new_start": new_start, "capacity": capacity}
        return tables, settings


def face_up_sums(face_columns: np.ndarray, weights: np.ndarray, copies: np.ndarray) -> dict[int, list[float]]:
    """Per face column (``face_columns[t]``: the columns a card of type t counts in, -1
    for none), the values k face-up cards add up to, for every k up to the cards of the
    deck counted there: each card of type t adds ``weights[t, j]`` to column
    ``face_columns[t, j]``, summed card by card in float32. Every card counted in one
    column must weigh the same, so the sum depends only on how many there are."""
    weight_of: dict[int, float] = {}
    cards_of: dict[int, int] = {}
    for t in range(len(face_columns)):
        for column, weight in zip(face_columns[t].tolist(), weights[t].tolist()):
            if column < 0:
                continue
            if weight_of.setdefault(column, weight) != weight:
                raise ValueError(f"face column {column} has cards of different weights")
            cards_of[column] = cards_of.get(column, 0) + int(copies[t])
    sums_of: dict[int, list[float]] = {}
    for column, weight in weight_of.items():
        total, sums = np.float32(0), [0.0]
        for _ in range(cards_of[column]):
            total = np.float32(total + np.float32(weight))
            sums.append(float(total))
        sums_of[column] = sums
    return sums_of


def shown_slots_matching_the_top_discard(layout: ObservationLayout, vector: np.ndarray,
                                         opposite_colour: bool = False) -> np.ndarray:
    """Seat × slot (seat-relative rows): 1 where an observation of ``layout`` shows the
    slot's card and it has the top discard's rank (and, with ``opposite_colour``, the
    other colour). Worked out from the observation's own pieces alone: the matching
    hints of the slot rulesets (``match_hints``, ``snap_hints``)."""
    known = layout.view(vector, "slot_known") > 0.5
    hints = np.zeros(known.shape, dtype=np.float32)
    if layout.view(vector, "top_discard_present")[0] < 0.5:
        return hints
    matching = known & (layout.view(vector, "slot_rank") @ layout.view(vector, "top_discard_rank") > 0.5)
    if opposite_colour:
        matching &= (layout.view(vector, "slot_red") > 0.5) != (layout.view(vector, "top_discard_red")[0] > 0.5)
    hints[matching] = 1.0
    return hints


class TableObserver(Observer):
    """Writes one configuration's observations: the card, turn and event pieces by
    compiled loops from tables made once, the ruleset's few entries through a memoryview
    of the buffer (slicing numpy views per piece per call would cost more than the
    entries); the buffers, memoryviews and caches are the ``scratch`` a copy rebuilds
    (see :class:`Observer`)."""

    scratch = ("_buffer", "_flat", "_scores", "_scores_list", "_flat_of", "_write_observation")
    points: np.ndarray  # points per card type
    phases: type[IntEnum]
    state_class: type[SlotGameState]  # the ruleset's engine (its event kinds)
    deck: np.ndarray  # card types of the ruleset's deck
    call_name: str  # what the rules call ending a round (the ruleset's word for it)
    # Whether every shown card's colour is shown too (``*_red`` pieces, and the colour of
    # face-up cards in events). Rulesets where colour decides something that rank and
    # points do not (snaps by colour, jokers of two colours) turn it on.
    shows_colour: bool = False

    def __init__(self, config):
        load_encoders()
        self.config = config
        self.num_types = int(self.deck.max()) + 1
        self.num_ranks = int(RANK_OF[self.num_types - 1]) + 1
        self.copies = copies_per_type(self.deck)[: self.num_types]
        self.max_card_points = int(self.points[: self.num_types].max())
        self.min_card_points = min(0, int(self.points[: self.num_types].min()))
        self._scaled_points = self.points / self.max_card_points  # the *_points pieces' values
        implied = self.state_class.implied_event_kinds
        self.shown_event_kinds = tuple(k for k in self.state_class.event_kinds if k not in implied)
        self.kind_index = {kind: i for i, kind in enumerate(self.shown_event_kinds)}  # event_kind's columns
        self.layout = self._build_layout()
        self._derived_on = [(option, derive) for option, derive in self.derived_pieces.items()
                            if getattr(config, option)]
        self.state_layout = self._build_state_layout()
        self.size = self.layout.size
        # Where each piece starts, in the observation and in the global state.
        self._starts, self._state_starts = ({name: piece.start for name, piece in layout.pieces.items()}
                                            for layout in (self.layout, self.state_layout))
        # What the turn pieces are divided by (write_turn_pieces).
        self._turn_divisors = np.array(encoders.in_order(
            encoders.Divisor, other_players=config.num_players - 1, max_turns=config.max_turns_per_round,
            deck_cards=len(self.deck), target_score=config.target_score))
        self._pack_compiled_tables()
        self._make_buffers()

    def _pack_compiled_tables(self) -> None:
        """The tables of ``write_table_observation``: per observer, its integer tables
        packed into one vector (``_tables``), and the float tables every observer
        shares (``_weights``): each card type's identity row, then the face sums."""
        encoded = encoders
        config = self.config
        identity = self._identity_of_type()
        event_encoding, event_columns = self._event_encoding()
        face_sums = event_encoding.face_sums
        self._weights = np.concatenate([identity.ravel(), face_sums.ravel()]).astype(np.float32)
        slot_destinations = self._slot_destinations()
        piece_starts = [self._starts[piece.name.lower()] for piece in encoded.Piece]
        self._tables = []
        for observer, scatter in enumerate(self._event_scatter(event_columns)):
            event_tables, event_settings = event_encoding.tables_for(scatter, self._starts["event_new"],
                                                                     config.recent_events)
            settings = encoded.in_order(
                encoded.Setting, observer=observer, only_new=config.memory == "none", identity_width=identity.shape[1],
                face_sums_at=identity.size, face_sums_width=face_sums.shape[1], **event_settings)
            self._tables.append(encoded.pack_tables(encoded.in_order(
                encoded.Table, settings=settings, slot_destinations=slot_destinations, piece_starts=piece_starts,
                copies=self.copies, turn_divisors=self._turn_divisors, **event_tables)))

    def _event_columns(self) -> list[tuple[str, int, int]]:
        """The columns of one event row: the event pieces side by side (layout order),
        seats absolute, as (name, first column, end column)."""
        pieces = self.layout.pieces
        names = [name for name in pieces if name.startswith("event_") and name != "event_new"]
        widths = [int(np.prod(pieces[name].shape[1:])) for name in names]
        starts = np.cumsum([0, *widths]).tolist()
        return [(name, low, low + width) for name, low, width in zip(names, starts, widths)]

    def _event_scatter(self, event_columns: list[tuple[str, int, int]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per observer, where each entry of the event rows (seats absolute) lands in the
        observation, whose seat columns are relative to the observer (:func:`row_scatter`)."""
        config = self.config
        column = {name: low for name, low, _ in event_columns}
        return [row_scatter(destinations) for destinations in seat_relative_destinations(
            piece_destinations(self.layout, event_columns, config.recent_events),
            [(column["event_actor"], 1), (column["event_places"], config.max_hand_slots)], config.num_players)]

    def _event_encoding(self) -> tuple[EventEncoding, list[tuple[str, int, int]]]:
        """How the event rows are read from the records, and their columns. Per card
        type, the columns one face-up card counts in: its rank, suit (a joker has none)
        and colour, each card weighing 1 / the copies of that rank (suit, colour) in
        the deck."""
        event_columns = self._event_columns()
        column = {name: low for name, low, _ in event_columns}
        types = np.arange(self.num_types)
        is_standard = types < NUM_STANDARD_TYPES
        red = IS_RED[types].astype(np.int64)
        rank_copies = np.bincount(RANK_OF[types], weights=self.copies, minlength=self.num_ranks)
        suit_copies = np.bincount(types[is_standard] & 3, weights=self.copies[is_standard], minlength=NUM_SUITS)
        colour_copies = np.bincount(red, weights=self.copies, minlength=2)
        face_columns = np.full((self.num_types, 3), -1, dtype=np.int64)
        face_columns[:, 0] = column["event_face_up_rank"] + RANK_OF[types]
        face_columns[is_standard, 1] = column["event_face_up_suit"] + (types[is_standard] & 3)
        if self.shows_colour:
            face_columns[:, 2] = column["event_face_up_colour"] + red
        weights = np.stack([1.0 / rank_copies[RANK_OF[types]], 1.0 / suit_copies[types & 3],
                            1.0 / colour_copies[red]], axis=1).astype(np.float32)
        encoding = EventEncoding(
            self.state_class, self.shown_event_kinds, column["event_kind"], column["event_actor"],
            column["event_places"], self.config.max_hand_slots, face_columns,
            face_up_sums(face_columns, weights, self.copies))
        return encoding, event_columns

    def _slot_pieces(self) -> list[str]:
        """The pieces a slot's row holds side by side: slot_present, the identity
        columns (slot_known … slot_points), the knowers (slot_known_by)."""
        return ["slot_present", "slot_known", "slot_rank", *(["slot_red"] if self.shows_colour else []),
                "slot_points", "slot_known_by"]

    def _slot_destinations(self) -> np.ndarray:
        """Where each entry of every slot's row lands in the observation."""
        pieces = self.layout.pieces
        names = self._slot_pieces()
        widths = [int(np.prod(pieces[name].shape[2:])) for name in names]
        starts = np.cumsum([0, *widths]).tolist()
        slot_columns = [(name, low, low + width) for name, low, width in zip(names, starts, widths)]
        return piece_destinations(self.layout, slot_columns, self.config.num_players * self.config.max_hand_slots)

    def _identity_of_type(self) -> np.ndarray:
        """Per card type, the identity columns of a slot's row when the card is shown
        (slot_known, rank one-hot, red where colour shows, points)."""
        types = np.arange(self.num_types)
        width = 1 + self.num_ranks + (1 if self.shows_colour else 0) + 1
        identity = np.zeros((self.num_types, width), dtype=np.float32)
        identity[types, 0] = 1
        identity[types, 1 + RANK_OF[types]] = 1
        if self.shows_colour:
            identity[types, 1 + self.num_ranks] = IS_RED[types]
        identity[types, -1] = self._scaled_points[: self.num_types]
        return identity

    def _make_buffers(self) -> None:
        n = self.config.num_players
        self._buffer = self.new_buffer()
        self._flat = memoryview(self._buffer)
        self._scores = np.zeros(n)  # the last scores observed, as floats
        self._scores_list = [0] * n  # … and as the state held them
        self._flat_of: dict[int, tuple[np.ndarray, memoryview]] = {}  # by id(out)
        self._write_observation = self.compiled_call("_write_observation", encoders.write_table_observation)

    def max_round_points(self) -> int:
        """The most one player can add in a round (bounds the ``scores`` piece)."""
        return self.max_card_points * self.config.max_hand_slots

    def max_score(self) -> float:
        """Upper bound of a ``scores`` entry: a total below the target plus one round."""
        return (self.config.target_score + self.max_round_points()) / self.config.target_score

    def min_score(self) -> float:
        """Lower bound of a ``scores`` entry: 0 unless a ruleset's round can subtract."""
        return 0.0

    # --- the layouts -------------------------------------------------------------------
    def _build_layout(self) -> ObservationLayout:
        config = self.config
        n, s, ranks, top = config.num_players, config.max_hand_slots, self.num_ranks, self.max_card_points
        low = self.min_card_points / top
        rank_names = "A…K, joker" if ranks > 13 else "A…K"
        layout = ObservationLayout()
        layout.add("slot_present", (n, s), "seat × slot: 1 if the slot holds a card")
        layout.add("slot_known", (n, s), "seat × slot: 1 if the observation shows the card's identity")
        layout.add("slot_rank", (n, s, ranks), f"seat × slot × rank ({rank_names}): one-hot when shown")
        if self.shows_colour:
            layout.add("slot_red", (n, s), "seat × slot: 1 if the card is red (hearts, diamonds, red joker) when shown")
        layout.add("slot_points", (n, s), f"seat × slot: the card's points / {top} when shown", low=low)
        layout.add("slot_known_by", (n, s, n),
                   "seat × slot × knower: 1 if that player knows this card (public); the knower axis is "
                   "seat-relative too (0 = the observer)")
        layout.add("top_discard_present", 1, "1 if the discard pile is not empty")
        layout.add("top_discard_rank", ranks, "rank of the top discard, one-hot")
        if self.shows_colour:
            layout.add("top_discard_red", 1, "1 if the top discard is red")
        layout.add("top_discard_points", 1, f"points of the top discard / {top}", low=low)
        layout.add("drawn_card_present", 1, "1 if the player to act holds a drawn card")
        layout.add("drawn_card_rank", ranks, "its rank, one-hot (only for the player holding it)")
        if self.shows_colour:
            layout.add("drawn_card_red", 1, "1 if it is red (only for the player holding it)")
        layout.add("drawn_card_points", 1, f"its points / {top} (only for the player holding it)", low=low)
        layout.add("phase", len(self.phases), "phase one-hot: " + ", ".join(ph.name.lower() for ph in self.phases))
        layout.add("current_player", n, "seat whose decision it is, one-hot")
        self._add_ruleset_pieces(layout, omniscient=False)
        self._add_turn_pieces(layout)
        layout.add("accounted", self.num_types,
                   "per card type (AS, AH, AD, AC, 2S, … KC): copies the observer can account for / copies in the deck")
        self._add_event_pieces(layout)
        self._add_derived_pieces(layout)
        return layout

    def _add_derived_pieces(self, layout: ObservationLayout) -> None:
        """The pieces of the options in ``derived_pieces`` that are on, last and in that
        order (a policy trained with them appends them to an observation without them);
        ``write`` fills them from the rest of the observation."""

    def _fill_derived_pieces(self, vector: np.ndarray) -> None:
        """Write the pieces of the options in ``derived_pieces`` that are on into
        ``vector``, an observation whose other pieces are written."""
        end = self.size
        for _, derive in reversed(self._derived_on):
            values = derive(self.layout, vector)
            vector[end - len(values) : end] = values
            end -= len(values)

    def _add_turn_pieces(self, layout: ObservationLayout) -> None:
        n = self.config.num_players
        layout.add("caller", n, f"seat that called {self.call_name}, one-hot (all 0 if no call)")
        layout.add("final_turns_left", 1, f"final turns still to play after {self.call_name} / (players − 1)")
        layout.add("turns_in_round", 1, "turns completed this round / max_turns_per_round")
        layout.add("draw_pile_size", 1, f"cards in the draw pile / {len(self.deck)}")
        layout.add("discard_pile_size", 1, f"cards in the discard pile / {len(self.deck)}")
        layout.add("scores", n, "cumulative score per seat / target_score", high=self.max_score(),
                   low=self.min_score())

    def _add_event_pieces(self, layout: ObservationLayout) -> None:
        config = self.config
        n, s, e = config.num_players, config.max_hand_slots, config.recent_events
        kinds = ", ".join(self.shown_event_kinds)
        layout.add("event_kind", (e, len(self.shown_event_kinds)),
                   f"recent public events, most recent first (row 0), up to recent_events={e}: kind one-hot "
                   f"({kinds}); all 0 for an unused row")
        layout.add("event_actor", (e, n), "event × seat: who acted, one-hot (all 0 for the round's end)")
        layout.add("event_places", (e, n, s),
                   "event × seat × slot: the slots the event involved (looked at, swapped, left or filled)")
        layout.add("event_face_up_rank", (e, self.num_ranks),
                   "event × rank: cards of that rank the event showed face up to everyone / copies of the rank "
                   "in the deck")
        layout.add("event_face_up_suit", (e, NUM_SUITS),
                   f"event × suit ({', '.join(SUIT_NAMES)}): cards of that suit the event showed face up / cards "
                   "of the suit in the deck (a joker has no suit)")
        if self.shows_colour:
            layout.add("event_face_up_colour", (e, 2),
                       "event × colour (black, red): cards of that colour the event showed face up / cards of the "
                       "colour in the deck (with rank and suit, this tells the jokers apart)")
        layout.add("event_new", e,
                   "event: 1 if it happened since the observer's previous decision (that decision's own "
                   "events included)")
        layout.add("events_dropped", 1,
                   "1 if events since the observer's previous decision did not all fit in recent_events rows "
                   "(the oldest were dropped)")

    def _build_state_layout(self) -> ObservationLayout:
        """The omniscient global state: seats absolute, every identity shown."""
        config = self.config
        n, s, types = config.num_players, config.max_hand_slots, self.num_types
        layout = ObservationLayout()
        layout.add("slot_present", (n, s), "player × slot: 1 if the slot holds a card")
        layout.add("slot_card", (n, s, types), "player × slot × card type (AS, AH, AD, AC, 2S, … KC): one-hot")
        layout.add("slot_known_by", (n, s, n), "player × slot × knower: 1 if that player knows this card")
        layout.add("held_card", (n, types), "player × card type: the card a player holds after drawing, one-hot")
        layout.add("top_discard", types, "card type of the top discard, one-hot")
        layout.add("discard_pile", types, "per card type: copies in the discard pile / copies in the deck")
        layout.add("draw_pile", types, "per card type: copies in the draw pile / copies in the deck")
        layout.add("draw_pile_next", (DRAW_PILE_LOOKAHEAD, types),
                   f"the next {DRAW_PILE_LOOKAHEAD} cards of the draw pile, in drawing order: card type one-hot")
        layout.add("phase", len(self.phases), "phase one-hot: " + ", ".join(ph.name.lower() for ph in self.phases))
        layout.add("current_player", n, "player whose decision it is, one-hot")
        self._add_ruleset_pieces(layout, omniscient=True)
        self._add_turn_pieces(layout)
        return layout

    def _add_ruleset_pieces(self, layout: ObservationLayout, omniscient: bool) -> None:
        """Pieces of the ruleset's own, placed after ``current_player`` in both layouts;
        ``omniscient`` for the global state (seats absolute, pending decisions shown)."""

    def _fill_ruleset_pieces(self, state: SlotGameState, observer: int | None, out: memoryview,
                             at: Mapping[str, int]) -> None:
        """Write the ruleset's own pieces into ``out`` (the vector as a memoryview, zero
        there: a few entries written one by one cost less than through numpy views), each
        piece from ``at[name]``, its start in the layout being written (the observation's,
        or the global state's for ``observer`` None); a piece of shape (a, b) holds entry
        (i, j) at ``at[name] + i * b + j``. ``self.seat_row(seat, observer)`` gives a
        seat's row."""

    # --- observations ---------------------------------------------------------------------
    def write(self, state: SlotGameState, observer: int, out: np.ndarray | None = None,
              recent_events: bool = True) -> np.ndarray:
        """See :meth:`Observer.observe`; without the recent events an observation costs
        a third to a half less. Written straight into ``out`` (through views kept per
        buffer), or into the observer's own buffer and copied when ``out`` is None."""
        if out is None:
            buffer, flat = self._buffer, self._flat
        else:
            buffer = out
            kept = self._flat_of.get(id(out))
            if kept is None or kept[0] is not out:
                kept = self._keep_flat(out)
            flat = kept[1]
        config = self.config
        table = state.table
        knowledge = table.knowledge
        me = state.current_player
        if me is None or not table.held[me]:
            drawn_card = EMPTY
        else:
            drawn_card = table.held[me][-1] if me == observer else encoders.HELD_BY_ANOTHER
        # The accounted-for cards are those shown and the top discard (face up, but under
        # memory="none" not necessarily among the cards shown).
        discards = table.discard_pile
        caller = state.caller
        scores = self._scores if state.scores == self._scores_list else self._take_scores(state.scores)
        # The most recent public events, newest first (with ``recent_events``): only what
        # everyone saw (kinds, actors, places, the cards shown face up, each weighing 1 /
        # the copies of its rank, suit or colour in the deck), without the kinds the rules
        # imply; under memory="none" only those since the observer's previous decision
        # (older ones are the agent's to remember).
        self._write_observation(
            buffer, self._tables[observer], self._weights, hands_array(table.hands),
            knowledge.shown_to(observer, config.memory), table.card_types, knowledge.known, scores,
            state.event_records, discards[-1] if discards else EMPTY, drawn_card, int(state.phase),
            EMPTY if me is None else (me - observer) % config.num_players, EMPTY if caller is None else caller,
            state.final_turns_left, state.turns_completed, len(table.draw_pile), len(discards),
            knowledge.decided_at.item(observer), recent_events)
        self._fill_ruleset_pieces(state, observer, flat, self._starts)
        if self._derived_on:
            self._fill_derived_pieces(buffer)
        return buffer.copy() if out is None else out

    def _keep_flat(self, out: np.ndarray) -> tuple[np.ndarray, memoryview]:
        """``out`` as a memoryview, kept for the next call with it (a few buffers: an
        env has one per seat), once checked: the compiled call takes the buffer as it
        took the first one (``fixed_type_entry``), so one of another shape or layout
        must not reach it."""
        self.checked_out(out, self.size)
        if len(self._flat_of) >= MAX_ACCEPTED_OUTS:
            self._flat_of.clear()
        kept = self._flat_of[id(out)] = (out, memoryview(out))
        return kept

    def _take_scores(self, scores: list) -> np.ndarray:
        """``scores`` as floats, kept for the next observations (scores change rarely)."""
        self._scores_list = list(scores)
        self._scores[:] = self._scores_list
        return self._scores

    # --- the global state -----------------------------------------------------------------
    def encode_state(self, state: SlotGameState, out: np.ndarray | None = None) -> np.ndarray:
        """The omniscient global state of ``state`` (``env.state()``), seats absolute."""
        layout = self.state_layout
        vector = np.zeros(layout.size, dtype=np.float32) if out is None else self.checked_out(out, layout.size)
        vector[:] = 0
        v = layout.views(vector)
        config = self.config
        n = config.num_players
        table = state.table
        types = table.card_types
        for p in range(n):
            for s, card in enumerate(table.hands[p]):
                if card != EMPTY:
                    v["slot_present"][p, s] = 1
                    v["slot_card"][p, s, types[card]] = 1
                    v["slot_known_by"][p, s] = table.knowledge.known[:, card]
            for card in table.held[p]:
                v["held_card"][p, types[card]] = 1
        if table.discard_pile:
            v["top_discard"][types[table.top_discard]] = 1
        v["discard_pile"][:] = np.bincount(types[table.discard_pile], minlength=self.num_types) / self.copies
        v["draw_pile"][:] = np.bincount(types[table.draw_pile], minlength=self.num_types) / self.copies
        upcoming = table.draw_pile[::-1][:DRAW_PILE_LOOKAHEAD]
        v["draw_pile_next"][np.arange(len(upcoming)), types[upcoming]] = 1
        v["phase"][int(state.phase)] = 1
        if state.current_player is not None:
            v["current_player"][state.current_player] = 1
        self._fill_ruleset_pieces(state, None, memoryview(vector), self._state_starts)
        caller = state.caller
        encoders.write_turn_pieces(
            vector, self.state_layout.pieces["caller"].start, 0, config.num_players, -1 if caller is None else caller,
            state.final_turns_left, state.turns_completed, len(table.draw_pile), len(table.discard_pile),
            np.array(state.scores, dtype=np.float64), self._turn_divisors)
        return vector
