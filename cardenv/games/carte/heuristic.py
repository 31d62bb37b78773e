"""A rule-based player for carte_v0, built only from its observation and action mask.

Per go: take the pile's top card when it makes a meld with the hand (or, once started,
fits a meld on the table), else draw from the stock; put down the meld that sheds the
most points as soon as there is one (jokers only where a meld needs them), again while
there is one; once started, add every card some meld takes (jokers included); say carte
whenever it is legal (two cards, about to discard); discard the highest-value card that
helps nobody (no meld on the table takes it) and is not part of a pair or a near-run in
hand; catch every player who forgets carte.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.agent import Agent, RulesetInfo
from cardenv.core.melds import JOKER, NUM_MELD_TYPES, candidate_melds, near_meld
from cardenv.games.carte.rules import MELD_POINTS

COPIES = np.array([2.0] * JOKER + [4.0])


def meld_value(meld: list[int]) -> tuple:
    return (sum(MELD_POINTS[t] for t in meld), len(meld))


class CarteHeuristic(Agent):
    name = "heuristic"
    needs_recent_events = False  # it reads the hand, the melds and the piles
    # ``heuristic_cautious`` is this player unchanged: saying carte is a declaration that
    # only protects the sayer from being caught, not a gamble on the hands that could fail.
    cautious_settings: dict[str, float] = {}

    def __init__(self, info: RulesetInfo, rng: np.random.Generator):
        super().__init__(info, rng)
        at = info.action_table
        self.layout = info.layout
        self.ids = {kind: at.first(kind) for kind in ("draw_stock", "draw_pile", "put_down", "carte", "catch")}
        self.select = at.span("select")
        self.add_to = at.span("add_to")
        self.discard = at.span("discard")
        self.plan: list[int] | None = None

    def start_round(self) -> None:
        self.plan = None

    def _piece(self, vector: np.ndarray, name: str) -> np.ndarray:
        return self.layout.view(vector, name)

    def choose(self, observation, state, seat) -> int:
        mask = observation["action_mask"]
        vector = observation["observation"]
        ids = self.ids
        if mask[ids["catch"]]:
            return ids["catch"]  # always catch
        hand = [int(c) for c in np.rint(self._piece(vector, "hand") * COPIES)]
        accepted = self._piece(vector, "meld_accepts") > 0.5
        started = self._piece(vector, "started")[0] > 0.5
        if mask[ids["draw_stock"]] or mask[ids["draw_pile"]]:
            return self._draw(vector, mask, hand, accepted, started)
        selection = [int(c) for c in np.rint(self._piece(vector, "selection") * COPIES)]
        if any(selection):
            return self._continue_selection(mask, selection)
        self.plan = None
        action = self._start_meld(mask, hand) or self._start_add(mask, hand, accepted)
        if action is not None:
            return action
        if mask[ids["carte"]]:
            return ids["carte"]  # say carte
        return self._discard(mask, hand, accepted)

    # --- the draw -------------------------------------------------------------------
    def _draw(self, vector, mask, hand, accepted, started) -> int:
        ids = self.ids
        top = self._piece(vector, "top_of_pile")
        if mask[ids["draw_pile"]] and top.any():
            t = int(np.argmax(top))
            with_top = hand.copy()
            with_top[t] += 1
            if (started and accepted[t]) or any(t in meld for meld in candidate_melds(with_top)):
                return ids["draw_pile"]
        return ids["draw_stock"] if mask[ids["draw_stock"]] else ids["draw_pile"]

    # --- melds and adds ---------------------------------------------------------------
    def _start_meld(self, mask, hand) -> int | None:
        for meld in sorted(candidate_melds(hand), key=meld_value, reverse=True):
            if mask[self.select[meld[0]]]:
                self.plan = meld
                return self.select[meld[0]]
        return None

    def _continue_selection(self, mask, selection) -> int:
        plan = self.plan
        if plan is not None:
            chosen = [t for t in range(NUM_MELD_TYPES) for _ in range(selection[t])]
            if chosen == plan[: len(chosen)]:
                if len(chosen) == len(plan) and mask[self.ids["put_down"]]:
                    return self.ids["put_down"]
                if len(chosen) < len(plan) and mask[self.select[plan[len(chosen)]]]:
                    return self.select[plan[len(chosen)]]
        if mask[self.ids["put_down"]]:
            return self.ids["put_down"]
        adds = [a for a in self.add_to if mask[a]]
        if adds:
            return adds[0]
        # Any selection can be completed (the mask guarantees it): take the next card.
        return int(next(a for a in self.select if mask[a]))

    def _start_add(self, mask, hand, accepted) -> int | None:
        addable = [t for t in range(NUM_MELD_TYPES) if hand[t] and accepted[t] and mask[self.select[t]]]
        if not addable:
            return None
        t = max(addable, key=lambda u: MELD_POINTS[u])
        self.plan = None
        return self.select[t]

    # --- the discard ---------------------------------------------------------------------
    def _discard(self, mask, hand, accepted) -> int:
        best, best_key = None, None
        for t in range(NUM_MELD_TYPES):
            if not mask[self.discard[t]]:
                continue
            key = (t != JOKER, not accepted[t], not near_meld(hand, t), MELD_POINTS[t])
            if best_key is None or key > best_key:
                best, best_key = t, key
        return self.discard[best]
