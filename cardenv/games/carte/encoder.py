"""carte_v0's whole observation (and global state) in one compiled call,
:func:`write_carte_observation`, fed by four vectors: the observer's fixed tables (packed
by :func:`cardenv.engine.encoders.pack_tables`, by index as below), the facts of the state
read per call (bytes, see ``FACT_*``), the table's rarely changing facts (the seats'
scores and flags, the melds; int64) and the event records. Imported only when a carte
observer is built, so ``import cardenv`` does not load numba.
``tests/test_carte_observation_reference.py`` checks it bit for bit against a
straightforward Python reference.
"""

from __future__ import annotations

import numpy as np

from cardenv.engine.encoders import (compiled, pack_tables, previous_shown_record, recent_event_rows, table_piece,
                                     write_event_marks)

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
