"""Does ``search@BLUEPRINT`` improve its blueprint? Paired games per ruleset, blueprint and field.

    python benchmarks/search_gain.py --rulesets onefifty_v0 --blueprints ppo:pretrained --fields heuristic --games 200
    python benchmarks/search_gain.py --games 400 --worlds 8 --record
    python benchmarks/search_gain.py --rulesets onefifty_v0 --blueprints ppo:pretrained --fields heuristic \
        --env-arg single_round=True --search-option reward=points --search-option z=3

Each cell is ``cardenv compare RULESET search:W@BLUEPRINT BLUEPRINT --field FIELD``: the
search (A) and its blueprint (B) play the same deals in the same seats against three
copies of the field (``blueprint``: the blueprint itself), every generator restarted alike,
so the games differ only from the search's first deviation on. A row gives the paired
differences with 95% t-intervals: the win share A − B, and the gain in points per round
B − A (points are bad in every ruleset: a positive gain is the search scoring fewer); the
games that ended differently; the search's seconds per game and games per hour, and its
milliseconds per decision (the search's tournament time over its decisions, the field's
moves included) with the share of its decisions that searched and that deviated. One
process, one BLAS thread. ``--record`` puts the rows into docs/results/search.json (table
``search_gain``; rows of other cells from earlier runs stay) and redraws search.md.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # noqa: E402  (benchmarks/results.py: the results pages)

import numpy as np  # noqa: E402

from cardenv.agents.blueprint_search import DEFAULT_WORLDS, BlueprintSearchAgent  # noqa: E402
from cardenv.agents.specs import make_agent, parse_spec  # noqa: E402
from cardenv.envs.info import make_raw_env, ruleset_info  # noqa: E402
from cardenv.eval.compare import compare  # noqa: E402
from cardenv.rulesets import ruleset_names  # noqa: E402
from cardenv.train.config import parse_env_args  # noqa: E402

BLUEPRINT_FIELD = "blueprint"  # --fields: three copies of the blueprint itself


def measure(ruleset: str, blueprint: str, field: str, games: int, worlds: int, seed: int,
            env_kwargs: dict | None = None, options: dict | None = None) -> dict:
    """One cell: the search (with ``options`` of :class:`BlueprintSearchAgent` beside its
    worlds) against its blueprint on the same games."""
    searches: list[BlueprintSearchAgent] = []
    search = f"search:{worlds}@{blueprint}"

    def factory(spec, info, rng):
        if spec == search:
            agent = BlueprintSearchAgent(info, rng, blueprint, make_agent, worlds=worlds, **(options or {}))
            searches.append(agent)
            return agent
        return make_agent(spec, info, rng)

    start = time.perf_counter()
    result = compare(ruleset, search, blueprint, field=blueprint if field == BLUEPRINT_FIELD else field,
                     games=games, seed=seed, env_kwargs=env_kwargs, agent_factory=factory)
    seconds = time.perf_counter() - start
    decisions = sum(agent.decisions for agent in searches)
    share, points = result.win_share_difference, result.points_per_round_difference
    return {"ruleset": ruleset, "blueprint": blueprint, "field": field, "worlds": worlds,
            "options": options or {}, "env_kwargs": env_kwargs or {}, "games": result.games,
            "seed": seed, "win_share": [result.a.win_share, result.b.win_share],
            "win_share_difference": share.estimate, "win_share_difference_ci95": list(share.ci95),
            "points_gain": -points.estimate, "points_gain_ci95": [-points.ci95[1], -points.ci95[0]],
            "games_differing": result.games_differing,
            "search_seconds_per_game": result.a.seconds / result.games,
            "ms_per_decision": 1000 * result.a.seconds / max(decisions, 1),
            "searched_share": sum(a.searched for a in searches) / max(decisions, 1),
            "deviation_share": sum(a.deviations for a in searches) / max(decisions, 1),
            "seconds": round(seconds),
            "measured": {"date": datetime.date.today().isoformat(), "commit": results.commit()}}


def cell_key(row: dict) -> tuple:
    """What makes a row its own cell: a later run of the same cell replaces it."""
    return (row["ruleset"], row["blueprint"], row["field"], row["worlds"], sorted(row.get("options", {}).items()),
            sorted(row.get("env_kwargs", {}).items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=ruleset_names(), choices=ruleset_names())
    parser.add_argument("--blueprints", nargs="+", default=["ppo:pretrained", "heuristic"])
    parser.add_argument("--fields", nargs="+", default=["heuristic", BLUEPRINT_FIELD],
                        help=f"agent specs, or {BLUEPRINT_FIELD!r} for the blueprint itself")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS)
    parser.add_argument("--seed", type=int, default=480000)
    parser.add_argument("--search-option", action="append", default=[], metavar="KEY=VALUE",
                        help="an option of the search (threshold, z, max_candidates, reward, belief, confirm)")
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="an env option of every game (single_round=True: games of one round)")
    parser.add_argument("--record", action="store_true", help="write docs/results/search.json and .md")
    args = parser.parse_args(argv)
    for option in ("games", "worlds"):
        if getattr(args, option) < (1 if option == "games" else 0):
            parser.error(f"--{option} must be at least {1 if option == 'games' else 0}, got {getattr(args, option)}")
    try:
        for spec in [*args.blueprints, *(f for f in args.fields if f != BLUEPRINT_FIELD)]:
            parse_spec(spec)
        env_kwargs, options = parse_env_args(args.env_arg), parse_env_args(args.search_option)
        for ruleset in args.rulesets:
            make_raw_env(ruleset, **env_kwargs)
            for blueprint in args.blueprints:
                BlueprintSearchAgent(ruleset_info(ruleset, **env_kwargs), np.random.default_rng(0), blueprint,
                                     make_agent, **options).close()
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)  # a batch of rollouts is a small matrix product: helper threads only wait
    for ruleset in args.rulesets:
        for blueprint in args.blueprints:
            fields = [f for f in args.fields if not (f == BLUEPRINT_FIELD and blueprint in args.fields)]
            for field in fields:  # (three copies of a blueprint named as a field too play once)
                row = measure(ruleset, blueprint, field, args.games, args.worlds, args.seed, env_kwargs, options)
                low, high = row["points_gain_ci95"]
                s_low, s_high = row["win_share_difference_ci95"]
                print(f"{ruleset} search:{args.worlds}@{blueprint} vs 3 x {field}: points/round gain "
                      f"{row['points_gain']:+.2f} [{low:+.2f}, {high:+.2f}], win share {row['win_share_difference']:+.3f} "
                      f"[{s_low:+.3f}, {s_high:+.3f}], {row['games']} games ({row['games_differing']} differ), "
                      f"{row['ms_per_decision']:.0f} ms/decision, {row['seconds']} s", flush=True)
                if args.record:
                    old = results.table(results.load("search"), "search_gain")
                    kept = [r for r in (old["data"]["rows"] if old else []) if cell_key(r) != cell_key(row)]
                    results.record("search", "search_gain", "search_gain", results.command_line("search_gain.py", argv),
                                   {"rows": kept + [row]}, title="search@BLUEPRINT against its blueprint")
    return 0


if __name__ == "__main__":
    sys.exit(main())
