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

from dataclasses import dataclass
from typing import Any

import numpy as np

from cardenv.core.actions import ActionTable
from cardenv.core.chance import draw_index
from cardenv.core.observation import ObservationLayout


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
    # "none" for an agent that sees only what was revealed since its own last decision
    # and remembers the rest itself (one trained under ``memory="none"``): runners give it
    # that observation whatever the env's memory model (see observation_for). None: the
    # env's own observation.
    memory: str | None = None

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

    def act(self, observation: dict[str, np.ndarray], state: Any, seat: int) -> int:
        round_index = self._current_round(observation, state)
        if round_index != self._round_index:
            self._round_index = round_index
            self.start_round()
        action = int(self.choose(observation, state, seat))
        if not observation["action_mask"][action]:
            raise AssertionError(f"{self.name} chose masked-out action {action} ({self.info.action_table.name(action)})")
        return action

    def _current_round(self, observation: dict[str, np.ndarray], state: Any) -> int | None:
        return None if state is None else state.round_index

    def choose(self, observation: dict[str, np.ndarray], state: Any, seat: int) -> int:
        raise NotImplementedError

    def sampled_distribution(self, observation: dict[str, np.ndarray], state: Any, seat: int) -> np.ndarray | None:
        """The distribution this agent draws its next action from, where it draws from one
        it can state and remembers nothing of the draw (a network played with
        ``#sample``), so that a tabular reading of it is exact; None for any other
        agent. Default: None."""
        return None

    def close(self) -> None:
        """Release resources (worker processes, models)."""


def any_set(flags: np.ndarray) -> bool:
    """Whether an array of flags (bool, or int8 0/1 like an action mask) has one set: its
    bytes searched for a 1, a tenth of the cost of ``flags.any()`` on arrays this small."""
    return b"\x01" in flags.tobytes()


def uniform_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = mask.nonzero()[0]
    if len(legal) == 0:
        raise ValueError("no legal action to choose from")
    return int(legal[draw_index(rng, len(legal))])
