"""How tournaments and RLlib training scale with workers on this machine.

    python benchmarks/bench_scaling.py [--games 400] [--iterations 3] [--json out.json] [--record]

Measures (1) a tournament (heuristic against three heuristics on onefifty_v0) in one
process, with `workers=2` processes and as Ray tasks on a local 2-CPU cluster, in games
per second; (2) RLlib PPO self-play (shared masked policy) with 1 and 2 env runners, in
env steps sampled per second of training iterations (the first iteration, which builds
everything, is left out). Needs the `rllib` extra. Every tournament must give the same
results; the script checks it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import ray

from cardenv.eval import run_tournament

RULESET = "onefifty_v0"


def tournaments(games: int) -> dict:
    figures = {}
    reference = None
    for label, kwargs in (("1 process", {}), ("2 worker processes", {"workers": 2}),
                          ("Ray, local cluster of 2 CPUs", {"ray_address": "auto"})):
        started = time.perf_counter()
        result = run_tournament(RULESET, "heuristic", ["heuristic"], games, seed=0, **kwargs)
        seconds = time.perf_counter() - started  # start-up included: what a user waits
        if reference is None:
            reference = result.outcomes
        assert result.outcomes == reference, f"{label} played other games"
        figures[label] = {"games": result.games, "seconds": round(seconds, 1),
                          "games_per_second": round(result.games / seconds, 2)}
        print(f"tournament, {label}: {result.games} games in {seconds:.1f}s", flush=True)
    return figures


def rllib(iterations: int, batch: int) -> dict:
    from cardenv.adapters.rllib import ppo_config

    figures = {}
    for runners in (1, 2):
        config = (ppo_config(RULESET, {}, seed=0, hidden=(128, 128))
                  .env_runners(num_env_runners=runners, num_cpus_per_env_runner=1)
                  .learners(num_learners=0)
                  .training(train_batch_size_per_learner=batch, minibatch_size=128, num_epochs=3))
        algo = config.build_algo()
        try:
            first = algo.train()  # building the modules and the first episodes: not counted
            before = first["env_runners"]["num_env_steps_sampled_lifetime"]
            started = time.perf_counter()
            for _ in range(iterations):
                result = algo.train()
            seconds = time.perf_counter() - started
            steps = result["env_runners"]["num_env_steps_sampled_lifetime"] - before
        finally:
            algo.stop()
        figures[f"{runners} env runner(s)"] = {"env_steps": int(steps), "seconds": round(seconds, 1),
                                               "env_steps_per_second": round(steps / seconds, 1)}
        print(f"rllib, {runners} env runner(s): {steps:.0f} env steps in {seconds:.1f}s", flush=True)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--record", action="store_true",
                        help="put the figures into docs/results/speed.json (the scaling table) and redraw speed.md")
    args = parser.parse_args(argv)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        figures = {"tournament": tournaments(args.games), "rllib": rllib(args.iterations, args.batch)}
    finally:
        ray.shutdown()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    print(json.dumps(figures, indent=2))
    if args.record:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import results

        results.record("speed", "scaling", "bench_scaling", results.command_line("bench_scaling.py", argv), figures)


if __name__ == "__main__":
    main()
