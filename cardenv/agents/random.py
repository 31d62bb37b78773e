"""Uniformly random agents: ``random`` and ``random_no_call``, which never makes the
ruleset's call (the action kinds its heuristic names in ``call_kinds``): END in 150,
Cut! in Cut! (so the rounds it plays end only by the other rules), and in carte saying
"carte" (so it is caught whenever it ends a go on one card)."""

from __future__ import annotations

import numpy as np

from cardenv.agents.base import Agent, RulesetInfo, uniform_choice


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"
    needs_observation_vector = False

    def choose(self, observation, state, seat) -> int:
        return uniform_choice(observation["action_mask"], self.rng)


class RandomNoCallAgent(Agent):
    """Uniform over the legal actions other than calling the end of a round."""

    name = "random_no_call"
    needs_observation_vector = False

    def __init__(self, info: RulesetInfo, rng: np.random.Generator):
        super().__init__(info, rng)
        self._call_ids = info.call_action_ids()

    def choose(self, observation, state, seat) -> int:
        mask = observation["action_mask"].copy()
        mask[self._call_ids] = 0
        if not mask.any():  # only calling is legal (no ruleset does this today): call
            mask = observation["action_mask"]
        return uniform_choice(mask, self.rng)
