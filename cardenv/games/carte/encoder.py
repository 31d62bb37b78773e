"""carte_v0's whole observation (and global state) in one compiled call,
:func:`write_carte_observation`, fed by four vectors: the observer's fixed tables (packed
by :func:`cardenv.engine.encoders.pack_tables`, named as below), the facts of the state
read per call (bytes, see ``Fact``), the table's rarely changing facts (the seats'
scores and flags, the melds; int64) and the event records. Imported only when a carte
observer is built, so ``import cardenv`` does not load numba.
``tests/test_carte_observation_reference.py`` checks it bit for bit against a
straightforward Python reference.
"""

from __future__ import annotations

import numpy as np

# in_order and pack_tables: for the observer, which packs its tables through this module
from cardenv.engine.encoders import (  # noqa: F401
    compiled,
    in_order,
    pack_tables,
    packed_fields,
    previous_shown_record,
    recent_event_rows,
    table_piece,
    write_event_marks,
)

# An observer's tables, packed (:func:`pack_tables`) in this order: the settings (below),
# where each piece starts (below), per card type its copies in the deck, and per event
# kind of the engine its column of ``event_kind`` (-1: left out) and whether it marks a
# meld (see :func:`write_carte_events`).
Table = packed_fields("Table", "SETTINGS STARTS COPIES EVENT_COLUMNS MARKS_MELD")
# ``Table.SETTINGS`` (``OBSERVER_SEAT`` -1: the global state, seats absolute, every card
# shown; ``ONLY_NEW``: memory="none"; ``EVENT_ROWS``: the observation's recent_events, 0
# for the global state; ``SHOWN_KINDS``: the columns of ``event_kind``; ``MELDS``: those
# of ``event_meld``):
Setting = packed_fields("Setting", "OBSERVER_SEAT NUM_SEATS DECK_CARDS MAX_TURNS STARTING_SCORE ONLY_NEW RANKS "
                                   "SUITS POSITIONS EVENT_ROWS SHOWN_KINDS MELDS")
# ``Table.STARTS``: where each piece starts, by its name in an observation's layout
# (upper-case). The global state has ``hands`` for ``hand`` and ``known_to_all`` for
# ``known_cards``; its ``window_decided`` (whose deciders the observer writes itself) and
# the event pieces, which it has not, start at -1. ``events_dropped`` lies right after
# ``event_new``; the piles' pieces lie one after another from ``top_of_pile``.
Piece = packed_fields("Piece", "PHASE CURRENT_PLAYER TURN_PLAYER HAND SELECTION PILE_CARD IN_GAME SCORES HAND_SIZE "
                               "STARTED SAID_CARTE KNOWN_CARDS TURNS_IN_ROUND CATCH_WINDOW OFFENDER WINDOW_DECIDED "
                               "MELD_PRESENT MELD_IS_RUN MELD_OWNER MELD_SET_RANK MELD_SET_SUITS MELD_SET_JOKERS "
                               "MELD_RUN_SUIT MELD_RUN_REAL MELD_RUN_JOKER MELD_ACCEPTS TOP_OF_PILE EVENT_KIND "
                               "EVENT_ACTOR EVENT_CARDS EVENT_MELD EVENT_NEW")
# The facts' first entries (:func:`~cardenv.games.carte.observation.state_facts` writes
# them in this order), then the pile (its length, its cards bottom first), every hand
# (its length, its cards; seats absolute) and the stock where it may be shown (its
# length, its cards; else length 0). Cards and seats fit a byte: a bytearray made from a
# list of Python ints costs a fifth of an ``array`` of int64.
Fact = packed_fields("Fact", "PHASE CURRENT TURN PILE_CARD OFFENDER DECIDED TURNED_OVER STOCK_SIZE PILE")
NOBODY = 255  # a fact's seat or card when there is none (no player to act, no pile card, no window)


