"""Solve the mini variants exactly with OpenSpiel and measure our agents against them.

    python benchmarks/openspiel_mini.py                     # every mini variant
    python benchmarks/openspiel_mini.py --ruleset cut_v0 --iterations 300

For each mini variant (cardenv.MINI_VARIANTS): the histories of its whole tree
(``get_all_states``, chance and terminal nodes included), OpenSpiel's perfect-recall
check, CFR+ (C++, on the ``cached_tree`` transform) with its exploitability curve, and the
exact exploitability of the uniform random policy, our heuristic and our searches
(``cardenv.adapters.openspiel_policies.agent_exploitability``: the agent's action at every
information state; for ismcts and search@BLUEPRINT, the frequencies of ``--ismcts-samples`` searches). Writes the figures into
``docs/results/openspiel_mini.json`` (and redraws its page, ``docs/results/openspiel_mini.md``)
and the curves to ``docs/openspiel_cfr_<ruleset>.png``. Exploitability here is OpenSpiel's: the mean over
the players of what a best response gains against the policy, in points.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.integration_tests import api_test
from open_spiel.python.algorithms import get_all_states

import cardenv.adapters.openspiel as cardenv_openspiel
from cardenv import MINI_VARIANTS
from cardenv.adapters.openspiel_policies import agent_exploitability

sys.path.insert(0, str(Path(__file__).resolve().parent))
import results as results_pages  # noqa: E402  (benchmarks/results.py: the results pages)

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = "openspiel_mini"  # docs/results/openspiel_mini.json and .md


def count_histories(game) -> dict:
    start = time.perf_counter()
    states = get_all_states.get_all_states(game, depth_limit=-1, include_terminals=True,
                                           include_chance_states=True, to_string=lambda s: s.history_str())
    seconds = time.perf_counter() - start
    kinds = {"chance": 0, "decision": 0, "terminal": 0}
    infosets = set()
    for state in states.values():
        if state.is_terminal():
            kinds["terminal"] += 1
        elif state.is_chance_node():
            kinds["chance"] += 1
        else:
            kinds["decision"] += 1
            infosets.add(state.information_state_string())
    return {"histories": len(states), **kinds, "information_states": len(infosets), "seconds": round(seconds, 1)}


def solve(game_name: str, iterations: int) -> dict:
    start = time.perf_counter()
    cached = pyspiel.load_game(f"cached_tree(game={game_name}())")
    solver = pyspiel.CFRPlusSolver(cached)
    solver.evaluate_and_update_policy()
    build = time.perf_counter() - start
    uniform = pyspiel.exploitability(cached, pyspiel.UniformRandomPolicy(cached))
    checkpoints = sorted({int(x) for x in np.geomspace(1, iterations, 30)})
    curve = []
    done, solve_seconds = 1, 0.0
    for target in checkpoints:
        t = time.perf_counter()
        while done < target:
            solver.evaluate_and_update_policy()
            done += 1
        solve_seconds += time.perf_counter() - t
        curve.append((done, pyspiel.exploitability(cached, solver.average_policy())))
        value = curve[-1][1]
        print(f"  CFR+ {done:5d} iterations: exploitability {value:.5f} ({value / uniform:.2%} of uniform)", flush=True)
    return {"uniform_exploitability": uniform, "curve": curve, "first_iteration_and_cache_seconds": round(build, 1),
            "cfr_plus_seconds": round(solve_seconds, 1), "iterations": done, "final": curve[-1][1],
            "final_relative_to_uniform": curve[-1][1] / uniform}


def plot(ruleset: str, result: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    iterations, values = zip(*result["cfr"]["curve"])
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(iterations, values, label="CFR+ average policy")
    ax.axhline(result["cfr"]["uniform_exploitability"], color="grey", ls="--", label="uniform random")
    ax.axhline(result["cfr"]["uniform_exploitability"] / 100, color="grey", ls=":", label="1% of uniform random")
    for (name, value), colour in zip(result.get("agents", {}).items(), ("tab:orange", "tab:green", "tab:red")):
        ax.axhline(max(value, 1e-6), ls="-.", lw=1, label=name, color=colour)
    ax.set_xlabel("CFR+ iterations")
    ax.set_ylabel("exploitability (points)")
    ax.set_title(f"{cardenv_openspiel.game_name(ruleset, mini=True)}: "
                 f"{result['tree']['histories']:,} histories")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def measure_agents(ruleset: str, args, result: dict) -> None:
    """The exact exploitability of each of ``--agents``, into ``result["agents"]``
    (:func:`cardenv.adapters.openspiel_policies.agent_exploitability`)."""
    for entry in filter(None, args.agents.split(",")):
        label, _, spec = entry.rpartition("=")
        start = time.perf_counter()
        samples = args.ismcts_samples if spec.startswith(("ismcts", "search")) else 1
        value = agent_exploitability(ruleset, spec, seed=0, samples=samples).exploitability
        label = label or (spec if samples == 1 else f"{spec} ({samples} searches per state)")
        result.setdefault("agents", {})[label] = value
        result.setdefault("measured_now", []).append(label)
        print(f"  {label}: exploitability {value:.4f} ({time.perf_counter() - start:.0f} s)", flush=True)


def markdown_table(results: dict) -> str:
    """The table of the mini variants (the results page's), from the saved figures."""
    return "\n".join(results_pages.render_openspiel_mini(results))


def load_figures() -> dict:
    """The saved figures, by ruleset (the data of the results page's table)."""
    entry = results_pages.table(results_pages.load(PAGE), "mini")
    return entry["data"] if entry else {}


def save(ruleset: str, result: dict, argv: list[str] | None, agents_only: bool = False) -> None:
    """``result`` into the saved figures, read again (a run of another variant may have
    written them meanwhile), its curve drawn and the results page redrawn. A run of
    ``--agents-only`` keeps the table's command and date (those of its trees and CFR+) and
    notes its own command and date beside the agents it measured."""
    measured = result.pop("measured_now", [])
    results = load_figures()
    if result.get("cfr") == results.get(ruleset, {}).get("cfr"):
        # The same solution: keep the agents another run measured on it meanwhile.
        result["agents"] = {**results[ruleset].get("agents", {}), **result.get("agents", {})}
    results[ruleset] = result
    plot(ruleset, result, DOCS / f"openspiel_cfr_{ruleset}.png")
    command = results_pages.command_line("openspiel_mini.py", argv)
    if not agents_only:
        results_pages.record(PAGE, "mini", "openspiel_mini", command, results, title="The mini variants")
        return
    page = results_pages.load(PAGE)
    entry = results_pages.table(page, "mini")
    entry["data"] = results
    prefix = f"- {ruleset}'s {', '.join(measured)}:"
    kept = [old for old in entry.get("notes", "").splitlines() if old and not old.startswith(prefix)]
    entry["notes"] = "\n".join([*kept, f"{prefix} `{command}` ({datetime.date.today().isoformat()}, commit "
                                        f"{results_pages.commit()})."])
    results_pages.save(PAGE, page)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", choices=sorted(MINI_VARIANTS), action="append")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--agents", default="heuristic,ismcts:50",
                        help="agent specs, comma-separated; LABEL=SPEC names one in the figures")
    parser.add_argument("--agents-only", action="store_true",
                        help="measure only --agents, keeping the saved tree and CFR+ figures")
    parser.add_argument("--ismcts-samples", type=int, default=4, help="searches per information state (ismcts, search)")
    parser.add_argument("--skip-recall-check", action="store_true")
    parser.add_argument("--redraw", action="store_true",
                        help="from the saved figures: print the docs' table, draw the curves again, and stop")
    args = parser.parse_args(argv)
    results = load_figures()
    if args.redraw:
        print(markdown_table(results))
        for ruleset, result in results.items():
            plot(ruleset, result, DOCS / f"openspiel_cfr_{ruleset}.png")
        return
    for ruleset in args.ruleset or sorted(MINI_VARIANTS):
        name = cardenv_openspiel.game_name(ruleset, mini=True)
        game = pyspiel.load_game(name)
        print(name, flush=True)
        if args.agents_only:
            result = results[ruleset]
            measure_agents(ruleset, args, result)
            save(ruleset, result, argv, agents_only=True)
            continue
        result = {"options": MINI_VARIANTS[ruleset], "tree": count_histories(game)}
        print("  tree", result["tree"], flush=True)
        if not args.skip_recall_check:
            start = time.perf_counter()
            api_test._assert_is_perfect_recall(game)
            result["perfect_recall_check_seconds"] = round(time.perf_counter() - start, 1)
            print("  perfect recall: checked on the full tree", flush=True)
        result["cfr"] = solve(name, args.iterations)
        result["agents"] = {}
        save(ruleset, result, argv)  # before the agents, whose searches can take long
        measure_agents(ruleset, args, result)
        save(ruleset, result, argv)


if __name__ == "__main__":
    main()
