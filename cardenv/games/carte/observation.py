"""What one player may know of a carte game, as a flat float32 vector.

Nothing here is a slot: a hand is counts per card type (53 types: the 52 standard cards,
then one joker type ``JK``, since a red and a black joker play alike), melds are
described by what they hold and where each joker stands (R-11), and piles by counts
and, where the player may remember them, the order of their cards.

Seats are relative (row 0 = the observer, row k = k seats clockwise) in observations
and absolute in the global state (``env.state()``). What the observation shows follows
the knowledge table by the rule of ``knowledge.shown_to`` (applied card by card in the
compiled call): opponents' cards known to the observer (taken from the pile, or from
the stock after it was turned over), the pile below its top card, and the turned-over
stock's order, all under ``memory="perfect"``; with ``memory="none"`` only what was
revealed since the observer's previous decision. What lies on the table now (melds,
the top of the pile, counts of cards and who is in) is always shown. Of a catch window
the observation says only that it is open, for whom, and whether the observer has
decided — never what anyone decided before the window closes. docs/carte.md's tables
are generated from the layouts below.

An observation (and the global state) is written by one compiled call,
:func:`~cardenv.games.carte.encoder.write_carte_observation`: a few Python ints
and arrays cost less to hand over than any Python-side piece would to write, so the
observer only gathers the state's facts into one bytearray (:func:`state_facts`) and
keeps the rarely changing ones (scores, seat flags, melds) in one vector until they
change.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from cardenv.core.cards import double_deck_with_jokers
from cardenv.core.melds import JOKER, NUM_MELD_TYPES, NUM_POSITIONS, candidate_melds, near_meld
from cardenv.core.observation import ObservationLayout
from cardenv.engine.observation import Observer, load_encoders
from cardenv.games.carte.rules import DECK_SIZE, MAX_MELDS, CarteConfig, CarteState, Phase

NUM_RANKS = 13
NUM_SUITS = 4
TYPE_LIST = "per card type (AS, AH, AD, AC, 2S, … KC, JK)"
NOBODY = 255  # a fact's seat or card when there is none: encoder.NOBODY (loaded with numba, later)
GLOBAL_STATE_NAMES = {"hand": "hands", "known_cards": "known_to_all", "window_decided": None}
"""The global state's names of the observation's pieces it shows otherwise (None: the
compiled call writes no such piece; the observer writes the deciders itself)."""

encoder = None  # cardenv.games.carte.encoder (and numba), once a carte observer is built


def load_encoder() -> None:
    """Import carte's compiled encoder (and numba) when the first observer is built, not
    when cardenv is imported."""
    global encoder
    load_encoders()  # the compiled helpers every observer uses (Observer.compiled_call)
    if encoder is None:
        from cardenv.games.carte import encoder as module

        encoder = module

COPIES_PER_TYPE = np.bincount(np.minimum(double_deck_with_jokers(), JOKER), minlength=NUM_MELD_TYPES).astype(
    np.float32)  # the whole deck's, whatever part of it a game plays with
"""Per meld type, its copies in the deck: what the card-type pieces divide counts by."""
MELD_HINT_SIZE = 2 * NUM_MELD_TYPES + 1
"""Entries of the ``meld_hints`` pieces: hand_in_meld, hand_near_meld, pile_top_in_meld."""


def write_meld_hints(hand: list[int], top: int | None, hints: np.ndarray) -> None:
    """The ``meld_hints`` pieces, in order, into the zeroed ``hints`` (at least
    ``MELD_HINT_SIZE`` entries): from ``hand`` (counts per meld type) and the pile's top
    card's meld type (None for an empty pile)."""
    for meld in candidate_melds(hand):
        for t in meld:
            hints[t] = 1.0
    for t, count in enumerate(hand):
        if count and near_meld(hand, t):
            hints[NUM_MELD_TYPES + t] = 1.0
    if top is not None:
        with_top = hand.copy()
        with_top[top] += 1
        if any(top in meld for meld in candidate_melds(with_top)):
            hints[2 * NUM_MELD_TYPES] = 1.0


