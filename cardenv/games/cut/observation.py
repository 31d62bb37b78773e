"""What one player may know of a Cut! game, as a flat float32 vector.

Seats are relative: row 0 is the observer, row k the player k seats clockwise. The
pieces are declared once in :func:`build_layout`; docs/cut.md's table is generated
from it. Of a match window the observation says only that it is open, on which rank,
and whether the observer has decided: never what anyone else decided.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_STANDARD_RANKS, NUM_STANDARD_TYPES, RANK_OF, copies_per_type, standard_deck
from cardenv.core.observation import ObservationLayout
from cardenv.core.table import EMPTY
from cardenv.games.cut.rules import CALLER_PENALTY, POINTS, CutConfig, CutState, Phase

MAX_CARD_POINTS = 20
_COPIES = copies_per_type(standard_deck())[:NUM_STANDARD_TYPES]


def build_layout(config: CutConfig) -> ObservationLayout:
    n, s = config.num_players, config.max_hand_slots
    # A total just under the target plus the worst possible round.
    max_score = config.target_score + MAX_CARD_POINTS * s + CALLER_PENALTY
    layout = ObservationLayout()
    layout.add("slot_present", (n, s), "seat × slot: 1 if the slot holds a card")
    layout.add("slot_known", (n, s), "seat × slot: 1 if the observation shows the card's identity")
    layout.add("slot_rank", (n, s, NUM_STANDARD_RANKS), "seat × slot × rank (A…K): one-hot when shown")
    layout.add("slot_points", (n, s), "seat × slot: the card's points / 20 when shown (C-02)")
    layout.add("slot_known_by", (n, s, n), "seat × slot × seat: 1 if that player knows this card (public, C-11)")
    layout.add("top_discard_present", 1, "1 if the discard pile is not empty")
    layout.add("top_discard_rank", NUM_STANDARD_RANKS, "rank of the top discard, one-hot")
    layout.add("top_discard_points", 1, "points of the top discard / 20")
    layout.add("drawn_card_present", 1, "1 if the player to act holds a drawn card (C-05)")
    layout.add("drawn_card_rank", NUM_STANDARD_RANKS, "its rank, one-hot (only for the player holding it)")
    layout.add("drawn_card_points", 1, "its points / 20 (only for the player holding it)")
    layout.add("phase", len(Phase), "phase one-hot: " + ", ".join(ph.name.lower() for ph in Phase))
    layout.add("current_player", n, "seat whose decision it is, one-hot")
    layout.add("turn_player", n, "seat whose turn it is, one-hot (differs from current_player in windows)")
    layout.add("window_open", 1, "1 while a match window collects decisions or resolves (C-08)")
    layout.add("window_rank", NUM_STANDARD_RANKS, "rank to match in the open window, one-hot")
    layout.add("window_decided", 1, "1 if the observer has already decided in the open window")
    layout.add("power_slots", (n, s), "seat × slot: slots picked by the power in progress (public, C-11)")
    layout.add("give_slot", (n, s), "seat × slot: the emptied slot a successful caller's give fills (C-09)")
    layout.add("caller", n, "seat that called Cut!, one-hot (all 0 if no call) (C-14)")
    layout.add("final_turns_left", 1, "final turns still to play after Cut! / (players − 1)")
    layout.add("turns_in_round", 1, "turns completed this round / max_turns_per_round (C-15)")
    layout.add("draw_pile_size", 1, "cards in the draw pile / 52")
    layout.add("discard_pile_size", 1, "cards in the discard pile / 52")
    layout.add("scores", n, "cumulative score per seat / target_score (C-17)", high=max_score / config.target_score)
    layout.add("accounted", NUM_STANDARD_TYPES,
               "per card type (AS, AH, AD, AC, 2S, … KC): 1 if the observer can account for it")
    return layout


class CutObserver:
    """Writes observations for one game configuration into preallocated buffers."""

    def __init__(self, config: CutConfig):
        self.config = config
        self.layout = build_layout(config)
        self.size = self.layout.size
        self._slots = np.full((config.num_players, config.max_hand_slots), EMPTY, dtype=np.int64)

    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def observe(self, state: CutState, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """Fill ``out`` (or a new buffer) with ``observer``'s view of ``state``."""
        if out is None:
            out = self.new_buffer()
        out[:] = 0
        v = self.layout.views(out)
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
        v["slot_known_by"][:] = np.moveaxis(known_by, 0, -1) & present[:, :, None]

        accounted = shown_cards.copy()
        top = table.top_discard
        if top is not None:
            top_type = types[top]
            v["top_discard_present"][0] = 1
            v["top_discard_rank"][RANK_OF[top_type]] = 1
            v["top_discard_points"][0] = POINTS[top_type] / MAX_CARD_POINTS
            accounted[top] = True
        me = state.current_player
        if me is not None and table.held[me]:
            v["drawn_card_present"][0] = 1
            if me == observer:
                held_type = types[table.held[me][-1]]
                v["drawn_card_rank"][RANK_OF[held_type]] = 1
                v["drawn_card_points"][0] = POINTS[held_type] / MAX_CARD_POINTS

        v["phase"][int(state.phase)] = 1
        if me is not None:
            v["current_player"][(me - observer) % n] = 1
            v["turn_player"][(state.turn_player - observer) % n] = 1
        if state.window is not None:
            v["window_open"][0] = 1
            v["window_rank"][state.window_rank] = 1
            v["window_decided"][0] = state.window.has_decided(observer)
        if state.power_own_slot >= 0:
            v["power_slots"][(state.turn_player - observer) % n, state.power_own_slot] = 1
        if state.power_target is not None:
            target, target_slot = state.power_target
            v["power_slots"][(target - observer) % n, target_slot] = 1
        if state.give_target is not None:
            owner, owner_slot = state.give_target
            v["give_slot"][(owner - observer) % n, owner_slot] = 1
        if state.caller is not None:
            v["caller"][(state.caller - observer) % n] = 1
            v["final_turns_left"][0] = state.final_turns_left / (n - 1)
        v["turns_in_round"][0] = state.turns_completed / config.max_turns_per_round
        v["draw_pile_size"][0] = len(table.draw_pile) / NUM_STANDARD_TYPES
        v["discard_pile_size"][0] = len(table.discard_pile) / NUM_STANDARD_TYPES
        v["scores"][:] = [state.scores[p] / config.target_score for p in seats]
        v["accounted"][:] = np.bincount(types[accounted], minlength=NUM_STANDARD_TYPES) / _COPIES
        return out
