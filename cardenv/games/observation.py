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

from bisect import bisect_left
from enum import IntEnum
from operator import attrgetter

import numpy as np

from cardenv.core.cards import NUM_STANDARD_TYPES, NUM_SUITS, RANK_OF, SUIT_NAMES, copies_per_type
from cardenv.core.observation import ObservationLayout
from cardenv.core.table import EMPTY
from cardenv.games.base import CardGameState


_event_clock = attrgetter("clock")

DRAW_PILE_LOOKAHEAD = 4
"""How many of the next draw-pile cards the global state shows, in order."""


class Observer:
    """What every observer shares, whatever its game's cards lie in: a buffer of
    ``size`` float32 entries reused between calls, and scratch attributes (buffers, views
    into them, caches) that a copy (deepcopy, pickle) must not carry — a copied view
    would be detached from the copied buffer — so copies drop the ``scratch`` attributes
    and rebuild them with ``_make_buffers()``."""

    size: int
    scratch: tuple[str, ...] = ()

    def _make_buffers(self) -> None:
        raise NotImplementedError

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in self.scratch:
            del state[name]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_buffers()

    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def seat_row(self, seat: int, observer: int | None) -> int:
        """Row of ``seat`` on a seat axis: relative to ``observer``, absolute for None."""
        return seat if observer is None else (seat - observer) % self.config.num_players


