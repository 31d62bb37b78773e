"""The card, turn and event pieces of a slot ruleset's observation, compiled with numba
(the observation encoders), and the numba helpers every compiled part of cardenv uses
(:func:`compiled`, :func:`fixed_type_entry`, :func:`pack_tables`).

Written with numpy, a :class:`~cardenv.engine.observation.TableObserver` observation's
card pieces took about fifteen array calls (an identity lookup over the deck, the
knowers turned seat-relative, a gather of every slot's row and a scatter into the slot
pieces, the accounted-for counts, the top discard, drawn card, phase and player to act
entry by entry), and its event rows three; each call's fixed cost, not the arithmetic,
was most of the time. A compiled loop writes the slot block in about a seventh of the
time of those calls, and the whole step through ``env()`` of a slot ruleset runs about a
quarter fewer instructions (docs/performance.md). The event rows are read straight
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
    call with two dozen arguments, docs/performance.md), or ``dispatcher`` itself where
    numba keeps no such entry. The entry checks an array's dtype but not its dimensions
    or layout, so a caller keeps every argument's type fixed (its own buffers checked,
    its own tables)."""
    dispatcher(*args)
    try:
        return dispatcher.overloads[tuple(map(dispatcher.typeof_pyval, args))].entry_point
    except (AttributeError, KeyError):  # another numba's internals: dispatch every time
        return dispatcher


TOP_DISCARD, DRAWN_CARD, PHASE, CURRENT_PLAYER, ACCOUNTED, TURNS = range(6)  # entries of ``starts``
HELD_BY_ANOTHER = -2  # ``drawn_card`` when the player to act holds a card the observer may not see

# An observer's fixed integer tables go to a compiled call packed into one vector
# (:func:`pack_tables`): numba converts every array argument on every call (about 35 ns
# each, more than most of the loops' work), one vector once. The tables of the card
# pieces (see :func:`write_table_pieces`), by index:
SLOT_DESTINATIONS, PIECE_STARTS, COPIES, TURN_DIVISORS = range(4)
# … and those of the event pieces (see :func:`write_recent_events`):
KIND_COLUMNS, FACE_COLUMNS, COLUMN_BASE, COLUMN_STEP, EVENT_SETTINGS = range(5)
# ``EVENT_SETTINGS`` holds these, in order:
ACTOR_COLUMN, PLACES_COLUMN, SLOTS_PER_SEAT, FACE_LOW, FACES_PER_TYPE, NEW_START, CAPACITY = range(7)


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


@compiled
def write_table_pieces(buffer: np.ndarray, observer: int, hands, shown: np.ndarray, card_types: np.ndarray,
                       known: np.ndarray, tables: np.ndarray, identity_of_type: np.ndarray, top_discard: int,
                       drawn_card: int, phase: int, current_row: int, caller: int, final_turns_left: int,
                       turns_completed: int, draw_pile_size: int, discard_pile_size: int, scores: np.ndarray) -> None:
    """Write ``observer``'s slot pieces, the top discard, the drawn card, ``phase``,
    ``current_player``, ``accounted`` and the turn pieces (see
    :func:`write_turn_pieces`, at ``starts[TURNS]``, row k for the seat k seats on from
    the observer) into ``buffer``, zeroing the rest. ``tables`` (:func:`pack_tables`)
    holds ``destinations``, ``starts``, ``copies`` and ``turn_divisors``, in the order of
    ``SLOT_DESTINATIONS`` … ``TURN_DIVISORS``.

    ``hands``: every seat's hand, seats absolute, each as its length then its slots'
    cards (-1 for an empty slot). A slot's row is ``slot_present``, then its card's
    identity row (``identity_of_type[type]``: 1, rank one-hot, red where colour shows,
    points; only if ``shown``), then whether each knower knows it (``known[seat,
    card]``, knower k the seat k seats on from the observer); entry j of the row of slot
    s of the seat k seats on (slot i = k × slots per seat + s) lands at
    ``destinations[i * width + j]``. The top discard's
    and the drawn card's pieces (present, rank, red, points) are an identity row at
    ``starts[TOP_DISCARD]`` / ``starts[DRAWN_CARD]``; ``drawn_card`` is the observer's
    own drawn card, -1 for none or ``HELD_BY_ANOTHER`` (present only). ``current_row``
    is -1 when nobody is to act. ``accounted``: per card type, the cards shown or on top
    of the discard pile (``top_discard``, -1 for none), divided by the type's copies."""
    destinations = table_piece(tables, SLOT_DESTINATIONS)
    starts = table_piece(tables, PIECE_STARTS)
    copies = table_piece(tables, COPIES)
    buffer[:] = 0.0
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
    if top_discard >= 0:
        buffer[starts[TOP_DISCARD]: starts[TOP_DISCARD] + identity_width] = identity_of_type[card_types[top_discard]]
    if drawn_card >= 0:
        buffer[starts[DRAWN_CARD]: starts[DRAWN_CARD] + identity_width] = identity_of_type[card_types[drawn_card]]
    elif drawn_card == HELD_BY_ANOTHER:
        buffer[starts[DRAWN_CARD]] = 1.0
    buffer[starts[PHASE] + phase] = 1.0
    if current_row >= 0:
        buffer[starts[CURRENT_PLAYER] + current_row] = 1.0
    # Counted in the buffer itself (whole numbers, exact in float32), then divided.
    start = starts[ACCOUNTED]
    for card in range(shown.shape[0]):
        if shown[card] or card == top_discard:
            buffer[start + card_types[card]] += 1.0
    for card_type in range(copies.shape[0]):
        if buffer[start + card_type] != 0.0:
            buffer[start + card_type] = int(buffer[start + card_type]) / copies[card_type]
    write_turn_pieces(buffer, starts[TURNS], observer, n, caller, final_turns_left, turns_completed, draw_pile_size,
                      discard_pile_size, scores, table_piece(tables, TURN_DIVISORS))


