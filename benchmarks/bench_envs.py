"""Random-play speed of cardenv against peer card-game environments, in one run.

Every figure is decisions per second of uniformly random legal play (actions sampled
from the action mask), measured in this process, so ratios between rows are meaningful
even on a shared, noisy machine; the absolute numbers are not. Each measurement is
repeated (interleaved with the others) and the best repetition is kept.

    python benchmarks/bench_envs.py                 # every cardenv ruleset + peers
    python benchmarks/bench_envs.py --seconds 5 --repeats 3 --json out.json

Peers: PettingZoo's tictactoe_v3 and leduc_holdem_v4 (needs the ``bench`` extra:
rlcard and pygame) and OpenSpiel's gin_rummy (when ``open_spiel`` is installed).
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import time
from collections.abc import Callable

import numpy as np

import cardenv

# Each runner plays for about ``seconds`` and returns (decisions, elapsed seconds).
Runner = Callable[[float], tuple[int, float]]


def aec_runner(make_env: Callable[[], object], seed: int = 0) -> Runner:
    """The DESIGN.md loop through a PettingZoo AEC env: last(), sample from the mask, step."""

    def run(seconds: float) -> tuple[int, float]:
        env = make_env()
        rng = np.random.default_rng(seed)
        decisions = 0
        episode = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            env.reset(seed=seed + episode)
            episode += 1
            for agent in env.agent_iter():
                obs, reward, terminated, truncated, info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                    decisions += 1
                env.step(action)
        return decisions, time.perf_counter() - start

    return run


def engine_runner(ruleset: str, with_observations: bool, seed: int = 0) -> Runner:
    """The pure rules engine: legal mask, (optionally) the acting player's observation, apply."""
    raw = getattr(cardenv, ruleset).raw_env()
    state_class, config = raw.state_class, raw.config
    observer = raw.observer
    buffer = observer.new_buffer()

    def run(seconds: float) -> tuple[int, float]:
        rng = np.random.default_rng(seed)
        decisions = 0
        game = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = state_class(config, np.random.default_rng(seed + game))
            game += 1
            while not state.is_terminal:
                if with_observations:
                    observer.observe(state, state.current_player, buffer)
                legal = np.flatnonzero(state.legal_action_mask())
                state.apply(int(legal[rng.integers(len(legal))]))
                decisions += 1
        return decisions, time.perf_counter() - start

    return run


def openspiel_runner(game_name: str, seed: int = 0) -> Runner:
    import pyspiel

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
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(outcomes, p=probs)))
                    continue
                # Observations, as an RL loop through OpenSpiel would build them.
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
        return decisions, time.perf_counter() - start

    return run


def cardenv_rulesets() -> list[str]:
    return [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]


def build_runners() -> tuple[dict[str, Runner], list[str]]:
    runners: dict[str, Runner] = {}
    skipped: list[str] = []
    for ruleset in cardenv_rulesets():
        module = getattr(cardenv, ruleset)
        runners[f"cardenv {ruleset} env()"] = aec_runner(module.env)
        runners[f"cardenv {ruleset} raw engine + observations"] = engine_runner(ruleset, True)
        runners[f"cardenv {ruleset} raw engine, no observations"] = engine_runner(ruleset, False)
    for peer in ("tictactoe_v3", "leduc_holdem_v4"):
        try:
            module = importlib.import_module(f"pettingzoo.classic.{peer}")
        except ImportError as error:
            skipped.append(f"pettingzoo {peer}: {error} (pip install 'cardenv[bench]')")
            continue
        runners[f"pettingzoo {peer} env()"] = aec_runner(module.env)
    try:
        runners["open_spiel gin_rummy (with observation tensors)"] = openspiel_runner("gin_rummy")
    except ImportError as error:
        skipped.append(f"open_spiel gin_rummy: {error} (pip install 'cardenv[bench]')")
    return runners, skipped


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved repetitions; the best is kept")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    runners, skipped = build_runners()
    best: dict[str, float] = dict.fromkeys(runners, 0.0)
    for _ in range(args.repeats):
        for name, run in runners.items():
            decisions, elapsed = run(args.seconds)
            best[name] = max(best[name], decisions / elapsed)

    references = [name for name in best if name.startswith("pettingzoo")]
    width = max(len(name) for name in best)
    header = f"{'environment':<{width}}  {'decisions/s':>12}" + "".join(
        f"  {'÷ ' + ref.split()[1]:>18}" for ref in references
    )
    print(f"python {platform.python_version()}, numpy {np.__version__}, {args.repeats}× {args.seconds:g}s each")
    print(header)
    print("-" * len(header))
    for name, rate in best.items():
        ratios = "".join(f"  {rate / best[ref]:>18.2f}" for ref in references)
        print(f"{name:<{width}}  {rate:>12,.0f}{ratios}")
    for line in skipped:
        print(f"skipped: {line}")
    result = {"decisions_per_second": best, "skipped": skipped,
              "ratios": {ref: {name: rate / best[ref] for name, rate in best.items()} for ref in references}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