@compiled
def write_carte_observation(buffer: np.ndarray, tables: np.ndarray, facts, turns_completed: int,
                            selection: np.ndarray, card_types: np.ndarray, known: np.ndarray, learned_at: np.ndarray,
                            decided_at: np.ndarray, table_facts: np.ndarray, records) -> None:
    """Write a whole carte observation (or, for ``Setting.OBSERVER_SEAT`` -1, the global
    state but for its window's deciders) into ``buffer``, zeroing it first. Row r of a
    seat axis is seat ``(observer + r) % n`` (seats absolute in the global state).
    ``tables`` (:func:`pack_tables`, in the order of :class:`Table`). ``facts``: see
    :class:`Fact`; ``table_facts``: see :func:`write_carte_melds`. A card's type is
    ``min(card_types[card], types - 1)``: every joker counts as the last type.

    The head (:func:`write_carte_head`), the seats (:func:`write_carte_seats`),
    ``turns_completed`` / ``MAX_TURNS`` and the catch window
    (:func:`write_carte_window`), the melds (:func:`write_carte_melds`), the piles
    (:func:`write_carte_piles`) and, for an observation, the recent events
    (:func:`write_carte_events`)."""
    settings = table_piece(tables, Table.SETTINGS)
    starts = table_piece(tables, Table.STARTS)
    copies = table_piece(tables, Table.COPIES)
    observer, deck_cards = settings[Setting.OBSERVER_SEAT], settings[Setting.DECK_CARDS]
    only_new = settings[Setting.ONLY_NEW] != 0
    first_seat = max(observer, 0)
    # A card is shown in the global state (observer -1), and to an observer that knows
    # it, under memory="none" (``only_new``) only if learned since the observer's previous
    # decision (``since``). Written out where it is needed: even inlined, a compiled helper
    # taking the arrays cost about 20 ns a card.
    since = decided_at[observer] if only_new and observer >= 0 else 0
    buffer[:] = 0.0
    write_carte_head(buffer, starts, settings, facts, selection, copies, first_seat)
    # The hands follow the pile; the stock follows them.
    pile_at = Fact.PILE
    counts = np.zeros(copies.shape[0], dtype=np.int64)  # per type, zero between hands (and for write_carte_piles)
    stock_at = write_carte_seats(buffer, starts, settings, facts, pile_at + 1 + int(facts[pile_at]), card_types,
                                 known, learned_at, table_facts, copies, counts, first_seat, since)
    buffer[starts[Piece.TURNS_IN_ROUND]] = turns_completed / settings[Setting.MAX_TURNS]
    write_carte_window(buffer, starts, settings, facts, first_seat)
    write_carte_melds(buffer, starts, settings, table_facts, first_seat, copies.shape[0] - 1)
    write_carte_piles(buffer, starts[Piece.TOP_OF_PILE], deck_cards, facts, pile_at, stock_at, card_types, known,
                      learned_at, observer, only_new, since, copies, counts)
    # Every observation has the event pieces, events_dropped even with no event rows; the
    # global state has none.
    if starts[Piece.EVENT_NEW] >= 0:
        write_carte_events(buffer, tables, records, decided_at[observer], only_new)


@compiled(inline=True)
def write_carte_head(buffer: np.ndarray, starts: np.ndarray, settings: np.ndarray, facts, selection: np.ndarray,
                     copies: np.ndarray, first_seat: int) -> None:
    """Write phase, the player to act and whose go it is (one-hot) and, when someone is
    to act, the selection (counts × 1 / copies; shown in the global state and to the
    player to act) into ``buffer`` (zero there)."""
    observer, n = settings[Setting.OBSERVER_SEAT], settings[Setting.NUM_SEATS]
    buffer[starts[Piece.PHASE] + facts[Fact.PHASE]] = 1.0
    current = int(facts[Fact.CURRENT])
    if current != NOBODY:
        buffer[starts[Piece.CURRENT_PLAYER] + (current - first_seat) % n] = 1.0
        buffer[starts[Piece.TURN_PLAYER] + (facts[Fact.TURN] - first_seat) % n] = 1.0
        if observer < 0 or observer == current:  # a selection is private
            for t in range(selection.shape[0]):
                if selection[t]:
                    buffer[starts[Piece.SELECTION] + t] = selection[t] * (1.0 / copies[t])


