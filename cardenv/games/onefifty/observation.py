"""What one player may know of a 150 game, as a flat float32 vector.

The shared pieces come from :class:`~cardenv.engine.observation.TableObserver`; 150 adds
the slots selected for a match (O-07) and the own slot chosen for a Jack trade (O-11).
docs/onefifty.md's table is generated from this layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from cardenv.core.cards import standard_deck
from cardenv.core.observation import ObservationLayout
from cardenv.engine.observation import TableObserver, shown_slots_matching_the_top_discard
from cardenv.games.onefifty.rules import POINTS, OneFiftyConfig, OneFiftyState, Phase

MAX_CARD_POINTS = int(POINTS.max())
"""The scale of the ``*_points`` pieces: a piece's value × MAX_CARD_POINTS is the points."""


def match_hints_of(layout: ObservationLayout, vector: np.ndarray) -> np.ndarray:
    """The ``match_hints`` piece worked out from an observation of ``layout`` (with or
    without it): 1 for each own slot whose card the observation shows and has the top
    discard's rank (O-03, O-07: a Match of it would be right). A policy trained with
    ``match_hints=True`` plays an env without them by appending these."""
    return shown_slots_matching_the_top_discard(layout, vector)[0]


class OneFiftyObserver(TableObserver):
    derived_pieces = MappingProxyType({"match_hints": match_hints_of})
    points = POINTS
    phases = Phase
    state_class = OneFiftyState
    deck = standard_deck()
    call_name = "END"

    def max_round_points(self) -> int:
        return 2 * super().max_round_points()  # a failed caller adds double (O-19)

    def _add_derived_pieces(self, layout: ObservationLayout) -> None:
        if self.config.match_hints:
            layout.add("match_hint", self.config.max_hand_slots,
                       "own slot: 1 if the observation shows its card and the card has the top discard's rank (a "
                       "Match of it would be right, O-07); worked out from the pieces above")

    def _add_ruleset_pieces(self, layout: ObservationLayout, omniscient: bool) -> None:
        s = self.config.max_hand_slots
        whose = "the acting player's" if omniscient else "own"
        layout.add("match_selected", s, f"{whose} slots selected for the match being built (O-07)")
        layout.add("jack_own_slot", s, f"{whose} slot chosen for the Jack trade (O-11)")

    def _fill_ruleset_pieces(self, state: OneFiftyState, observer: int | None, out: memoryview,
                             at: Mapping[str, int]) -> None:
        # Only the acting player is ever part-way through a match or a trade.
        if observer is None or state.current_player == observer:
            if state.selected:
                start = at["match_selected"]
                for slot in state.selected:
                    out[start + slot] = 1.0
            if state.jack_slot >= 0:
                out[at["jack_own_slot"] + state.jack_slot] = 1.0


def build_layout(config: OneFiftyConfig) -> ObservationLayout:
    return OneFiftyObserver(config).layout
