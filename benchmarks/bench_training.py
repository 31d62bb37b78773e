"""Training throughput of the single-seat view, as a fraction of what PPO alone allows.

For each field of opponents, in one process, on ``SingleSeatEnv`` (the single-seat view
of the Python rules engine, the other seats' agents playing in Python):

- **µs per learner step** of the view alone (a learner that picks a random legal action,
  the view seeded once and reset at every episode's end), the best of the repetitions;
- **learner steps per second of MaskablePPO** (cardenv's default ``TrainConfig``:
  network, envs, rollout and update sizes, ``DummyVecEnv``) on the view, and the same
  PPO on a null env with the view's spaces (a constant observation and a constant mask of
  eight actions: the cheapest env there is, so its rate is the limit the policy and the
  update set), in segments that take turns, the median segment of each; the **ratio** of
  the two is the share of that limit training reaches.

    python benchmarks/bench_training.py                       # onefifty_v0, both fields
    python benchmarks/bench_training.py --segments 6 --segment-steps 8192 --json training.json
    python benchmarks/bench_training.py --record              # into docs/results/speed.json and speed.md

Machines are noisy: compare rows of one run only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from cardenv.train import SingleSeatEnv

sys.path.insert(0, str(Path(__file__).resolve().parent))
import results  # noqa: E402
from bench_envs import write_json  # noqa: E402  (the benchmarks' shared helpers)


def view_step_microseconds(ruleset: str, opponents: str, steps: int, repeats: int) -> float:
    """The best of ``repeats`` runs of ``steps`` learner steps, µs per step."""
    view = SingleSeatEnv(ruleset, opponents)
    rng = np.random.default_rng(0)
    view.reset(seed=0)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            _, _, terminated, truncated, _ = view.step(int(rng.choice(np.flatnonzero(view.action_masks()))))
            if terminated or truncated:
                view.reset()
        best = min(best, (time.perf_counter() - start) / steps * 1e6)
    return best


def null_env_class():
    import gymnasium as gym

    class NullEnv(gym.Env):
        """The view's spaces; a constant observation and mask, episodes of 100 steps."""

        def __init__(self, like):
            self.observation_space, self.action_space = like.observation_space, like.action_space
            rng = np.random.default_rng(0)
            self._observation = rng.random(self.observation_space.shape).astype(np.float32)
            self._mask = np.zeros(self.action_space.n, dtype=bool)
            self._mask[rng.choice(self.action_space.n, 8, replace=False)] = True
            self._t = 0

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self._t = 0
            return self._observation, {}

        def step(self, action):
            self._t += 1
            return self._observation, 0.0, self._t >= 100, False, {}

        def action_masks(self):
            return self._mask

    return NullEnv


def ppo_rates(ruleset: str, fields: list[str], segments: int, segment_steps: int) -> dict:
    """Median learner steps per second of the same PPO on the view against each field of
    opponents and on the null env, their segments taking turns."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardenv.train.config import TrainConfig

    torch.set_num_threads(1)
    config = TrainConfig()
    null_env = null_env_class()

    def model(make):
        return MaskablePPO("MlpPolicy", DummyVecEnv([make] * config.n_envs), learning_rate=config.learning_rate,
                           n_steps=config.n_steps, batch_size=config.batch_size, n_epochs=config.n_epochs,
                           gamma=config.gamma, gae_lambda=config.gae_lambda, ent_coef=config.ent_coef,
                           policy_kwargs={"net_arch": list(config.net_arch)}, seed=0, verbose=0)

    like = SingleSeatEnv(ruleset, "random_no_call")
    models = {"null env": model(lambda: null_env(like))}
    for opponents in fields:
        models[opponents] = model(lambda opponents=opponents: SingleSeatEnv(ruleset, opponents))
    rates: dict[str, list[float]] = {name: [] for name in models}
    for name, m in models.items():  # one rollout and update each before the clock starts
        m.learn(config.n_envs * config.n_steps, reset_num_timesteps=False)
    for _ in range(segments):
        for name, m in models.items():
            start = time.perf_counter()
            m.learn(segment_steps, reset_num_timesteps=False)
            rates[name].append(segment_steps / (time.perf_counter() - start))
    return {name: statistics.median(values) for name, values in rates.items()}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="onefifty_v0")
    parser.add_argument("--opponents", nargs="+", default=["random_no_call", "heuristic"])
    parser.add_argument("--view-steps", type=int, default=5000, help="learner steps per run of the view alone")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the view alone (the best is kept)")
    parser.add_argument("--segments", type=int, default=4, help="PPO segments per model (0: no PPO rows)")
    parser.add_argument("--segment-steps", type=int, default=4096, help="learner steps per PPO segment")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--record", action="store_true",
                        help="put the figures into docs/results/speed.json (the training table) and redraw speed.md")
    args = parser.parse_args(argv)
    fields = list(args.opponents)
    result: dict = {"ruleset": args.ruleset, "view_us_per_step": {}, "ppo_steps_per_second": {}, "ratio": {}}
    for opponents in fields:
        result["view_us_per_step"][opponents] = view_step_microseconds(
            args.ruleset, opponents, args.view_steps, args.repeats)
    if args.segments:
        rates = ppo_rates(args.ruleset, fields, args.segments, args.segment_steps)
        result["ppo_steps_per_second"] = rates
        result["ratio"] = {name: rate / rates["null env"] for name, rate in rates.items() if name != "null env"}
    print(f"| {args.ruleset}: opponents | µs per learner step (view alone) | PPO learner steps/s | "
          "ratio to the null env |")
    print("|---|---|---|---|")
    for name, microseconds in result["view_us_per_step"].items():
        rate = result["ppo_steps_per_second"].get(name)
        ratio = result["ratio"].get(name)
        print(f"| {name} | {microseconds:.1f} | {'-' if rate is None else f'{rate:,.0f}'} | "
              f"{'-' if ratio is None else f'{ratio:.2f}'} |")
    if args.segments:
        print(f"| null env | - | {result['ppo_steps_per_second']['null env']:,.0f} | 1.00 |")
    write_json(args.json, result)
    if args.record:
        results.record("speed", "training", "bench_training", results.command_line("bench_training.py", argv), result)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