@compiled
def write_table_observation(buffer: np.ndarray, observer: int, hands, shown: np.ndarray, card_types: np.ndarray,
                            known: np.ndarray, tables: np.ndarray, identity_of_type: np.ndarray, top_discard: int,
                            drawn_card: int, phase: int, current_row: int, caller: int, final_turns_left: int,
                            turns_completed: int, draw_pile_size: int, discard_pile_size: int, scores: np.ndarray,
                            records, event_tables: np.ndarray, face_sums: np.ndarray, since_clock: int,
                            only_new: bool, with_events: bool) -> None:
    """:func:`write_table_pieces`, then (``with_events``) :func:`write_recent_events`
    into the same buffer: one compiled call per observation."""
    write_table_pieces(buffer, observer, hands, shown, card_types, known, tables, identity_of_type, top_discard,
                       drawn_card, phase, current_row, caller, final_turns_left, turns_completed, draw_pile_size,
                       discard_pile_size, scores)
    if with_events:
        write_recent_events(buffer, records, event_tables, face_sums, since_clock, only_new)


@compiled
def write_turn_pieces(buffer: np.ndarray, start: int, first_seat: int, n: int, caller: int, final_turns_left: int,
                      turns_completed: int, draw_pile_size: int, discard_pile_size: int, scores: np.ndarray,
                      turn_divisors: np.ndarray) -> None:
    """Write the turn pieces (``caller`` … ``scores``, one run from ``start``) into
    ``buffer`` (zero there), row r of the seat axes for seat ``(first_seat + r) % n``:
    ``caller`` one-hot (-1 for no call) and the final turns left; the turns completed;
    the draw and discard pile sizes; each seat's score. ``turn_divisors``: players − 1,
    max_turns_per_round, cards in the deck, target_score."""
    if caller >= 0:
        buffer[start + (caller - first_seat) % n] = 1.0
        buffer[start + n] = final_turns_left / turn_divisors[0]
    buffer[start + n + 1] = turns_completed / turn_divisors[1]
    buffer[start + n + 2] = draw_pile_size / turn_divisors[2]
    buffer[start + n + 3] = discard_pile_size / turn_divisors[2]
    for row in range(n):
        buffer[start + n + 4 + row] = scores[(first_seat + row) % n] / turn_divisors[3]


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
def write_recent_events(target: np.ndarray, records, tables: np.ndarray, face_sums: np.ndarray,
                        since_clock: int, only_new: bool) -> None:
    """Write the event pieces of one observation of a slot ruleset into ``target`` (zero
    there), rows as :func:`recent_event_rows` picks them. ``tables``
    (:func:`pack_tables`) holds ``kind_columns``, ``face_columns``, ``column_base``,
    ``column_step`` and the settings ``actor_column`` … ``capacity`` (see
    ``EVENT_SETTINGS``).

    Row i, one entry per column of an event row (seats absolute), entry ``c`` landing at
    ``column_base[c] + i * column_step[c]`` (the observer's seat-relative columns, see
    :func:`~cardenv.engine.observation.row_scatter`): 1 at the kind's column
    (``kind_columns[kind]``); 1 at ``actor_column + player`` for a player; 1 at
    ``places_column + seat * slots_per_seat + slot`` for each place; per face-up card of
    type t, its ``face_columns[t]``
    (``faces_per_type`` entries, -1: unused), each column holding ``face_sums[column -
    face_low, cards counted there]``."""
    kind_columns = table_piece(tables, KIND_COLUMNS)
    column_base = table_piece(tables, COLUMN_BASE)
    column_step = table_piece(tables, COLUMN_STEP)
    settings = table_piece(tables, EVENT_SETTINGS)
    actor_column, places_column = settings[ACTOR_COLUMN], settings[PLACES_COLUMN]
    slots_per_seat, face_low = settings[SLOTS_PER_SEAT], settings[FACE_LOW]
    new_start, capacity = settings[NEW_START], settings[CAPACITY]
    face_columns = table_piece(tables, FACE_COLUMNS).reshape((-1, settings[FACES_PER_TYPE]))
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
