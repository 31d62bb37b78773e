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

from array import array

import numpy as np

from cardenv.core.cards import double_deck_with_jokers
from cardenv.core.melds import JOKER, NUM_MELD_TYPES, NUM_POSITIONS
from cardenv.core.observation import ObservationLayout
from cardenv.games import observation as table_observation
from cardenv.games.carte.rules import DECK_SIZE, MAX_MELDS, CarteConfig, CarteState, Phase
from cardenv.games.observation import (EventEncoding, Observer, face_up_sums, hands_array, piece_destinations,
                                       row_scatter, seat_relative_destinations)

NUM_RANKS = 13
NUM_SUITS = 4
TYPE_LIST = "per card type (AS, AH, AD, AC, 2S, … KC, JK)"
UNSEEN_STOCK = array("q")  # the stock for the compiled pile loop while nobody may know its order
NO_SELECTION = np.zeros(0, dtype=np.int64)  # a selection not shown


class CarteObserver(Observer):
    """Writes observations into a reused buffer; copies drop the buffer and the per-seat
    caches and rebuild them (see :class:`~cardenv.games.observation.Observer`)."""

    scratch = ("_buffer", "_tail")
    phases = Phase
    state_class = CarteState
    deck = double_deck_with_jokers()

    def __init__(self, config: CarteConfig):
        table_observation.load_kernels()
        self.config = config
        self.copies = np.bincount(np.minimum(self.deck, JOKER), minlength=NUM_MELD_TYPES).astype(np.float32)
        self.shown_event_kinds = tuple(k for k in CarteState.event_kinds if k not in CarteState.implied_event_kinds)
        self.kind_index = {kind: i for i, kind in enumerate(self.shown_event_kinds)}  # event_kind's columns
        self.layout = self._build_layout(omniscient=False)
        self.state_layout = self._build_layout(omniscient=True)
        # Piece starts per layout (True: the global state), and 1 / copies per type.
        self._starts = {omniscient: {name: piece.start for name, piece in layout.pieces.items()}
                        for omniscient, layout in ((False, self.layout), (True, self.state_layout))}
        self._weights = (1.0 / self.copies).astype(np.float64)  # for the compiled loops
        self._codes = np.array([(t + 1) / NUM_MELD_TYPES for t in range(NUM_MELD_TYPES)])  # the *_order pieces
        self._no_cards = np.zeros(DECK_SIZE, dtype=bool)  # ``shown`` where every card is shown
        # The head's piece starts in the order _head reads them, per layout (True: the
        # global state), and those written by write_seat_pieces (in its ``offsets`` order).
        self._head_at = {omniscient: tuple(at.get(name, -1) for name in (
            "phase", "current_player", "turn_player", "pile_card", "turns_in_round", "catch_window", "offender",
            "window_decided", "window_catches"))
            for omniscient, at in self._starts.items()}
        self._seat_offsets = {omniscient: np.array([at[name] for name in (
            "hands" if omniscient else "hand", "known_to_all" if omniscient else "known_cards", "hand_size",
            "selection", "in_game", "scores", "started", "said_carte")], dtype=np.int64)
            for omniscient, at in self._starts.items()}
        for layout in (self.layout, self.state_layout):  # as write_piles reads them: one after another
            pieces = layout.pieces
            names = ["top_of_pile", "pile_counts", "pile_order", "stock_order", "stock_size", "pile_size", "turned_over"]
            if any(pieces[a].stop != pieces[b].start for a, b in zip(names, names[1:])):
                raise AssertionError(f"the pile pieces must lie one after another: {names}")
        self._tail_start = self.layout.pieces["meld_present"].start
        self._events_start = self.layout.pieces["event_kind"].start
        # Tail pieces' offsets within a seat's tail.
        self._tail_at = {name: start - self._tail_start for name, start in self._starts[False].items()
                         if start >= self._tail_start}
        self.size = self.layout.size
        # An event row: its kind, actor (seats absolute), cards face up and meld, side by
        # side; per observer, where each entry lands in the observer's tail.
        n, num_kinds = config.num_players, len(self.shown_event_kinds)
        widths = [("event_kind", num_kinds), ("event_actor", n), ("event_cards", NUM_MELD_TYPES),
                  ("event_meld", MAX_MELDS)]
        starts = np.cumsum([0] + [width for _, width in widths]).tolist()
        event_columns = [(name, low, low + width) for (name, width), low in zip(widths, starts)]
        actor_column, cards_column, meld_column = starts[1:4]
        event_scatter = [
            row_scatter(destinations - self._tail_start) for destinations in seat_relative_destinations(
                piece_destinations(self.layout, event_columns, config.recent_events), [(actor_column, 1)], n)]
        # A card shown face up counts in its type's column (every joker in one), weighing
        # 1 / the copies of that type; a meld event marks the meld (its first place's slot).
        card_types = np.arange(int(self.deck.max()) + 1)
        face_columns = (cards_column + np.minimum(card_types, JOKER))[:, None]
        weights = self.copies[np.minimum(card_types, JOKER)][:, None] ** -1
        self._event_encoding = EventEncoding(
            CarteState, self.shown_event_kinds, 0, actor_column, -1, 0,
            {"put down": meld_column, "add": meld_column}, face_columns,
            face_up_sums(face_columns, weights, np.bincount(self.deck), np.float64))
        self._event_tables = [
            self._event_encoding.tables_for(scatter, self._tail_at["event_new"], config.recent_events)
            for scatter in event_scatter]
        self._make_buffers()

    def _make_buffers(self) -> None:
        self._buffer = self.new_buffer()
        self._tail: dict[int, _SeatTail] = {}

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
    # An observation is three blocks. The head (``phase`` … ``window_decided``) changes
    # with nearly every decision and is small: it is written entry by entry through a
    # memoryview (numpy's per-call cost would exceed the work). The tail (``meld_present``
    # … ``turned_over``: melds, piles) is large and changes only with public events: each
    # seat keeps its own tail and rewrites only the parts whose key changed. The event
    # pieces are written whole from rows every seat shares. The engine keeps the per-card
    # lists read here (meld types, hand counts, cards known to all).
    def write(self, state: CarteState, observer: int, out: np.ndarray | None = None,
              recent_events: bool = True) -> np.ndarray:
        """See :meth:`~cardenv.games.observation.Observer.observe`. The recent events are
        always written (``recent_events`` is accepted for the runners that pass it):
        they cost little here."""
        buffer = self._buffer if out is None else out
        shown = state.table.knowledge.shown_to(observer, self.config.memory)
        tail, events = self._tail_start, self._events_start
        buffer[tail:events] = self._seat_tail(state, observer, shown)
        buffer[:tail].fill(0)
        self._head(state, observer, shown, memoryview(buffer), buffer)
        # The event pieces change with nearly every decision and are rewritten whole:
        # written in place, not kept per seat and copied.
        self._fill_events(state, observer, buffer[tail:])
        return buffer.copy() if out is None else out

    def encode_state(self, state: CarteState, out: np.ndarray | None = None) -> np.ndarray:
        """The omniscient global state (``env.state()``), seats absolute."""
        size = self.state_layout.size
        vector = np.zeros(size, dtype=np.float32) if out is None else self.checked_out(out, size)
        vector[:] = 0
        at = self._starts[True]
        self._head(state, None, None, memoryview(vector), vector)
        self._fill_melds(state, None, at, vector)
        self._fill_piles(state, None, at, vector)
        return vector

    def _seat_tail(self, state: CarteState, observer: int, shown: np.ndarray) -> np.ndarray:
        """``observer``'s tail up to the event pieces, brought up to date part by part:
        the melds when the state's ``melds_version`` changed, the piles when its
        ``public_version`` did (or, with ``memory="none"``, the observer decided since:
        what it is shown of the pile depends on that; or the cards' types are another
        table's). Keys are tokens and values of the state observed, so a seat's tail
        follows whichever state (a clone, a sampled world) it is given."""
        tail = self._tail.get(observer)
        if tail is None:
            tail = self._tail[observer] = _SeatTail(np.zeros(self._events_start - self._tail_start, dtype=np.float32))
        at = self._tail_at
        if tail.melds_key is not state.melds_version:
            self._fill_melds(state, observer, at, tail.block, tail)
            tail.melds_key = state.melds_version
        version = state.public_version
        piles_key = int(state.table.knowledge.decided_at[observer]) if self.config.memory == "none" else None
        types = state.card_meld_types  # a sampled world's own
        if tail.piles_version is not version or tail.piles_key != piles_key or tail.piles_types is not types:
            self._fill_piles(state, shown, at, tail.block)
            tail.piles_version, tail.piles_key, tail.piles_types = version, piles_key, types
        return tail.block

    def _head(self, state: CarteState, observer: int | None, shown: np.ndarray | None, out: memoryview,
              target: np.ndarray) -> None:
        """Write the head pieces into ``target`` (zero there; ``out`` is it as a
        memoryview), seats absolute for ``observer`` None. The hands, the seats' facts and
        the selection by a compiled loop; the rest entry by entry through the memoryview:
        cheaper than numpy for a few entries."""
        config = self.config
        n = config.num_players
        table = state.table
        phase_at, current_at, turn_at, pile_card_at, turns_at, window_at, offender_at, decided_at, catches_at = \
            self._head_at[observer is None]
        types = state.card_meld_types

        out[phase_at + state.phase] = 1
        current = state.current_player
        shows_selection = False
        if current is not None:
            out[current_at + (current if observer is None else (current - observer) % n)] = 1
            turn = state.turn_player
            out[turn_at + (turn if observer is None else (turn - observer) % n)] = 1
            shows_selection = observer is None or observer == current  # private
            card = state.pile_card
            if card is not None and card in table.hands[turn]:
                out[pile_card_at + types[card]] = 1
        # Per seat: the hand's count per type (every seat in the global state, else the
        # observer's own), and the cards known: the global state's rows and the
        # observation's row 0, those every player knows; other rows, those shown to the
        # observer; then the seat's facts, and the selection where shown.
        table_observation.observation_kernels.write_seat_pieces(
            target, hands_array(table.hands), n, 0 if observer is None else observer, table.card_types,
            table.knowledge.known, self._no_cards if shown is None else shown, observer is None,
            self._seat_offsets[observer is None],
            self._weights, DECK_SIZE, state.selection if shows_selection else NO_SELECTION,
            array("q", [*state.eliminated, *state.scores, *state.started, *state.said_carte]), config.starting_score)
        out[turns_at] = state.turns_completed / config.max_turns_per_round
        window = state.window
        if window is not None:
            out[window_at] = 1
            offender = state.offender
            out[offender_at + (offender if observer is None else (offender - observer) % n)] = 1
            if observer is None:
                for decider, decision in zip(window.players, window.decisions):
                    out[decided_at + decider] = 1
                    if decision is not None:
                        out[catches_at + decider] = 1
            elif window.has_decided(observer):
                out[decided_at] = 1

    def _fill_piles(self, state: CarteState, shown: np.ndarray | None, at: dict[str, int],
                    target: np.ndarray) -> None:
        """``top_of_pile`` … ``turned_over`` into ``target``, which holds them at the
        offsets ``at`` (see ``write_piles``): the piles' orders as (type + 1) / 53 for
        every card shown (``shown`` None: every card), the pile's counts of shown cards;
        only a turned-over stock is ever known."""
        table = state.table
        pile, stock = table.discard_pile, table.draw_pile
        table_observation.observation_kernels.write_piles(
            target, at["top_of_pile"], DECK_SIZE, array("q", pile),
            array("q", stock) if shown is None or state.turnovers > 0 else UNSEEN_STOCK, len(stock), table.card_types,
            self._no_cards if shown is None else shown, shown is None, state.turnovers > 0, self._codes, self._weights)

    def _fill_melds(self, state: CarteState, observer: int | None, at: dict[str, int], target: np.ndarray,
                    tail: _SeatTail | None = None) -> None:
        """``meld_present`` … ``meld_accepts`` (contiguous) into ``target`` at the offsets
        ``at``. With a seat's ``tail`` (which ``target`` is), only the melds whose token
        (``state.meld_tokens``) differs from the one written are rewritten (a put-down or
        an add changes one meld), their old entries cleared first; else all of them."""
        out = memoryview(target)
        types = state.card_meld_types
        tokens = state.meld_tokens
        if tail is None:
            target[at["meld_present"]: at["meld_accepts"] + NUM_MELD_TYPES] = 0
            for m in range(len(tokens)):
                for offset, value in self._meld_entries(state, m, observer, at).items():
                    out[offset] = value
        else:
            if tail.meld_types is not types:  # another table's cards: nothing written can be kept
                old_tokens = []
                for offsets in tail.meld_offsets:
                    for offset in offsets:
                        out[offset] = 0
                tail.meld_offsets = []
            else:
                old_tokens = tail.meld_tokens
            written = tail.meld_offsets
            for m in range(len(tokens), len(written)):  # melds gone (a new round, another state)
                for offset in written[m]:
                    out[offset] = 0
            del written[len(tokens):]
            for m, token in enumerate(tokens):
                if m < len(old_tokens) and old_tokens[m] is token:
                    continue
                if m < len(written):
                    for offset in written[m]:
                        out[offset] = 0
                entries = self._meld_entries(state, m, observer, at)
                for offset, value in entries.items():
                    out[offset] = value
                if m < len(written):
                    written[m] = list(entries)
                else:
                    written.append(list(entries))
            tail.meld_tokens, tail.meld_types = tokens.copy(), types
            for offset in tail.accept_offsets:
                out[offset] = 0
        accepts_at = at["meld_accepts"]
        accepted = [accepts_at + t for t in state.accepted_types_now()]
        for offset in accepted:
            out[offset] = 1
        if tail is not None:
            tail.accept_offsets = accepted

    def _meld_entries(self, state: CarteState, m: int, observer: int | None, at: dict[str, int]) -> dict[int, float]:
        """Meld ``m``'s nonzero entries: offset (per ``at``) → value."""
        meld = state.melds[m]
        types = state.card_meld_types
        values: dict[int, float] = {at["meld_present"] + m: 1}
        row = meld.owner if observer is None else (meld.owner - observer) % self.config.num_players
        values[at["meld_owner"] + m * self.config.num_players + row] = 1
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
        return values

    def _fill_events(self, state: CarteState, observer: int, target: np.ndarray) -> None:
        """The most recent public events, newest first: kind, actor (seat-relative), the
        cards shown face up to everyone (each card 1 / its type's copies), the meld put
        down or added to; which are new since the observer's previous decision. Under
        ``memory="none"`` only the new ones."""
        config = self.config
        at = self._tail_at
        target[at["event_kind"]:].fill(0)
        if config.recent_events:
            self._event_encoding.write(target, state.event_records, self._event_tables[observer],
                                       state.table.knowledge.decided_at.item(observer), config.memory == "none")


class _SeatTail:
    """One seat's tail block and the keys it was written for (see ``_seat_tail``)."""

    __slots__ = ("block", "melds_key", "piles_key", "piles_types", "piles_version", "meld_tokens", "meld_offsets",
                 "meld_types", "accept_offsets")

    def __init__(self, block: np.ndarray):
        self.block = block
        self.melds_key = self.piles_version = self.piles_key = self.piles_types = None
        self.meld_types = None  # the state's card_meld_types the melds' entries were written with
        self.meld_tokens: list[object] = []  # the state's meld_tokens when the melds were written
        self.meld_offsets: list[list[int]] = []  # per meld written, the offsets of its nonzero entries
        self.accept_offsets: list[int] = []  # the meld_accepts entries written (all 1)


def build_layout(config: CarteConfig) -> ObservationLayout:
    return CarteObserver(config).layout

