"""A rule-based player for cut_v0 ("Cut!"), built only from its observation.

Memory, the unseen-multiset estimate and the Monte Carlo deal sampling are the slot
heuristic's (:mod:`cardenv.engine.slot_heuristic`); the decisions follow Cut!'s rules: place a drawn
card over the highest own card when it is lower by a margin, use powers (5: peek an
unknown own card, 6: peek an unknown opponent card, Q: blindly give away a known high
card, K: look and swap when it pays), match and call out only known cards of the
window's rank, give away the highest card, and call Cut! when the sampled deals say
calling beats C-16's +10 for a caller who is not strictly lowest.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_STANDARD_TYPES
from cardenv.engine.slot_heuristic import SlotHeuristic
from cardenv.games.cut.rules import POINTS, Phase

CALLER_PENALTY = 10  # C-16


class CutHeuristic(SlotHeuristic):
    type_points = POINTS[:NUM_STANDARD_TYPES]
    points_scale = int(POINTS.max())
    call_margin = 3.0
    min_call_success = 0.6
    final_turn_gain = 1.5
    call_scoring = "C-16"
    call_stake = float(CALLER_PENALTY)
    fallback_kinds = ("decline", "pass", "draw")

    def choose(self, observation, state, seat) -> int:
        return self._choose_in_turn_or_window(observation, Phase, Phase.WINDOW)

    def _decide(self, phase, v, mask, unseen, expected, known, values):
        at = self.table
        own = values[0]
        if phase == Phase.TURN:
            if mask[at.id("cut")] and self._should_call(v, unseen, known):
                return at.id("cut")
            return at.id("draw")
        if phase == Phase.DRAWN:
            worst = self._worst_slot(own, known)
            drawn_points = float(np.rint(v["drawn_card_points"][0] * 20))
            if own[worst] - drawn_points >= self.swap_margin_known:
                return at.id("replace", worst)
            return at.id("discard")
        if phase == Phase.PEEK_OWN:
            unknown = [s for s in np.flatnonzero(self._present[0] & ~known[0])]
            return at.id("peek_own", int(unknown[0])) if unknown else None
        if phase == Phase.PEEK_OTHER:
            return self._best_target(mask, "peek_other", lambda off, s: (known[off, s], s))
        if phase == Phase.QUEEN_OWN:
            worst = self._worst_slot(own, known)
            # A blind swap pays only when giving a card known to be above the unknown mean.
            return at.id("queen_own", worst) if known[0, worst] and own[worst] > expected + 1 else None
        if phase == Phase.QUEEN_TARGET:
            return self._best_target(mask, "queen_target", lambda off, s: (values[off, s], s))
        if phase == Phase.KING_OWN:
            worst = self._worst_slot(own, known)
            return at.id("king_own", worst)
        if phase == Phase.KING_TARGET:
            return self._best_target(mask, "king_target", lambda off, s: (values[off, s], s))
        if phase == Phase.KING_DECIDE:
            picked = v["power_slots"] > 0.5
            mine = own[picked[0]]
            theirs = values[1:][picked[1:]]
            if len(mine) and len(theirs) and theirs[0] < mine[0]:
                return at.id("king_swap")
            return at.id("king_keep")
        if phase == Phase.GIVE:
            worst = self._worst_slot(own, known)
            return at.id("give", worst)
        return None

    def _window(self, v, mask, known):
        """Match an own known card of the window's rank, else call out an opponent's, else pass."""
        at = self.table
        rank = int(np.argmax(v["window_rank"]))
        match = self._present & known & (self.mem_rank == rank)
        for s in np.flatnonzero(match[0]):
            if mask[at.id("match", int(s))]:
                return at.id("match", int(s))
        for offset, s in zip(*np.nonzero(match[1:])):
            action = at.id("call_out", int(s), int(offset) + 1)
            if mask[action]:
                return action
        return at.id("pass")

    def _best_target(self, mask, kind, key):
        """The legal opponent slot of ``kind`` with the lowest ``key(offset, slot)``."""
        at = self.table
        best, best_key = None, None
        for action in at.span(kind):
            if mask[action]:
                spec = at.specs[action]
                k = key(spec.offset, spec.slot)
                if best_key is None or k < best_key:
                    best, best_key = action, k
        return best
