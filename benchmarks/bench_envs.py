"""Random-play speed of cardenv against peer card-game environments, in one run.

Every figure is decisions per second of uniformly random legal play, measured in this
process. Only the ratios between rows of one run mean anything (the machine may be
busy and noisy); the absolute numbers do not. Each measurement is repeated, the
repetitions of all rows interleaved, and the best repetition of each row is kept.

    pip install -e '.[bench]'                       # the peers (see below)
    python benchmarks/bench_envs.py                 # every cardenv ruleset + every peer
    python benchmarks/bench_envs.py --seconds 5 --repeats 3 --json out.json
    python benchmarks/bench_envs.py --only cardenv --only hanabi   # rows whose name contains either
    python benchmarks/bench_envs.py --seconds 3 --repeats 3 --record  # into docs/results/speed.json and speed.md

Seeding: like an RL training loop, each measurement seeds once: one env per
measurement, ``env.reset(seed=seed)`` for its first episode and a plain ``env.reset()``
for every later one (the engine rows likewise make one game generator per measurement
and hand it to each new game). Random actions come from a generator of their own.

The rows:

``cardenv RULESET env()`` and ``pettingzoo PEER env()``
    The standard loop through a PettingZoo AEC env (``env()``, wrappers included):
    ``obs, reward, terminated, truncated, info = env.last()``; when the agent is done
    the action is None, otherwise one sampled uniformly from ``obs["action_mask"]``;
    ``env.step(action)``; ``env.reset()`` once ``env.agents`` is empty. A decision is a
    step with a real action. Peers: ``leduc_holdem_v4`` (poker, via rlcard),
    ``hanabi_v5`` (the closest peer, a memory card game, via OpenSpiel) and
    ``tictactoe_v3`` (a floor: the cheapest env PettingZoo has).
``cardenv RULESET raw engine + observations``
    The rules engine without the AEC env: the acting player's observation written into
    a reused buffer, the legal mask, ``state.apply``. What a vectorised trainer built on
    the engine would pay.
``cardenv RULESET raw engine, no observations``
    The legal mask and ``state.apply`` only: the cost of the rules.
``open_spiel gin_rummy (with observation tensors)``
    OpenSpiel's C++ gin rummy through pyspiel: ``state.observation_tensor(player)``,
    ``state.legal_actions()``, ``state.apply_action`` per decision. Chance nodes (the
    deal, stock draws) are sampled in Python; they are timed but not counted.

Ratios are printed against ``leduc_holdem_v4``, ``hanabi_v5`` and ``gin_rummy``, each
where it was measured. The peers come with the ``bench`` extra: rlcard and pygame
(leduc, tictactoe), open_spiel and shimmy (hanabi_v5, gin_rummy). A peer that cannot be
imported or built is skipped with a printed line saying why; the cardenv rows need only
cardenv itself.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

import cardenv

# Each runner plays for about ``seconds`` and returns (decisions, elapsed seconds).
Runner = Callable[[float], tuple[int, float]]

# Rows whose rates the others are divided by, and the column label of each.
REFERENCES = {
    "pettingzoo leduc_holdem_v4 env()": "÷ leduc",
    "pettingzoo hanabi_v5 env()": "÷ hanabi",
    "open_spiel gin_rummy (with observation tensors)": "÷ gin_rummy",
}

PETTINGZOO_PEERS = ("leduc_holdem_v4", "hanabi_v5", "tictactoe_v3")

# Steps between two looks at the clock in the AEC loop.
CLOCK_EVERY = 64


def load_module(name: str):
    """Import a module, silencing the deprecation warnings PettingZoo's classic modules give."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(name)


def play_random(env, rng: np.random.Generator, decisions: int | None = None, deadline: float | None = None) -> int:
    """Uniformly random legal play through a PettingZoo AEC env until ``decisions`` were
    taken or the clock passed ``deadline``; a new game (plain ``reset()``) whenever
    every agent is done. Returns the decisions taken."""
    played = 0
    while (decisions is None or played < decisions) and (deadline is None or time.perf_counter() < deadline):
        for _ in range(CLOCK_EVERY):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                played += 1
            env.step(action)
            if not env.agents:
                env.reset()
    return played


