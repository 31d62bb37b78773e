"""The card, turn and event pieces of a slot ruleset's observation, compiled with numba
(the observation encoders), and the numba helpers every compiled part of cardenv uses
(:func:`compiled`, :func:`fixed_type_entry`, :func:`pack_tables`, and :func:`packed_fields`, which
names a packed vector's entries once for both the Python side and the compiled one).

Written with numpy, a :class:`~cardenv.engine.observation.TableObserver` observation's
card pieces took about fifteen array calls (an identity lookup over the deck, the
knowers turned seat-relative, a gather of every slot's row and a scatter into the slot
pieces, the accounted-for counts, the top discard, drawn card, phase and player to act
entry by entry), and its event rows three; each call's fixed cost, not the arithmetic,
was most of the time. A compiled loop writes the slot block in about a seventh of the
time of those calls, and the whole step through ``env()`` of a slot ruleset runs about a
quarter fewer instructions (CHANGELOG.md). The event rows are read straight
from the integer records the engine logs with each event
(:func:`cardenv.core.events.append_event_record`), newest first. A slot observation
is one compiled call (:func:`write_table_observation`), its fixed tables packed into one
vector (:func:`pack_tables`). ``tests/test_observation_reference.py`` checks the results bit for
bit against a straightforward Python reference.

Compiled on first use and cached on disk (numba's ``cache=True``), so a process pays the
compilation once per machine, not once per run; where numba finds no writable place for
its cache, every process compiles them instead (a second or two). Imported only when an
observer is built, so ``import cardenv`` does not load numba.
"""

from __future__ import annotations

from enum import IntEnum

import numba
import numpy as np


def compiled(function=None, *, inline: bool = False):
    """``function`` compiled with numba, cached on disk where numba can write its cache;
    ``inline``: written into each compiled caller (numba's ``inline="always"``), for a
    helper that takes arrays: a call between compiled functions counts references to
    every array it passes, which costs more than a short helper's work."""
    if function is None:
        return lambda function: compiled(function, inline=inline)
    options = {"inline": "always"} if inline else {}
    try:
        return numba.njit(cache=True, nogil=True, **options)(function)
    except RuntimeError:  # numba: "cannot cache function …: no locator available"
        return numba.njit(nogil=True, **options)(function)


def fixed_type_entry(dispatcher, args: tuple):
    """Call the compiled ``dispatcher`` with ``args``; return what calls it again for
    less, given arguments of exactly those types: the compiled function's entry point,
    which skips numba's dispatch on the arguments' types (a third of the fixed cost of a
    call with two dozen arguments), or ``dispatcher`` itself where
    numba keeps no such entry. The entry checks an array's dtype but not its dimensions
    or layout, so a caller keeps every argument's type fixed (its own buffers checked,
    its own tables)."""
    dispatcher(*args)
    try:
        return dispatcher.overloads[tuple(map(dispatcher.typeof_pyval, args))].entry_point
    except (AttributeError, KeyError):  # another numba's internals: dispatch every time
        return dispatcher


def packed_fields(name: str, names: str) -> type[IntEnum]:
    """The entries of one packed vector (or the tables of one :func:`pack_tables`
    vector), named once, in order: an IntEnum numbering the space-separated ``names``
    from 0. Compiled code indexes the vector with its members (numba reads them as
    integer constants); the Python side packs the vector with :func:`in_order`, by name.
    Adding or reordering an entry is one edit, in the declaration."""
    return IntEnum(name, names, start=0, module=__name__)


def in_order(fields: type[IntEnum], **values) -> list:
    """``values``, one per member of ``fields`` given by its lower-case name, as a list
    in the members' order (what :func:`pack_tables`, or a settings table, takes)."""
    names = [field.name.lower() for field in fields]
    if sorted(values) != sorted(names):
        missing, extra = sorted(set(names) - set(values)), sorted(set(values) - set(names))
        raise ValueError(f"{fields.__name__} takes exactly its fields: missing {missing}, unknown {extra}")
    return [values[name] for name in names]


