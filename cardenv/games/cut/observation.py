"""What one player may know of a Cut! game, as a flat float32 vector.

The shared pieces come from :class:`~cardenv.engine.observation.TableObserver`; Cut! adds
whose turn it is, the match window and the slots a power or a give involves. Of a match
window the observation says only that it is open, on which rank, and whether the
observer has decided: never what anyone else decided. docs/cut.md's table is generated
from this layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from cardenv.core.cards import NUM_STANDARD_RANKS, standard_deck
from cardenv.core.observation import ObservationLayout
from cardenv.engine.observation import TableObserver, shown_slots_matching_the_top_discard
from cardenv.games.cut.rules import CALLER_PENALTY, POINTS, CutConfig, CutState, Phase


def match_hints_of(layout: ObservationLayout, vector: np.ndarray) -> np.ndarray:
    """The ``match_hints`` piece worked out from an observation of ``layout`` (with or
    without it): seat × slot, 1 where the observation shows a card of the top discard's
    rank (C-08: an own match or a call-out would be right), flat. A policy trained with
    ``match_hints=True`` plays an env without them by appending these."""
    return shown_slots_matching_the_top_discard(layout, vector).ravel()


class CutObserver(TableObserver):
    derived_pieces = MappingProxyType({"match_hints": match_hints_of})
    points = POINTS
    phases = Phase
    state_class = CutState
    deck = standard_deck()
    call_name = "Cut!"

    def max_round_points(self) -> int:
        return super().max_round_points() + CALLER_PENALTY  # C-16

    def _add_derived_pieces(self, layout: ObservationLayout) -> None:
        if self.config.match_hints:
            layout.add("match_hint", (self.config.num_players, self.config.max_hand_slots),
                       "seat × slot: 1 if the observation shows the card and it has the top discard's rank (an "
                       "own match or a call-out would be right, C-08); worked out from the pieces above")

    def _add_ruleset_pieces(self, layout: ObservationLayout, omniscient: bool) -> None:
        n, s = self.config.num_players, self.config.max_hand_slots
        layout.add("turn_player", n, "seat whose turn it is, one-hot (differs from current_player in windows)")
        layout.add("window_open", 1, "1 while a match window collects decisions or resolves (C-08)")
        layout.add("window_rank", NUM_STANDARD_RANKS, "rank to match in the open window, one-hot")
        if omniscient:
            layout.add("window_decided", n, "player: 1 if that player has decided in the open window")
            layout.add("window_claims", (n, n, s),
                       "decider × owner × slot: the slot each pending attempt claims (C-08; hidden from players)")
        else:
            layout.add("window_decided", 1, "1 if the observer has already decided in the open window")
        layout.add("power_slots", (n, s), "seat × slot: slots picked by the power in progress (public, C-11)")
        layout.add("give_slot", (n, s), "seat × slot: the emptied slot a successful caller's give fills (C-09)")

    def _fill_ruleset_pieces(self, state: CutState, observer: int | None, out: memoryview,
                             at: Mapping[str, int]) -> None:
        n, s = self.config.num_players, self.config.max_hand_slots
        # A seat's row is (seat + shift) % n, as seat_row gives it, without a call per seat.
        shift = 0 if observer is None else n - observer
        if state.current_player is not None:
            out[at["turn_player"] + (state.turn_player + shift) % n] = 1.0
        window = state.window
        if window is not None:
            out[at["window_open"]] = 1.0
            out[at["window_rank"] + state.window_rank] = 1.0
            if observer is not None:
                # Whether the observer decided; never what anyone decided.
                if window.has_decided(observer):
                    out[at["window_decided"]] = 1.0
            else:
                for decider, decision in zip(window.players, window.decisions):
                    out[at["window_decided"] + decider] = 1.0
                    if decision is not None:
                        owner, slot = state.claimed_place(decider, decision[0])
                        out[at["window_claims"] + (decider * n + owner) * s + slot] = 1.0
        if state.power_own_slot >= 0:
            out[at["power_slots"] + (state.turn_player + shift) % n * s + state.power_own_slot] = 1.0
        if state.power_target is not None:
            target, target_slot = state.power_target
            out[at["power_slots"] + (target + shift) % n * s + target_slot] = 1.0
        if state.give_target is not None:
            owner, owner_slot = state.give_target
            out[at["give_slot"] + (owner + shift) % n * s + owner_slot] = 1.0


def build_layout(config: CutConfig) -> ObservationLayout:
    return CutObserver(config).layout
