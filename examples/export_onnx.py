"""Export policies to ONNX and play them with the agent spec onnx:FILE.

1. The shipped policy of a ruleset (ppo:pretrained, a stable-baselines3 MaskablePPO
   model) exported by cardenv.train.export.export_onnx, checked to play the moves of
   ppo:pretrained, then rated against 3 x heuristic.
2. A plain torch module (random weights, shaped for the ruleset) exported the same way:
   any network from observation vectors to logits plays through onnx:FILE.

    pip install torch==2.13.0 && pip install -e '.[train,onnx-export]'
    python examples/export_onnx.py [RULESET] [--games N]

It prints the share of decisions on which the exported policy agrees with ppo:pretrained
and the microseconds per decision of each (set OPENBLAS_NUM_THREADS=1 on a busy machine:
ppo:pretrained's numpy matrix products otherwise wait for threads).

The exported files can be played from the command line too:

    cardenv eval cut_v0 --agent onnx:runs/onnx/cut_v0_pretrained.onnx --field heuristic
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from torch import nn

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.eval import format_table, run_tournament
from cardenv.train.export import export_onnx


def same_moves(ruleset: str, onnx_spec: str, decisions: int = 300, seed: int = 0) -> tuple[float, float, float]:
    """ppo:pretrained plays every seat for ``decisions`` decisions; at each, the onnx agent
    chooses from the same observation. Returns the share of decisions on which they agree
    and the microseconds per decision of each (ppo, onnx)."""
    info = ruleset_info(ruleset)
    reference = make_agent("ppo:pretrained", info, np.random.default_rng(0))
    exported = make_agent(onnx_spec, info, np.random.default_rng(0))
    env = make_raw_env(ruleset)
    agreed = seen = 0
    seconds = [0.0, 0.0]
    game = seed
    while seen < decisions:
        env.reset(seed=game)
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            start = time.perf_counter()
            action = reference.act(observation, env.game, seat)
            middle = time.perf_counter()
            agreed += action == exported.act(observation, env.game, seat)
            seconds[0] += middle - start
            seconds[1] += time.perf_counter() - middle
            seen += 1
            env.step(action)
        game += 1
    return agreed / seen, 1e6 * seconds[0] / seen, 1e6 * seconds[1] / seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset", nargs="?", default="cut_v0")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--output-dir", default="runs/onnx")
    args = parser.parse_args()
    os.makedirs(args.output_dir, exist_ok=True)
    info = ruleset_info(args.ruleset)

    shipped = export_onnx("pretrained", os.path.join(args.output_dir, f"{args.ruleset}_pretrained.onnx"), args.ruleset)
    agreed, ppo_us, onnx_us = same_moves(args.ruleset, f"onnx:{shipped}")
    print(f"wrote {shipped}; the same move as ppo:pretrained on {agreed:.1%} of its decisions; "
          f"µs per decision: ppo:pretrained {ppo_us:.0f}, onnx {onnx_us:.0f}")

    torch.manual_seed(0)
    plain = nn.Sequential(nn.Linear(info.layout.size, 64), nn.ReLU(), nn.Linear(64, len(info.action_table)))
    untrained = export_onnx(plain, os.path.join(args.output_dir, f"{args.ruleset}_untrained.onnx"), args.ruleset)
    print(f"wrote {untrained} (a torch module with random weights)")

    results = [run_tournament(args.ruleset, spec, ["heuristic"], games=args.games, seed=0)
               for spec in (f"onnx:{shipped}", "ppo:pretrained", f"onnx:{untrained}", f"onnx:{untrained}#sample")]
    print(format_table(results))


if __name__ == "__main__":
    main()
