"""MaskablePPO with pulls toward a frozen policy: the warm start's clone
(``kl_to_warm_start``, see :mod:`cardenv.train.warm_start`) and the magnet of magnetic
mirror descent (Sokota et al., "A Unified Approach to Reinforcement Learning, Quantal
Response Equilibria, and Two-Player Zero-Sum Games", ICLR 2023).

Magnetic mirror descent regularises each policy update toward a *magnet* policy: its
update maximises the expected return minus ``magnet_kl`` × KL(policy ‖ magnet), with a
proximity term to the previous policy (PPO's clipping plays that part here). With the
magnet fixed it converges to a regularised (quantal response) equilibrium of a two-player
zero-sum game; moving the magnet to the current policy every ``magnet_every`` updates
moves that equilibrium toward a Nash equilibrium. Here the pull is one extra pass of
gradient steps over the rollout after PPO's update, as the clone's pull is.

torch and sb3-contrib are imported when the functions run (the ``train`` extra).
"""

from __future__ import annotations

import functools

import numpy as np

from cardenv.train.warm_start import actor_parameters


def kl_to_teacher(teacher, policy, observations, action_masks):
    """Mean KL(teacher ‖ policy) of the two masked action distributions (gradient flows
    into ``policy`` only)."""
    import torch

    with torch.no_grad():
        target = teacher.get_distribution(observations, action_masks=action_masks).distribution
    current = policy.get_distribution(observations, action_masks=action_masks).distribution
    # Masked logits are normalised log-probabilities with illegal actions at a large
    # negative constant in both, where the teacher's probability is 0.
    return (target.probs * (target.logits - current.logits)).sum(dim=-1).mean()


def kl_to_magnet(magnet, policy, observations, action_masks):
    """Mean KL(policy ‖ magnet) of the two masked action distributions (gradient flows
    into ``policy`` only): magnetic mirror descent's pull."""
    import torch

    with torch.no_grad():
        target = magnet.get_distribution(observations, action_masks=action_masks).distribution
    current = policy.get_distribution(observations, action_masks=action_masks).distribution
    # Illegal actions: probability 0 in the policy, so they add nothing.
    return (current.probs * (current.logits - target.logits)).sum(dim=-1).mean()


def _frozen_copy(policy):
    import copy

    frozen = copy.deepcopy(policy)
    frozen.set_training_mode(False)
    for p in frozen.parameters():
        p.requires_grad_(False)
    return frozen


@functools.cache
def regularised_ppo_class():
    """MaskablePPO with the warm start's guards (critic warm-up, KL to the clone) and the
    magnet of magnetic mirror descent (Sokota et al., ICLR 2023: after every update, a
    descent of ``magnet_coef`` × KL(policy ‖ magnet) over the rollout; the magnet moves to
    the current policy every ``magnet_every`` updates). A model saved from it loads with
    plain ``MaskablePPO.load`` (the policy is the usual one; the frozen clone and magnet
    are not saved)."""
    import torch
    from sb3_contrib import MaskablePPO

    class RegularisedMaskablePPO(MaskablePPO):
        teacher = None
        kl_coef = 0.0
        critic_warmup_steps = 0
        magnet = None
        magnet_coef = 0.0
        magnet_every = 0
        updates = 0

        def keep_close_to_clone(self, kl_coef: float, critic_warmup_steps: int) -> None:
            """Freeze a copy of the current (cloned) policy as the KL target."""
            self.kl_coef = float(kl_coef)
            self.critic_warmup_steps = int(critic_warmup_steps)
            if self.kl_coef > 0:
                self.teacher = _frozen_copy(self.policy)

        def pull_toward_magnet(self, magnet_coef: float, magnet_every: int) -> None:
            """Freeze a copy of the current policy as the magnet (magnetic mirror descent)."""
            self.magnet_coef, self.magnet_every = float(magnet_coef), int(magnet_every)
            if self.magnet_coef > 0:
                self.magnet = _frozen_copy(self.policy)

        def _excluded_save_params(self) -> list[str]:
            return [*super()._excluded_save_params(), "teacher", "magnet"]

        def train(self) -> None:
            actor = actor_parameters(self.policy)
            warming_up = self.num_timesteps <= self.critic_warmup_steps
            for p in actor:
                p.requires_grad_(not warming_up)
            try:
                super().train()
            finally:
                for p in actor:
                    p.requires_grad_(True)
            self.logger.record("train/actor_frozen", float(warming_up))
            if self.teacher is not None and not warming_up:
                coef = self.kl_coef * self._current_progress_remaining
                kl = self._descend(lambda obs, masks: kl_to_teacher(self.teacher, self.policy, obs, masks), coef)
                self.logger.record("train/kl_to_warm_start", kl)
                self.logger.record("train/kl_coef", coef)
            if self.magnet is not None and not warming_up:
                kl = self._descend(lambda obs, masks: kl_to_magnet(self.magnet, self.policy, obs, masks),
                                   self.magnet_coef)
                self.logger.record("train/kl_to_magnet", kl)
                self.updates += 1
                if self.magnet_every and self.updates % self.magnet_every == 0:
                    # (the weights alone: after an update the policy holds tensors deepcopy refuses)
                    self.magnet.load_state_dict(self.policy.state_dict())

        def _descend(self, kl_of, coef: float) -> float:
            """One pass over the rollout's minibatches descending ``coef`` × ``kl_of``;
            returns the mean KL before each step."""
            self.policy.set_training_mode(True)
            kls = []
            for rollout in self.rollout_buffer.get(self.batch_size):
                kl = kl_of(rollout.observations, rollout.action_masks)
                kls.append(float(kl.detach()))
                if coef > 0:
                    self.policy.optimizer.zero_grad()
                    (coef * kl).backward()
                    torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                    self.policy.optimizer.step()
            self.policy.set_training_mode(False)
            return float(np.mean(kls))

    return RegularisedMaskablePPO