# An observer's fixed integer tables go to a compiled call packed into one vector
# (:func:`pack_tables`): numba converts every array argument on every call (about 35 ns
# each, more than most of the loops' work), one vector once. A slot ruleset's observer
# packs these, per observer: the settings (below), the tables of the card pieces (see
# :func:`write_slot_pieces`, :func:`write_head_pieces`) and those of the event pieces (see
# :func:`write_recent_events`).
Table = packed_fields("Table", "SETTINGS SLOT_DESTINATIONS PIECE_STARTS COPIES TURN_DIVISORS "
                               "KIND_COLUMNS FACE_COLUMNS COLUMN_BASE COLUMN_STEP")
# ``Table.SETTINGS``: the observer's seat, whether it sees only the events since its
# previous decision (memory="none"), the identity rows' width and where the face sums
# start in the float tables (see :func:`write_table_observation`), then the event rows'
# settings (see :func:`write_recent_events`).
Setting = packed_fields("Setting", "OBSERVER ONLY_NEW IDENTITY_WIDTH FACE_SUMS_AT FACE_SUMS_WIDTH ACTOR_COLUMN "
                                   "PLACES_COLUMN SLOTS_PER_SEAT FACE_LOW FACES_PER_TYPE NEW_START CAPACITY")
# ``Table.PIECE_STARTS``: where these pieces start in the observation (their layout
# names, upper-case): the top discard's and drawn card's identity rows, phase,
# current_player, accounted and the turn pieces (from ``caller``).
Piece = packed_fields("Piece", "TOP_DISCARD_PRESENT DRAWN_CARD_PRESENT PHASE CURRENT_PLAYER ACCOUNTED CALLER")
# ``Table.TURN_DIVISORS``: what the turn pieces are divided by (see :func:`write_turn_pieces`).
Divisor = packed_fields("Divisor", "OTHER_PLAYERS MAX_TURNS DECK_CARDS TARGET_SCORE")
HELD_BY_ANOTHER = -2  # ``drawn_card`` when the player to act holds a card the observer may not see


def pack_tables(tables: list) -> np.ndarray:
    """``tables`` (integer arrays of any shape, read flattened) as one int64 vector: the
    offset of each table, then the end of the last, then the tables one after another;
    :func:`table_piece` reads table k back."""
    flat = [np.asarray(table, dtype=np.int64).ravel() for table in tables]
    offsets = len(flat) + 1 + np.cumsum([0, *(len(table) for table in flat)])
    return np.concatenate([offsets, *flat]).astype(np.int64)


@compiled(inline=True)
def table_piece(tables: np.ndarray, k: int) -> np.ndarray:
    """Table ``k`` of a vector made by :func:`pack_tables` (a view)."""
    return tables[tables[k]: tables[k + 1]]


@compiled(inline=True)
def weights_piece(weights: np.ndarray, start: int, end: int, width: int) -> np.ndarray:
    """``weights[start:end]`` as rows of ``width`` entries (a view)."""
    return weights[start:end].reshape((-1, width))


