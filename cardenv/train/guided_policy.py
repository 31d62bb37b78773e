"""MaskablePPO's policy with a guide: logits = network + weight × the guide's one-hot.

The observation ends with the one-hot of the action a guide agent (the ruleset's
heuristic) would take (:class:`cardenv.agents.guide.Guide`). Adding ``weight`` times it
to the action logits makes the untrained policy play the guide's move with high
probability (the action net starts near zero), so PPO refines a competent player rather
than starting from random play; the weight is learned with the rest, so training may
lower it where the guide is wrong. Saved models load with ``MaskablePPO.load`` as long
as this module can be imported.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


class GuidedMaskablePolicy(MaskableActorCriticPolicy):
    def __init__(self, observation_space, action_space, lr_schedule, guide_weight: float = 4.0, **kwargs):
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)
        self.initial_guide_weight = float(guide_weight)
        self.guide_weight = nn.Parameter(th.tensor(self.initial_guide_weight))
        # The parent built the optimizer before the weight existed.
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["guide_weight"] = self.initial_guide_weight
        return data

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def _guided_distribution(self, obs: th.Tensor, latent_pi: th.Tensor,
                             action_masks: np.ndarray | th.Tensor | None) -> MaskableDistribution:
        guide_one_hot = obs[..., -int(self.action_space.n):].float()
        logits = self.action_net(latent_pi) + self.guide_weight * guide_one_hot
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def forward(self, obs: th.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._guided_distribution(obs, latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), log_prob

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | None = None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._guided_distribution(obs, latent_pi, action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: th.Tensor, action_masks: np.ndarray | None = None) -> MaskableDistribution:
        features = super(MaskableActorCriticPolicy, self).extract_features(obs, self.pi_features_extractor)
        return self._guided_distribution(obs, self.mlp_extractor.forward_actor(features), action_masks)
