"""How exploitable an agent is: train a best response against three copies of it.

For every target agent, :func:`cardenv.train.best_response.train_best_response`: a fresh
MaskablePPO (``cardenv train``, the same recipe and budget for every target) learns in one
seat against copies of the target in all the others; its greedy play (the most likely
action) is then evaluated against the same field with a 95% Wilson interval, beside the
target's own share on the same deals. A higher share means the target is easier to exploit.
The share is a lower bound on what a best response could reach: a longer or better
training finds more.

The recipe (``--recipe``): ``guided`` (default) is docs/agents.md's guided recipe (the
heuristic's move is an input; PPO learns where to deviate), the one that found the
old guided policies' weakness; ``plain`` is PPO from scratch with the same flags.

    python benchmarks/best_response.py --rulesets onefifty_v0 cut_v0 \\
        --targets heuristic ppo:pretrained ppo:pretrained_guided --timesteps 151552 --games 1000 \\
        --json best_response.json --markdown best_response.md --record

Each target's run folder is kept under ``--runs`` (learning curve, model). Results go to
``--json`` after every target, and a rerun with the same ``--json`` keeps the targets
already measured with the same budget, recipe and seed. ``--record`` puts the rows into
docs/results/best_response.json (a row of the same target, recipe, seed, games and options
replaced), each with its command, date and commit, and redraws best_response.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from cardenv.train.best_response import RECIPES, check_best_response, train_best_response
from cardenv.train.config import parse_env_args


def measure(ruleset: str, target: str, timesteps: int, recipe: str, seed: int, games: int, runs: Path,
            env_kwargs: dict | None = None) -> dict:
    """One target's row: :func:`cardenv.train.best_response.train_best_response`, its run
    folder kept under ``runs``."""
    safe = target.replace(":", "_").replace("/", "_")
    result = train_best_response(ruleset, target, timesteps=timesteps, recipe=recipe, seed=seed, games=games,
                                 output_dir=runs / f"{ruleset}-{safe}", env_kwargs=env_kwargs, overwrite=True)
    return {"ruleset": ruleset, "target": target, "timesteps": result.timesteps, "recipe": recipe, "seed": seed,
            "env_kwargs": result.env_kwargs, "games": result.games,
            "win_share": result.win_share, "ci95": list(result.win_share_ci95),
            "target_share": result.target_share, "gain": result.gain, "gain_ci95": list(result.gain_ci95),
            "points_per_round": result.points_per_round, "call_rate": result.call_rate,
            "seconds": round(result.train_seconds + result.eval_seconds, 1)}


def markdown(rows: list[dict], command: str) -> str:
    lines = [f"`{command}`", "",
             "| ruleset | target (3 copies) | best response's win share [95% Wilson] | games | pts/round | "
             "steps | recipe | minutes |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        low, high = r["ci95"]
        lines.append(f"| {r['ruleset']} | {r['target']} | {r['win_share']:.3f} [{low:.3f}, {high:.3f}] | "
                     f"{r['games']} | {r['points_per_round']:.2f} | {r['timesteps']:,} | {r['recipe']} | "
                     f"{r['seconds'] / 60:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=["onefifty_v0", "cut_v0"])
    parser.add_argument("--targets", nargs="+", default=["heuristic", "ppo:pretrained"],
                        help="agent specs to measure (each in every other seat)")
    parser.add_argument("--timesteps", type=int, default=151_552, help="the best response's training budget")
    parser.add_argument("--games", type=int, default=1000, help="evaluation games per target")
    parser.add_argument("--recipe", choices=RECIPES, default="guided")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", default="runs/best_response", help="folder of the best responses' runs")
    parser.add_argument("--json", help="results file (kept and extended across reruns)")
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="env option for every run and evaluation, e.g. memory=none (repeatable)")
    parser.add_argument("--record", action="store_true",
                        help="put the rows into docs/results/best_response.json and redraw best_response.md")
    args = parser.parse_args(argv)
    try:
        env_kwargs = parse_env_args(args.env_arg)
        for ruleset in args.rulesets:
            for target in args.targets:
                check_best_response(ruleset, target, args.timesteps, args.recipe, args.seed, args.games, env_kwargs)
    except (TypeError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    json_path = Path(args.json) if args.json else None
    rows: list[dict] = json.loads(json_path.read_text()) if json_path and json_path.exists() else []
    command = "python benchmarks/best_response.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    for ruleset in args.rulesets:
        for target in args.targets:
            done = [r for r in rows if (r["ruleset"], r["target"], r["recipe"], r["seed"], r["games"],
                                        r["env_kwargs"]) == (ruleset, target, args.recipe, args.seed, args.games,
                                                             env_kwargs) and r["timesteps"] >= args.timesteps]
            if done:
                continue
            row = measure(ruleset, target, args.timesteps, args.recipe, args.seed, args.games, Path(args.runs),
                          env_kwargs)
            rows.append(row)
            low, high = row["ci95"]
            print(f"{ruleset} vs 3 × {target}: best response {row['win_share']:.3f} [{low:.3f}, {high:.3f}], "
                  f"{target} itself {row['target_share']:.3f} ({row['seconds'] / 60:.1f} min)", flush=True)
            if json_path:
                json_path.write_text(json.dumps(rows, indent=2) + "\n")
    measured = [r for r in rows if r["ruleset"] in args.rulesets and r["target"] in args.targets]
    table = markdown(measured, command)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)
    if args.record:
        record_rows(measured, command)
    return 0


def record_rows(measured: list[dict], command: str) -> None:
    """The rows into the best responses' results page, each with the command, date and commit."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import results

    def key(row: dict) -> tuple:
        return (row["ruleset"], row["target"], row["recipe"], row["seed"], row["games"],
                json.dumps(row["env_kwargs"], sort_keys=True))

    page = results.load("best_response")
    entry = results.table(page, "best_responses")
    if entry is None:
        entry = {"id": "best_responses", "title": "Best responses to the agents", "kind": "best_response",
                 "command": "python benchmarks/best_response.py --rulesets RULESET --targets TARGET --timesteps N "
                            "--games N (each row's own command in its note)",
                 "measured": {"date": "", "machine": results.machine()}, "notes": "", "data": {"rows": []}}
        page["tables"].append(entry)
    stamp = {"date": __import__("datetime").date.today().isoformat(), "commit": results.commit()}
    new = {key(r): {**r, "note": f"`{command}`, {stamp['date']}, commit {stamp['commit']}"} for r in measured}
    entry["data"]["rows"] = [new.pop(key(r), r) for r in entry["data"]["rows"]] + list(new.values())
    entry["measured"] = {**entry["measured"], "date": stamp["date"], "machine": results.machine()}
    results.save("best_response", page)


if __name__ == "__main__":
    sys.exit(main())
