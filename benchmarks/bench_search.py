"""Simulations per second of the ismcts search on every ruleset, at fixed budgets.

For each ruleset and budget: one ismcts in seat 0 against heuristic opponents, the env
seeded once, played until the search has simulated in ``--decisions`` decisions; the
simulations it ran per second of its own decision time, and its milliseconds per
searched decision (decisions it played without simulating are not counted). Every row
runs in a subprocess of its own, so ``--baseline PATH`` (a checkout of older code, e.g.
a git worktree) measures that code's ``ismcts:N`` in the same run: the repetitions of all
rows are interleaved, the best of each is kept, and the ratio to the baseline is printed.
Only ratios within one run mean anything on a busy machine.

    python benchmarks/bench_search.py
    python benchmarks/bench_search.py --baseline ../cardenv-old --budgets 100 --decisions 10 --json search.json
    python benchmarks/bench_search.py --baseline ../cardenv-old --budgets 100 --decisions 10 --record

``--record`` puts the figures into docs/results/search.json and redraws search.md.

Rows: ``ismcts:N`` (heuristic rollouts to the round's end), ``ismcts:N/static`` (the
turn judged by the sampled world's hand totals, no rollout), and with the shipped policy
as prior ``ismcts:N@ppo:pretrained`` (rollouts, the policy in the searcher's seat) and
``ismcts:N/value@ppo:pretrained`` (the turn judged by the policy's value function where it
ends) and ``ismcts:N/next_value@ppo:pretrained`` (the value at the searcher's next
decision, the others' replies played by the heuristic); these three need the ``train``
extra and are skipped without it. The peer row is OpenSpiel's
Python ``ISMCTSBot`` (random rollouts) on our OpenSpiel game of the ruleset, seat 0,
the other seats playing uniformly random legal moves; it needs open_spiel and is skipped
without it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

RULESETS = ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0")
SEARCHES = ("ismcts:{budget}", "ismcts:{budget}/static", "ismcts:{budget}@ppo:pretrained",
            "ismcts:{budget}/value@ppo:pretrained", "ismcts:{budget}/next_value@ppo:pretrained")
BASELINE_SEARCH = "ismcts:{budget}"  # the spec older code understands
PEER = "openspiel ISMCTSBot:{budget}"


def measure_search(ruleset: str, spec: str, decisions: int, seed: int = 0) -> dict:
    """(simulations per second, ms per searched decision) of ``spec`` in seat 0."""
    import numpy as np

    from cardenv.agents import make_agent, make_raw_env, ruleset_info
    from cardenv.agents.base import observation_for

    info = ruleset_info(ruleset)
    env = make_raw_env(ruleset)
    env.reset(seed=seed)
    search = make_agent(spec, info, np.random.default_rng(seed + 1))
    agents = [search] + [make_agent("heuristic", info, np.random.default_rng(seed + 2 + i))
                         for i in range(info.num_players - 1)]
    for agent in agents:
        agent.reset()
    simulations = [0]
    simulate = search._simulate

    def counted(*args):
        simulations[0] += 1
        return simulate(*args)

    search._simulate = counted  # an instance attribute: the class is untouched
    seconds, searched = 0.0, 0
    while searched < decisions:
        state = env.game
        if state.is_terminal:
            env.reset()  # the env is seeded once: later games follow from its generator
            for agent in agents:
                agent.reset()
            continue
        seat = state.current_player
        observation = observation_for(agents[seat], env, seat)
        if seat == 0:
            before, start = simulations[0], time.perf_counter()
            action = search.act(observation, state, seat)
            if simulations[0] > before:
                seconds += time.perf_counter() - start
                searched += 1
        else:
            action = agents[seat].act(observation, state, seat)
        env.step(action)
        env.step_done_agents()
    return {"simulations_per_second": simulations[0] / seconds, "ms_per_decision": 1000 * seconds / searched,
            "simulations": simulations[0], "decisions": searched}


def measure_openspiel(ruleset: str, budget: int, decisions: int, seed: int = 0) -> dict:
    """The same figures for OpenSpiel's ISMCTSBot on ``cardenv_<ruleset>``."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import cardenv.adapters.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game(f"cardenv_{ruleset}")
    rng, resample_rng = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + 2)), uct_c=2.0,
                           max_simulations=budget, random_state=np.random.RandomState(seed + 3))
    bot.set_resampler(lambda state, player: state.resample_for(player, resample_rng))
    seconds, searched, state = 0.0, 0, game.new_initial_state()
    while searched < decisions:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.current_player() == 0 and len(state.legal_actions()) > 1:
            start = time.perf_counter()
            action = bot.step(state)
            seconds += time.perf_counter() - start
            searched += 1
            state.apply_action(action)
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    return {"simulations_per_second": budget * searched / seconds, "ms_per_decision": 1000 * seconds / searched,
            "simulations": budget * searched, "decisions": searched}


