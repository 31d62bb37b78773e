"""The leaderboard: every shipped agent rated on the current rating protocol, per ruleset.

    python benchmarks/leaderboard.py --rulesets onefifty_v0 --agents random heuristic_no_call --record

Each ruleset's table shows the ladder (every rung's win share against three copies of
every rung) and lists the protocol's rungs, rated on their ladder games (those that
``cardenv rate`` plays for them, stored with the package), and every agent of
``--agents`` rated as ``cardenv rate`` rates it (``--quick``: the quick mode, marked so
in the table). An entry carries its rating, interval, games, the ``cardenv rate`` command
that reproduces it, cardenv's version, and how long the rating took (seconds, with
``--workers`` processes). With ``--record`` each entry goes into
docs/results/leaderboard.json as soon as it is made (the entries already there for other
agents stay), and docs/results/leaderboard.md is drawn again.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # noqa: E402  (benchmarks/results.py: the results pages)

from cardenv.rating.ladder import ladder_rulesets, load_ladder  # noqa: E402
from cardenv.rating.protocol import PROTOCOL, get_protocol  # noqa: E402
from cardenv.rating.rate import rate, rating_command, rung_card  # noqa: E402


def rung_entries(ruleset: str, protocol) -> list[dict]:
    """The rungs' full score cards, read from the ladder (their ``cardenv rate`` games are
    exactly their ladder games)."""
    ladder = load_ladder(ruleset, protocol)
    ratings = ladder.ratings()
    return [{**card_entry(rung_card(ladder, rung)), "mode": "rung", "ladder_rating": ratings[rung][0]}
            for rung in protocol.rungs]


def card_entry(card, seconds: float | None = None, workers: int = 1) -> dict:
    entry = {"agent": card.agent, "rating": card.rating, "rating_ci95": list(card.rating_ci95),
             "mode": "quick" if card.quick else "full", "games": card.games, "command": card.command,
             "cardenv_version": card.cardenv_version}
    if seconds is not None:
        entry.update(seconds=round(seconds), workers=workers)
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=None, help="default: every ruleset with a ladder")
    parser.add_argument("--agents", nargs="*", default=[], help="agent specs rated beside the rungs")
    parser.add_argument("--quick", action="store_true", help="rate them in the quick mode")
    parser.add_argument("--protocol", default=PROTOCOL.version)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--progress", action="store_true", help="show a progress bar while an agent is rated")
    parser.add_argument("--record", action="store_true", help="write docs/results/leaderboard.json and .md")
    args = parser.parse_args(argv)
    protocol = get_protocol(args.protocol)
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)  # batch-1 inference (ppo:pretrained): extra threads only spin
    for ruleset in args.rulesets or ladder_rulesets(protocol):
        table_id = f"leaderboard_{ruleset}"
        ladder = load_ladder(ruleset, protocol)
        old = results.table(results.load("leaderboard"), table_id)
        entries = {(e["agent"], e["mode"]): e for e in (old["data"]["entries"] if old else []) if e["mode"] != "rung"}
        for entry in rung_entries(ruleset, protocol):
            entries[(entry["agent"], "rung")] = entry

        def save() -> None:
            # entries another run has recorded since this one began stay (several runs may share the page)
            now = results.table(results.load("leaderboard"), table_id)
            for e in now["data"]["entries"] if now else []:
                entries.setdefault((e["agent"], e["mode"]), e)
            ranked = sorted(entries.values(), key=lambda e: -e["rating"])
            data = {"ruleset": ruleset, "protocol": protocol.version, "zero": protocol.zero,
                    "thousand": protocol.thousand, "points_per_strength": ladder.scale, "entries": ranked,
                    "ladder": [{"focal": focal, "field": field, "win_share": cell["win_share"],
                                "ci95": cell["win_share_ci95"], "games": cell["games"]}
                               for (focal, field), cell in ladder.cells.items()]}
            for e in ranked:
                print(f"{ruleset}  {e['agent']:<28} {e['rating']:7.0f} [{e['rating_ci95'][0]:.0f}, "
                      f"{e['rating_ci95'][1]:.0f}] {e['mode']}", flush=True)
            if args.record:
                results.record("leaderboard", table_id, "leaderboard",
                               results.command_line("leaderboard.py", argv), data, title=ruleset)

        save()
        for agent in args.agents:
            start = time.perf_counter()
            card = rate(ruleset, agent, quick=args.quick, protocol=protocol, workers=args.workers,
                        progress=args.progress, command=rating_command([ruleset], agent, args.quick, protocol))
            entries[(agent, "quick" if args.quick else "full")] = card_entry(card, time.perf_counter() - start,
                                                                            args.workers)
            save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
