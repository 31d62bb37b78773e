"""What one player may know of a carte game, as a flat float32 vector.

Nothing here is a slot: a hand is counts per card type (53 types: the 52 standard cards,
then one joker type ``JK``, since a red and a black joker play alike), melds are
described by what they hold and where each joker stands (R-11), and piles by counts
and, where the player may remember them, the order of their cards.

Seats are relative (row 0 = the observer, row k = k seats clockwise) in observations
and absolute in the global state (``env.state()``). What the observation shows follows
the knowledge table through one function (``knowledge.shown_to``): opponents' cards
known to the observer (taken from the pile, or from the stock after it was turned
over), the pile below its top card, and the turned-over stock's order, all under
``memory="perfect"``; with ``memory="none"`` only what was revealed since the
observer's previous decision. What lies on the table now (melds, the top of the pile,
counts of cards and who is in) is always shown. Of a catch window the observation says
only that it is open, for whom, and whether the observer has decided — never what
anyone decided before the window closes. docs/carte.md's tables are generated from the
layouts below.
"""

from __future__ import annotations

from bisect import bisect_left
from operator import attrgetter

import numpy as np

from cardenv.core.cards import double_deck_with_jokers
from cardenv.core.melds import JOKER, NUM_MELD_TYPES, NUM_POSITIONS
from cardenv.core.observation import ObservationLayout
from cardenv.games.carte.rules import DECK_SIZE, MAX_MELDS, CarteConfig, CarteState, Phase
from cardenv.games.observation import Observer

_event_clock = attrgetter("clock")
NUM_RANKS = 13
NUM_SUITS = 4
TYPE_LIST = "per card type (AS, AH, AD, AC, 2S, … KC, JK)"


