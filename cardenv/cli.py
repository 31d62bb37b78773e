"""The ``cardenv`` command: ``cardenv eval`` (tournaments) and ``cardenv train``
(MaskablePPO; needs the ``train`` extra)."""

from __future__ import annotations

import argparse
import json
import sys


def _add_eval(sub) -> None:
    p = sub.add_parser("eval", help="tournament: one agent against a field, seats rotated, seeded",
                       description="Play N games of a candidate agent against a field of agents. Agents: random, "
                                   "random_no_call, heuristic, ismcts[:simulations], ppo:MODEL.zip.")
    p.add_argument("ruleset", help="e.g. onefifty_v0")
    p.add_argument("--agent", required=True, help="candidate agent spec (e.g. heuristic, ismcts:100, ppo:model.zip)")
    p.add_argument("--field", nargs="+", default=["random_no_call"],
                   help="one spec for every other seat, or one spec per other seat")
    p.add_argument("--games", type=int, default=2000, help="games (rounded up to a multiple of the player count)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. num_players=3 (repeatable)")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-' for stdout)")
    p.add_argument("--no-progress", action="store_true")


def _run_eval(args) -> int:
    from cardenv.eval import format_table, run_tournament
    from cardenv.train.config import parse_env_args

    if any(spec.startswith("ppo") for spec in [args.agent, *args.field]):
        import torch

        torch.set_num_threads(1)  # batch-1 inference: extra threads only spin (see trainer.py)

    result = run_tournament(args.ruleset, args.agent, args.field, args.games, seed=args.seed,
                            env_kwargs=parse_env_args(args.env_arg), progress=not args.no_progress)
    print(format_table([result]))
    print(f"({result.games} games in {result.seconds:.1f}s; seed {result.seed}; win share = 1/k per game won "
          f"jointly by k players; interval: {result.interval_method})")
    if args.json == "-":
        print(result.to_json())
    elif args.json:
        with open(args.json, "w") as f:
            f.write(result.to_json() + "\n")
    return 0


def _add_train(sub) -> None:
    from cardenv.train.config import add_train_arguments

    p = sub.add_parser("train", help="train a MaskablePPO policy for one seat (needs the 'train' extra)",
                       description="Train MaskablePPO on a single-seat view of a cardenv env.")
    add_train_arguments(p)


def _run_train(args) -> int:
    from cardenv.train.config import config_from_args
    from cardenv.train.trainer import train

    summary = train(config_from_args(args))
    print(json.dumps({k: v for k, v in summary.items() if k != "evaluation_table"}, indent=2, default=str))
    print(summary["evaluation_table"])
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardenv", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_eval(sub)
    _add_train(sub)
    args = parser.parse_args(argv)
    if args.command == "eval":
        return _run_eval(args)
    return _run_train(args)


if __name__ == "__main__":
    sys.exit(main())
