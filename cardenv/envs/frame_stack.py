"""Frame stacks that keep the action mask, for policies that must remember on their own
(``memory="none"``). SuperSuit's frame stacks and Gymnasium's ``FrameStackObservation``
refuse the ``{"observation": vector, "action_mask": vector}`` observation; these stack the
vector and keep the mask as it is now.

A frame is an agent's observation vector at one of its decisions. The stacked vector is
the frames of the agent's ``num_frames - 1`` previous decisions, oldest first, then its
observation now: ``num_frames`` times as long. Frames from before the episode's start are
zeros (within the space's bounds). Reading an observation never changes the stack; a
decision does (an action the agent takes while its mask allows one), and ``reset``
clears every agent's frames.

- :class:`FrameStackWrapper`: a PettingZoo AEC wrapper (``cardenv.<ruleset>.env()`` ...).
- :class:`ParallelFrameStackWrapper`: a PettingZoo parallel wrapper (``parallel_env()``).
- :class:`SingleSeatFrameStack`: a Gymnasium wrapper of the single-seat view, whose
  observation is the vector alone; ``action_masks()`` is passed through.

:func:`frame_stack` picks the one that fits the env it is given.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper

from cardenv.core import validation
from cardenv.envs.base import ReadsRawEnv


class FrameHistory:
    """One agent's frames of its previous decisions (``num_frames - 1`` of them)."""

    def __init__(self, frame_space: spaces.Box, num_frames: int):
        if not isinstance(frame_space, spaces.Box) or len(frame_space.shape) != 1:
            raise TypeError(f"a frame stack needs observation vectors (a 1-D Box), got {frame_space}")
        self.padding = np.clip(np.zeros(frame_space.shape, frame_space.dtype), frame_space.low, frame_space.high)
        self.frames = np.tile(self.padding, (num_frames - 1, 1))
        self.space = spaces.Box(np.tile(frame_space.low, num_frames), np.tile(frame_space.high, num_frames),
                                dtype=frame_space.dtype)

    def clear(self) -> None:
        self.frames[:] = self.padding

    def commit(self, frame: np.ndarray) -> None:
        if len(self.frames):
            self.frames[:-1] = self.frames[1:]
            self.frames[-1] = frame

    def stacked(self, current: np.ndarray) -> np.ndarray:
        return np.concatenate([self.frames.ravel(), current])


class AgentFrames:
    """Every agent's :class:`FrameHistory`, for observations ``{"observation", "action_mask"}``."""

    def __init__(self, agents: list[str], observation_space: Any, num_frames: int):
        self.num_frames = num_frames = validation.integer("num_frames", num_frames, 1)
        self.histories: dict[str, FrameHistory] = {}
        self.spaces: dict[str, spaces.Dict] = {}
        for agent in agents:
            space = observation_space(agent)
            if not isinstance(space, spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
                raise TypeError(f"a masked frame stack needs observations {{'observation', 'action_mask'}}, got {space}")
            history = FrameHistory(space["observation"], num_frames)
            self.histories[agent] = history
            self.spaces[agent] = spaces.Dict({"observation": history.space, "action_mask": space["action_mask"]})

    def clear(self) -> None:
        for history in self.histories.values():
            history.clear()

    def commit(self, agent: str, observation: dict[str, np.ndarray]) -> None:
        self.histories[agent].commit(observation["observation"])

    def stacked(self, agent: str, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"observation": self.histories[agent].stacked(observation["observation"]),
                "action_mask": observation["action_mask"]}


class FrameStackWrapper(ReadsRawEnv, BaseWrapper):
    """A PettingZoo AEC env whose observations carry the last ``num_frames`` frames of
    their agent (see the module's docs). The AEC bookkeeping is the raw env's, as in
    cardenv's own wrappers (PettingZoo before 1.24.3 keeps a copy in every wrapper,
    made by the base class's reset and step, which this wrapper's own do not call)."""

    def __init__(self, env: AECEnv, num_frames: int = 4):
        super().__init__(env)
        self._frames = AgentFrames(env.possible_agents, env.observation_space, num_frames)
        self.num_frames = self._frames.num_frames

    def observation_space(self, agent: str) -> spaces.Space:
        space = self._frames.spaces.get(agent) if isinstance(agent, str) else None
        return space if space is not None else self.env.observation_space(agent)  # the env's error

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._frames.clear()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._frames.stacked(agent, self.env.observe(agent))

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        decided_on = None if action is None else self.env.observe(agent)  # None: a done agent's step
        self.env.step(action)
        if decided_on is not None:
            self._frames.commit(agent, decided_on)


class ParallelFrameStackWrapper(BaseParallelWrapper):
    """A PettingZoo parallel env whose observations carry the last ``num_frames`` frames
    of their agent (see the module's docs). An agent decides in a step when it is given
    an action while its mask allows one (in ``parallel_env()``, the active agent)."""

    def __init__(self, env: ParallelEnv, num_frames: int = 4):
        super().__init__(env)
        self._frames = AgentFrames(env.possible_agents, env.observation_space, num_frames)
        self.num_frames = self._frames.num_frames
        self._observations: dict[str, dict[str, np.ndarray]] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        space = self._frames.spaces.get(agent) if isinstance(agent, str) else None
        return space if space is not None else self.env.observation_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)  # older PettingZoo copies agents there
        self._frames.clear()
        self._observations = observations
        return self._stacked(observations), infos

    def step(self, actions: dict):
        deciding = [agent for agent in actions
                    if agent in self._observations and self._observations[agent]["action_mask"].any()]
        observations, rewards, terminations, truncations, infos = super().step(actions)
        for agent in deciding:
            self._frames.commit(agent, self._observations[agent])
        self._observations = observations
        return self._stacked(observations), rewards, terminations, truncations, infos

    def _stacked(self, observations: dict) -> dict:
        return {agent: self._frames.stacked(agent, observation) for agent, observation in observations.items()}


class SingleSeatFrameStack(gym.Wrapper):
    """The single-seat view (:class:`cardenv.train.SingleSeatEnv`, or anything with a
    vector observation) with the learner's last ``num_frames`` frames as its observation;
    every observation it returns but the episode's last is a decision. ``action_masks()``
    is the wrapped env's, for sb3-contrib's MaskablePPO."""

    def __init__(self, env: gym.Env, num_frames: int = 4):
        super().__init__(env)
        self.num_frames = validation.integer("num_frames", num_frames, 1)
        self._frames = FrameHistory(env.observation_space, self.num_frames)
        self.observation_space = self._frames.space
        self._observation: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observation, info = self.env.reset(seed=seed, options=options)
        self._frames.clear()
        self._observation = observation
        return self._frames.stacked(observation), info

    def step(self, action: Any):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._frames.commit(self._observation)
        self._observation = observation
        return self._frames.stacked(observation), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()


def frame_stack(env: Any, num_frames: int = 4) -> Any:
    """``env`` with a masked frame stack of its kind: :class:`FrameStackWrapper` for an AEC
    env, :class:`ParallelFrameStackWrapper` for a parallel env, :class:`SingleSeatFrameStack`
    for a Gymnasium env."""
    if isinstance(env, AECEnv):
        return FrameStackWrapper(env, num_frames)
    if isinstance(env, ParallelEnv):
        return ParallelFrameStackWrapper(env, num_frames)
    if isinstance(env, gym.Env):
        return SingleSeatFrameStack(env, num_frames)
    raise TypeError(f"env must be a PettingZoo AEC or parallel env or a Gymnasium env, got {validation.show(env)}")