@compiled
def write_table_observation(buffer: np.ndarray, tables: np.ndarray, weights: np.ndarray, hands, shown: np.ndarray,
                            card_types: np.ndarray, known: np.ndarray, scores: np.ndarray, records, top_discard: int,
                            drawn_card: int, phase: int, current_row: int, caller: int, final_turns_left: int,
                            turns_completed: int, draw_pile_size: int, discard_pile_size: int, since_clock: int,
                            with_events: bool) -> None:
    """Write one observation of a slot ruleset into ``buffer``, zeroing the rest: the
    slot pieces (:func:`write_slot_pieces`), the pile, phase and player pieces
    (:func:`write_head_pieces`), the turn pieces (:func:`write_turn_pieces`, row k for
    the seat k seats on from the observer) and, ``with_events``, the recent events
    (:func:`write_recent_events`): one compiled call per observation.

    ``tables``: the observer's :func:`pack_tables` vector, tables in the order of
    :class:`Table`, its settings in that of :class:`Setting`. ``weights`` (float32): the
    identity row of each card type (``Setting.IDENTITY_WIDTH`` entries: 1, rank one-hot,
    red where colour shows, points), then from ``Setting.FACE_SUMS_AT`` the face sums of
    :func:`write_recent_events`. ``hands``, ``shown``, ``card_types``, ``known``,
    ``top_discard`` (-1 for none) and ``drawn_card``: see :func:`write_slot_pieces` and
    :func:`write_head_pieces`; ``current_row`` is -1 when nobody is to act, ``caller``
    -1 for no call."""
    settings = table_piece(tables, Table.SETTINGS)
    observer = settings[Setting.OBSERVER]
    identity_of_type = weights_piece(weights, 0, settings[Setting.FACE_SUMS_AT], settings[Setting.IDENTITY_WIDTH])
    n = known.shape[0]
    buffer[:] = 0.0
    write_slot_pieces(buffer, table_piece(tables, Table.SLOT_DESTINATIONS), observer, hands, shown, card_types,
                      known, identity_of_type)
    starts = table_piece(tables, Table.PIECE_STARTS)
    write_head_pieces(buffer, starts, table_piece(tables, Table.COPIES), shown, card_types, identity_of_type,
                      top_discard, drawn_card, phase, current_row)
    write_turn_pieces(buffer, starts[Piece.CALLER], observer, n, caller, final_turns_left, turns_completed,
                      draw_pile_size, discard_pile_size, scores, table_piece(tables, Table.TURN_DIVISORS))
    if with_events:
        write_recent_events(buffer, records, tables, weights, since_clock)


@compiled(inline=True)
def write_slot_pieces(buffer: np.ndarray, destinations: np.ndarray, observer: int, hands, shown: np.ndarray,
                      card_types: np.ndarray, known: np.ndarray, identity_of_type: np.ndarray) -> None:
    """Write ``observer``'s slot pieces into ``buffer`` (zero there).

    ``hands``: every seat's hand, seats absolute, each as its length then its slots'
    cards (-1 for an empty slot). A slot's row is ``slot_present``, then its card's
    identity row (``identity_of_type[type]``: 1, rank one-hot, red where colour shows,
    points; only if ``shown``), then whether each knower knows it (``known[seat,
    card]``, knower k the seat k seats on from the observer); entry j of the row of slot
    s of the seat k seats on (slot i = k × slots per seat + s) lands at
    ``destinations[i * width + j]``."""
    n = known.shape[0]
    identity_width = identity_of_type.shape[1]
    knowers_column = 1 + identity_width
    width = knowers_column + n
    slots_per_seat = destinations.shape[0] // (width * n)
    # The hands in seat order (no array of where each starts: an allocation per call
    # costs more than the walk); the seat k seats on from the observer is row k.
    at = 0
    for seat in range(n):
        if hands[at] > slots_per_seat:  # the destinations would run out: never write past them
            raise ValueError("a hand holds more slots than max_hand_slots")
        r = (seat - observer) % n
        for s in range(hands[at]):
            card = hands[at + 1 + s]
            if card < 0:
                continue
            row = (r * slots_per_seat + s) * width
            buffer[destinations[row]] = 1.0
            if shown[card]:
                card_type = card_types[card]
                for j in range(identity_width):
                    buffer[destinations[row + 1 + j]] = identity_of_type[card_type, j]
            for k in range(n):
                if known[(observer + k) % n, card]:
                    buffer[destinations[row + knowers_column + k]] = 1.0
        at += 1 + hands[at]