def aec_runner(make_env: Callable[[], object], seed: int = 0) -> Runner:
    """The standard loop through a PettingZoo AEC env, the env seeded once per measurement."""

    def run(seconds: float) -> tuple[int, float]:
        env = make_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed + 1)
        start = time.perf_counter()
        decisions = play_random(env, rng, deadline=start + seconds)
        elapsed = time.perf_counter() - start
        env.close()
        return decisions, elapsed

    return run


def engine_runner(ruleset: str, with_observations: bool, seed: int = 0) -> Runner:
    """The rules engine: legal mask, (optionally) the acting player's observation, apply.

    One game generator per measurement, handed to every new game, as ``env.reset()``
    does after the env's one seeding."""
    raw = getattr(cardenv, ruleset).raw_env()
    state_class, config = raw.state_class, raw.config
    observer = raw.observer
    buffer = observer.new_buffer()

    def run(seconds: float) -> tuple[int, float]:
        game_rng = np.random.default_rng(seed)
        rng = np.random.default_rng(seed + 1)
        decisions = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = state_class(config, game_rng, None)
            while not state.is_terminal:
                if with_observations:
                    observer.observe(state, state.current_player, buffer)
                legal = np.flatnonzero(state.legal_action_mask())
                state.apply(int(legal[rng.integers(len(legal))]))
                decisions += 1
        return decisions, time.perf_counter() - start

    return run


def openspiel_runner(game_name: str, seed: int = 0) -> Runner:
    """An OpenSpiel game through pyspiel, with the acting player's observation tensor."""
    pyspiel = load_module("pyspiel")
    game = pyspiel.load_game(game_name)

    def run(seconds: float) -> tuple[int, float]:
        rng = np.random.default_rng(seed)
        decisions = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    threshold = rng.random()
                    for action, probability in outcomes:
                        threshold -= probability
                        if threshold < 0:
                            break
                    state.apply_action(action)
                    continue
                player = state.current_player()
                state.observation_tensor(player)
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
        return decisions, time.perf_counter() - start

    return run


def cardenv_rulesets() -> list[str]:
    return [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]


def pettingzoo_peer(peer: str) -> Runner:
    module = load_module(f"pettingzoo.classic.{peer}")
    # Some peers (hanabi_v5) import their backend only when an env is built: build one
    # now so that a missing backend is a skip, not a failure mid-measurement.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.env().close()
    return aec_runner(module.env)


def candidate_runners() -> dict[str, Callable[[], Runner]]:
    """Every row, by name, as a builder (so that filtered-out peers are never imported)."""
    builders: dict[str, Callable[[], Runner]] = {}
    for ruleset in cardenv_rulesets():
        module = getattr(cardenv, ruleset)
        builders[f"cardenv {ruleset} env()"] = lambda m=module: aec_runner(m.env)
        builders[f"cardenv {ruleset} raw engine + observations"] = lambda r=ruleset: engine_runner(r, True)
        builders[f"cardenv {ruleset} raw engine, no observations"] = lambda r=ruleset: engine_runner(r, False)
    for peer in PETTINGZOO_PEERS:
        builders[f"pettingzoo {peer} env()"] = lambda p=peer: pettingzoo_peer(p)
    builders["open_spiel gin_rummy (with observation tensors)"] = lambda: openspiel_runner("gin_rummy")
    return builders


def build_runners(only: list[str] | None = None) -> tuple[dict[str, Runner], list[str]]:
    """The runners whose names contain one of ``only`` (all when empty), and the skipped rows."""
    runners: dict[str, Runner] = {}
    skipped: list[str] = []
    for name, build in candidate_runners().items():
        if only and not any(part in name for part in only):
            continue
        try:
            runners[name] = build()
        except Exception as error:  # noqa: BLE001 - any failure to import or build a peer is a skip
            skipped.append(f"{name}: {type(error).__name__}: {error} (pip install -e '.[bench]')")
    return runners, skipped


