"""Warm starts for MaskablePPO: behaviour cloning of an agent, and a KL pull toward the clone.

``cardenv train --warm-start heuristic`` plays tables of the given agent, records every
decision as (observation, action mask, the agent's action), and trains the policy's actor
on them by masked cross-entropy before PPO starts: the network then plays like that agent
from the observation alone (no agent runs inside it at play time). PPO fine-tuning then
starts from competent play instead of random play. Two guards keep PPO from destroying
the clone early (what fine-tuning does to skills in states it does not revisit soon):

* ``critic_warmup_steps``: the first steps train the value network only (the actor's
  parameters get no gradient, so the clone plays unchanged while the critic learns its
  values);
* ``kl_to_warm_start``: after every PPO update, gradient steps on the rollout's states
  that pull the policy toward the frozen clone, weighted ``coef × the progress remaining``
  (kickstarting's teacher term, annealed to zero by the end of the run); the PPO class
  with both guards is :func:`cardenv.train.regularised_ppo.regularised_ppo_class`.

torch and sb3-contrib are imported when the functions run (the ``train`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenv.agents.guide import policy_observation_space
from cardenv.agents.specs import make_agent
from cardenv.core import validation
from cardenv.envs.frame_stack import FrameHistory
from cardenv.envs.info import make_raw_env, ruleset_info


@dataclass
class Demonstrations:
    """Decisions of a teacher agent: the deciding seat's observation vector, its legal
    action mask and the teacher's action. Observations are stored as float16 (the
    observation pieces are small integers and fractions; halving the memory lets a few
    hundred thousand decisions of a 4,413-float observation fit), and each decision's
    frame once: a frame stack is the rows ``history`` names, put together when read
    (sixteen stacked copies of 400,000 observations of 1,526 floats would take 20 GB)."""

    frames: np.ndarray  # (n + 1, obs_size) float16: each decision's observation, then the padding frame
    history: np.ndarray  # (n, frame_stack - 1) int64: rows of the seat's previous decisions, oldest first
    masks: np.ndarray  # (n, num_actions) bool
    actions: np.ndarray  # (n,) int64
    games: int

    def __len__(self) -> int:
        return len(self.actions)

    def stacked(self, indices) -> np.ndarray:
        """The observations of the decisions ``indices`` as the policy sees them (each
        one's frame stack, oldest frame first), float32."""
        indices = np.asarray(indices)
        rows = np.concatenate([self.history[indices], indices[:, None]], axis=1)
        return self.frames[rows].reshape(len(indices), -1).astype(np.float32)

    @property
    def observations(self) -> np.ndarray:
        """Every decision's stacked observation (float16), built whole: for small sets."""
        return self.stacked(np.arange(len(self))).astype(np.float16)


def collect_demonstrations(ruleset: str, teacher: str, decisions: int, seed: int = 0, env_kwargs: dict | None = None,
                           explore: float = 0.05, frame_stack: int = 1) -> Demonstrations:
    """Play tables of ``teacher`` (an agent spec in every seat) until ``decisions``
    decisions are recorded. With probability ``explore`` the table plays a uniformly
    random legal action instead of the teacher's, the teacher's choice still being the
    label (DAgger's idea: states off the teacher's path, labelled by the teacher), so the
    clone also learns to recover from moves the teacher would not make. With
    ``frame_stack`` > 1 each recorded observation is the deciding seat's frame stack
    (its observations at its last decisions, as the frame-stacked policy will see them).
    """
    validation.integer("decisions", decisions, 1)
    validation.integer("frame_stack", frame_stack, 1)
    validation.real("explore", explore, 0, 1)
    env_kwargs = dict(env_kwargs or {})
    info = ruleset_info(ruleset, **env_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    rng = np.random.default_rng(seed)
    teachers = [make_agent(teacher, info, np.random.default_rng(rng.integers(2**63))) for _ in range(info.num_players)]
    num_actions = len(info.action_table)
    padding = FrameHistory(policy_observation_space(info, guided=False), 2).padding
    frames = np.empty((decisions + 1, len(padding)), dtype=np.float16)
    frames[decisions] = padding
    history = np.empty((decisions, frame_stack - 1), dtype=np.int64)
    masks = np.empty((decisions, num_actions), dtype=bool)
    actions = np.empty(decisions, dtype=np.int64)
    n = games = 0
    while n < decisions:
        env.reset(seed=int(rng.integers(2**31)))
        for agent in teachers:
            agent.reset()
        earlier = [[decisions] * (frame_stack - 1) for _ in range(info.num_players)]  # the padding row
        state = env.game
        games += 1
        while not state.is_terminal and n < decisions:
            seat = state.current_player
            name = env.possible_agents[seat]
            observation = env.observe(name)
            action = teachers[seat].act(observation, state, seat)
            frames[n] = observation["observation"]
            history[n] = earlier[seat]
            if frame_stack > 1:
                earlier[seat] = [*earlier[seat][1:], n]
            masks[n] = observation["action_mask"] > 0
            actions[n] = action
            n += 1
            if explore and rng.random() < explore:
                action = int(rng.choice(np.flatnonzero(masks[n - 1])))
            env.step(action)
            env.step_done_agents()
    return Demonstrations(frames, history, masks, actions, games)


def actor_parameters(policy) -> list:
    """The parameters of the policy's actor: its feature extractor (its own, or the one
    it shares with the critic: a recurrent frame encoder's weights are the actor's
    memory), the policy MLP and the action layer (the critic's own are left alone)."""
    modules = [policy.pi_features_extractor, policy.mlp_extractor.policy_net, policy.action_net]
    params = [p for m in modules for p in m.parameters()]
    extra = getattr(policy, "guide_weight", None)
    return params + ([extra] if extra is not None else [])


def clone_into(policy, demos: Demonstrations, epochs: int = 8, batch_size: int = 512, learning_rate: float = 1e-3,
               entropy_weight: float = 1e-3, held_out: float = 0.05, seed: int = 0, log=None) -> dict:
    """Train ``policy``'s actor (a MaskableActorCriticPolicy) to choose the demonstrated
    actions: masked cross-entropy (the mask renormalises over the legal actions) with a
    small entropy bonus, Adam. Returns the agreement (the policy's most likely action
    equals the teacher's) on a held-out share of the decisions, and on the training set."""
    import torch

    validation.integer("epochs", epochs, 1)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(demos))
    n_test = max(1, int(len(demos) * held_out))
    test, train = order[:n_test], order[n_test:]
    params = actor_parameters(policy)
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    policy.set_training_mode(True)

    def batch(indices):
        obs = torch.as_tensor(demos.stacked(indices))
        return obs, torch.as_tensor(demos.masks[indices]), torch.as_tensor(demos.actions[indices])

    def agreement(indices) -> float:
        agree = 0
        with torch.no_grad():
            for start in range(0, len(indices), 4096):
                obs, mask, act = batch(indices[start:start + 4096])
                probs = policy.get_distribution(obs, action_masks=mask).distribution.probs
                agree += int((probs.argmax(dim=1) == act).sum())
        return agree / len(indices)

    for epoch in range(epochs):
        rng.shuffle(train)
        # The learning rate falls linearly to a tenth: late epochs polish, not jump.
        for group in optimizer.param_groups:
            group["lr"] = learning_rate * (1 - 0.9 * epoch / max(1, epochs - 1))
        total = 0.0
        for start in range(0, len(train), batch_size):
            obs, mask, act = batch(train[start:start + batch_size])
            distribution = policy.get_distribution(obs, action_masks=mask)
            loss = -distribution.log_prob(act).mean() - entropy_weight * distribution.entropy().mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            total += float(loss.detach()) * len(act)
        if log is not None:
            log(f"warm start: epoch {epoch + 1}/{epochs}, loss {total / len(train):.4f}, "
                f"held-out agreement {agreement(test):.4f}")
    policy.set_training_mode(False)
    return {"decisions": len(demos), "games": demos.games, "held_out_agreement": agreement(test),
            "train_agreement": agreement(train[:len(test) * 4])}