@compiled(inline=True)
def write_head_pieces(buffer: np.ndarray, starts: np.ndarray, copies: np.ndarray, shown: np.ndarray,
                      card_types: np.ndarray, identity_of_type: np.ndarray, top_discard: int, drawn_card: int,
                      phase: int, current_row: int) -> None:
    """Write the top discard, the drawn card, ``phase``, ``current_player`` and
    ``accounted`` into ``buffer`` (zero there), each from its start in ``starts`` (see
    :class:`Piece`). The top discard's and the drawn card's pieces (present, rank, red,
    points) are an identity row; ``drawn_card`` is the observer's own drawn card, -1 for
    none or ``HELD_BY_ANOTHER`` (present only). ``accounted``: per card type, the cards
    shown or on top of the discard pile (``top_discard``, -1 for none), divided by the
    type's ``copies``."""
    identity_width = identity_of_type.shape[1]
    if top_discard >= 0:
        start = starts[Piece.TOP_DISCARD_PRESENT]
        buffer[start: start + identity_width] = identity_of_type[card_types[top_discard]]
    if drawn_card >= 0:
        start = starts[Piece.DRAWN_CARD_PRESENT]
        buffer[start: start + identity_width] = identity_of_type[card_types[drawn_card]]
    elif drawn_card == HELD_BY_ANOTHER:
        buffer[starts[Piece.DRAWN_CARD_PRESENT]] = 1.0
    buffer[starts[Piece.PHASE] + phase] = 1.0
    if current_row >= 0:
        buffer[starts[Piece.CURRENT_PLAYER] + current_row] = 1.0
    # Counted in the buffer itself (whole numbers, exact in float32), then divided.
    start = starts[Piece.ACCOUNTED]
    for card in range(shown.shape[0]):
        if shown[card] or card == top_discard:
            buffer[start + card_types[card]] += 1.0
    for card_type in range(copies.shape[0]):
        if buffer[start + card_type] != 0.0:
            buffer[start + card_type] = int(buffer[start + card_type]) / copies[card_type]


@compiled
def write_turn_pieces(buffer: np.ndarray, start: int, first_seat: int, n: int, caller: int, final_turns_left: int,
                      turns_completed: int, draw_pile_size: int, discard_pile_size: int, scores: np.ndarray,
                      turn_divisors: np.ndarray) -> None:
    """Write the turn pieces (``caller`` … ``scores``, one run from ``start``) into
    ``buffer`` (zero there), row r of the seat axes for seat ``(first_seat + r) % n``:
    ``caller`` one-hot (-1 for no call) and the final turns left; the turns completed;
    the draw and discard pile sizes; each seat's score. ``turn_divisors``: see
    :class:`Divisor` (players − 1, max_turns_per_round, cards in the deck, target_score)."""
    if caller >= 0:
        buffer[start + (caller - first_seat) % n] = 1.0
        buffer[start + n] = final_turns_left / turn_divisors[Divisor.OTHER_PLAYERS]
    buffer[start + n + 1] = turns_completed / turn_divisors[Divisor.MAX_TURNS]
    buffer[start + n + 2] = draw_pile_size / turn_divisors[Divisor.DECK_CARDS]
    buffer[start + n + 3] = discard_pile_size / turn_divisors[Divisor.DECK_CARDS]
    for row in range(n):
        buffer[start + n + 4 + row] = scores[(first_seat + row) % n] / turn_divisors[Divisor.TARGET_SCORE]


@compiled(inline=True)
def recent_event_rows(records, kind_columns: np.ndarray, since_clock: int, only_new: bool,
                      capacity: int) -> tuple[int, int]:
    """The rows both event writers fill, from the state's event ``records`` (see
    :func:`cardenv.core.events.append_event_record`), newest first, but for the kinds an
    observation leaves out (``kind_columns[kind]`` < 0): how many rows (the newest shown
    events, at most ``capacity``; under ``only_new`` only those at ``since_clock`` or
    later, which are the newest) and how many shown events are that new (counted up to
    ``capacity`` + 1: enough for ``events_dropped``). Row i is then the i-th record
    :func:`previous_shown_record` finds."""
    rows = 0
    new = 0
    end = len(records)
    while end > 0 and (rows < capacity or new <= capacity):
        start = end - records[end - 1]
        end = start
        if kind_columns[records[start + 1]] < 0:
            continue
        if records[start] >= since_clock:
            new += 1
        elif only_new or rows >= capacity:
            break
        if rows < capacity:
            rows += 1
    return rows, new


@compiled(inline=True)
def previous_shown_record(records, end: int, kind_columns: np.ndarray) -> int:
    """Where the newest shown record before ``end`` starts (see :func:`recent_event_rows`)."""
    start = end - records[end - 1]
    while kind_columns[records[start + 1]] < 0:
        start -= records[start - 1]
    return start


@compiled(inline=True)
def write_event_marks(target: np.ndarray, new_start: int, capacity: int, new: int) -> None:
    """``event_new`` (``capacity`` entries at ``new_start``: 1 for each of the ``new``
    events at the observer's previous decision or later) and ``events_dropped`` right
    after it (whether more than ``capacity`` were)."""
    for i in range(capacity):
        target[new_start + i] = 1.0 if i < new else 0.0
    target[new_start + capacity] = 1.0 if new > capacity else 0.0


