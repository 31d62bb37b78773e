"""The card, turn and event pieces of an observation, and carte's whole observation,
compiled with numba.

Written with numpy, a :class:`~cardenv.games.observation.TableObserver` observation's
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
vector (:func:`pack_tables`); so is a carte observation (:func:`write_carte_observation`),
which reads the state's facts from one bytearray and its scores, seat flags and melds
from one int64 vector the observer keeps while they do not change.
``tests/test_observation_reference.py`` and ``tests/test_carte_observation_reference.py``
check the results bit for bit against straightforward Python references.

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
    :func:`~cardenv.games.observation.row_scatter`): 1 at the kind's column
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


# A carte observation is one compiled call too (:func:`write_carte_observation`), fed by
# four vectors: the observer's fixed tables (packed, by index as below), the facts of
# the state read per call (bytes, see ``FACT_*``), the table's rarely changing facts
# (the seats' scores and flags, the melds; int64, see :func:`write_carte_observation`)
# and the event records.
CARTE_SETTINGS, CARTE_STARTS, CARTE_COPIES, EVENT_COLUMNS, MARKS_MELD = range(5)
# ``CARTE_SETTINGS`` holds these, in order (``OBSERVER_SEAT`` -1: the global state,
# seats absolute, every card shown; ``ONLY_NEW``: memory="none"; ``EVENT_ROWS``: the
# observation's recent_events, 0 for the global state; ``SHOWN_KINDS``: the columns of
# ``event_kind``; ``MELDS``: those of ``event_meld``):
OBSERVER_SEAT, NUM_SEATS, DECK_CARDS, MAX_TURNS, STARTING_SCORE, ONLY_NEW, RANKS, SUITS, POSITIONS, EVENT_ROWS, \
    SHOWN_KINDS, MELDS = range(12)
# ``CARTE_STARTS``, where each piece starts (``KNOWN_AT``: ``known_cards`` or
# ``known_to_all``; ``HAND_AT``: ``hand`` or ``hands``; -1 for ``window_decided`` in the
# global state, whose deciders the observer writes itself, and for the event pieces,
# which it has not; ``events_dropped`` lies right after ``event_new``):
(PHASE_AT, CURRENT_AT, TURN_AT, HAND_AT, SELECTION_AT, PILE_CARD_AT, IN_GAME_AT, SCORES_AT, SIZES_AT, STARTED_AT,
 SAID_AT, KNOWN_AT, TURNS_AT, WINDOW_AT, OFFENDER_AT, DECIDED_AT, MELD_PRESENT_AT, MELD_IS_RUN_AT, MELD_OWNER_AT,
 SET_RANK_AT, SET_SUITS_AT, SET_JOKERS_AT, RUN_SUIT_AT, RUN_REAL_AT, RUN_JOKER_AT, ACCEPTS_AT, PILES_AT,
 EVENT_KIND_AT, EVENT_ACTOR_AT, EVENT_CARDS_AT, EVENT_MELD_AT, EVENT_NEW_AT) = range(32)
# The facts' first entries, in order, then the pile (its length, its cards bottom
# first), every hand (its length, its cards; seats absolute) and the stock where it may
# be shown (its length, its cards; else length 0). Cards and seats fit a byte: a
# bytearray made from a list of Python ints costs a fifth of an ``array`` of int64.
FACT_PHASE, FACT_CURRENT, FACT_TURN, FACT_PILE_CARD, FACT_OFFENDER, FACT_DECIDED, FACT_TURNED_OVER, \
    FACT_STOCK_SIZE, FACT_PILE = range(9)
NOBODY = 255  # a fact's seat or card when there is none (no player to act, no pile card, no window)


@compiled
def write_carte_observation(buffer: np.ndarray, tables: np.ndarray, facts, turns_completed: int,
                            selection: np.ndarray, card_types: np.ndarray, known: np.ndarray, learned_at: np.ndarray,
                            decided_at: np.ndarray, table_facts: np.ndarray, records) -> None:
    """Write a whole carte observation (or, for ``OBSERVER_SEAT`` -1, the global state
    but for its window's deciders) into ``buffer``, zeroing it first. Row r of a seat
    axis is seat ``(observer + r) % n`` (seats absolute in the global state). ``tables``
    (:func:`pack_tables`): ``CARTE_SETTINGS``, ``CARTE_STARTS``, ``CARTE_COPIES`` (per
    card type, its copies in the deck), ``EVENT_COLUMNS`` and ``MARKS_MELD`` (see
    :func:`write_carte_events`). ``facts``: see ``FACT_*``; ``table_facts``: see
    :func:`write_carte_melds`. A card's type is ``min(card_types[card], types - 1)``:
    every joker counts as the last type.

    The head: phase, the player to act and whose go it is (one-hot), and when someone is
    to act, the selection (counts × 1 / copies; shown in the global state and to the
    player to act) and the type of the card taken from the pile while the go's player
    holds it (R-07); per seat the hand's counts × 1 / copies (row 0, or every row in the
    global state), with the cards every player knows added up under ``KNOWN_AT``, and for
    the other rows of an observation the cards shown to the observer; each seat's hand
    size / ``DECK_CARDS``, score / ``STARTING_SCORE`` (above 0), in game, started and said
    carte; ``turns_completed`` / ``MAX_TURNS``; the catch window, its offender and
    whether the observer decided. Then the melds (:func:`write_carte_melds`), the piles
    (:func:`write_carte_piles`) and, for an observation, the recent events
    (:func:`write_carte_events`)."""
    settings = table_piece(tables, CARTE_SETTINGS)
    starts = table_piece(tables, CARTE_STARTS)
    copies = table_piece(tables, CARTE_COPIES)
    observer, n, deck_cards = settings[OBSERVER_SEAT], settings[NUM_SEATS], settings[DECK_CARDS]
    only_new = settings[ONLY_NEW] != 0
    num_types = copies.shape[0]
    first_seat = max(observer, 0)
    # A card is shown in the global state (observer -1), and to an observer that knows
    # it, under memory="none" (``only_new``) only if learned since the observer's previous
    # decision (``since``). Written out where it is needed: even inlined, a compiled helper
    # taking the arrays cost about 20 ns a card.
    since = decided_at[observer] if only_new and observer >= 0 else 0
    buffer[:] = 0.0
    buffer[starts[PHASE_AT] + facts[FACT_PHASE]] = 1.0
    current = int(facts[FACT_CURRENT])
    if current != NOBODY:
        buffer[starts[CURRENT_AT] + (current - first_seat) % n] = 1.0
        buffer[starts[TURN_AT] + (facts[FACT_TURN] - first_seat) % n] = 1.0
        if observer < 0 or observer == current:  # a selection is private
            for t in range(selection.shape[0]):
                if selection[t]:
                    buffer[starts[SELECTION_AT] + t] = selection[t] * (1.0 / copies[t])
    # The hands follow the pile; the stock follows them.
    pile_at = FACT_PILE
    at = pile_at + 1 + int(facts[pile_at])
    counts = np.zeros(num_types, dtype=np.int64)  # per type, zero between hands (and for write_carte_piles)
    pile_card = int(facts[FACT_PILE_CARD])
    for seat in range(n):
        r = (seat - first_seat) % n
        size = int(facts[at])
        base = r * num_types
        if observer < 0 or r == 0:
            for k in range(size):
                counts[min(card_types[facts[at + 1 + k]], num_types - 1)] += 1
            for k in range(size):
                card = facts[at + 1 + k]
                t = min(card_types[card], num_types - 1)
                weight = 1.0 / copies[t]
                buffer[starts[HAND_AT] + base + t] = counts[t] * weight
                public = True
                for q in range(n):
                    if not known[q, card]:
                        public = False
                        break
                if public:
                    buffer[starts[KNOWN_AT] + base + t] += weight
            for k in range(size):
                counts[min(card_types[facts[at + 1 + k]], num_types - 1)] = 0
        else:
            for k in range(size):
                card = facts[at + 1 + k]
                if known[observer, card] and (not only_new or learned_at[observer, card] >= since):
                    t = min(card_types[card], num_types - 1)
                    buffer[starts[KNOWN_AT] + base + t] += 1.0 / copies[t]
        if current != NOBODY and pile_card != NOBODY and seat == facts[FACT_TURN]:  # while in hand
            for k in range(size):
                if facts[at + 1 + k] == pile_card:
                    buffer[starts[PILE_CARD_AT] + min(card_types[pile_card], num_types - 1)] = 1.0
                    break
        if size:
            buffer[starts[SIZES_AT] + r] = size / deck_cards
        score = table_facts[seat]
        if score > 0:
            buffer[starts[SCORES_AT] + r] = score / settings[STARTING_SCORE]
        if not table_facts[n + seat]:
            buffer[starts[IN_GAME_AT] + r] = 1.0
        if table_facts[2 * n + seat]:
            buffer[starts[STARTED_AT] + r] = 1.0
        if table_facts[3 * n + seat]:
            buffer[starts[SAID_AT] + r] = 1.0
        at += 1 + size
    stock_at = at
    buffer[starts[TURNS_AT]] = turns_completed / settings[MAX_TURNS]
    if facts[FACT_OFFENDER] != NOBODY:
        buffer[starts[WINDOW_AT]] = 1.0
        buffer[starts[OFFENDER_AT] + (facts[FACT_OFFENDER] - first_seat) % n] = 1.0
        if starts[DECIDED_AT] >= 0 and facts[FACT_DECIDED]:
            buffer[starts[DECIDED_AT]] = 1.0
    write_carte_melds(buffer, starts, settings, table_facts, first_seat, num_types - 1)
    write_carte_piles(buffer, starts[PILES_AT], deck_cards, facts, pile_at, stock_at, card_types, known, learned_at,
                      observer, only_new, since, copies, counts)
    # Every observation has the event pieces, events_dropped even with no event rows; the
    # global state has none.
    if starts[EVENT_NEW_AT] >= 0:
        write_carte_events(buffer, tables, records, decided_at[observer], only_new)


@compiled(inline=True)
def write_carte_events(buffer: np.ndarray, tables: np.ndarray, records, since_clock: int, only_new: bool) -> None:
    """Write the event pieces of an observation into ``buffer`` (zero there), rows as
    `recent_event_rows` picks them (the same rows, ``event_new`` and
    ``events_dropped`` as :func:`write_recent_events` for the slot rulesets), in carte's
    plain pieces: row i of each piece holds the i-th event's kind (``EVENT_COLUMNS[kind]``,
    its column of ``event_kind``; -1 for a kind left out); the actor's row, one-hot; each
    card shown face up adding 1 / copies of its type (the sum is exact: halves and
    quarters); for a kind that ``MARKS_MELD``, the meld of the event's first place."""
    settings = table_piece(tables, CARTE_SETTINGS)
    starts = table_piece(tables, CARTE_STARTS)
    copies = table_piece(tables, CARTE_COPIES)
    event_columns = table_piece(tables, EVENT_COLUMNS)
    marks_meld = table_piece(tables, MARKS_MELD)
    observer, n, capacity = settings[OBSERVER_SEAT], settings[NUM_SEATS], settings[EVENT_ROWS]
    num_kinds, num_melds, num_types = settings[SHOWN_KINDS], settings[MELDS], copies.shape[0]
    rows, new = recent_event_rows(records, event_columns, since_clock, only_new, capacity)
    end = len(records)
    for row in range(rows):
        start = end = previous_shown_record(records, end, event_columns)
        kind = records[start + 1]
        buffer[starts[EVENT_KIND_AT] + row * num_kinds + event_columns[kind]] = 1.0
        player = records[start + 2]
        if player >= 0:
            buffer[starts[EVENT_ACTOR_AT] + row * n + (player - observer) % n] = 1.0
        num_places = records[start + 3]
        if marks_meld[kind] and num_places > 0:
            buffer[starts[EVENT_MELD_AT] + row * num_melds + records[start + 5]] = 1.0
        faces = start + 4 + 2 * num_places
        for k in range(records[faces]):
            t = min(records[faces + 1 + k], num_types - 1)
            buffer[starts[EVENT_CARDS_AT] + row * num_types + t] += 1.0 / copies[t]
    write_event_marks(buffer, starts[EVENT_NEW_AT], capacity, new)