def peer_versions() -> dict[str, str]:
    versions = {}
    for dist in ("cardenv", "pettingzoo", "rlcard", "open_spiel", "shimmy", "numpy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return versions


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved repetitions; the best is kept")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="measure only the rows whose name contains TEXT (repeatable)")
    parser.add_argument("--record", action="store_true",
                        help="put the figures into docs/results/speed.json (the envs table) and redraw speed.md")
    args = parser.parse_args(argv)

    runners, skipped = build_runners(args.only)
    best: dict[str, float] = dict.fromkeys(runners, 0.0)
    for _ in range(args.repeats):
        for name, run in runners.items():
            decisions, elapsed = run(args.seconds)
            best[name] = max(best[name], decisions / elapsed)

    references = [name for name in REFERENCES if best.get(name)]
    settings = run_settings(args, peer_versions(), "env seeded once per run")
    if best:
        width = max(len(name) for name in best)
        header = f"{'environment':<{width}}  {'decisions/s':>12}" + "".join(
            f"  {REFERENCES[ref]:>12}" for ref in references
        )
        print(header)
        print("-" * len(header))
        for name, rate in best.items():
            ratios = "".join(f"  {rate / best[ref]:>12.2f}" for ref in references)
            print(f"{name:<{width}}  {rate:>12,.0f}{ratios}")
    else:
        print("no row measured")
    for line in skipped:
        print(f"skipped: {line}")
    result = {
        "decisions_per_second": best,
        "skipped": skipped,
        "ratios": {ref: {name: rate / best[ref] for name, rate in best.items()} for ref in references},
        "settings": {**settings, "seeding": "once per run"},
    }
    write_json(args.json, result)
    if args.record:
        record("speed", "envs", "bench_envs", "bench_envs.py", argv,
               {"decisions_per_second": best, "references": references, "ratios": result["ratios"]})
    return result


def ruleset_options(description: str, argv: list[str] | None, rulesets: list[str], seconds: float,
                    repeats: int) -> tuple[argparse.Namespace, list[str]]:
    """The options of the per-ruleset scripts (``--seconds``, ``--repeats``, ``--only``
    RULESET, ``--json``) parsed from ``argv``, and the ``rulesets`` to measure; an
    ``--only`` that names no ruleset is one clear error."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=seconds, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=repeats, help="interleaved repetitions; the best is kept")
    parser.add_argument("--only", action="append", default=[], metavar="RULESET",
                        help="measure only this ruleset (repeatable)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--record", action="store_true",
                        help="put the figures into docs/results/speed.json and redraw speed.md")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.only) - set(rulesets))
    if unknown:
        parser.error(f"--only {unknown[0]!r} is not a ruleset; expected one of {', '.join(rulesets)}")
    return args, [r for r in rulesets if not args.only or r in args.only]


def run_settings(args: argparse.Namespace, versions: dict[str, str], note: str = "") -> dict:
    """Print the line that says how a script measured (Python and library versions,
    ``--repeats`` × ``--seconds``, ``note``) and return the same as a dict, for its JSON."""
    print(f"python {platform.python_version()}, " + ", ".join(f"{k} {v}" for k, v in versions.items())
          + f"; {args.repeats}× {args.seconds:g}s each, best kept" + (f"; {note}" if note else ""))
    return {"python": platform.python_version(), "versions": versions, "seconds": args.seconds,
            "repeats": args.repeats}


def record(page: str, table_id: str, kind: str, script: str, argv: list[str] | None, data) -> None:
    """The ``--record`` option: ``data`` into docs/results/<page>.json as table ``table_id``,
    with the command that made it (benchmarks/results.py), and the page drawn again."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import results

    results.record(page, table_id, kind, results.command_line(script, argv), data)


def write_json(path: str | None, result: dict) -> None:
    """Write ``result`` to ``path`` (the ``--json`` option), if one was given."""
    if path:
        with open(path, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