@compiled(inline=True)
def write_carte_seats(buffer: np.ndarray, starts: np.ndarray, settings: np.ndarray, facts, at: int,
                      card_types: np.ndarray, known: np.ndarray, learned_at: np.ndarray, table_facts: np.ndarray,
                      copies: np.ndarray, counts: np.ndarray, first_seat: int, since: int) -> int:
    """Write each seat's pieces into ``buffer`` (zero there), its hand read from
    ``facts`` at ``at`` (seat after seat); return where the hands end (the stock). Per
    seat: the hand's counts × 1 / copies (row 0, or every row in the global state), with
    the cards every player knows added up under ``known_cards``, and for the other rows
    of an observation the cards shown to the observer (see :func:`write_carte_observation`);
    the type of the card taken from the pile while the go's player holds it (R-07); its
    hand size / ``DECK_CARDS``, score / ``STARTING_SCORE`` (above 0), in game, started
    and said carte (``table_facts``, see :func:`write_carte_melds`). ``counts``: zero,
    one per type (scratch)."""
    observer, n, deck_cards = settings[Setting.OBSERVER_SEAT], settings[Setting.NUM_SEATS], settings[Setting.DECK_CARDS]
    only_new = settings[Setting.ONLY_NEW] != 0
    num_types = copies.shape[0]
    current, pile_card = int(facts[Fact.CURRENT]), int(facts[Fact.PILE_CARD])
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
                buffer[starts[Piece.HAND] + base + t] = counts[t] * weight
                public = True
                for q in range(n):
                    if not known[q, card]:
                        public = False
                        break
                if public:
                    buffer[starts[Piece.KNOWN_CARDS] + base + t] += weight
            for k in range(size):
                counts[min(card_types[facts[at + 1 + k]], num_types - 1)] = 0
        else:
            for k in range(size):
                card = facts[at + 1 + k]
                if known[observer, card] and (not only_new or learned_at[observer, card] >= since):
                    t = min(card_types[card], num_types - 1)
                    buffer[starts[Piece.KNOWN_CARDS] + base + t] += 1.0 / copies[t]
        if current != NOBODY and pile_card != NOBODY and seat == facts[Fact.TURN]:  # while in hand
            for k in range(size):
                if facts[at + 1 + k] == pile_card:
                    buffer[starts[Piece.PILE_CARD] + min(card_types[pile_card], num_types - 1)] = 1.0
                    break
        if size:
            buffer[starts[Piece.HAND_SIZE] + r] = size / deck_cards
        score = table_facts[seat]
        if score > 0:
            buffer[starts[Piece.SCORES] + r] = score / settings[Setting.STARTING_SCORE]
        if not table_facts[n + seat]:
            buffer[starts[Piece.IN_GAME] + r] = 1.0
        if table_facts[2 * n + seat]:
            buffer[starts[Piece.STARTED] + r] = 1.0
        if table_facts[3 * n + seat]:
            buffer[starts[Piece.SAID_CARTE] + r] = 1.0
        at += 1 + size
    return at


@compiled(inline=True)
def write_carte_window(buffer: np.ndarray, starts: np.ndarray, settings: np.ndarray, facts, first_seat: int) -> None:
    """Write the catch window into ``buffer`` (zero there): whether one is open, its
    offender and whether the observer decided (not in the global state)."""
    if facts[Fact.OFFENDER] != NOBODY:
        buffer[starts[Piece.CATCH_WINDOW]] = 1.0
        buffer[starts[Piece.OFFENDER] + (facts[Fact.OFFENDER] - first_seat) % settings[Setting.NUM_SEATS]] = 1.0
        if starts[Piece.WINDOW_DECIDED] >= 0 and facts[Fact.DECIDED]:
            buffer[starts[Piece.WINDOW_DECIDED]] = 1.0