@compiled
def write_recent_events(target: np.ndarray, records, tables: np.ndarray, weights: np.ndarray,
                        since_clock: int) -> None:
    """Write the event pieces of one observation of a slot ruleset into ``target`` (zero
    there), rows as :func:`recent_event_rows` picks them (``Setting.ONLY_NEW``: only
    those at ``since_clock`` or later). ``tables`` (:func:`pack_tables`, in the order of
    :class:`Table`) holds ``kind_columns``, ``face_columns``, ``column_base``,
    ``column_step`` and the settings ``Setting.ACTOR_COLUMN`` … ``CAPACITY``;
    ``weights`` holds ``face_sums`` from ``Setting.FACE_SUMS_AT``, rows of
    ``Setting.FACE_SUMS_WIDTH``.

    Row i, one entry per column of an event row (seats absolute), entry ``c`` landing at
    ``column_base[c] + i * column_step[c]`` (the observer's seat-relative columns, see
    :func:`~cardenv.engine.observation.row_scatter`): 1 at the kind's column
    (``kind_columns[kind]``); 1 at ``actor_column + player`` for a player; 1 at
    ``places_column + seat * slots_per_seat + slot`` for each place; per face-up card of
    type t, its ``face_columns[t]``
    (``faces_per_type`` entries, -1: unused), each column holding ``face_sums[column -
    face_low, cards counted there]``."""
    kind_columns = table_piece(tables, Table.KIND_COLUMNS)
    column_base = table_piece(tables, Table.COLUMN_BASE)
    column_step = table_piece(tables, Table.COLUMN_STEP)
    settings = table_piece(tables, Table.SETTINGS)
    actor_column, places_column = settings[Setting.ACTOR_COLUMN], settings[Setting.PLACES_COLUMN]
    slots_per_seat, face_low = settings[Setting.SLOTS_PER_SEAT], settings[Setting.FACE_LOW]
    new_start, capacity = settings[Setting.NEW_START], settings[Setting.CAPACITY]
    only_new = settings[Setting.ONLY_NEW] != 0
    face_columns = table_piece(tables, Table.FACE_COLUMNS).reshape((-1, settings[Setting.FACES_PER_TYPE]))
    face_sums = weights_piece(weights, settings[Setting.FACE_SUMS_AT], weights.shape[0],
                              settings[Setting.FACE_SUMS_WIDTH])
    rows, new = recent_event_rows(records, kind_columns, since_clock, only_new, capacity)
    end = len(records)
    for row in range(rows):
        start = end = previous_shown_record(records, end, kind_columns)
        kind_column = kind_columns[records[start + 1]]
        target[column_base[kind_column] + row * column_step[kind_column]] = 1.0
        player = records[start + 2]
        if player >= 0:
            column = actor_column + player
            target[column_base[column] + row * column_step[column]] = 1.0
        num_places = records[start + 3]
        for k in range(num_places):
            column = places_column + records[start + 4 + 2 * k] * slots_per_seat + records[start + 5 + 2 * k]
            target[column_base[column] + row * column_step[column]] = 1.0
        # A face column's cards are counted in its entry itself, as a negative whole
        # number (exact in float32), then replaced by their sum (never negative): no
        # array of counts to allocate.
        faces = start + 4 + 2 * num_places
        num_faces = records[faces]
        for k in range(num_faces):
            card_type = records[faces + 1 + k]
            for m in range(face_columns.shape[1]):
                column = face_columns[card_type, m]
                if column >= 0:
                    target[column_base[column] + row * column_step[column]] -= 1.0
        for k in range(num_faces):
            card_type = records[faces + 1 + k]
            for m in range(face_columns.shape[1]):
                column = face_columns[card_type, m]
                if column >= 0:
                    at = column_base[column] + row * column_step[column]
                    if target[at] < 0.0:
                        target[at] = face_sums[column - face_low, int(-target[at])]
    write_event_marks(target, new_start, capacity, new)
