"""Agents made of other agents (:class:`NoCallAgent`, :class:`MixtureAgent`), the
factory type that builds an agent from a spec, and what a runner gives an agent to act
from (:func:`observation_for`). The interface every agent implements is
:class:`cardenv.core.agent.Agent`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cardenv.core.agent import Agent, RulesetInfo, any_set


class NoCallAgent(Agent):
    """An agent that never makes the ruleset's call (the action kinds its registry record names in
    ``call_kinds``: the call that ends a round, or saying one's last card).
    The inner agent decides as usual from a mask without the call actions, so rounds at its
    table end only by the other players' calls or the other rules (``random_no_call``, the
    easiest field; ``heuristic_no_call``, a player who keeps a low hand and waits, the way a
    best response to a table that calls too rarely plays)."""

    def __init__(self, inner: Agent):
        super().__init__(inner.info, inner.rng)
        self.inner = inner
        self.name = f"{inner.name}_no_call"
        self.needs_observation_vector = inner.needs_observation_vector
        self.needs_recent_events = inner.needs_recent_events
        self.memory = inner.memory
        self._allowed = np.ones(len(inner.info.action_table), dtype=np.int8)  # every action but the calls
        self._allowed[inner.info.call_action_ids()] = 0

    def reset(self) -> None:
        self.inner.reset()

    def reseed(self, seed: np.random.SeedSequence | int) -> None:
        self.inner.reseed(seed)

    def act(self, observation, state, seat) -> int:
        mask = observation["action_mask"]
        without_call = mask & self._allowed
        if not any_set(without_call):  # only calling is legal (no ruleset does this today): call
            return self.inner.act(observation, state, seat)
        return self.inner.act({**observation, "action_mask": without_call}, state, seat)

    def close(self) -> None:
        self.inner.close()


MIXTURE_SEPARATOR = "|"
"""Joins the specs of a mixture: ``heuristic|heuristic_no_call`` is one of them per game."""

SAMPLE = "sample"
SPEC_OPTIONS = (SAMPLE,)
"""What may follow ``#`` in a network's spec (``ppo:FILE#sample``, ``onnx:FILE#sample``)."""


def split_option(argument: str) -> tuple[str, str | None]:
    """``(FILE, OPTION or None)`` of a network spec's argument ``FILE[#OPTION]``."""
    path, sep, option = argument.rpartition("#")
    if sep and option in SPEC_OPTIONS:
        return path, option
    return argument, None


class MixtureAgent(Agent):
    """Plays as one of several agents, drawn uniformly from its own generator at every
    ``reset`` (once per game): the spec ``heuristic|heuristic_no_call`` is a player who is
    sometimes a caller and sometimes not, so a learner facing it cannot count on either
    (list an agent twice to draw it twice as often). The agents share this one's
    generator."""

    def __init__(self, agents: list[Agent]):
        if not agents:
            raise ValueError("a mixture needs at least one agent")
        super().__init__(agents[0].info, agents[0].rng)
        self.agents = agents
        self.name = "|".join(agent.name for agent in agents)
        self.needs_observation_vector = any(agent.needs_observation_vector for agent in agents)
        self.needs_recent_events = any(agent.needs_recent_events for agent in agents)
        self.current = agents[0]

    @property
    def memory(self) -> str | None:
        """The memory model of the agent playing this game."""
        return self.current.memory

    def reset(self) -> None:
        super().reset()
        self.current = self.agents[int(self.rng.integers(len(self.agents)))]
        self.current.reset()

    def act(self, observation, state, seat) -> int:
        return self.current.act(observation, state, seat)

    def add_snapshot(self, path: str) -> None:
        """Self-play: pass a new snapshot to the agents that draw from a pool of them."""
        for agent in self.agents:
            if hasattr(agent, "add_snapshot"):
                agent.add_snapshot(path)

    def close(self) -> None:
        for agent in self.agents:
            agent.close()


AgentFactory = Callable[[str, RulesetInfo, np.random.Generator], Agent]
"""Builds the agent of a spec (``"heuristic"``, ``"ppo:pretrained"``) for a ruleset, with
a generator: :func:`cardenv.agents.specs.make_agent`, or a runner's own that knows
more names. An agent made of other agents (a search's prior, a policy's guide) is given
one by whoever builds it."""


def observation_for(agent: Agent, env, seat: int) -> dict[str, np.ndarray | None]:
    """What ``agent`` gets to act from at ``seat`` of a raw env: the env's observation;
    without the recent events for an agent that does not read them; or only the action
    mask (``"observation": None``) for an agent that needs no more. An agent whose
    ``memory`` is ``"none"`` gets what ``memory="none"`` shows (never more than the env's
    own memory model shows)."""
    if not agent.needs_observation_vector:
        return {"observation": None, "action_mask": env.game.legal_action_mask()}
    if agent.memory == "none" and env.config.memory != "none":
        return {"observation": env.observer_with_memory("none").observe(
                    env.game, seat, recent_events=agent.needs_recent_events),
                "action_mask": env.game.legal_action_mask()}
    if not agent.needs_recent_events:
        # Built here, not through env.observe: the env keeps each seat's full observation.
        return {"observation": env.observer.observe(env.game, seat, recent_events=False),
                "action_mask": env.game.legal_action_mask()}
    return env.observe(env.possible_agents[seat])
