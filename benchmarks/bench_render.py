"""What a drawn frame costs: milliseconds per ``render()`` of every ruleset's ``env()`` in
``"rgb_array"`` mode, beside its ``"ansi"`` text and a step of play, and beside PettingZoo's
own drawn classic games measured in the same run (``connect_four_v3`` and
``texas_holdem_v4``, ``render_mode="rgb_array"``, as their users render them).

    python benchmarks/bench_render.py --frames 60 --repeats 3 --record

Each ruleset's env is seeded once and played by uniformly random legal moves; a frame is
rendered after each move (the render alone is timed). Repetitions of all rows are
interleaved and the best of each is kept. A step without rendering costs nothing extra
(``render_mode=None`` never draws), so the step column is the play's own cost.
``--record`` puts the table into docs/results/speed.json and speed.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

import cardenv
from cardenv.rulesets import ruleset_names

sys.path.insert(0, str(Path(__file__).resolve().parent))
import results
from bench_envs import write_json

PEERS = ("connect_four_v3", "texas_holdem_v4")


def time_play(env, frames: int, seed: int, text=None) -> dict[str, float]:
    """ms per step and per rgb_array frame (and per ``text(env)``, when given) along random
    legal play of ``env``, over ``frames`` steps; env.close() at the end."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = {"ms_per_step": 0.0, "ms_per_frame": 0.0, **({"ms_per_text": 0.0} if text else {})}
    timed = 0
    while timed < frames:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        for key, call in (("ms_per_step", lambda action=action: env.step(action)), ("ms_per_frame", env.render),
                          *((("ms_per_text", lambda: text(env)),) if text else ())):
            start = time.perf_counter()
            call()
            totals[key] += time.perf_counter() - start
        timed += 1
    env.close()
    return {key: 1000 * total / frames for key, total in totals.items()}


def ansi_text(env) -> str:
    """What ``render_mode="ansi"`` returns for the player to act."""
    raw = env.unwrapped
    return raw.game.render_text(raw.agent_name_mapping[raw.agent_selection], raw.config.memory)


def time_ruleset(ruleset: str, frames: int, seed: int) -> dict[str, float]:
    return time_play(getattr(cardenv, ruleset).env(render_mode="rgb_array"), frames, seed, ansi_text)


def time_peer(name: str, frames: int, seed: int) -> dict[str, float]:
    """A PettingZoo classic game, as its users render it."""
    import importlib

    return time_play(importlib.import_module(f"pettingzoo.classic.{name}").env(render_mode="rgb_array"), frames, seed)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=60, help="frames per row and repetition")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    parser.add_argument("--record", action="store_true", help="write docs/results/speed.json and .md")
    args = parser.parse_args(argv)
    rows: dict[str, dict[str, float]] = {}
    for repeat in range(args.repeats):
        measured = {f"cardenv {r}": time_ruleset(r, args.frames, args.seed + repeat) for r in ruleset_names()}
        measured.update({f"pettingzoo {p}": time_peer(p, args.frames, args.seed + repeat) for p in PEERS})
        for name, figures in measured.items():
            best = rows.setdefault(name, figures)
            for key, value in figures.items():
                best[key] = min(best[key], value)
    versions = {package: metadata.version(package) for package in ("pygame", "pettingzoo")}
    result = {"frames": args.frames, "repeats": args.repeats, "versions": versions, "rows": rows}
    for name, figures in rows.items():
        print(f"{name:<28} " + "  ".join(f"{key} {value:.3f}" for key, value in figures.items()))
    write_json(args.json, result)
    if args.record:
        results.record("speed", "render", "bench_render", results.command_line("bench_render.py", argv), result,
                       title="What a drawn frame costs")
    return result


if __name__ == "__main__":
    main()
