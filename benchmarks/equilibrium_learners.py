"""Exploitability against training steps on the mini variants: PPO self-play and magnetic
mirror descent (MMD), the same budget, the same self-play, measured exactly.

    python benchmarks/equilibrium_learners.py                        # every mini variant
    python benchmarks/equilibrium_learners.py --rulesets kaboom_v0 --steps 30000 --record

For each mini variant (``cardenv.MINI_VARIANTS``) and each recipe, ``cardenv train`` (the
library's trainer) trains a policy on the variant by self-play: the other seats play the
learner's newest snapshot (``--snapshot-every`` steps old at most). It trains on the
rewards of ``reward_mode="relative"`` (the mean of the points the others added minus its
own): the zero-sum game whose exploitability OpenSpiel measures. (The env's default,
``"points"``, is the agent's own points alone: a different game, not zero-sum.) The recipes differ only
in MMD's magnet (``magnet_kl``, ``magnet_every``): PPO self-play has none. Every
checkpoint's exploitability is then exact (``agent_exploitability`` with the policy's own
distribution, ``ppo:FILE#sample``): OpenSpiel's mean over the players of what a best
response gains, in points per game. The final models are also measured greedy (their most
likely action, as ``ppo:FILE`` plays). Beside them: the uniform random policy and the
heuristic, and the issue's target, 5% of the uniform policy's exploitability.

With ``--record`` the figures go into ``docs/results/equilibrium_learners.json`` (its page
drawn again) and the curves into ``docs/equilibrium_<ruleset>.png``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

from cardenv import MINI_VARIANTS
from cardenv.adapters.openspiel_policies import agent_exploitability
from cardenv.train.config import TrainConfig
from cardenv.train.trainer import train

sys.path.insert(0, str(Path(__file__).resolve().parent))
import results as results_pages  # noqa: E402  (benchmarks/results.py: the results pages)

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = "equilibrium_learners"
TARGET_SHARE = 0.05  # the target: below 5% of the uniform policy's exploitability


def recipes(args) -> dict[str, dict]:
    """The recipes' own options: PPO self-play has no magnet; MMD has one."""
    return {"ppo_selfplay": {}, "mmd": {"magnet_kl": args.magnet_kl, "magnet_every": args.magnet_every}}


def train_recipe(ruleset: str, options: dict, args, folder: Path) -> tuple[list[tuple[int, Path]], float]:
    """Train one recipe on the mini variant; its checkpoints (steps, file), the final
    model last, and the training's seconds."""
    config = TrainConfig(
        ruleset=ruleset, opponent="selfplay", total_timesteps=args.steps, n_envs=2, vec_env="dummy",
        n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs, learning_rate=args.learning_rate,
        seed=args.seed, output_dir=str(folder),
        env_kwargs={**MINI_VARIANTS[ruleset], "reward_mode": args.reward_mode}, snapshot_every=args.snapshot_every,
        pool_size=1,
        eval_every=0, checkpoint_every=args.steps // args.checkpoints, progress_bar=False,
        ent_coef=args.ent_coef, **options)
    started = time.perf_counter()
    summary = train(config, evaluate=False)
    seconds = time.perf_counter() - started
    checkpoints = sorted((int(re.search(r"_(\d+)_steps", p.name).group(1)), p)
                         for p in (folder / "checkpoints").glob("model_*_steps.zip"))
    final = summary["timesteps"]
    return [*[(steps, path) for steps, path in checkpoints if steps < final], (final, Path(summary["model"]))], seconds


def measure_ruleset(ruleset: str, args) -> dict:
    uniform = agent_exploitability(ruleset, "random")
    heuristic = agent_exploitability(ruleset, "heuristic")
    data = {"ruleset": ruleset, "information_states": uniform.information_states, "reward_mode": args.reward_mode,
            "ppo": {"n_steps": args.n_steps, "n_envs": 2, "batch_size": args.batch_size, "n_epochs": args.n_epochs,
                    "learning_rate": args.learning_rate, "ent_coef": args.ent_coef,
                    "snapshot_every": args.snapshot_every, "pool_size": 1},
            "uniform": uniform.exploitability, "heuristic": heuristic.exploitability,
            "target": TARGET_SHARE * uniform.exploitability, "steps": args.steps, "recipes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in recipes(args).items():
            checkpoints, seconds = train_recipe(ruleset, options, args, Path(tmp) / name)
            curve = []
            for steps, path in checkpoints:
                value = agent_exploitability(ruleset, f"ppo:{path}#sample").exploitability
                curve.append([steps, value])
                print(f"{ruleset} {name} {steps:>7} steps: exploitability {value:.4f}", flush=True)
            greedy = agent_exploitability(ruleset, f"ppo:{checkpoints[-1][1]}").exploitability
            data["recipes"][name] = {"options": options, "curve": curve, "final": curve[-1][1], "greedy": greedy,
                                     "train_seconds": round(seconds, 1)}
            print(f"{ruleset} {name}: final {curve[-1][1]:.4f} (greedy {greedy:.4f}), uniform "
                  f"{data['uniform']:.4f}, heuristic {data['heuristic']:.4f}, target {data['target']:.4f}", flush=True)
    return data


def plot(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for name, recipe in data["recipes"].items():
        steps, values = zip(*recipe["curve"])
        axes.plot(steps, values, marker="o", label=name.replace("_", " "))
    axes.axhline(data["heuristic"], color="grey", linestyle="--", label="heuristic")
    axes.axhline(data["target"], color="black", linestyle=":", label="5% of uniform random")
    axes.set_yscale("log")
    axes.set_xlabel("learner steps")
    axes.set_ylabel("exploitability (points per game)")
    axes.set_title(f"{data['ruleset']} mini variant: exact exploitability")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=sorted(MINI_VARIANTS), choices=sorted(MINI_VARIANTS))
    parser.add_argument("--steps", type=int, default=60_000, help="learner steps of each recipe")
    parser.add_argument("--checkpoints", type=int, default=6, help="checkpoints measured along the way")
    parser.add_argument("--n-steps", type=int, default=256, help="steps per env per rollout (2 envs)")
    parser.add_argument("--batch-size", type=int, default=64, help="minibatch size of the updates")
    parser.add_argument("--n-epochs", type=int, default=10, help="passes over each rollout")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--snapshot-every", type=int, default=2048, help="steps between self-play snapshots")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus of both recipes")
    parser.add_argument("--magnet-kl", type=float, default=1.0, help="MMD: the pull toward the magnet")
    parser.add_argument("--magnet-every", type=int, default=4, help="MMD: updates between moves of the magnet")
    parser.add_argument("--reward-mode", default="relative", choices=("relative", "points"),
                        help="the env's rewards the recipes train on: relative, the zero-sum game whose "
                             "exploitability is measured (OpenSpiel's returns), or points")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true", help="write docs/results/equilibrium_learners.json and "
                                                              "the PNGs")
    args = parser.parse_args(argv)
    for ruleset in args.rulesets:
        data = measure_ruleset(ruleset, args)
        if args.record:
            png = DOCS / f"equilibrium_{ruleset}.png"
            plot(data, png)
            data["png"] = png.name
            results_pages.record(PAGE, f"equilibrium_{ruleset}", PAGE, results_pages.command_line(
                "equilibrium_learners.py", argv), data, title=f"{ruleset} mini variant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