@compiled(inline=True)
def write_carte_events(buffer: np.ndarray, tables: np.ndarray, records, since_clock: int, only_new: bool) -> None:
    """Write the event pieces of an observation into ``buffer`` (zero there), rows as
    `recent_event_rows` picks them (the same rows, ``event_new`` and
    ``events_dropped`` as :func:`write_recent_events` for the slot rulesets), in carte's
    plain pieces: row i of each piece holds the i-th event's kind (``EVENT_COLUMNS[kind]``,
    its column of ``event_kind``; -1 for a kind left out); the actor's row, one-hot; each
    card shown face up adding 1 / copies of its type (the sum is exact: halves and
    quarters); for a kind that ``MARKS_MELD``, the meld of the event's first place."""
    settings = table_piece(tables, Table.SETTINGS)
    starts = table_piece(tables, Table.STARTS)
    copies = table_piece(tables, Table.COPIES)
    event_columns = table_piece(tables, Table.EVENT_COLUMNS)
    marks_meld = table_piece(tables, Table.MARKS_MELD)
    observer, n, capacity = settings[Setting.OBSERVER_SEAT], settings[Setting.NUM_SEATS], settings[Setting.EVENT_ROWS]
    num_kinds, num_melds, num_types = settings[Setting.SHOWN_KINDS], settings[Setting.MELDS], copies.shape[0]
    rows, new = recent_event_rows(records, event_columns, since_clock, only_new, capacity)
    end = len(records)
    for row in range(rows):
        start = end = previous_shown_record(records, end, event_columns)
        kind = records[start + 1]
        buffer[starts[Piece.EVENT_KIND] + row * num_kinds + event_columns[kind]] = 1.0
        player = records[start + 2]
        if player >= 0:
            buffer[starts[Piece.EVENT_ACTOR] + row * n + (player - observer) % n] = 1.0
        num_places = records[start + 3]
        if marks_meld[kind] and num_places > 0:
            buffer[starts[Piece.EVENT_MELD] + row * num_melds + records[start + 5]] = 1.0
        faces = start + 4 + 2 * num_places
        for k in range(records[faces]):
            t = min(records[faces + 1 + k], num_types - 1)
            buffer[starts[Piece.EVENT_CARDS] + row * num_types + t] += 1.0 / copies[t]
    write_event_marks(buffer, starts[Piece.EVENT_NEW], capacity, new)


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
    n = settings[Setting.NUM_SEATS]
    ranks, suits, positions = settings[Setting.RANKS], settings[Setting.SUITS], settings[Setting.POSITIONS]
    at = 4 * n
    num_melds = table_facts[at]
    at += 1
    for m in range(num_melds):
        owner, is_run, key, size = table_facts[at], table_facts[at + 1], table_facts[at + 2], table_facts[at + 3]
        at += 4
        buffer[starts[Piece.MELD_PRESENT] + m] = 1.0
        buffer[starts[Piece.MELD_OWNER] + m * n + (owner - first_seat) % n] = 1.0
        if is_run:
            buffer[starts[Piece.MELD_IS_RUN] + m] = 1.0
            buffer[starts[Piece.MELD_RUN_SUIT] + m * suits + key] = 1.0
            for k in range(size):
                t, position = table_facts[at + 2 * k], table_facts[at + 2 * k + 1]
                column = (Piece.MELD_RUN_JOKER if t == joker else Piece.MELD_RUN_REAL)
                buffer[starts[column] + m * positions + position] = 1.0
        else:
            buffer[starts[Piece.MELD_SET_RANK] + m * ranks + key] = 1.0
            jokers = 0
            for k in range(size):
                t = table_facts[at + 2 * k]
                if t == joker:
                    jokers += 1
                else:
                    buffer[starts[Piece.MELD_SET_SUITS] + m * suits + t % suits] += 0.5
            if jokers:
                buffer[starts[Piece.MELD_SET_JOKERS] + m] = jokers / 3
        at += 2 * size
    for k in range(table_facts[at]):
        buffer[starts[Piece.MELD_ACCEPTS] + table_facts[at + 1 + k]] = 1.0


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
    buffer[sizes_at] = facts[Fact.STOCK_SIZE] / deck_cards
    buffer[sizes_at + 1] = size / deck_cards
    buffer[sizes_at + 2] = 1.0 if facts[Fact.TURNED_OVER] else 0.0
