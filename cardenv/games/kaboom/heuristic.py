"""A rule-based player for kaboom_v0 ("KABOOM"), built only from its observation.

Memory, the unseen-multiset estimate and the Monte Carlo deal sampling are the slot
heuristic's (:mod:`cardenv.engine.slot_heuristic`), with the colour of every remembered card
added, since snaps need it. The decisions follow KABOOM's rules:

* a drawn card replaces the highest own card when lower by a margin, else it is
  discarded for its power;
* powers: a black 6 swaps two own cards (harmless either way); a red 6 moves the lowest
  known card of the opponent who looks lowest to another opponent, for that opponent's
  highest card; a 7/8 looks at an unknown own card; a 9/10 and the black King look at an
  unknown card of the opponent who looks lowest; a J/Q gives away the highest own card
  for the lowest card of another player; the black King takes what it saw when it beats
  the highest own card by a margin, gives a high card to the opponent who looks lowest,
  and otherwise leaves it;
* snaps only with own cards it knows qualify (K-11: same rank, opposite colour) and
  that are worth more than 0, and leaves the gap (K-13b): its memory is by slot, and
  its snaps are right, so it needs no room for penalty cards;
* calls KABOOM when sampled deals of the unknown cards say calling pays under K-16
  (−10 for a caller strictly lowest, +10 per player it loses to).
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import RANK_OF
from cardenv.engine.slot_heuristic import SlotHeuristic
from cardenv.games.kaboom.rules import CALL_BONUS, POINTS, Phase


class KaboomHeuristic(SlotHeuristic):
    type_points = POINTS
    type_rank = RANK_OF
    points_scale = int(POINTS.max())
    swap_margin_known = 1.0
    swap_margin_unknown = 1.0
    king_take_margin = 2.0
    king_give_above = 7.0
    call_margin = 3.0
    min_call_success = 0.6
    final_turn_gain = 1.0
    call_scoring = "K-16"
    call_stake = float(CALL_BONUS)
    fallback_kinds = ("decline", "pass", "snap_confirm", "draw")

    def start_round(self) -> None:
        super().start_round()
        self.mem_red = np.zeros_like(self.mem_rank, dtype=bool)

    def _update_memory(self, v: dict[str, np.ndarray]) -> None:
        super()._update_memory(v)
        red = v["slot_red"] > 0.5
        self.mem_red = np.where(self._shown, red, self.mem_red & (self.mem_rank >= 0))

    # --- decisions --------------------------------------------------------------------------
    def choose(self, observation, state, seat) -> int:
        return self._choose_in_turn_or_window(observation, Phase, Phase.WINDOW)

    def _decide(self, phase, v, mask, unseen, expected, known, values):
        at = self.table
        own = values[0]
        totals = np.nansum(values, axis=1)
        if phase == Phase.TURN:
            if self._should_call(v, unseen, known):
                return at.id("kaboom")
            return at.id("draw")
        if phase == Phase.DRAWN:
            if not self._present[0].any():
                return at.id("discard")
            worst = self._worst_slot(own, known)
            drawn = float(np.rint(v["drawn_card_points"][0] * self.points_scale))
            margin = self.swap_margin_known if known[0, worst] else self.swap_margin_unknown
            if own[worst] - drawn >= margin:
                return at.id("replace", worst)
            return at.id("discard")
        if phase in (Phase.BLACK_SIX_FIRST, Phase.BLACK_SIX_SECOND):
            return self._first_legal(mask, "black_six")  # positions do not change the total
        if phase in (Phase.RED_SIX_FIRST, Phase.RED_SIX_SECOND):
            return self._red_six(phase, v, mask, values, totals)
        if phase == Phase.LOOK_OWN:
            unknown = np.flatnonzero(self._present[0] & ~known[0])
            return at.id("look_own", int(unknown[0])) if len(unknown) else None
        if phase in (Phase.LOOK_OTHER, Phase.KING_LOOK):
            kind = "look_other" if phase == Phase.LOOK_OTHER else "king_look"
            # An unknown card of the opponent who looks lowest (the threat to a call).
            return self._best(mask, kind, lambda off, s: (known[off, s], totals[off], s))
        if phase == Phase.BLIND_OWN:
            return at.id("blind_own", self._worst_slot(own, known))
        if phase == Phase.BLIND_TARGET:
            return self._best(mask, "blind_target", lambda off, s: (values[off, s], s))
        if phase == Phase.KING_DECIDE:
            return self._king_decide(v, mask, own, known, values, totals)
        if phase == Phase.SLIDE:
            return at.id("leave_gap")
        return None

    def _red_six(self, phase, v, mask, values, totals):
        """Take the leader's lowest card away, for another opponent's highest one."""
        if phase == Phase.RED_SIX_FIRST:
            return self._best(mask, "red_six", lambda off, s: (totals[off], values[off, s], s))
        picked = np.flatnonzero(v["power_slots"].any(axis=1))
        first_row = int(picked[0]) if len(picked) else -1
        return self._best(mask, "red_six", lambda off, s: (off == first_row, -values[off, s], s))

    def _king_decide(self, v, mask, own, known, values, totals):
        at = self.table
        rows, slots = np.nonzero(v["power_slots"] > 0.5)
        if not len(rows):
            return at.id("king_leave")
        seen = values[rows[0], slots[0]]
        if self._present[0].any():
            worst = self._worst_slot(own, known)
            if own[worst] - seen >= self.king_take_margin and mask[at.id("king_take", worst)]:
                return at.id("king_take", worst)
        if seen >= self.king_give_above:
            # A high card to the third player who looks lowest, for their lowest card.
            give = self._best(mask, "king_give", lambda off, s: (totals[off], values[off, s], s))
            if give is not None:
                return give
        return at.id("king_leave")

    def _window(self, v, mask, known):
        """Select every own card known to qualify (K-11) and worth more than 0, then
        confirm; pass when there is none."""
        at = self.table
        if v["top_discard_present"][0] < 0.5:
            return at.id("pass")
        top_rank = int(np.argmax(v["top_discard_rank"]))
        top_red = v["top_discard_red"][0] > 0.5
        qualifying = (self._present[0] & known[0] & (self.mem_rank[0] == top_rank)
                      & (self.mem_red[0] != top_red) & (self.mem_points[0] > 0))
        for s in np.flatnonzero(qualifying):
            if mask[at.id("snap_select", int(s))]:
                return at.id("snap_select", int(s))
        return at.id("snap_confirm") if mask[at.id("snap_confirm")] else at.id("pass")

    def _first_legal(self, mask, kind):
        for action in self.table.span(kind):
            if mask[action]:
                return action
        return None

    def _best(self, mask, kind, key):
        """The legal action of ``kind`` with the lowest ``key(offset, slot)`` (offset 0 for own slots)."""
        best, best_key = None, None
        for action in self.table.span(kind):
            if mask[action]:
                spec = self.table.specs[action]
                k = key(spec.offset or 0, spec.slot)
                if best_key is None or k < best_key:
                    best, best_key = action, k
        return best

    def _should_call(self, v, unseen: np.ndarray, known: np.ndarray) -> bool:
        """As the 150 heuristic's, over the opponents still in the game (K-19)."""
        return self._call_pays_against(unseen, known, np.flatnonzero(v["out"][1:] < 0.5) + 1)