class TableObserver(Observer):
    """Writes one configuration's observations through views made once (slicing fresh
    views per piece per call would cost more than building the observation).

    The views point into the observer's own buffer, so a copy (deepcopy, pickle) must
    not carry them: a copied view would be detached from the copied buffer. Copies drop
    the buffers and rebuild them (``__getstate__`` / ``__setstate__``).
    """

    scratch = ("_slots", "_buffer", "_views")
    points: np.ndarray  # points per card type
    phases: type[IntEnum]
    state_class: type[CardGameState]  # the ruleset's engine (its event kinds)
    deck: np.ndarray  # card types of the ruleset's deck
    call_name: str  # what the rules call ending a round ("END", "Cut!")

    def __init__(self, config):
        self.config = config
        self.num_types = int(self.deck.max()) + 1
        self.num_ranks = int(RANK_OF[self.num_types - 1]) + 1
        self.copies = copies_per_type(self.deck)[: self.num_types]
        self.max_card_points = int(self.points[: self.num_types].max())
        implied = self.state_class.implied_event_kinds
        self.shown_event_kinds = tuple(k for k in self.state_class.event_kinds if k not in implied)
        self.kind_index = {kind: i for i, kind in enumerate(self.shown_event_kinds)}
        # Per card type, what one face-up card adds to its event's rank and suit entries.
        types = np.arange(self.num_types)
        rank_copies = np.bincount(RANK_OF[types], weights=self.copies, minlength=self.num_ranks)
        is_standard = types < NUM_STANDARD_TYPES
        suit_copies = np.bincount(types[is_standard] & 3, weights=self.copies[is_standard], minlength=NUM_SUITS)
        self._rank_weight = (1.0 / rank_copies[RANK_OF[types]]).astype(np.float32)
        self._suit_weight = np.where(is_standard, 1.0 / suit_copies[types & 3], 0.0).astype(np.float32)
        self.layout = self._build_layout()
        self.state_layout = self._build_state_layout()
        self.size = self.layout.size
        pieces = self.layout.pieces
        self._event_starts = tuple(pieces[name].start for name in (
            "event_kind", "event_actor", "event_places", "event_face_up_rank", "event_face_up_suit"))
        self._make_buffers()

    def _make_buffers(self) -> None:
        config = self.config
        self._slots = np.full((config.num_players, config.max_hand_slots), EMPTY, dtype=np.int64)
        self._buffer = self.new_buffer()
        self._views = self.layout.views(self._buffer)

    def max_round_points(self) -> int:
        """The most one player can add in a round (bounds the ``scores`` piece)."""
        return self.max_card_points * self.config.max_hand_slots

    def max_score(self) -> float:
        """Upper bound of a ``scores`` entry: a total below the target plus one round."""
        return (self.config.target_score + self.max_round_points()) / self.config.target_score

    # --- the layouts -------------------------------------------------------------------
    def _build_layout(self) -> ObservationLayout:
        config = self.config
        n, s, ranks, top = config.num_players, config.max_hand_slots, self.num_ranks, self.max_card_points
        layout = ObservationLayout()
        layout.add("slot_present", (n, s), "seat × slot: 1 if the slot holds a card")
        layout.add("slot_known", (n, s), "seat × slot: 1 if the observation shows the card's identity")
        layout.add("slot_rank", (n, s, ranks), "seat × slot × rank (A…K): one-hot when shown")
        layout.add("slot_points", (n, s), f"seat × slot: the card's points / {top} when shown")
        layout.add("slot_known_by", (n, s, n),
                   "seat × slot × knower: 1 if that player knows this card (public); the knower axis is "
                   "seat-relative too (0 = the observer)")
        layout.add("top_discard_present", 1, "1 if the discard pile is not empty")
        layout.add("top_discard_rank", ranks, "rank of the top discard, one-hot")
        layout.add("top_discard_points", 1, f"points of the top discard / {top}")
        layout.add("drawn_card_present", 1, "1 if the player to act holds a drawn card")
        layout.add("drawn_card_rank", ranks, "its rank, one-hot (only for the player holding it)")
        layout.add("drawn_card_points", 1, f"its points / {top} (only for the player holding it)")
        layout.add("phase", len(self.phases), "phase one-hot: " + ", ".join(ph.name.lower() for ph in self.phases))
        layout.add("current_player", n, "seat whose decision it is, one-hot")
        self._add_ruleset_pieces(layout, omniscient=False)
        self._add_turn_pieces(layout)
        layout.add("accounted", self.num_types,
                   "per card type (AS, AH, AD, AC, 2S, … KC): copies the observer can account for / copies in the deck")
        self._add_event_pieces(layout)
        return layout

    def _add_turn_pieces(self, layout: ObservationLayout) -> None:
        n = self.config.num_players
        layout.add("caller", n, f"seat that called {self.call_name}, one-hot (all 0 if no call)")
        layout.add("final_turns_left", 1, f"final turns still to play after {self.call_name} / (players − 1)")
        layout.add("turns_in_round", 1, "turns completed this round / max_turns_per_round")
        layout.add("draw_pile_size", 1, f"cards in the draw pile / {len(self.deck)}")
        layout.add("discard_pile_size", 1, f"cards in the discard pile / {len(self.deck)}")
        layout.add("scores", n, "cumulative score per seat / target_score", high=self.max_score())

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

    def _fill_ruleset_pieces(self, state: CardGameState, observer: int | None, views: dict[str, np.ndarray]) -> None:
        """Write the ruleset's own pieces (the buffer is zeroed before); ``observer`` is
        None for the global state. ``self.seat_row(seat, observer)`` gives the row."""

    # --- observations ---------------------------------------------------------------------
    def observe(self, state: CardGameState, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``observer``'s view of ``state`` into ``out`` (or a new array) and return it."""
        self._fill(state, observer)
        if out is None:
            return self._buffer.copy()
        out[:] = self._buffer
        return out

    def _fill(self, state: CardGameState, observer: int) -> None:
        self._buffer[:] = 0
        v = self._views
        config = self.config
        n = config.num_players
        table = state.table
        knowledge = table.knowledge
        types = table.card_types
        points = self.points
        top_points = self.max_card_points
        seats = [(observer + r) % n for r in range(n)]

        slots = self._slots
        slots[:] = EMPTY
        for r, p in enumerate(seats):
            hand = table.hands[p]
            slots[r, : len(hand)] = hand
        present = slots != EMPTY
        cards = np.where(present, slots, 0)
        shown_cards = knowledge.shown_to(observer, config.memory)
        shown = shown_cards[cards] & present

        v["slot_present"][:] = present
        v["slot_known"][:] = shown
        rows, cols = np.nonzero(shown)
        shown_types = types[cards[rows, cols]]
        v["slot_rank"][rows, cols, RANK_OF[shown_types]] = 1
        v["slot_points"][rows, cols] = points[shown_types] / top_points
        known_by = knowledge.known[seats][:, cards]  # knower × seat × slot
        v["slot_known_by"][:] = known_by.transpose(1, 2, 0) & present[:, :, None]

        accounted = shown_cards.copy()
        top = table.top_discard
        if top is not None:
            top_type = types[top]
            v["top_discard_present"][0] = 1
            v["top_discard_rank"][RANK_OF[top_type]] = 1
            v["top_discard_points"][0] = points[top_type] / top_points
            accounted[top] = True
        me = state.current_player
        if me is not None and table.held[me]:
            v["drawn_card_present"][0] = 1
            if me == observer:
                held_type = types[table.held[me][-1]]
                v["drawn_card_rank"][RANK_OF[held_type]] = 1
                v["drawn_card_points"][0] = points[held_type] / top_points

        v["phase"][int(state.phase)] = 1
        if me is not None:
            v["current_player"][(me - observer) % n] = 1
        self._fill_ruleset_pieces(state, observer, v)
        self._fill_turn_pieces(state, observer, v)
        v["accounted"][:] = np.bincount(types[accounted], minlength=self.num_types) / self.copies
        self._fill_events(state, observer, v)

    def _fill_turn_pieces(self, state: CardGameState, observer: int | None, v: dict[str, np.ndarray]) -> None:
        config, table = self.config, state.table
        n = config.num_players
        if state.caller is not None:
            v["caller"][self.seat_row(state.caller, observer)] = 1
            v["final_turns_left"][0] = state.final_turns_left / (n - 1)
        v["turns_in_round"][0] = state.turns_completed / config.max_turns_per_round
        v["draw_pile_size"][0] = len(table.draw_pile) / len(self.deck)
        v["discard_pile_size"][0] = len(table.discard_pile) / len(self.deck)
        seats = range(n) if observer is None else [(observer + r) % n for r in range(n)]
        v["scores"][:] = [state.scores[p] / config.target_score for p in seats]

    def _fill_events(self, state: CardGameState, observer: int, v: dict[str, np.ndarray]) -> None:
        """The most recent public events into the ``event_*`` rows, newest first. Only
        what everyone saw goes in: kinds, actors, places, and cards shown face up; the
        kinds the rules imply (``implied_event_kinds``) are left out.

        Written as flat indices into the buffer: one fancy write for every 1 and one
        accumulation for the face-up counts (per-event slicing costs more than this)."""
        config = self.config
        capacity, n, num_slots = config.recent_events, config.num_players, config.max_hand_slots
        events = state.events
        # Events are in clock order: the new ones are a suffix.
        first_new = bisect_left(events, state.table.knowledge.decided_at[observer], key=_event_clock)
        oldest = first_new if config.memory == "none" else 0  # older events are the agent's to remember
        kind_at, actor_at, places_at, rank_at, suit_at = self._event_starts
        num_kinds, kind_index, num_ranks = len(self.shown_event_kinds), self.kind_index, self.num_ranks
        ones, face_up, ranks, suits = [], [], [], []
        row = new = 0
        for index in range(len(events) - 1, oldest - 1, -1):
            event = events[index]
            kind = kind_index.get(event.kind)
            if kind is None:
                continue
            if index >= first_new:
                new += 1  # counted even when it does not fit
            elif row == capacity:
                break
            if row == capacity:
                continue
            ones.append(kind_at + row * num_kinds + kind)
            if event.player >= 0:
                ones.append(actor_at + row * n + (event.player - observer) % n)
            for seat, slot in event.places:
                ones.append(places_at + (row * n + (seat - observer) % n) * num_slots + slot)
            for card_type in event.face_up_types:
                face_up.append(card_type)
                ranks.append(rank_at + row * num_ranks + (card_type >> 2))
                suits.append(suit_at + row * NUM_SUITS + (card_type & 3))
            row += 1
        buffer = self._buffer
        buffer[ones] = 1
        if face_up:
            # Counts: one event may show several cards of a rank or a suit. A joker's
            # suit entry gets weight 0 (it has none).
            np.add.at(buffer, ranks, self._rank_weight[face_up])
            np.add.at(buffer, suits, self._suit_weight[face_up])
        v["event_new"][: min(new, capacity)] = 1
        v["events_dropped"][0] = new > capacity

    # --- the global state -----------------------------------------------------------------
    def encode_state(self, state: CardGameState, out: np.ndarray | None = None) -> np.ndarray:
        """The omniscient global state of ``state`` (``env.state()``), seats absolute."""
        layout = self.state_layout
        vector = np.zeros(layout.size, dtype=np.float32) if out is None else out
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
        self._fill_ruleset_pieces(state, None, v)
        self._fill_turn_pieces(state, None, v)
        return vector