def run_row(code: str | None, ruleset: str, spec: str, decisions: int) -> dict | str:
    """One row's figures, measured in a subprocess importing cardenv from ``code`` (None:
    this checkout); a string says why the row could not be measured."""
    root = Path(code).resolve() if code else Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", ruleset, spec, str(decisions)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", nargs="+", default=list(RULESETS), choices=RULESETS)
    parser.add_argument("--budgets", nargs="+", type=int, default=[100, 1000], help="simulations per decision")
    parser.add_argument("--decisions", type=int, default=10, help="searched decisions per row and repetition")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved repetitions; the best is kept")
    parser.add_argument("--baseline", metavar="PATH", help="a checkout of older code to measure in the same run")
    parser.add_argument("--no-peer", action="store_true", help="leave out OpenSpiel's ISMCTSBot")
    parser.add_argument("--peer-decisions", type=int, default=2,
                        help="searched decisions of the peer row (its random rollouts of carte_v0 take seconds)")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--record", action="store_true",
                        help="put the figures into docs/results/search.json and redraw search.md")
    parser.add_argument("--measure", nargs=3, metavar=("RULESET", "SPEC", "DECISIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:  # a row's subprocess
        ruleset, spec, decisions = args.measure
        if spec.startswith("openspiel"):
            figures = measure_openspiel(ruleset, int(spec.rpartition(":")[2]), int(decisions))
        else:
            figures = measure_search(ruleset, spec, int(decisions))
        print(json.dumps(figures))
        return figures
    if min(args.budgets) < 1 or min(args.decisions, args.peer_decisions, args.repeats) < 1:
        parser.error(f"--budgets, --decisions, --peer-decisions and --repeats must be at least 1, got "
                     f"{args.budgets}, {args.decisions}, {args.peer_decisions} and {args.repeats}")
    rows = []  # (label, code, ruleset, spec, decisions)
    for ruleset in args.rulesets:
        for budget in args.budgets:
            if args.baseline:
                rows.append((f"baseline {BASELINE_SEARCH.format(budget=budget)}", args.baseline, ruleset,
                             BASELINE_SEARCH.format(budget=budget), args.decisions))
            rows += [(spec.format(budget=budget), None, ruleset, spec.format(budget=budget), args.decisions)
                     for spec in SEARCHES]
            if not args.no_peer:
                rows.append((PEER.format(budget=budget), None, ruleset, f"openspiel:{budget}", args.peer_decisions))
    best: dict[tuple[str, str], dict] = {}
    skipped: dict[tuple[str, str], str] = {}
    for _ in range(args.repeats):
        for label, code, ruleset, spec, decisions in rows:
            if (ruleset, label) in skipped:
                continue
            figures = run_row(code, ruleset, spec, decisions)
            if isinstance(figures, str):
                skipped[ruleset, label] = figures
            elif (ruleset, label) not in best or (figures["simulations_per_second"]
                                                  > best[ruleset, label]["simulations_per_second"]):
                best[ruleset, label] = figures
    result = {"decisions": args.decisions, "repeats": args.repeats, "baseline": args.baseline, "rows": [],
              "skipped": [f"{ruleset} {label}: {why}" for (ruleset, label), why in skipped.items()]}
    print("| ruleset | search | simulations/s | ms/decision | × baseline |")
    print("|---|---|---|---|---|")
    for label, code, ruleset, spec, _ in rows:
        figures = best.get((ruleset, label))
        if figures is None:
            continue
        budget = spec.partition(":")[2].partition("@")[0].partition("/")[0]
        reference = best.get((ruleset, f"baseline {BASELINE_SEARCH.format(budget=budget)}"))
        ratio = figures["simulations_per_second"] / reference["simulations_per_second"] if reference else None
        result["rows"].append({"ruleset": ruleset, "search": label, **figures, "ratio_to_baseline": ratio})
        shown = f"{ratio:.1f}" if ratio is not None else ""
        print(f"| {ruleset} | {label} | {figures['simulations_per_second']:,.0f} | "
              f"{figures['ms_per_decision']:,.1f} | {shown} |", flush=True)
    for line in result["skipped"]:
        print(f"skipped: {line}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    if args.record:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import results

        results.record("search", "bench_search", "bench_search", results.command_line("bench_search.py", argv), result)
    return result


if __name__ == "__main__":
    main()
