"""The one interface every agent implements.

An agent is built for one ruleset (it receives the env's action table and observation
layout through :class:`RulesetInfo`) and a seeded generator. A runner calls
``reset()`` before each game and ``act(observation, state, seat)`` for each decision;
``start_round()`` is called by ``act`` itself whenever the engine's round changes, so
every runner gets round resets for free.

``observation`` is the env's ``{"observation": vector, "action_mask": int8 vector}``.
``state`` is the live engine state (or None). Agents may read the state's *public*
facts (round index, scores) and use it for information-set sampling; they must never
read a hidden card identity from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardenv.core.actions import ActionTable
from cardenv.core.chance import draw_index
from cardenv.core.observation import ObservationLayout
from cardenv.games.base import CardGameState


@dataclass(frozen=True)
class RulesetInfo:
    """What an agent may know about the game it plays, independent of any deal."""

    name: str
    env_kwargs: dict[str, Any]
    action_table: ActionTable
    layout: ObservationLayout
    num_players: int
    call_kinds: tuple[str, ...]
    config: Any
    state_class: type
    observer_class: type

    def call_action_ids(self) -> np.ndarray:
        """Action ids that end a round by calling (the ones random_no_call avoids)."""
        return np.array([s.id for s in self.action_table.specs if s.kind in self.call_kinds], dtype=np.int64)


class Agent:
    """Base class: seeded generator, game and round hooks, and ``act``."""

    name = "agent"
    # False for agents that read only the action mask: runners then skip building the
    # observation vector for them (see observation_for).
    needs_observation_vector = True
    # False for agents that never read the recent-events pieces (``event_*``,
    # ``events_dropped``): runners may then give them observations with those pieces
    # left at zero, which are cheaper to build (see observation_for).
    needs_recent_events = True

    def __init__(self, info: RulesetInfo, rng: np.random.Generator):
        self.info = info
        self.rng = rng
        self._round_index: int | None = None

    def reset(self) -> None:
        """A new game starts: forget everything."""
        self._round_index = None

    def reseed(self, seed: np.random.SeedSequence | int) -> None:
        """Restart this agent's generator from ``seed``, in place, so that parts sharing
        the generator follow. Runners reseed before each game: a game's play then does
        not depend on the games played before it (or on which process plays it)."""
        self.rng.bit_generator.state = type(self.rng.bit_generator)(seed).state

    def start_round(self) -> None:
        """A new round starts (also at the start of each game): forget the round's memory."""

    def act(self, observation: dict[str, np.ndarray], state: CardGameState | None, seat: int) -> int:
        round_index = self._current_round(observation, state)
        if round_index != self._round_index:
            self._round_index = round_index
            self.start_round()
        action = int(self.choose(observation, state, seat))
        if not observation["action_mask"][action]:
            raise AssertionError(f"{self.name} chose masked-out action {action} ({self.info.action_table.name(action)})")
        return action

    def _current_round(self, observation: dict[str, np.ndarray], state: CardGameState | None) -> int | None:
        return None if state is None else state.round_index

    def choose(self, observation: dict[str, np.ndarray], state: CardGameState | None, seat: int) -> int:
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (worker processes, models)."""


class NoCallAgent(Agent):
    """An agent that never makes the ruleset's call (the action kinds its heuristic names in
    ``call_kinds``): END in 150, Cut! in Cut!, "kaboom" in KABOOM, saying "carte" in carte.
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
a generator: :func:`cardenv.agents.registry.make_agent`, or a runner's own that knows
more names. An agent made of other agents (a search's prior, a policy's guide) is given
one by whoever builds it."""


def any_set(flags: np.ndarray) -> bool:
    """Whether an array of flags (bool, or int8 0/1 like an action mask) has one set: its
    bytes searched for a 1, a tenth of the cost of ``flags.any()`` on arrays this small."""
    return b"\x01" in flags.tobytes()


def uniform_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = mask.nonzero()[0]
    if len(legal) == 0:
        raise ValueError("no legal action to choose from")
    return int(legal[draw_index(rng, len(legal))])


def observation_for(agent: Agent, env, seat: int) -> dict[str, np.ndarray | None]:
    """What ``agent`` gets to act from at ``seat`` of a raw env: the env's observation;
    without the recent events for an agent that does not read them; or only the action
    mask (``"observation": None``) for an agent that needs no more."""
    if not agent.needs_observation_vector:
        return {"observation": None, "action_mask": env.game.legal_action_mask()}
    if not agent.needs_recent_events:
        # Built here, not through env.observe: the env keeps each seat's full observation.
        return {"observation": env.observer.observe(env.game, seat, recent_events=False),
                "action_mask": env.game.legal_action_mask()}
    return env.observe(env.possible_agents[seat])
