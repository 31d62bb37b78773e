"""How strong every agent is against fields of every other: one table per ruleset.

Each cell is one candidate against three copies (``num_players - 1``) of a field agent,
seat-rotated, with the win share and its 95% Wilson interval (``cardenv eval``'s
tournament, so a cell can be rerun with the command printed beside the table). The
agents: random, random_no_call, heuristic, ismcts at each of ``--budgets``, and the
shipped pretrained policy where the ruleset has one.

    python benchmarks/strength_table.py --rulesets onefifty_v0 --games 400 --search-games 40 \\
        --budgets 10 30 --workers 2 --json strength.json --markdown strength.md

Cells with ismcts on either side play ``--search-games`` games (search costs seconds
per decision; ``--search candidate`` leaves out fields of three searchers, ``--search
none`` leaves ismcts out); the others ``--games``. ``--cell-games`` sets the games of
chosen cells and ``--skip`` leaves cells out (a table of agents that never call plays
every round to the turn cap, which makes some cells far slower than the rest). Results are written to ``--json`` after every
cell, and a rerun with the same ``--json`` keeps the cells already there (same games,
seed and options), so a long table can be built in several sittings. ``--record`` puts
each ruleset's table into docs/results/strength.json and redraws strength.md.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shlex
import sys
import time
from pathlib import Path

from cardenv.agents.pretrained import SHIPPED_VARIANTS, shipped_rulesets
from cardenv.envs.info import ruleset_info
from cardenv.eval.tournament import run_tournament
from cardenv.rulesets import ruleset_names
from cardenv.train.config import parse_env_args

CHEAP_AGENTS = ("random", "random_no_call", "heuristic")


def agents_for(ruleset: str, budgets: list[int], search: bool = True) -> list[str]:
    agents = [*CHEAP_AGENTS, *(f"ismcts:{b}" for b in budgets if search)]
    for variant in SHIPPED_VARIANTS:
        if ruleset in shipped_rulesets(variant):
            agents.append(f"ppo:{variant}")
    return agents


def cell_key(ruleset: str, candidate: str, field: str) -> str:
    return f"{ruleset} | {candidate} | {field}"


def fmt(share: float, low: float, high: float) -> str:
    return f"{share:.3f} [{low:.3f}, {high:.3f}]"


def markdown(results: dict, ruleset: str, agents: list[str], env_kwargs: dict) -> str:
    n = ruleset_info(ruleset, **env_kwargs).num_players
    caption = (f"Win share of the row's agent against {n - 1} × the column's agent (fair share {1 / n:.2f}), "
               "95% Wilson interval; games per cell in the last table.")

    def matrix(corner: str, text) -> list[str]:
        lines = [f"| {corner} | " + " | ".join(agents) + " |", "|---|" + "---|" * len(agents)]
        for candidate in agents:
            cells = [results.get(cell_key(ruleset, candidate, field)) for field in agents]
            lines.append(f"| {candidate} | " + " | ".join(text(r) if r else "–" for r in cells) + " |")
        return lines

    lines = [f"### {ruleset}", "", caption, "",
             *matrix("candidate \\ field", lambda r: fmt(r["win_share"], *r["ci95"])), "",
             *matrix("candidate \\ field (games, seconds)", lambda r: f"{r['games']}, {r['seconds']:.0f} s")]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rulesets", nargs="+", default=ruleset_names(), choices=ruleset_names())
    p.add_argument("--games", type=int, default=400, help="games per cell without search")
    p.add_argument("--search-games", type=int, default=40, help="games per cell with ismcts on either side")
    p.add_argument("--budgets", type=int, nargs="+", default=[10, 30],
                   help="ismcts budgets (simulations per decision), one agent each")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="env option for every game, e.g. single_round=True (repeatable)")
    p.add_argument("--search", choices=("all", "candidate", "none"), default="all",
                   help="ismcts in rows and columns (all), in rows only (candidate: no field of three searchers), "
                        "or not at all (none)")
    p.add_argument("--skip", action="append", default=[], metavar="PATTERN",
                   help="leave out the cells whose 'CANDIDATE vs FIELD' matches this shell pattern, e.g. "
                        "'ismcts:* vs ppo:pretrained' (repeatable)")
    p.add_argument("--cell-games", action="append", default=[], metavar="PATTERN=N",
                   help="play N games in the cells whose 'CANDIDATE vs FIELD' matches PATTERN (repeatable; "
                        "the first match counts), e.g. '* vs ppo:pretrained=20'")
    p.add_argument("--json", help="results file, read first (cells already there are kept) and written after each cell")
    p.add_argument("--markdown", help="write the tables here")
    p.add_argument("--record", action="store_true",
                   help="put each ruleset's table into docs/results/strength.json and redraw strength.md")
    args = p.parse_args(argv)
    env_kwargs = parse_env_args(args.env_arg)
    cell_games = []
    for item in args.cell_games:
        pattern, sep, count = item.rpartition("=")
        if not sep or not count.isdigit() or int(count) < 1:
            p.error(f"--cell-games expects PATTERN=N with N a positive integer, got {item!r}")
        cell_games.append((pattern, int(count)))
    options = "".join(f" --env-arg {pair}" for pair in args.env_arg)

    results: dict = {}
    if args.json and Path(args.json).exists():
        results = json.loads(Path(args.json).read_text())
    for ruleset in args.rulesets:
        agents = agents_for(ruleset, args.budgets, args.search != "none")
        for candidate in agents:
            for field in agents:
                searching = candidate.startswith("ismcts") or field.startswith("ismcts")
                if field.startswith("ismcts") and args.search != "all" or (
                        candidate.startswith("ismcts") and args.search == "none"):
                    continue
                pair = f"{candidate} vs {field}"
                if any(fnmatch.fnmatchcase(pair, pattern) for pattern in args.skip):
                    continue
                games = next((n for pattern, n in cell_games if fnmatch.fnmatchcase(pair, pattern)),
                             args.search_games if searching else args.games)
                key = cell_key(ruleset, candidate, field)
                done = results.get(key)
                if (done and done["games_asked"] == games and done["seed"] == args.seed
                        and done["env_kwargs"] == env_kwargs):
                    continue
                started = time.perf_counter()
                r = run_tournament(ruleset, candidate, [field], games, seed=args.seed, env_kwargs=env_kwargs,
                                   workers=args.workers)
                results[key] = {"ruleset": ruleset, "candidate": candidate, "field": field, "games": r.games,
                                "games_asked": games, "seed": args.seed, "env_kwargs": env_kwargs, "win_share": r.win_share, "ci95": list(r.win_share_ci95),
                                "points_per_round": r.mean_points_per_round,
                                "seconds": time.perf_counter() - started,
                                "command": f"cardenv eval {ruleset} --agent {candidate} --field {field} "
                                           f"--games {games} --seed {args.seed}{options}"}
                print(f"{key}: {fmt(r.win_share, *r.win_share_ci95)} ({r.games} games, "
                      f"{results[key]['seconds']:.0f} s)", flush=True)
                if args.json:
                    Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    tables = "\n".join(markdown(results, ruleset, agents_for(ruleset, args.budgets, args.search != "none"),
                               env_kwargs) for ruleset in args.rulesets)
    command = shlex.join(["python", "benchmarks/strength_table.py", *(sys.argv[1:] if argv is None else argv)])
    tables = f"<!-- generated by: {command} -->\n\n{tables}"
    print(tables)
    if args.markdown:
        Path(args.markdown).write_text(tables)
    if args.record:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import results as results_pages

        for ruleset in args.rulesets:
            cells = {f"{cell['candidate']} | {cell['field']}": cell for cell in results.values()
                     if cell["ruleset"] == ruleset}
            data = {"ruleset": ruleset, "num_players": ruleset_info(ruleset, **env_kwargs).num_players,
                    "agents": agents_for(ruleset, args.budgets, args.search != "none"), "cells": cells}
            results_pages.record("strength", f"table_{ruleset}", "strength_matrix", command, data,
                                 title=f"Every agent against every field: {ruleset}")


if __name__ == "__main__":
    main()