@compiled(inline=True)
def write_carte_melds(buffer: np.ndarray, starts: np.ndarray, settings: np.ndarray, table_facts: np.ndarray,
                      first_seat: int, joker: int) -> None:
    """Write the melds and ``meld_accepts`` into ``buffer`` (zero there), owners' rows
    relative to ``first_seat``, from ``table_facts``: four runs of an entry per seat
    (its score, and whether it is out of the game, started and said carte), the number of
    melds, per meld its owner, whether it is a run, its key (a set's rank, a run's suit),
    its size and its cards' types and positions (one after the other per card), then the
    number of types some meld takes and those types. A set shows its rank, its real cards
    per suit / 2 and its jokers / 3; a run its suit and, per position, a real card or a
    joker (R-11)."""
    n = settings[NUM_SEATS]
    ranks, suits, positions = settings[RANKS], settings[SUITS], settings[POSITIONS]
    at = 4 * n
    num_melds = table_facts[at]
    at += 1
    for m in range(num_melds):
        owner, is_run, key, size = table_facts[at], table_facts[at + 1], table_facts[at + 2], table_facts[at + 3]
        at += 4
        buffer[starts[MELD_PRESENT_AT] + m] = 1.0
        buffer[starts[MELD_OWNER_AT] + m * n + (owner - first_seat) % n] = 1.0
        if is_run:
            buffer[starts[MELD_IS_RUN_AT] + m] = 1.0
            buffer[starts[RUN_SUIT_AT] + m * suits + key] = 1.0
            for k in range(size):
                t, position = table_facts[at + 2 * k], table_facts[at + 2 * k + 1]
                column = (RUN_JOKER_AT if t == joker else RUN_REAL_AT)
                buffer[starts[column] + m * positions + position] = 1.0
        else:
            buffer[starts[SET_RANK_AT] + m * ranks + key] = 1.0
            jokers = 0
            for k in range(size):
                t = table_facts[at + 2 * k]
                if t == joker:
                    jokers += 1
                else:
                    buffer[starts[SET_SUITS_AT] + m * suits + t % suits] += 0.5
            if jokers:
                buffer[starts[SET_JOKERS_AT] + m] = jokers / 3
        at += 2 * size
    for k in range(table_facts[at]):
        buffer[starts[ACCEPTS_AT] + table_facts[at + 1 + k]] = 1.0


