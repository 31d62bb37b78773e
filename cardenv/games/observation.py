"""The observation pieces every slot-and-pile ruleset shares, written once.

:class:`TableObserver` declares and fills what all these games show a player: every
seat's slots (present, identity when the observer may know it, who knows it), the top
discard, the drawn card, phase, whose decision it is, the call in progress, turns, pile
sizes, scores and card counting. A ruleset subclasses it, names its points table, phases
and deck, and adds its own pieces in ``_add_ruleset_pieces`` / ``_fill_ruleset_pieces``.

Seats are relative: row 0 is the observer, row k the player k seats clockwise.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from cardenv.core.cards import RANK_OF, copies_per_type
from cardenv.core.observation import ObservationLayout
from cardenv.core.table import EMPTY
from cardenv.games.base import CardGameState


class TableObserver:
    """Writes one configuration's observations through views made once (slicing fresh
    views per piece per call would cost more than building the observation)."""

    points: np.ndarray  # points per card type
    phases: type[IntEnum]
    deck: np.ndarray  # card types of the ruleset's deck
    call_name: str  # what the rules call ending a round ("END", "Cut!")

    def __init__(self, config):
        self.config = config
        self.num_types = int(self.deck.max()) + 1
        self.num_ranks = int(RANK_OF[self.num_types - 1]) + 1
        self.copies = copies_per_type(self.deck)[: self.num_types]
        self.max_card_points = int(self.points[: self.num_types].max())
        self.layout = self._build_layout()
        self.size = self.layout.size
        self._slots = np.full((config.num_players, config.max_hand_slots), EMPTY, dtype=np.int64)
        self._buffer = self.new_buffer()
        self._views = self.layout.views(self._buffer)

    def max_round_points(self) -> int:
        """The most one player can add in a round (bounds the ``scores`` piece)."""
        return self.max_card_points * self.config.max_hand_slots

    # --- the layout --------------------------------------------------------------------
    def _build_layout(self) -> ObservationLayout:
        config = self.config
        n, s, ranks, top = config.num_players, config.max_hand_slots, self.num_ranks, self.max_card_points
        layout = ObservationLayout()
        layout.add("slot_present", (n, s), "seat × slot: 1 if the slot holds a card")
        layout.add("slot_known", (n, s), "seat × slot: 1 if the observation shows the card's identity")
        layout.add("slot_rank", (n, s, ranks), "seat × slot × rank (A…K): one-hot when shown")
        layout.add("slot_points", (n, s), f"seat × slot: the card's points / {top} when shown")
        layout.add("slot_known_by", (n, s, n), "seat × slot × seat: 1 if that player knows this card (public)")
        layout.add("top_discard_present", 1, "1 if the discard pile is not empty")
        layout.add("top_discard_rank", ranks, "rank of the top discard, one-hot")
        layout.add("top_discard_points", 1, f"points of the top discard / {top}")
        layout.add("drawn_card_present", 1, "1 if the player to act holds a drawn card")
        layout.add("drawn_card_rank", ranks, "its rank, one-hot (only for the player holding it)")
        layout.add("drawn_card_points", 1, f"its points / {top} (only for the player holding it)")
        layout.add("phase", len(self.phases), "phase one-hot: " + ", ".join(ph.name.lower() for ph in self.phases))
        layout.add("current_player", n, "seat whose decision it is, one-hot")
        self._add_ruleset_pieces(layout)
        layout.add("caller", n, f"seat that called {self.call_name}, one-hot (all 0 if no call)")
        layout.add("final_turns_left", 1, f"final turns still to play after {self.call_name} / (players − 1)")
        layout.add("turns_in_round", 1, "turns completed this round / max_turns_per_round")
        layout.add("draw_pile_size", 1, f"cards in the draw pile / {len(self.deck)}")
        layout.add("discard_pile_size", 1, f"cards in the discard pile / {len(self.deck)}")
        max_score = (config.target_score + self.max_round_points()) / config.target_score
        layout.add("scores", n, "cumulative score per seat / target_score", high=max_score)
        layout.add("accounted", self.num_types,
                   "per card type (AS, AH, AD, AC, 2S, … KC): copies the observer can account for / copies in the deck")
        return layout

    def _add_ruleset_pieces(self, layout: ObservationLayout) -> None:
        """Pieces of the ruleset's own, placed after ``current_player``."""

    def _fill_ruleset_pieces(self, state: CardGameState, observer: int, views: dict[str, np.ndarray]) -> None:
        """Write the ruleset's own pieces (the buffer is zeroed before)."""

    # --- filling --------------------------------------------------------------------------
    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

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
        if state.caller is not None:
            v["caller"][(state.caller - observer) % n] = 1
            v["final_turns_left"][0] = state.final_turns_left / (n - 1)
        v["turns_in_round"][0] = state.turns_completed / config.max_turns_per_round
        v["draw_pile_size"][0] = len(table.draw_pile) / len(self.deck)
        v["discard_pile_size"][0] = len(table.discard_pile) / len(self.deck)
        v["scores"][:] = [state.scores[p] / config.target_score for p in seats]
        v["accounted"][:] = np.bincount(types[accounted], minlength=self.num_types) / self.copies
