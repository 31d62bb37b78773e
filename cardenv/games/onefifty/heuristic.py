"""The rule-based player for "150" (:class:`OneFiftyHeuristic`), built only from its
observation on :class:`~cardenv.engine.slot_heuristic.SlotHeuristic` (memory, beliefs
about unknown cards, the Monte Carlo call estimate).

Play: match known cards of the top discard's rank; take the top discard or swap a drawn
card in when it lowers the hand by a margin (replacing the highest known or an unknown
card); discard drawn face cards to use their power (King: draw again, Queen: peek at an
unknown own card, Jack: give away the highest own card for the likeliest-low card of the
opponent who looks lowest). Call END after a main action when a Monte Carlo estimate
over sampled deals of the unknown cards says calling beats the asymmetric penalty of O-19.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import JACK, KING, NUM_STANDARD_TYPES, QUEEN
from cardenv.engine.slot_heuristic import SlotHeuristic
from cardenv.games.onefifty.observation import MAX_CARD_POINTS
from cardenv.games.onefifty.rules import POINTS, Phase


class OneFiftyHeuristic(SlotHeuristic):
    type_points = POINTS[:NUM_STANDARD_TYPES]
    points_scale = MAX_CARD_POINTS
    # Take the top discard when it is worth at most take_max_points and lowers the hand by
    # take_margin, or whatever it is worth when it lowers the hand by take_margin_any.
    take_max_points = 4
    take_margin = 2.0
    take_margin_any = 9.0
    call_scoring = "O-19"

    # --- decisions --------------------------------------------------------------------------
    def choose(self, observation, state, seat) -> int:
        mask = observation["action_mask"]
        v = self._views(observation["observation"])
        unseen, expected, known, values = self._beliefs(v)
        phase = Phase(int(v["phase"].argmax()))
        at = self.table
        own_values = values[0]
        if phase == Phase.MAIN:
            return self._main(v, mask, known, own_values)
        if phase == Phase.MATCH_SELECT:
            for s in self._matching_slots(v, known):
                if mask[at.id("match_select", s)]:
                    return at.id("match_select", s)
            return at.id("match_confirm")
        if phase == Phase.DRAWN:
            return self._drawn(v, mask, known, own_values, expected)
        if phase == Phase.JACK_OWN:
            return at.id("jack_own", self._worst_slot(own_values, known))
        if phase == Phase.JACK_TARGET:
            return self._jack_target(mask, values)
        if phase == Phase.QUEEN_PEEK:
            unknown_own = [s for s in np.flatnonzero(self._present[0] & ~known[0]) if mask[at.id("queen_peek", s)]]
            slot = unknown_own[0] if unknown_own else int(np.flatnonzero(self._present[0])[0])
            return at.id("queen_peek", slot)
        if phase == Phase.AFTER_ACTION:
            if mask[at.id("call")] and self._should_call(v, unseen, known):
                return at.id("call")
            return at.id("pass")
        raise AssertionError(f"no decision in phase {phase.name}")

    def _matching_slots(self, v, known) -> list[int]:
        if v["top_discard_present"][0] < 0.5:
            return []
        top_rank = int(v["top_discard_rank"].argmax())
        # A few slots: plain Python over them beats numpy's per-call cost.
        return [s for s, (is_known, present, rank) in enumerate(zip(known[0].tolist(), self._present[0].tolist(),
                                                                    self.mem_rank[0].tolist()))
                if is_known and present and rank == top_rank]

    def _main(self, v, mask, known, own_values) -> int:
        at = self.table
        for s in self._matching_slots(v, known):
            if mask[at.id("match_select", s)]:
                return at.id("match_select", s)
        if v["top_discard_present"][0] > 0.5:
            top_points = float(np.rint(v["top_discard_points"][0] * MAX_CARD_POINTS))
            worst = self._worst_slot(own_values, known)
            gain = own_values[worst] - top_points
            if mask[at.id("take", worst)] and (
                (top_points <= self.take_max_points and gain >= self.take_margin) or gain >= self.take_margin_any
            ):
                return at.id("take", worst)
        return at.id("draw")

    def _drawn(self, v, mask, known, own_values, expected) -> int:
        at = self.table
        drawn_rank = int(v["drawn_card_rank"].argmax())
        if drawn_rank in (JACK, QUEEN, KING):
            return at.id("discard")  # its power beats keeping a 20
        drawn_points = float(np.rint(v["drawn_card_points"][0] * MAX_CARD_POINTS))
        worst = self._worst_slot(own_values, known)
        margin = self.swap_margin_known if known[0, worst] else self.swap_margin_unknown
        if own_values[worst] - drawn_points >= margin and mask[at.id("swap", worst)]:
            return at.id("swap", worst)
        return at.id("discard")

    def _jack_target(self, mask, values) -> int:
        at = self.table
        totals = np.nansum(values, axis=1)
        best, best_key = None, None
        for action in at.span("jack_target"):
            if not mask[action]:
                continue
            spec = at.specs[action]
            # Lowest card first; among equals, the opponent who looks lowest (the threat).
            key = (values[spec.offset, spec.slot], totals[spec.offset], action)
            if best_key is None or key < best_key:
                best, best_key = action, key
        return int(best)
