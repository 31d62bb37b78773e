"""Agents that play a trained MaskablePPO policy (torch and sb3-contrib are imported
only when one is built).

``PPOAgent`` plays one model, from a file or already loaded; by default it takes the
most likely legal action. ``PolicyPoolAgent`` (self-play opponents) holds a pool of
frozen snapshots, picks one per game and samples its actions. Sampling uses the agent's
own seeded generator, never torch's.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from cardenv.agents.base import Agent, RulesetInfo, uniform_choice


METADATA_NAME = "cardenv.json"
"""A file inside a saved model's zip: the ruleset and env options it was trained on."""


def model_metadata(path: str) -> dict | None:
    """What ``cardenv train`` recorded in a model zip (ruleset, env options), or None for
    a model saved otherwise. Reads the zip only: no torch."""
    import json
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            if METADATA_NAME not in archive.namelist():
                return None
            return json.loads(archive.read(METADATA_NAME))
    except (OSError, zipfile.BadZipFile, ValueError):
        return None


def load_model(path: str):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu")


def masked_probabilities(model, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy's action probabilities with the mask applied (zero where illegal)."""
    import torch

    policy = model.policy
    with torch.no_grad():
        obs_tensor = torch.as_tensor(observation, dtype=torch.float32).reshape(1, -1)
        distribution = policy.get_distribution(obs_tensor, action_masks=mask.astype(bool).reshape(1, -1))
        probs = distribution.distribution.probs[0].numpy().astype(np.float64)
    probs = np.where(mask > 0, probs, 0.0)
    return probs / probs.sum()


def _check_model_fits(model, info: RulesetInfo, where: str) -> None:
    expected = (info.layout.size,)
    if tuple(model.observation_space.shape) != expected or model.action_space.n != len(info.action_table):
        raise ValueError(
            f"{where} was trained for observations {tuple(model.observation_space.shape)} and "
            f"{model.action_space.n} actions, but {info.name} with {info.env_kwargs or 'default options'} has "
            f"{expected} and {len(info.action_table)}"
        )


class PPOAgent(Agent):
    name = "ppo"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, model, deterministic: bool = True):
        super().__init__(info, rng)
        self.model = load_model(model) if isinstance(model, str) else model
        _check_model_fits(self.model, info, model if isinstance(model, str) else "the model")
        self.deterministic = deterministic

    def choose(self, observation, state, seat) -> int:
        mask = observation["action_mask"]
        probs = masked_probabilities(self.model, observation["observation"], mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))


class PolicyPoolAgent(Agent):
    """Plays a snapshot drawn uniformly from the newest ``pool_size`` snapshots, one
    draw per game; uniform random until the first snapshot arrives."""

    name = "selfplay"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, pool_size: int = 5):
        super().__init__(info, rng)
        self.pool_size = pool_size
        self.snapshots: list[str] = []
        self._models: OrderedDict[str, object] = OrderedDict()
        self._current = None

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-self.pool_size:]
        for stale in [p for p in self._models if p not in self.snapshots]:
            del self._models[stale]

    def reset(self) -> None:
        super().reset()
        if self.snapshots:
            path = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
            if path not in self._models:
                self._models[path] = load_model(path)
            self._current = self._models[path]

    def choose(self, observation, state, seat) -> int:
        mask = observation["action_mask"]
        if self._current is None:
            return uniform_choice(mask, self.rng)
        probs = masked_probabilities(self._current, observation["observation"], mask)
        return int(self.rng.choice(len(probs), p=probs))
