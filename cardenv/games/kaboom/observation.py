"""What one player may know of a KABOOM game, as a flat float32 vector.

The shared pieces come from :class:`~cardenv.engine.observation.TableObserver`, with
colour turned on (snaps need the opposite colour, K-11; red Kings score −2, K-02; red
and black 6s differ, K-03/K-04). KABOOM adds whose turn it is, the snap window, the
slots a power has picked, the own slots selected for a snap, the frozen callers and the
players out of the game, and the gap a successful snap left while its snapper decides
whether to close it. Of a snap window the observation says only that it is open and
whether the observer has decided: never what anyone else decided or is selecting.
docs/kaboom.md's table is generated from this layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from cardenv.core.cards import deck_with_jokers
from cardenv.core.observation import ObservationLayout
from cardenv.engine.observation import TableObserver, shown_slots_matching_the_top_discard
from cardenv.games.kaboom.rules import CALL_BONUS, POINTS, KaboomConfig, KaboomState, Phase


def snap_hints_of(layout: ObservationLayout, vector: np.ndarray) -> np.ndarray:
    """The ``snap_hints`` piece worked out from an observation of ``layout`` (with or
    without it): 1 for each own slot whose card the observation shows and which would
    snap onto the top discard (K-11: same rank, opposite colour). A policy trained with
    ``snap_hints=True`` plays an env without them by appending these."""
    return shown_slots_matching_the_top_discard(layout, vector, opposite_colour=True)[0]


class KaboomObserver(TableObserver):
    derived_pieces = MappingProxyType({"snap_hints": snap_hints_of})
    points = POINTS
    phases = Phase
    state_class = KaboomState
    deck = deck_with_jokers()
    call_name = "KABOOM"
    shows_colour = True

    def max_round_points(self) -> int:
        # K-16: a caller who lost to every other player adds 10 per player.
        return super().max_round_points() + CALL_BONUS * (self.config.num_players - 1)

    def min_score(self) -> float:
        """K-16: a round subtracts at most the two red Kings' 4 points and the caller's 10;
        with no round limit, totals have no lower bound."""
        config = self.config
        if config.max_rounds is None:
            return -np.inf
        lowest_round = 2 * self.min_card_points - CALL_BONUS
        return lowest_round * config.max_rounds / config.target_score

    def _add_derived_pieces(self, layout: ObservationLayout) -> None:
        if self.config.snap_hints:
            layout.add("snap_hint", self.config.max_hand_slots,
                       "own slot: 1 if the observation shows its card and the card would snap onto the top "
                       "discard (same rank, opposite colour: K-11); worked out from the pieces above")

    def _add_ruleset_pieces(self, layout: ObservationLayout, omniscient: bool) -> None:
        n, s = self.config.num_players, self.config.max_hand_slots
        layout.add("turn_player", n, "seat whose turn it is, one-hot (differs from current_player in windows)")
        layout.add("window_open", 1, "1 while a snap window collects decisions (K-11)")
        if omniscient:
            layout.add("window_decided", n, "player: 1 if that player has decided in the open window")
            layout.add("window_attempts", (n, s),
                       "decider × slot: the slots of each pending snap attempt (K-12; hidden from players)")
        else:
            layout.add("window_decided", 1, "1 if the observer has already decided in the open window")
        whose = "the acting player's" if omniscient else "own"
        layout.add("snap_selected", s, f"{whose} slots selected for the snap being built (K-11)")
        layout.add("power_slots", (n, s), "seat × slot: slots picked by the power in progress (public)")
        layout.add("snap_gaps", (n, s),
                   "seat × slot: the slots a successful snap emptied, while the snapper decides whether to "
                   "close the gap (K-13b; public)")
        layout.add("frozen", n, "seat: 1 if it called KABOOM this round, freezing its cards (K-14)")
        layout.add("out", n, "seat: 1 if it has left the game (elimination variant, K-19)")

    def _fill_ruleset_pieces(self, state: KaboomState, observer: int | None, out: memoryview,
                             at: Mapping[str, int]) -> None:
        row = self.seat_row
        s = self.config.max_hand_slots
        if state.current_player is not None:
            out[at["turn_player"] + row(state.turn_player, observer)] = 1.0
        window = state.window
        if window is not None:
            out[at["window_open"]] = 1.0
            if observer is not None:
                if window.has_decided(observer):  # never what anyone decided
                    out[at["window_decided"]] = 1.0
            else:
                for decider, decision in zip(window.players, window.decisions):
                    out[at["window_decided"] + decider] = 1.0
                    if decision is not None:
                        for slot, _ in decision:
                            out[at["window_attempts"] + decider * s + slot] = 1.0
        # Only the acting player is ever part-way through building a snap.
        if (observer is None or state.current_player == observer) and state.snap_selected:
            start = at["snap_selected"]
            for slot in state.snap_selected:
                out[start + slot] = 1.0
        for seat, slot in state.power_picks:
            out[at["power_slots"] + row(seat, observer) * s + slot] = 1.0
        if state.snap_gaps:  # only the snapper decides while there are gaps
            start = at["snap_gaps"] + row(state.current_player, observer) * s
            for slot in state.snap_gaps:
                out[start + slot] = 1.0
        for caller in state.callers:
            out[at["frozen"] + row(caller, observer)] = 1.0
        if True in state.eliminated:
            for seat, gone in enumerate(state.eliminated):
                if gone:
                    out[at["out"] + row(seat, observer)] = 1.0


def build_layout(config: KaboomConfig) -> ObservationLayout:
    return KaboomObserver(config).layout
