"""A guide: another agent's choice, appended to the observation as a one-hot (torch-free).

A guided policy (``cardenv train --guide heuristic``) sees the env's observation
followed by one entry per action: 1 at the action the guide agent would take from the
same observation, 0 elsewhere (all 0 when the seat has no decision). Its action logits
add a learned weight times that one-hot (:mod:`cardenv.train.guided_policy`), so training
starts from the guide's play and learns where to deviate from it — the residual-policy
idea. The guide sees exactly what the policy sees: it is part of the policy's
observation processing, never a source of hidden information.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from cardenv.core.agent import Agent, RulesetInfo, any_set


class Guide:
    """Builds the guided observation for one seat; ``reset`` before every game.

    ``agent`` is the guide, built from ``spec`` by whoever builds the guided policy or
    view (with :func:`cardenv.agents.specs.make_agent` or their own agent factory)."""

    def __init__(self, spec: str, agent: Agent):
        self.spec = spec
        self.agent = agent
        info = agent.info
        self.base_size = info.layout.size
        self.size = guided_size(info, spec)  # length of a guided observation

    def reset(self) -> None:
        self.agent.reset()

    def observe(self, observation: dict[str, np.ndarray], state, seat: int) -> np.ndarray:
        """The env's observation vector followed by the one-hot of the guide's choice
        (zeros when no action is legal: not this seat's turn, or the game is over)."""
        guided = np.zeros(self.size, dtype=np.float32)
        guided[:self.base_size] = observation["observation"]
        if any_set(observation["action_mask"]):
            guided[self.base_size + self.agent.act(observation, state, seat)] = 1.0
        return guided


def policy_observation_space(info: RulesetInfo, guided: bool) -> spaces.Box:
    """The space of the vector a policy reads at one decision: the env's observation,
    followed by the guide's one-hot when it is ``guided`` (one frame of a frame stack)."""
    low, high = info.layout.low(), info.layout.high()
    if guided:
        num_actions = len(info.action_table)
        low = np.concatenate([low, np.zeros(num_actions, low.dtype)])
        high = np.concatenate([high, np.ones(num_actions, high.dtype)])
    return spaces.Box(low, high, low.shape, np.float32)


def guided_size(info: RulesetInfo, guide: str | None) -> int:
    """Observation length a policy with (or without) a guide expects."""
    return info.layout.size + (len(info.action_table) if guide else 0)