class CarteObserver(Observer):
    """Writes observations into a reused buffer; copies drop the buffer and the per-seat
    caches and rebuild them (see :class:`~cardenv.games.observation.Observer`)."""

    scratch = ("_buffer", "_tail_cache", "_meld_cache", "_event_cache")
    phases = Phase
    state_class = CarteState
    deck = double_deck_with_jokers()

    def __init__(self, config: CarteConfig):
        self.config = config
        self.copies = np.bincount(np.minimum(self.deck, JOKER), minlength=NUM_MELD_TYPES).astype(np.float32)
        self.shown_event_kinds = tuple(k for k in CarteState.event_kinds if k not in CarteState.implied_event_kinds)
        self.kind_index = {kind: i for i, kind in enumerate(self.shown_event_kinds)}
        self.layout = self._build_layout(omniscient=False)
        self.state_layout = self._build_layout(omniscient=True)
        # Piece starts per layout (True: the global state), and 1 / copies per type.
        self._starts = {omniscient: {name: piece.start for name, piece in layout.pieces.items()}
                        for omniscient, layout in ((False, self.layout), (True, self.state_layout))}
        self._weight = (1.0 / self.copies).tolist()
        self._tail_start = self.layout.pieces["meld_present"].start
        self.size = self.layout.size
        self._make_buffers()

    def _make_buffers(self) -> None:
        self._buffer = self.new_buffer()
        self._tail_cache: dict[int, tuple] = {}
        self._meld_cache: dict[int, tuple] = {}
        self._event_cache: dict[int, tuple] = {}

    # --- the layouts -------------------------------------------------------------------
    def _build_layout(self, omniscient: bool) -> ObservationLayout:
        config = self.config
        n, m = config.num_players, MAX_MELDS
        seat = "player" if omniscient else "seat (0 = the observer)"
        start = config.starting_score
        layout = ObservationLayout()
        layout.add("phase", len(Phase), "phase one-hot: " + ", ".join(ph.name.lower() for ph in Phase))
        layout.add("current_player", n, f"{seat} whose decision it is, one-hot")
        layout.add("turn_player", n, f"{seat} whose go it is, one-hot")
        if omniscient:
            layout.add("hands", (n, NUM_MELD_TYPES), "player × card type: cards in hand / copies in the deck")
            layout.add("selection", NUM_MELD_TYPES, "the acting player's selected cards per type / copies")
        else:
            layout.add("hand", NUM_MELD_TYPES, f"{TYPE_LIST}: cards in the observer's hand / copies in the deck")
            layout.add("selection", NUM_MELD_TYPES,
                       "the observer's selected cards per type / copies (private; R-06)")
        layout.add("pile_card", NUM_MELD_TYPES,
                   "type of the card the player whose go it is took from the pile this go, while in hand (R-07)")
        layout.add("in_game", n, f"{seat}: 1 while in the game (R-17)")
        layout.add("scores", n, f"{seat}: total / starting_score ({start}); 0 at or below 0")
        layout.add("hand_size", n, f"{seat}: cards in hand / {DECK_SIZE}")
        layout.add("started", n, f"{seat}: 1 once it has put a meld down this round (R-06)")
        layout.add("said_carte", n, f"{seat}: 1 once it has said carte this round (R-13)")
        if omniscient:
            layout.add("known_to_all", (n, NUM_MELD_TYPES),
                       "player × card type: cards in hand every player knows (taken from the pile) / copies")
        else:
            layout.add("known_cards", (n, NUM_MELD_TYPES),
                       "seat × card type / copies: row 0, the observer's cards that every player knows; other "
                       "rows, that seat's cards the observer knows (taken from the pile, or from the turned-over "
                       "stock)")
        layout.add("turns_in_round", 1, "goes completed this round / max_turns_per_round")
        layout.add("catch_window", 1, "1 while a catch window collects decisions (R-14)")
        layout.add("offender", n, f"{seat} who ended a go on one card without saying carte, one-hot (R-14)")
        if omniscient:
            layout.add("window_decided", n, "player: 1 if it decided in the open catch window")
            layout.add("window_catches", n, "player: 1 if it decided to catch (hidden from players)")
        else:
            layout.add("window_decided", 1, "1 if the observer has decided in the open catch window")
        # From here on every piece changes only with a public event (see observe()).
        layout.add("meld_present", m, f"meld (creation order, at most {m}): 1 if on the table")
        layout.add("meld_is_run", m, "meld: 1 for a run, 0 for a set")
        layout.add("meld_owner", (m, n), f"meld × {seat}: who put it down, one-hot")
        layout.add("meld_set_rank", (m, NUM_RANKS), "set × rank (A, 2, … K): its rank, one-hot")
        layout.add("meld_set_suits", (m, NUM_SUITS), "set × suit (S, H, D, C): real cards of the suit / 2")
        layout.add("meld_set_jokers", m, "set: jokers in it / 3")
        layout.add("meld_run_suit", (m, NUM_SUITS), "run × suit: its suit, one-hot")
        layout.add("meld_run_real", (m, NUM_POSITIONS), "run × position (2, 3, … K, A): 1 where a real card lies")
        layout.add("meld_run_joker", (m, NUM_POSITIONS),
                   "run × position: 1 where a joker stands in for that card (R-11)")
        layout.add("meld_accepts", NUM_MELD_TYPES, f"{TYPE_LIST}: 1 if some meld would take a card of it (R-12)")
        layout.add("top_of_pile", NUM_MELD_TYPES, "type of the pile's top card, one-hot")
        layout.add("pile_counts", NUM_MELD_TYPES, f"{TYPE_LIST}: pile cards shown / copies")
        layout.add("pile_order", DECK_SIZE,
                   "pile bottom first: (type + 1) / 53 for each card shown (0 when not shown or no card)")
        layout.add("stock_order", DECK_SIZE,
                   "stock top first: (type + 1) / 53 for each card shown (after the turnover, R-15)")
        layout.add("stock_size", 1, f"cards in the stock / {DECK_SIZE}")
        layout.add("pile_size", 1, f"cards in the pile / {DECK_SIZE}")
        layout.add("turned_over", 1, "1 once the pile was turned over this round (R-15)")
        if not omniscient:
            self._add_event_pieces(layout)
        return layout

    def _add_event_pieces(self, layout: ObservationLayout) -> None:
        config = self.config
        n, e = config.num_players, config.recent_events
        layout.add("event_kind", (e, len(self.shown_event_kinds)),
                   f"recent public events, most recent first (row 0), up to recent_events={e}: kind one-hot "
                   f"({', '.join(self.shown_event_kinds)}); all 0 for an unused row")
        layout.add("event_actor", (e, n), "event × seat: who acted, one-hot (all 0 for a turnover or round end)")
        layout.add("event_cards", (e, NUM_MELD_TYPES),
                   "event × card type: cards the event showed face up to everyone / copies")
        layout.add("event_meld", (e, MAX_MELDS), "event × meld: the meld put down or added to, one-hot")
        layout.add("event_new", e,
                   "event: 1 if it happened since the observer's previous decision (that decision's own included)")
        layout.add("events_dropped", 1,
                   "1 if events since the observer's previous decision did not all fit in recent_events rows")

    # --- filling -----------------------------------------------------------------------
    # Every piece is written through one dict of flat index -> value per call (one
    # fancy write at the end): per-piece numpy writes would cost more than the rest.
    def observe(self, state: CarteState, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``observer``'s view of ``state`` into ``out`` (or a new array).

        The pieces from ``meld_present`` on (melds, piles, events) change only when a
        public event is logged, which gives the state a new ``public_version``; with
        the observer's last decision (the memory model and the new-events marks depend
        on it) that is the key of a per-seat cache of those pieces."""
        buffer = self._buffer if out is None else out
        buffer[:] = 0
        tail = self._tail_start
        key = (state.public_version, int(state.table.knowledge.decided_at[observer]))
        cached = self._tail_cache.get(observer)
        reuse = cached is not None and cached[0] is key[0] and cached[1] == key[1]
        if reuse:
            buffer[tail:] = cached[2]
        self._fill(state, observer, buffer, with_tail=not reuse)
        if not reuse:
            self._tail_cache[observer] = (key[0], key[1], buffer[tail:].copy())
        return buffer.copy() if out is None else out

    def encode_state(self, state: CarteState, out: np.ndarray | None = None) -> np.ndarray:
        """The omniscient global state (``env.state()``), seats absolute."""
        vector = np.zeros(self.state_layout.size, dtype=np.float32) if out is None else out
        vector[:] = 0
        self._fill(state, None, vector, with_tail=True)
        return vector

    def _fill(self, state: CarteState, observer: int | None, buffer: np.ndarray, with_tail: bool) -> None:
        config = self.config
        n = config.num_players
        table = state.table
        at = self._starts[observer is None]
        values: dict[int, float] = {}
        get = values.get
        types = np.minimum(table.card_types, JOKER).tolist()
        public = table.knowledge.known.all(axis=0).tolist()
        shown = None if observer is None else table.knowledge.shown_to(observer, config.memory).tolist()
        weight = self._weight
        seats = list(range(n)) if observer is None else [(observer + r) % n for r in range(n)]
        row = {p: r for r, p in enumerate(seats)}

        values[at["phase"] + int(state.phase)] = 1
        if state.current_player is not None:
            values[at["current_player"] + row[state.current_player]] = 1
            values[at["turn_player"] + row[state.turn_player]] = 1
            if (observer is None or observer == state.current_player) and state.selection.any():
                selection = state.selection.tolist()
                for t in range(NUM_MELD_TYPES):
                    if selection[t]:
                        values[at["selection"] + t] = selection[t] * weight[t]
            pile_type = state._pile_type_in_hand(state.turn_player)
            if pile_type >= 0:
                values[at["pile_card"] + pile_type] = 1
        # Hands: every seat's count per type (the global state) or the observer's own,
        # and the cards known (row 0: known to every player; others: shown to the observer).
        hands_at = at["hands"] if observer is None else at["hand"]
        known_at = at["known_to_all"] if observer is None else at["known_cards"]
        for r, p in enumerate(seats):
            base = r * NUM_MELD_TYPES
            for card in table.hands[p]:
                t = types[card]
                if observer is None or r == 0:
                    key = hands_at + base + t
                    values[key] = get(key, 0) + weight[t]
                if public[card] if (observer is None or r == 0) else shown[card]:
                    key = known_at + base + t
                    values[key] = get(key, 0) + weight[t]
        values[at["turns_in_round"]] = state.turns_completed / config.max_turns_per_round
        window = state.window
        if window is not None:
            values[at["catch_window"]] = 1
            values[at["offender"] + row[state.offender]] = 1
            if observer is None:
                for decider, decision in zip(window.players, window.decisions):
                    values[at["window_decided"] + decider] = 1
                    if decision is not None:
                        values[at["window_catches"] + decider] = 1
            elif window.has_decided(observer):
                values[at["window_decided"]] = 1
        start = config.starting_score
        for r, p in enumerate(seats):
            if not state.eliminated[p]:
                values[at["in_game"] + r] = 1
            if state.scores[p] > 0:
                values[at["scores"] + r] = state.scores[p] / start
            values[at["hand_size"] + r] = len(table.hands[p]) / DECK_SIZE
            if state.started[p]:
                values[at["started"] + r] = 1
            if state.said_carte[p]:
                values[at["said_carte"] + r] = 1
        if with_tail:
            self._fill_tail(state, observer, at, values, row, types, shown, buffer)
        buffer[list(values)] = list(values.values())

    def _fill_tail(self, state: CarteState, observer: int | None, at: dict[str, int], values: dict[int, float],
                   row: dict[int, int], types: list[int], shown: list[bool] | None, buffer: np.ndarray) -> None:
        """The pieces that change only with a public event: melds, piles, events."""
        table = state.table
        self._fill_melds_cached(state, observer, at, row, types, buffer)
        # The piles' orders as whole slices: (type + 1) / 53 for every card shown (plain
        # Python: cheaper than numpy on a few dozen cards).
        weight = self._weight
        pile = table.discard_pile
        if pile:
            top = len(pile) - 1
            values[at["top_of_pile"] + types[pile[top]]] = 1
            counts = [0.0] * NUM_MELD_TYPES
            codes = []
            for i, card in enumerate(pile):
                # The top card lies face up now; the others are memory.
                if shown is None or shown[card] or i == top:
                    t = types[card]
                    counts[t] += weight[t]
                    codes.append((t + 1) / NUM_MELD_TYPES)
                else:
                    codes.append(0.0)
            buffer[at["pile_order"]: at["pile_order"] + len(pile)] = codes
            buffer[at["pile_counts"]: at["pile_counts"] + NUM_MELD_TYPES] = counts
        stock = table.draw_pile
        if stock and (shown is None or state.turnovers):  # only a turned-over stock is ever known
            codes = [(types[card] + 1) / NUM_MELD_TYPES if shown is None or shown[card] else 0.0
                     for card in reversed(stock)]
            buffer[at["stock_order"]: at["stock_order"] + len(stock)] = codes
        values[at["stock_size"]] = len(stock) / DECK_SIZE
        values[at["pile_size"]] = len(pile) / DECK_SIZE
        if state.turnovers:
            values[at["turned_over"]] = 1
        if observer is not None:
            self._fill_events(state, observer, at, buffer)

    def _fill_melds_cached(self, state: CarteState, observer: int | None, at: dict[str, int], row: dict[int, int],
                           types: list[int], buffer: np.ndarray) -> None:
        """The meld pieces (contiguous, ``meld_present`` … ``meld_accepts``), from a per-seat
        cache keyed by the state's ``melds_version``: melds change far less often than
        the rest."""
        low, high = at["meld_present"], at["meld_accepts"] + NUM_MELD_TYPES
        cached = None if observer is None else self._meld_cache.get(observer)
        if cached is not None and cached[0] is state.melds_version:
            buffer[low:high] = cached[1]
            return
        values: dict[int, float] = {}
        self._fill_melds(state, at, values, row, types)
        block = np.zeros(high - low, dtype=np.float32)
        if values:
            block[np.fromiter(values, np.intp, len(values)) - low] = list(values.values())
        buffer[low:high] = block
        if observer is not None:
            self._meld_cache[observer] = (state.melds_version, block)

    def _fill_melds(self, state: CarteState, at: dict[str, int], values: dict[int, float], row: dict[int, int],
                    types: list[int]) -> None:
        n = self.config.num_players
        for m, meld in enumerate(state.melds):
            values[at["meld_present"] + m] = 1
            values[at["meld_owner"] + m * n + row[meld.owner]] = 1
            meld_types = [types[c] for c in state.table.melds[m]]
            if meld.is_run:
                values[at["meld_is_run"] + m] = 1
                values[at["meld_run_suit"] + m * NUM_SUITS + meld.key] = 1
                real, joker = at["meld_run_real"] + m * NUM_POSITIONS, at["meld_run_joker"] + m * NUM_POSITIONS
                for t, position in zip(meld_types, meld.positions):
                    values[(joker if t == JOKER else real) + position] = 1
            else:
                values[at["meld_set_rank"] + m * NUM_RANKS + meld.key] = 1
                suits = at["meld_set_suits"] + m * NUM_SUITS
                jokers = 0
                for t in meld_types:
                    if t == JOKER:
                        jokers += 1
                    else:
                        values[suits + (t & 3)] = values.get(suits + (t & 3), 0) + 0.5
                if jokers:
                    values[at["meld_set_jokers"] + m] = jokers / 3
        accepts_at = at["meld_accepts"]
        for t in state.accepted_types_now():
            values[accepts_at + t] = 1

    def _fill_events(self, state: CarteState, observer: int, at: dict[str, int], buffer: np.ndarray) -> None:
        """The most recent public events, newest first: kind, actor, the cards shown face
        up to everyone, the meld involved; which are new since the observer's previous
        decision."""
        config = self.config
        capacity = config.recent_events
        if capacity == 0:
            return
        events = state.events
        rows, first = self._event_rows(state, observer)
        first_new = bisect_left(events, state.table.knowledge.decided_at[observer], key=_event_clock)
        kind_index = self.kind_index
        new = sum(1 for event in events[first_new:] if event.kind in kind_index)
        shown = capacity if config.memory == "perfect" else min(new, capacity)  # "none": only the new ones
        shown = min(shown, len(rows[0]) - first)
        for name, array in zip(("event_kind", "event_actor", "event_cards", "event_meld"), rows):
            start = at[name]
            buffer[start: start + shown * array.shape[1]] = array[first: first + shown].ravel()
        buffer[at["event_new"]: at["event_new"] + min(new, capacity)] = 1
        if new > capacity:
            buffer[at["events_dropped"]] = 1

    def _event_rows(self, state: CarteState, observer: int) -> tuple[tuple[np.ndarray, ...], int]:
        """The encoded rows (kind, actor, cards, meld) of the shown events for ``observer``,
        newest first from row ``first`` on (returned with the rows): new events are
        written upwards, so the rows to observe are always one contiguous slice. Kept per
        seat and extended as events arrive, while the cached history is a prefix of this
        state's (events never change once logged, and a copied state shares its past
        events)."""
        config = self.config
        capacity, n = config.recent_events, config.num_players
        events = state.events
        kind_index = self.kind_index
        cached = self._event_cache.get(observer)
        if cached is not None and cached[1] <= len(events) and (cached[1] == 0 or events[cached[1] - 1] is cached[0]):
            _, seen, rows, first = cached
            fresh = [e for e in events[seen:] if e.kind in kind_index]
        else:
            size = 4 * capacity
            rows = (np.zeros((size, len(self.shown_event_kinds)), np.float32), np.zeros((size, n), np.float32),
                    np.zeros((size, NUM_MELD_TYPES), np.float32), np.zeros((size, MAX_MELDS), np.float32))
            first = size
            fresh = []
            for event in reversed(events):
                if event.kind in kind_index:
                    fresh.append(event)
                    if len(fresh) == capacity:
                        break
            fresh.reverse()
        if fresh:
            fresh = fresh[-capacity:]
            if first < len(fresh):  # no room above: keep the newest rows, at the bottom
                size, keep = len(rows[0]), capacity - len(fresh)
                for array in rows:
                    array[size - keep:] = array[first: first + keep]
                    array[: size - keep] = 0
                first = size - keep
            kinds, actors, cards, melds = rows
            weight = self._weight
            for event in fresh:  # oldest first, each above the previous
                first -= 1
                kinds[first, kind_index[event.kind]] = 1
                if event.player >= 0:
                    actors[first, (event.player - observer) % n] = 1
                for card_type in event.face_up_types:
                    t = min(card_type, JOKER)
                    cards[first, t] += weight[t]
                if event.kind in ("put down", "add"):
                    melds[first, event.places[0][1]] = 1
        self._event_cache[observer] = (events[-1] if events else None, len(events), rows, first)
        return rows, first


def build_layout(config: CarteConfig) -> ObservationLayout:
    return CarteObserver(config).layout