@compiled(inline=True)
def write_carte_piles(buffer: np.ndarray, top_at: int, deck_cards: int, facts, pile_at: int, stock_at: int,
                      card_types: np.ndarray, known: np.ndarray, learned_at: np.ndarray, observer: int,
                      only_new: bool, since: int, copies: np.ndarray, counts: np.ndarray) -> None:
    """Write the piles into ``buffer`` (zero there) from ``top_at``: the top card's type
    one-hot, the pile's shown cards counted per type / copies, the pile's order bottom
    first and the stock's order top first, ``deck_cards`` entries each, holding (type +
    1) / types for each card shown (as in :func:`write_carte_observation`; the pile's top
    card always); then
    the stock's and the pile's sizes / ``deck_cards`` and whether the pile was turned
    over. The pieces lie one after another in that order. The pile and the stock are
    read from ``facts`` at ``pile_at`` and ``stock_at`` (a length, then the cards; the
    stock's length 0 where nobody may know its order). ``counts``: zero, one per type
    (scratch: an allocation per call costs more than sharing it)."""
    num_types = copies.shape[0]
    counts_at = top_at + num_types
    order_at = counts_at + num_types
    stock_order_at = order_at + deck_cards
    sizes_at = stock_order_at + deck_cards
    size = int(facts[pile_at])
    for i in range(size):
        card = facts[pile_at + 1 + i]
        if i == size - 1 or observer < 0 or (
                known[observer, card] and (not only_new or learned_at[observer, card] >= since)):
            t = min(card_types[card], num_types - 1)
            counts[t] += 1
            buffer[order_at + i] = (t + 1) / num_types
    for t in range(num_types):
        if counts[t]:
            buffer[counts_at + t] = counts[t] * (1.0 / copies[t])
    if size:
        buffer[top_at + min(card_types[facts[pile_at + size]], num_types - 1)] = 1.0
    stock_size = int(facts[stock_at])
    for i in range(stock_size):
        card = facts[stock_at + 1 + i]
        if observer < 0 or (known[observer, card] and (not only_new or learned_at[observer, card] >= since)):
            buffer[stock_order_at + stock_size - 1 - i] = (min(card_types[card], num_types - 1) + 1) / num_types
    buffer[sizes_at] = facts[FACT_STOCK_SIZE] / deck_cards
    buffer[sizes_at + 1] = size / deck_cards
    buffer[sizes_at + 2] = 1.0 if facts[FACT_TURNED_OVER] else 0.0
