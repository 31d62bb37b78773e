"""How the cost of every cardenv ruleset grows with the number of players.

For each ruleset and player count, in one process: decisions per second of uniformly
random legal play through ``env()`` (wrappers included, the env seeded once, as in
``bench_envs.py``), the microseconds per observation of the acting player (the
observer's own time inside that loop), the observation's size, and the memory one env
holds after a reset and a stretch of play (Python allocations, traced). Repetitions of
all rows are interleaved and the best of each is kept; only ratios within one run mean
anything on a busy machine.

    python benchmarks/bench_players.py              # every ruleset at its player counts
    python benchmarks/bench_players.py --seconds 2 --repeats 3 --json scaling.json

It prints the markdown table; ``--record`` puts it into docs/results/speed.json and speed.md.

The last column, "µs per observation / player", is the observation's cost divided by
the number of players: flat or falling means the acting player's observation grows at
most linearly with the table.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np

import cardenv

sys.path.insert(0, str(Path(__file__).resolve().parent))
# play_random: the loop of bench_envs.py's env() rows
from bench_envs import play_random, record, ruleset_options, run_settings, write_json

# Player counts measured per ruleset: 3, 4 and 6 where the rules allow, and 8 for kaboom.
PLAYER_COUNTS = {"onefifty_v0": (3, 4, 6), "cut_v0": (3, 4, 6), "kaboom_v0": (3, 4, 6, 8), "carte_v0": (3, 4, 6)}

MEMORY_DECISIONS = 500  # decisions played before the memory of an env is read


def make_env(ruleset: str, num_players: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(cardenv, ruleset).env(num_players=num_players)


class Row:
    """One ruleset at one player count: an env seeded once, its observer timed in place."""

    def __init__(self, ruleset: str, num_players: int, seed: int = 0):
        self.ruleset, self.num_players = ruleset, num_players
        self.env = make_env(ruleset, num_players)
        self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed + 1)
        observer = self.env.unwrapped.observer
        self.observation_size = int(observer.size)
        self.observe_seconds, self.observations = 0.0, 0
        write = observer.write  # what the env calls: observe() without its argument checks

        def timed_write(state, seat, out=None, recent_events=True):
            start = time.perf_counter()
            result = write(state, seat, out, recent_events)
            self.observe_seconds += time.perf_counter() - start
            self.observations += 1
            return result

        observer.write = timed_write  # an instance attribute: the class is untouched

    def measure(self, seconds: float) -> tuple[float, float]:
        """(decisions per second, µs per observation) over about ``seconds`` of play."""
        self.observe_seconds, self.observations = 0.0, 0
        start = time.perf_counter()
        decisions = play_random(self.env, self.rng, deadline=start + seconds)
        elapsed = time.perf_counter() - start
        return decisions / elapsed, 1e6 * self.observe_seconds / max(self.observations, 1)


def env_memory(ruleset: str, num_players: int, seed: int = 0) -> int:
    """Bytes Python allocated and still holds for one env after a reset and some play."""
    gc.collect()
    tracemalloc.start()
    try:
        env = make_env(ruleset, num_players)
        env.reset(seed=seed)
        play_random(env, np.random.default_rng(seed), decisions=MEMORY_DECISIONS)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del env
    return held


def markdown(rows: list[dict]) -> str:
    header = ("| ruleset | players | decisions/s | µs per observation | µs per observation / player "
              "| observation size | memory per env |")
    lines = [header, "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['ruleset']} | {row['players']} | {row['decisions_per_second']:,.0f} "
                     f"| {row['us_per_observation']:.1f} | {row['us_per_observation'] / row['players']:.1f} "
                     f"| {row['observation_size']:,} | {row['memory_bytes'] / 1024:,.0f} KiB |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    args, rulesets = ruleset_options(__doc__, argv, [r for r in PLAYER_COUNTS if hasattr(cardenv, r)],
                                     seconds=2.0, repeats=3)

    measured = [Row(r, n) for r in rulesets for n in PLAYER_COUNTS[r]]
    best_rate = [0.0] * len(measured)
    best_observe = [float("inf")] * len(measured)
    for _ in range(args.repeats):
        for i, row in enumerate(measured):
            rate, observe_us = row.measure(args.seconds)
            best_rate[i] = max(best_rate[i], rate)
            best_observe[i] = min(best_observe[i], observe_us)
    rows = [{"ruleset": row.ruleset, "players": row.num_players, "decisions_per_second": best_rate[i],
             "us_per_observation": best_observe[i], "observation_size": row.observation_size,
             "memory_bytes": env_memory(row.ruleset, row.num_players)} for i, row in enumerate(measured)]

    settings = run_settings(args, {d: metadata.version(d) for d in ("cardenv", "pettingzoo", "numpy")},
                            "env seeded once per row")
    print(markdown(rows))
    result = {**settings, "rows": rows}
    write_json(args.json, result)
    if args.record:
        record("speed", "players", "bench_players", "bench_players.py", argv, {"rows": rows})
    return result


if __name__ == "__main__":
    main()