def meld_hints_of(layout: ObservationLayout, vector: np.ndarray) -> np.ndarray:
    """The ``meld_hints`` pieces worked out from an observation of ``layout`` (with or
    without them): its ``hand`` and ``top_of_pile`` are all they read. A policy trained
    with ``meld_hints=True`` plays an env without them by appending these."""
    hand = [int(c) for c in np.rint(layout.view(vector, "hand") * COPIES_PER_TYPE)]
    top_piece = layout.view(vector, "top_of_pile")
    hints = np.zeros(MELD_HINT_SIZE, dtype=np.float32)
    write_meld_hints(hand, int(np.argmax(top_piece)) if top_piece.any() else None, hints)
    return hints


class CarteObserver(Observer):
    """Writes observations into a reused buffer; copies drop the buffer and the kept
    table facts and rebuild them (see :class:`~cardenv.engine.observation.Observer`)."""

    scratch = ("_buffer", "_table_facts", "_write_observation")
    derived_pieces = MappingProxyType({"meld_hints": meld_hints_of})
    phases = Phase
    state_class = CarteState
    deck = double_deck_with_jokers()

    def __init__(self, config: CarteConfig):
        load_encoder()
        self.config = config
        self.copies = COPIES_PER_TYPE
        self.shown_event_kinds = tuple(k for k in CarteState.event_kinds if k not in CarteState.implied_event_kinds)
        self.kind_index = {kind: i for i, kind in enumerate(self.shown_event_kinds)}  # event_kind's columns
        self.layout = self._build_layout(omniscient=False)
        self.state_layout = self._build_layout(omniscient=True)
        self.size = self.layout.size
        if encoder.NOBODY != NOBODY:
            raise AssertionError("state_facts and write_carte_observation must agree on NOBODY")
        for layout in (self.layout, self.state_layout):  # as write_carte_piles reads them: one after another
            pieces = layout.pieces
            names = ["top_of_pile", "pile_counts", "pile_order", "stock_order", "stock_size", "pile_size",
                     "turned_over"]
            if any(pieces[a].stop != pieces[b].start for a, b in zip(names, names[1:])):
                raise AssertionError(f"the pile pieces must lie one after another: {names}")
        event_pieces = ["event_new", "events_dropped"]  # as write_carte_events reads them
        if self.layout.pieces["event_new"].stop != self.layout.pieces["events_dropped"].start:
            raise AssertionError(f"the event pieces must lie one after another: {event_pieces}")
        # The packed tables of write_carte_observation per observer, and the global state's.
        self._tables = [self._pack_tables(self.layout, seat) for seat in range(config.num_players)]
        self._state_tables = self._pack_tables(self.state_layout, -1)
        self._make_buffers()

    def _pack_tables(self, layout: ObservationLayout, observer: int) -> np.ndarray:
        """``write_carte_observation``'s tables for ``observer`` (-1: the global state),
        each by its name in ``encoder.Table``."""
        config = self.config
        omniscient = observer < 0
        settings = encoder.in_order(
            encoder.Setting, observer_seat=observer, num_seats=config.num_players, deck_cards=DECK_SIZE,
            max_turns=config.max_turns_per_round, starting_score=config.starting_score,
            only_new=config.memory == "none", ranks=NUM_RANKS, suits=NUM_SUITS, positions=NUM_POSITIONS,
            event_rows=0 if omniscient else config.recent_events, shown_kinds=len(self.shown_event_kinds),
            melds=MAX_MELDS)
        # Per event kind of the engine: its column of event_kind (-1: implied, not shown),
        # and whether it marks a meld (its first place's slot).
        event_columns = [self.kind_index.get(kind, -1) for kind in CarteState.event_kinds]
        marks_meld = [kind in ("put down", "add") for kind in CarteState.event_kinds]
        return encoder.pack_tables(encoder.in_order(
            encoder.Table, settings=settings, starts=self._piece_starts(layout, omniscient),
            copies=self.copies.astype(np.int64), event_columns=event_columns, marks_meld=marks_meld))

    @staticmethod
    def _piece_starts(layout: ObservationLayout, omniscient: bool) -> list[int]:
        """Where each piece of ``encoder.Piece`` starts in ``layout``, by its name there
        (the global state's names for the observation's few it calls otherwise; -1 for
        a piece the global state has not, or whose entries the observer writes itself)."""
        pieces = layout.pieces
        starts = []
        for piece in encoder.Piece:
            name = piece.name.lower()
            if omniscient:
                name = GLOBAL_STATE_NAMES.get(name, name)
            elif name not in pieces:
                raise AssertionError(f"the observation has no piece {name!r}, which write_carte_observation writes")
            starts.append(pieces[name].start if name in pieces else -1)
        return starts

    def _make_buffers(self) -> None:
        self._buffer = self.new_buffer()
        self._table_facts = (None,) * 7  # see _table_facts_of
        self._write_observation = self.compiled_call("_write_observation",
                                                     encoder.write_carte_observation)

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
            if config.meld_hints:
                self._add_meld_hint_pieces(layout)
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

    @staticmethod
    def _add_meld_hint_pieces(layout: ObservationLayout) -> None:
        """``meld_hints=True``: what the observer's hand and the pile's top card make,
        spelled out (a network would otherwise have to find the sets and runs in 53
        counts). Derived from the observation's own ``hand`` and ``top_of_pile`` alone."""
        layout.add("hand_in_meld", NUM_MELD_TYPES,
                   f"{TYPE_LIST}: 1 if the observer holds a card of it that belongs to a meld the hand could "
                   "put down now (a set of three or four of a rank, jokers filling up to three; a run of three "
                   "or more of a suit, one joker filling a gap or an end)")
        layout.add("hand_near_meld", NUM_MELD_TYPES,
                   f"{TYPE_LIST}: 1 if the observer holds a card of it that is half of a pair of its rank, or "
                   "within two positions of another card of its suit in hand (a meld in the making); JK: 1 when "
                   "held")
        layout.add("pile_top_in_meld", 1,
                   "1 if the pile's top card would belong to a meld the hand could put down once it took it")

    # --- filling -----------------------------------------------------------------------
    # An observation is one compiled call (write_carte_observation), which zeroes the
    # buffer and writes every piece. Its fixed per-call cost (numba converts each
    # argument, Python gathers them) is most of the time, so what it reads comes in few
    # arguments: the state's facts in one bytearray (state_facts), the seats' scores and
    # flags and the melds in one int64 vector kept until they change (_table_facts_of),
    # and the arrays the state holds already (knowledge table, card types, selection,
    # event records).
    def write(self, state: CarteState, observer: int, out: np.ndarray | None = None,
              recent_events: bool = True) -> np.ndarray:
        """See :meth:`~cardenv.engine.observation.Observer.observe`. The recent events are
        always written (``recent_events`` is accepted for the runners that pass it):
        they cost little here."""
        if out is None:
            buffer = self._buffer
        else:  # checked once: the compiled call takes every buffer as it took the first
            buffer = out
            if self._accepted_outs.get(id(out)) is not out:
                self.checked_call(observer, out)
        table = state.table
        knowledge = table.knowledge
        window = state.window
        self._write_observation(
            buffer, self._tables[observer],
            state_facts(state, 1 if window is not None and window.has_decided(observer) else 0,
                        state.turnovers > 0),
            state.turns_completed, state.selection, table.card_types, knowledge.known, knowledge.learned_at,
            knowledge.decided_at, self._table_facts_of(state), state.event_records)
        if self.config.meld_hints:
            self._write_meld_hints(buffer, state, observer)
        return buffer.copy() if out is None else out

    def _write_meld_hints(self, buffer: np.ndarray, state: CarteState, observer: int) -> None:
        """The ``meld_hints`` pieces (after the compiled call, which zeroed them)."""
        pile = state.table.discard_pile
        write_meld_hints(state.hand_type_counts[observer], state.card_meld_types[pile[-1]] if pile else None,
                         buffer[self.layout.pieces["hand_in_meld"].start:])

    def encode_state(self, state: CarteState, out: np.ndarray | None = None) -> np.ndarray:
        """The omniscient global state (``env.state()``), seats absolute."""
        size = self.state_layout.size
        vector = np.zeros(size, dtype=np.float32) if out is None else self.checked_out(out, size)
        table = state.table
        knowledge = table.knowledge
        encoder.write_carte_observation(
            vector, self._state_tables, state_facts(state, 0, True), state.turns_completed, state.selection,
            table.card_types, knowledge.known, knowledge.learned_at, knowledge.decided_at,
            self._table_facts_of(state), state.event_records)
        window = state.window
        if window is not None:  # who decided, and to catch: hidden from the players, shown here
            decided_at, catches_at = self.state_layout.pieces["window_decided"].start, \
                self.state_layout.pieces["window_catches"].start
            for decider, decision in zip(window.players, window.decisions):
                vector[decided_at + decider] = 1
                if decision is not None:
                    vector[catches_at + decider] = 1
        return vector

    def _table_facts_of(self, state: CarteState) -> np.ndarray:
        """The seats' scores and flags (out of the game, started, said carte) and the
        melds of ``state`` as ``write_carte_melds`` reads them (owners absolute, so every
        seat's observation shares them), kept while what they were made from is the
        same: the seats' lists equal to copies kept of them, and the state's
        ``melds_version`` token and ``card_meld_types`` list the very objects (a put-down,
        an add, a new round or ``mark_changed`` gives a new token, a sampled world its
        own types; a clone shares both, and its melds). Today a seat goes out only with a
        new score and starts only with a put-down, and a sampled world's melds have the
        real types; those lists and the types are compared all the same, for a few tens
        of nanoseconds, so that no change to the engine can leave a stale vector."""
        version, types, scores, eliminated, started, said_carte, vector = self._table_facts
        if (version is not state.melds_version or types is not state.card_meld_types or scores != state.scores
                or eliminated != state.eliminated or started != state.started or said_carte != state.said_carte):
            vector = self._make_table_facts(state)
        return vector

    def _make_table_facts(self, state: CarteState) -> np.ndarray:
        """``_table_facts_of``'s vector, made afresh and kept."""
        types = state.card_meld_types
        facts = [*state.scores, *state.eliminated, *state.started, *state.said_carte, len(state.melds)]
        for meld, cards in zip(state.melds, state.table.melds):
            facts += (meld.owner, meld.is_run, meld.key, len(cards))
            for k, card in enumerate(cards):
                facts += (types[card], meld.positions[k] if meld.is_run else -1)
        accepted = sorted(state.accepted_types_now())
        facts += (len(accepted), *accepted)
        vector = np.array(facts, dtype=np.int64)
        self._table_facts = (state.melds_version, types, list(state.scores), list(state.eliminated),
                             list(state.started), list(state.said_carte), vector)
        return vector


