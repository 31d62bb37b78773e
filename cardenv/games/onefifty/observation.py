"""What one player may know of a 150 game, as a flat float32 vector.

Seats are relative: row 0 is the observer, row k the player k seats clockwise. The
pieces are declared once in :func:`build_layout`; docs/onefifty.md's table is generated
from it.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_STANDARD_RANKS, NUM_STANDARD_TYPES, RANK_OF, copies_per_type, standard_deck
from cardenv.core.observation import ObservationLayout
from cardenv.core.table import EMPTY
from cardenv.games.onefifty.rules import POINTS, OneFiftyConfig, OneFiftyState, Phase

MAX_CARD_POINTS = 20
_COPIES = copies_per_type(standard_deck())[:NUM_STANDARD_TYPES]


def build_layout(config: OneFiftyConfig) -> ObservationLayout:
    n, s = config.num_players, config.max_hand_slots
    max_score = config.target_score + 2 * MAX_CARD_POINTS * s
    layout = ObservationLayout()
    layout.add("slot_present", (n, s), "seat × slot: 1 if the slot holds a card")
    layout.add("slot_known", (n, s), "seat × slot: 1 if the observation shows the card's identity")
    layout.add("slot_rank", (n, s, NUM_STANDARD_RANKS), "seat × slot × rank (A…K): one-hot when shown")
    layout.add("slot_points", (n, s), "seat × slot: the card's points / 20 when shown (O-02)")
    layout.add("slot_known_by", (n, s, n), "seat × slot × seat: 1 if that player knows this card (public)")
    layout.add("match_selected", s, "own slots selected for the match being built (O-07)")
    layout.add("jack_own_slot", s, "own slot chosen for the Jack trade (O-11)")
    layout.add("top_discard_present", 1, "1 if the discard pile is not empty")
    layout.add("top_discard_rank", NUM_STANDARD_RANKS, "rank of the top discard, one-hot")
    layout.add("top_discard_points", 1, "points of the top discard / 20")
    layout.add("drawn_card_present", 1, "1 if the current player holds a drawn card (O-08)")
    layout.add("drawn_card_rank", NUM_STANDARD_RANKS, "its rank, one-hot (only for the player holding it)")
    layout.add("drawn_card_points", 1, "its points / 20 (only for the player holding it)")
    layout.add("phase", len(Phase), "phase one-hot: " + ", ".join(ph.name.lower() for ph in Phase))
    layout.add("current_player", n, "seat whose decision it is, one-hot")
    layout.add("caller", n, "seat that called END, one-hot (all 0 if no call) (O-15)")
    layout.add("final_turns_left", 1, "final turns still to play after END / (players − 1)")
    layout.add("turns_in_round", 1, "turns completed this round / max_turns_per_round (O-18)")
    layout.add("draw_pile_size", 1, "cards in the draw pile / 52")
    layout.add("discard_pile_size", 1, "cards in the discard pile / 52")
    layout.add("scores", n, "cumulative score per seat / target_score (O-22)", high=max_score / config.target_score)
    layout.add("accounted", NUM_STANDARD_TYPES,
               "per card type (AS, AH, AD, AC, 2S, … KC): copies the observer can account for / copies in the deck")
    return layout


class OneFiftyObserver:
    """Writes observations for one game configuration into preallocated buffers."""

    def __init__(self, config: OneFiftyConfig):
        self.config = config
        self.layout = build_layout(config)
        self.size = self.layout.size
        self._slots = np.full((config.num_players, config.max_hand_slots), EMPTY, dtype=np.int64)
        # Written through views made once: slicing a fresh view per piece per call costs
        # more than building the observation itself.
        self._buffer = self.new_buffer()
        self._views = self.layout.views(self._buffer)

    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def observe(self, state: OneFiftyState, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``observer``'s view of ``state`` into ``out`` (or a new array) and return it."""
        self._fill(state, observer)
        if out is None:
            return self._buffer.copy()
        out[:] = self._buffer
        return out

    def _fill(self, state: OneFiftyState, observer: int) -> None:
        out = self._buffer
        out[:] = 0
        v = self._views
        config = self.config
        n = config.num_players
        table = state.table
        knowledge = table.knowledge
        types = table.card_types
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
        slot_types = types[cards]

        v["slot_present"][:] = present
        v["slot_known"][:] = shown
        rows, cols = np.nonzero(shown)
        shown_types = slot_types[rows, cols]
        v["slot_rank"][rows, cols, RANK_OF[shown_types]] = 1
        v["slot_points"][rows, cols] = POINTS[shown_types] / MAX_CARD_POINTS
        known_by = knowledge.known[seats][:, cards]  # knower × seat × slot
        v["slot_known_by"][:] = known_by.transpose(1, 2, 0) & present[:, :, None]

        me = state.current_player
        if me == observer:
            for s in state.selected:
                v["match_selected"][s] = 1
            if state.jack_slot >= 0:
                v["jack_own_slot"][state.jack_slot] = 1

        accounted = shown_cards.copy()
        top = table.top_discard
        if top is not None:
            top_type = types[top]
            v["top_discard_present"][0] = 1
            v["top_discard_rank"][RANK_OF[top_type]] = 1
            v["top_discard_points"][0] = POINTS[top_type] / MAX_CARD_POINTS
            accounted[top] = True
        if me is not None and table.held[me]:
            v["drawn_card_present"][0] = 1
            if me == observer:
                held_type = types[table.held[me][-1]]
                v["drawn_card_rank"][RANK_OF[held_type]] = 1
                v["drawn_card_points"][0] = POINTS[held_type] / MAX_CARD_POINTS

        v["phase"][int(state.phase)] = 1
        if me is not None:
            v["current_player"][(me - observer) % n] = 1
        if state.caller is not None:
            v["caller"][(state.caller - observer) % n] = 1
            v["final_turns_left"][0] = state.final_turns_left / (n - 1)
        v["turns_in_round"][0] = state.turns_completed / config.max_turns_per_round
        v["draw_pile_size"][0] = len(table.draw_pile) / NUM_STANDARD_TYPES
        v["discard_pile_size"][0] = len(table.discard_pile) / NUM_STANDARD_TYPES
        v["scores"][:] = [state.scores[p] / config.target_score for p in seats]
        v["accounted"][:] = np.bincount(types[accounted], minlength=NUM_STANDARD_TYPES) / _COPIES
