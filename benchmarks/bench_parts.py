"""Where the time of a raw decision goes: each part of the observation (and the engine's
event log) replaced in turn by a no-op, in the loop of ``bench_envs.py``'s "raw engine +
observations" rows.

A timer wrapped around a part inside the loop misleads (a compiled call timed alone
looks several times dearer than what removing it saves), so each part is measured by
what the loop saves without it. The parts' observations are then wrong: the figures are
times, nothing else. Repetitions of all variants are interleaved and the best of each
is kept; only differences within one run mean anything on a busy machine.

    python benchmarks/bench_parts.py                        # every ruleset
    python benchmarks/bench_parts.py --only onefifty_v0 --seconds 2 --repeats 4
    python benchmarks/bench_parts.py --seconds 1.5 --repeats 3 --record   # into docs/results/speed.json

The parts, for the slot rulesets: the compiled call (the card, turn and event pieces),
the recent events alone (the observation written without them), the ruleset's own
pieces, the whole observation; for carte_v0 (one compiled call): the compiled call
(what remains is gathering its arguments in Python), the recent events (the observers'
tables set to no event rows), gathering the state's facts (``state_facts``; the
compiled call then reads a fixed deal's), the whole observation. For every ruleset: the
engine's event log (``log``), and its integer records alone.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import numpy as np

import cardenv
from cardenv.engine import observation as table_observation
from cardenv.engine import rounds as engine_rounds
from cardenv.games.carte import observation as carte_observation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_envs import cardenv_rulesets, engine_runner, record, ruleset_options, run_settings, write_json


@contextlib.contextmanager
def replaced(owner: object, name: str, value: object) -> Iterator[None]:
    """``owner.name`` is ``value`` inside the block, and what it was after."""
    original = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)


def do_nothing(*args, **kwargs) -> None:
    return None


def parts_of(ruleset: str, observer) -> dict[str, Callable[[], contextlib.AbstractContextManager]]:
    """Each part's name and the replacement that takes it out (None: nothing taken out)."""
    cls = type(observer)
    parts: dict[str, Callable[[], contextlib.AbstractContextManager]] = {
        "everything": contextlib.nullcontext,
        "without the observation": lambda: replaced(cls, "write", lambda self, state, seat, out=None, *a: out),
    }
    if isinstance(observer, table_observation.TableObserver):
        kernels = table_observation.encoders
        write = cls.write

        def write_without_events(self, state, seat, out=None, recent_events=True):
            return write(self, state, seat, out, False)

        parts["without the compiled call"] = lambda: replaced(kernels, "write_table_observation", do_nothing)
        parts["without the recent events"] = lambda: replaced(cls, "write", write_without_events)
        parts["without the ruleset's pieces"] = lambda: replaced(cls, "_fill_ruleset_pieces", do_nothing)
    else:  # carte: one compiled call, fed the state's facts gathered in Python
        kernels = carte_observation.encoder
        pack_tables = cls._pack_tables
        fixed_deal = carte_observation.state_facts(observer.state_class(observer.config, np.random.default_rng(0)),
                                                   0, False)

        def pack_tables_without_events(self, layout, seat):
            tables = pack_tables(self, layout, seat)
            settings = tables[tables[kernels.Table.SETTINGS]: tables[kernels.Table.SETTINGS + 1]]  # a view
            settings[kernels.Setting.EVENT_ROWS] = 0
            return tables

        parts["without the compiled call"] = lambda: replaced(kernels, "write_carte_observation", do_nothing)
        parts["without the recent events"] = lambda: replaced(cls, "_pack_tables", pack_tables_without_events)
        parts["without gathering the state's facts"] = lambda: replaced(
            carte_observation, "state_facts", lambda *a: fixed_deal)
    parts["without the engine's event log"] = lambda: replaced(engine_rounds.GameState, "log", do_nothing)
    parts["without its integer records"] = lambda: replaced(engine_rounds, "append_event_record", do_nothing)
    return parts


def raw_loop(ruleset: str, seconds: float) -> float:
    """µs per decision of ``bench_envs.py``'s "raw engine + observations" loop."""
    decisions, elapsed = engine_runner(ruleset, with_observations=True)(seconds)
    return elapsed / decisions * 1e6


def measure(ruleset: str, seconds: float, repeats: int) -> dict[str, float]:
    """Best µs per decision of the raw loop with each part taken out in turn."""
    parts = parts_of(ruleset, getattr(cardenv, ruleset).raw_env().observer)
    best = dict.fromkeys(parts, float("inf"))
    for name, take_out in parts.items():  # a short warm-up each (numba's cache, allocations)
        with take_out():
            raw_loop(ruleset, min(seconds, 0.2))
    for _ in range(repeats):
        for name, take_out in parts.items():
            with take_out():
                best[name] = min(best[name], raw_loop(ruleset, seconds))
    return best


def main(argv: list[str] | None = None) -> dict:
    args, rulesets = ruleset_options(__doc__, argv, cardenv_rulesets(), seconds=1.0, repeats=4)

    settings = run_settings(args, {d: metadata.version(d) for d in ("cardenv", "numpy", "numba")})
    results = {}
    for ruleset in rulesets:
        best = measure(ruleset, args.seconds, args.repeats)
        everything = best["everything"]
        print(f"\n{ruleset}: {everything:.2f} µs per raw decision with the observation")
        print(f"{'variant':40s} {'µs/decision':>12s} {'saves µs':>9s}")
        for name, us in best.items():
            print(f"{name:40s} {us:12.2f} {everything - us:9.2f}")
        results[ruleset] = {"us_per_decision": best, "saves_us": {k: everything - v for k, v in best.items()}}
    result = {**settings, "rulesets": results}
    write_json(args.json, result)
    if args.record:
        record("speed", "parts", "bench_parts", "bench_parts.py", argv, {"rulesets": results})
    return result


if __name__ == "__main__":
    main()
