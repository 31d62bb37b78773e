"""A protocol's ladder: every rung against three copies of every rung, and the rungs'
ratings fitted to those games.

The games are played once per protocol version (``python benchmarks/ladder.py``) and
stored with the package as ``cardenv/rating/ladders/v<version>/<ruleset>.json``: per
pair of rungs, the focal rung's win share, points per round and how often each finishing
order occurred. In a stored finishing order the focal rung's seat is player
``len(protocol.rungs)`` (so that a rung against copies of itself still tells which seat
was the focal one) and every other seat the index of its rung. The ratings are not stored
as figures to trust: :func:`fit_ladder` fits them from those counts whenever a ladder is
loaded.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cardenv.eval.intervals import wilson_interval
from cardenv.eval.tournament import GameOutcome, run_tournament
from cardenv.rating.plackett_luce import StrengthFit, fit_strengths, outcome_of
from cardenv.rating.protocol import PROTOCOL, RatingProtocol

LADDER_DIR = Path(__file__).parent / "ladders"
Z95 = 1.959963984540054


def ladder_path(protocol: RatingProtocol, ruleset: str, directory: Path | None = None) -> Path:
    """Where the ladder of ``ruleset`` under ``protocol`` is stored (in the package's
    :data:`LADDER_DIR` unless ``directory`` is given)."""
    return Path(directory if directory is not None else LADDER_DIR) / f"v{protocol.version}" / f"{ruleset}.json"


def ladder_games(protocol: RatingProtocol, focal: str, field: str) -> int:
    """The games of a ladder cell: the protocol's count against ``field``, or its search
    count where the focal rung searches (a search rung's own games are the dear ones)."""
    return protocol.search_games if focal in protocol.search_rungs else protocol.games_against(field)


@dataclass(frozen=True)
class FieldSummary:
    """How one agent did against three copies of one field: over the first ``games``."""

    games: int
    win_share: float
    win_share_ci95: tuple[float, float]
    points_per_round: float

    @classmethod
    def of(cls, outcomes: Sequence[GameOutcome]) -> FieldSummary:
        shares = [o.share for o in outcomes]
        points = [p for o in outcomes for p in o.candidate_points]
        return cls(len(outcomes), float(np.mean(shares)), wilson_interval(float(np.sum(shares)), len(outcomes)),
                   float(np.mean(points)) if points else 0.0)

    @classmethod
    def from_dict(cls, data: dict) -> FieldSummary:
        return cls(data["games"], data["win_share"], tuple(data["win_share_ci95"]), data["points_per_round"])

    def to_dict(self) -> dict:
        return {"games": self.games, "win_share": self.win_share, "win_share_ci95": list(self.win_share_ci95),
                "points_per_round": self.points_per_round}


def game_outcomes(outcomes: Sequence[GameOutcome], focal: int, field: int) -> Counter:
    """Finishing orders (strength indices ``focal`` for the candidate's seat, ``field`` for
    the others), counted."""
    counts: Counter = Counter()
    for o in outcomes:
        players = [focal if seat == o.candidate_seat else field for seat in range(len(o.ranks))]
        counts[outcome_of(players, o.ranks)] += 1
    return counts


def _encode(counts: Counter) -> list:
    return [[[list(group) for group in outcome], n] for outcome, n in sorted(counts.items())]


def _decode(entries: list) -> Counter:
    return Counter({tuple(tuple(group) for group in outcome): n for outcome, n in entries})


def relabel(counts: Counter, mapping: dict[int, int]) -> Counter:
    """The same finishing orders with players renamed by ``mapping`` (others kept)."""
    renamed: Counter = Counter()
    for outcome, n in counts.items():
        renamed[tuple(tuple(sorted(mapping.get(p, p) for p in group)) for group in outcome)] += n
    return renamed


def cell_counts(protocol: RatingProtocol, cell: dict, focal: int | None = None) -> Counter:
    """A cell's finishing orders, its focal seat as player ``focal`` (by default the
    focal rung's index, as the ladder's fit reads them)."""
    focal = protocol.rungs.index(cell["focal"]) if focal is None else focal
    return relabel(_decode(cell["outcomes"]), {len(protocol.rungs): focal})


def ladder_cell(protocol: RatingProtocol, focal: str, field: str, outcomes: Sequence[GameOutcome]) -> dict:
    """The stored record of ``focal`` against three copies of ``field``."""
    cell = {"focal": focal, "field": field, **FieldSummary.of(outcomes).to_dict(),
            "outcomes": _encode(game_outcomes(outcomes, len(protocol.rungs), protocol.rungs.index(field)))}
    if field not in protocol.search_rungs and len(outcomes) >= protocol.quick_games:
        cell["quick"] = FieldSummary.of(outcomes[:protocol.quick_games]).to_dict()
    return cell


@dataclass(frozen=True)
class Ladder:
    """A protocol's ladder for one ruleset: the cells and the rungs' fitted ratings."""

    protocol: RatingProtocol
    ruleset: str
    cells: dict[tuple[str, str], dict]  # (focal, field) -> ladder_cell
    fit: StrengthFit

    @property
    def scale(self) -> float:
        """Rating points per unit of strength: the ``thousand`` rung rates 1000."""
        return 1000.0 / self.fit.theta[self.protocol.rungs.index(self.protocol.thousand)]

    def ratings(self) -> dict[str, tuple[float, float]]:
        """Each rung's rating and the half-width of its 95% interval (delta method over
        the fitted strengths, the scale's own uncertainty included)."""
        rungs = self.protocol.rungs
        theta, covariance = self.fit.theta, self.fit.covariance
        h = rungs.index(self.protocol.thousand)
        ratings = {}
        for i, rung in enumerate(rungs):
            gradient = np.zeros(len(rungs))
            gradient[i] += 1000.0 / theta[h]
            gradient[h] -= 1000.0 * theta[i] / theta[h] ** 2
            half = Z95 * float(np.sqrt(max(0.0, gradient @ covariance @ gradient)))
            ratings[rung] = (1000.0 * theta[i] / theta[h], half)
        return ratings

    def summary(self, focal: str, field: str, quick: bool = False) -> FieldSummary:
        """``focal``'s result against three copies of ``field`` (quick: over the quick
        mode's games, where the cell has that many)."""
        cell = self.cells[(focal, field)]
        return FieldSummary.from_dict(cell["quick"] if quick and "quick" in cell else cell)


def fit_ladder(protocol: RatingProtocol, cells: dict[tuple[str, str], dict]) -> StrengthFit:
    counts: Counter = Counter()
    for cell in cells.values():
        counts.update(cell_counts(protocol, cell))
    fit = fit_strengths(counts, len(protocol.rungs), {protocol.rungs.index(protocol.zero): 0.0})
    if fit.theta[protocol.rungs.index(protocol.thousand)] <= 0:
        raise ValueError(f"protocol {protocol.version}: {protocol.thousand} does not rate above {protocol.zero}; "
                         f"the scale needs it to")
    return fit


def load_ladder(ruleset: str, protocol: RatingProtocol = PROTOCOL, directory: Path | None = None) -> Ladder:
    """The stored ladder of ``ruleset`` under ``protocol`` (its ratings fitted now) from
    ``directory`` (the package's own, :data:`LADDER_DIR`, by default)."""
    path = ladder_path(protocol, ruleset, directory)
    if not path.is_file():
        covered = ladder_rulesets(protocol, directory)
        raise ValueError(f"rating protocol {protocol.version} has no ladder for {ruleset!r} (it has "
                         f"{', '.join(covered) or 'none'}): python benchmarks/ladder.py --rulesets {ruleset} makes it")
    data = json.loads(path.read_text())
    if data["protocol"] != protocol.to_dict():
        raise ValueError(f"{path} was made for another protocol than version {protocol.version}")
    cells = {(c["focal"], c["field"]): c for c in data["cells"]}
    missing = [f"{focal} vs {field}" for focal in protocol.rungs for field in protocol.rungs
               if (focal, field) not in cells]
    if missing:
        raise ValueError(f"{path} is unfinished: it lacks {', '.join(missing)} "
                         f"(python benchmarks/ladder.py --rulesets {ruleset} plays them)")
    return Ladder(protocol, ruleset, cells, fit_ladder(protocol, cells))


def ladder_rulesets(protocol: RatingProtocol = PROTOCOL, directory: Path | None = None) -> list[str]:
    """The rulesets that have a stored ladder under ``protocol``."""
    return sorted(path.stem for path in ladder_path(protocol, "*", directory).parent.glob("*.json"))


def one_blas_thread():
    """One BLAS thread while the games play: a policy's forward pass is a batch-1 matrix
    product, and BLAS helper threads only wait for a time slice on cores that play games
    (threadpoolctl, in the ``rate`` extra; without it, nothing changes)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        from contextlib import nullcontext

        return nullcontext()
    return threadpool_limits(limits=1)


def make_ladder(ruleset: str, protocol: RatingProtocol, workers: int = 1, progress: bool = False,
                report: Callable[[str], None] = print, done: Sequence[dict] = (),
                on_cell: Callable[[dict], None] | None = None) -> dict:
    """Play every rung against three copies of every rung (what :func:`load_ladder` reads).
    Cells in ``done`` (a partial ladder's, same protocol) are kept, not played again;
    ``on_cell`` gets the ladder so far after each cell played."""
    kept = {(c["focal"], c["field"]): c for c in done}
    cells = []
    with one_blas_thread():
        for focal in protocol.rungs:
            for field in protocol.rungs:
                if (focal, field) in kept:
                    cells.append(kept[(focal, field)])
                    continue
                result = run_tournament(ruleset, focal, field, ladder_games(protocol, focal, field),
                                        seed=protocol.seed, progress=progress, workers=workers)
                cells.append(ladder_cell(protocol, focal, field, result.outcomes))
                report(f"{ruleset} {focal} vs 3 x {field}: {result.win_share:.3f} over {result.games} games "
                       f"({result.seconds:.0f} s)")
                if on_cell is not None:
                    on_cell({"protocol": protocol.to_dict(), "ruleset": ruleset, "cells": cells})
    return {"protocol": protocol.to_dict(), "ruleset": ruleset, "cells": cells}
