"""Make a rating protocol's ladder: every rung against three copies of every rung.

The ladder of a ruleset is what ``cardenv rate`` places a candidate on: the rungs'
finishing orders on the protocol's deals, from which their ratings are fitted (never
typed) each time the ladder is loaded. It is made once per protocol version and ruleset
and stored with the package (``cardenv/rating/ladders/v<version>/<ruleset>.json``):

    python benchmarks/ladder.py --rulesets onefifty_v0 cut_v0 --workers 2

The file is written after every cell, and a rerun keeps the cells already there, so a
ladder can be made in several sittings. The last line per ruleset gives the rungs' ratings.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from cardenv.rating.ladder import LADDER_DIR, ladder_path, load_ladder, make_ladder
from cardenv.rating.protocol import PROTOCOL, get_protocol
from cardenv.rulesets import ruleset_names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=ruleset_names(), choices=ruleset_names())
    parser.add_argument("--protocol", default=PROTOCOL.version, help="the protocol version")
    parser.add_argument("--workers", type=int, default=1, help="processes per cell")
    parser.add_argument("--directory", type=Path, default=LADDER_DIR, help="where the ladders are stored")
    args = parser.parse_args(argv)
    try:
        protocol = get_protocol(args.protocol)
    except ValueError as error:
        parser.error(str(error))
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)  # batch-1 inference (ppo:pretrained): extra threads only spin
    command = shlex.join(["python", "benchmarks/ladder.py", *(argv if argv is not None else sys.argv[1:])])
    for ruleset in args.rulesets:
        path = ladder_path(protocol, ruleset, args.directory)
        path.parent.mkdir(parents=True, exist_ok=True)
        done = []
        if path.is_file():
            data = json.loads(path.read_text())
            if data["protocol"] == protocol.to_dict():
                done = data["cells"]

        def save(ladder: dict, path: Path = path) -> None:
            path.write_text(json.dumps({**ladder, "command": command}, indent=1) + "\n")

        save(make_ladder(ruleset, protocol, workers=args.workers, done=done, on_cell=save,
                         report=lambda line: print(line, flush=True)))
        ratings = load_ladder(ruleset, protocol, args.directory).ratings()
        print(ruleset, "ratings:", ", ".join(f"{rung} {r:.0f} ± {h:.0f}" for rung, (r, h) in ratings.items()),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
