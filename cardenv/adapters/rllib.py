"""RLlib (Ray's new API stack, the ``rllib`` extra) for every cardenv ruleset.

- :func:`register` makes ``cardenv_<ruleset>`` an RLlib env: the AEC env through RLlib's
  own ``PettingZooEnv`` wrapper (turn-based: each step returns the next agent to act).
- :class:`MaskedPPOTorchRLModule` is PPO's torch module reading cardenv's observation
  dict (``{"observation", "action_mask"}``, PettingZoo's classic keys): illegal actions
  get a logit of about -3.4e38, in exploration, inference and training alike.
- :func:`ppo_config` builds a PPO config with one shared policy for every seat
  (self-play, ``policies="shared"``) or one policy per seat (``policies="per_seat"``).
- :func:`write_metadata` records beside a checkpoint what it was trained on, so that
  ``cardenv eval RULESET --agent rllib:CHECKPOINT`` (:class:`cardenv.agents.rllib.RLlibAgent`)
  can check it.

Tested with ray 2.60 (whose ``ray[rllib]`` pins gymnasium 1.2.2) and torch 2.13.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym

from cardenv.core.extras import require_extra

require_extra("rllib", "cardenv.adapters.rllib")  # one line naming the extra, not a traceback from below

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.tune.registry import register_env

from cardenv.agents.ppo import METADATA_NAME  # the file naming what a model was trained on

SHARED = "shared"
POLICY_MODES = ("shared", "per_seat")


def env_name(ruleset: str) -> str:
    return f"cardenv_{ruleset}"


def make_env(ruleset: str, env_kwargs: dict | None = None) -> PettingZooEnv:
    """The ruleset's wrapped AEC env as an RLlib multi-agent env."""
    from cardenv.envs.base import ruleset_env_api

    _, env, _ = ruleset_env_api(ruleset)
    return PettingZooEnv(env(**(env_kwargs or {})))


def register(ruleset: str) -> str:
    """Register ``cardenv_<ruleset>`` with RLlib (its ``env_config`` holds the env
    options); returns the name."""
    name = env_name(ruleset)
    register_env(name, lambda env_config: make_env(ruleset, dict(env_config)))
    return name


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's torch RLModule for observations ``{"observation": vector, "action_mask":
    int8 vector}``: the networks see the vector, the mask removes illegal actions."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs):
        if not (isinstance(observation_space, gym.spaces.Dict)
                and {"observation", "action_mask"} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with 'observation' and "
                             f"'action_mask', got {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observation"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward_inference(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._mask(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._mask(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        # compute_values (run first, by the GAE connector) has split the observation.
        if isinstance(batch[Columns.OBS], dict):
            mask, batch = self._split(batch)
        else:
            mask = batch["action_mask"]
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            mask, batch = self._split(batch)
            batch["action_mask"] = mask
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _split(batch):
        observation = batch[Columns.OBS]
        batch = dict(batch)
        batch[Columns.OBS] = observation["observation"]
        return observation["action_mask"], batch

    @staticmethod
    def _mask(outputs, mask):
        import torch

        outputs[Columns.ACTION_DIST_INPUTS] = outputs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask.float()), min=FLOAT_MIN)
        return outputs


def shared_mapping(agent_id, episode=None, **kwargs) -> str:
    """Every seat plays the one shared module (self-play)."""
    return SHARED


def per_seat_mapping(agent_id, episode=None, **kwargs) -> str:
    """Each seat plays its own module, named after the agent (``player_k``)."""
    return agent_id


def ppo_config(ruleset: str, env_kwargs: dict | None = None, policies: str = "shared", seed: int = 0,
               hidden: tuple[int, ...] = (256, 256)) -> PPOConfig:
    """A PPO config for ``ruleset``: masked modules, ``policies`` = ``"shared"`` (one
    module for every seat) or ``"per_seat"`` (``player_0`` … ``player_{n-1}``). Change
    resources and training settings on the returned config as usual."""
    from cardenv.envs.info import ruleset_info

    if policies not in POLICY_MODES:
        raise ValueError(f"policies must be one of {', '.join(POLICY_MODES)}, got {policies!r}")
    env_kwargs = dict(env_kwargs or {})
    num_players = ruleset_info(ruleset, **env_kwargs).num_players
    module_ids = [SHARED] if policies == "shared" else [f"player_{p}" for p in range(num_players)]
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": list(hidden)})
    return (
        PPOConfig()
        # RLlib's env check steps an unmasked random action, which the classic wrappers
        # report as an illegal move: the env is checked by cardenv's own tests instead.
        .environment(register(ruleset), env_config=env_kwargs, disable_env_checking=True)
        .multi_agent(policies=set(module_ids),
                     policy_mapping_fn=shared_mapping if policies == "shared" else per_seat_mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in module_ids}))
        .debugging(seed=seed)
    )


def write_metadata(checkpoint: str | Path, ruleset: str, env_kwargs: dict) -> None:
    Path(checkpoint, METADATA_NAME).write_text(json.dumps({"ruleset": ruleset, "env_kwargs": env_kwargs}))