def state_facts(state: CarteState, decided: int, shows_stock: bool) -> bytearray:
    """The facts of ``state`` that ``write_carte_observation`` reads per call, in the
    order of ``encoder.Fact``: phase, the player to act, whose go it is, the card
    taken from the pile this go, the catch window's offender (``NOBODY`` for none),
    whether (1) or not (0) the observer ``decided`` in the window, whether the pile was
    turned over, the stock's size; the pile; every hand; the stock's cards where it
    ``shows_stock``. Every entry a Python int, not a bool or an IntEnum: ``bytearray``
    converts a list of ints alone about twice as fast."""
    table = state.table
    pile, stock = table.discard_pile, table.draw_pile
    current, pile_card, window = state.current_player, state.pile_card, state.window
    facts = [state.phase._value_, NOBODY if current is None else current, state.turn_player,
             NOBODY if pile_card is None else pile_card, NOBODY if window is None else state.offender, decided,
             1 if state.turnovers else 0, len(stock), len(pile), *pile]
    for hand in table.hands:
        facts.append(len(hand))
        facts += hand
    if shows_stock:
        facts.append(len(stock))
        facts += stock
    else:
        facts.append(0)
    return bytearray(facts)


def build_layout(config: CarteConfig) -> ObservationLayout:
    return CarteObserver(config).layout

