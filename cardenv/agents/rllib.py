"""A policy trained with RLlib (Ray's new API stack, the ``rllib`` extra) as a cardenv
agent: ``rllib:CHECKPOINT`` or ``rllib:CHECKPOINT#MODULE`` in any agent spec plays a
checkpointed module (:class:`RLlibAgent`). Training with RLlib is
:mod:`cardenv.adapters.rllib`."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np

from cardenv.core.extras import require_extra

require_extra("rllib", "cardenv.agents.rllib")  # one line naming the extra, not a traceback from below

from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from cardenv.agents.ppo import METADATA_NAME  # the file naming what a model was trained on
from cardenv.core.agent import Agent, RulesetInfo


def checkpoint_metadata(checkpoint: str | Path) -> dict | None:
    """What :func:`write_metadata` recorded beside a checkpoint (ruleset, env options)."""
    path = Path(checkpoint, METADATA_NAME)
    return json.loads(path.read_text()) if path.is_file() else None


def module_path(checkpoint: str | Path, module_id: str | None = None) -> Path:
    """The directory of one module inside an algorithm checkpoint (the only one, or
    ``module_id``)."""
    modules = Path(checkpoint, "learner_group", "learner", "rl_module")
    found = sorted(p.name for p in modules.iterdir() if p.is_dir()) if modules.is_dir() else []
    if not found:
        raise ValueError(f"{str(checkpoint)!r} is not an RLlib algorithm checkpoint (no {modules} with modules)")
    if module_id is None:
        if len(found) > 1:
            raise ValueError(f"{str(checkpoint)!r} holds modules {', '.join(found)}: name one, as in "
                             f"'rllib:{checkpoint}#{found[0]}'")
        module_id = found[0]
    if module_id not in found:
        raise ValueError(f"{str(checkpoint)!r} has no module {module_id!r}; it has {', '.join(found)}")
    return modules / module_id


class RLlibAgent(Agent):
    """Plays a checkpointed RLlib module: the most likely legal action (``explore=False``)."""

    name = "rllib"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, checkpoint: str, module_id: str | None = None):
        super().__init__(info, rng)
        import torch

        self.module = RLModule.from_checkpoint(str(module_path(checkpoint, module_id)))
        self.module.eval()
        self._torch = torch
        expected = (info.layout.size,)
        space = self.module.observation_space
        shape = tuple(space["observation"].shape) if isinstance(space, gym.spaces.Dict) else tuple(space.shape)
        if shape != expected or self.module.action_space.n != len(info.action_table):
            raise ValueError(f"{checkpoint} was trained for observations {shape} and {self.module.action_space.n} "
                             f"actions, but {info.name} with {info.env_kwargs or 'default options'} has {expected} "
                             f"and {len(info.action_table)}")

    def choose(self, observation, state, seat) -> int:
        torch = self._torch
        mask = observation["action_mask"]
        batch = {Columns.OBS: {"observation": torch.as_tensor(observation["observation"][None], dtype=torch.float32),
                               "action_mask": torch.as_tensor(mask[None])}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        logits = np.where(mask > 0, logits, -np.inf)  # the module masks already; never trust a float
        return int(np.argmax(logits))
