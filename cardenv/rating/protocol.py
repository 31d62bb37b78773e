"""The rating protocol: which fields a candidate meets, how many games, which seeds.

A protocol is versioned: figures made under the same version are comparable. Its ladder
(the rungs' results against each other and their ratings) is computed once per version
by ``python benchmarks/ladder.py`` and stored with the package (:mod:`cardenv.rating.ladder`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RatingProtocol:
    """A fixed way of rating an agent.

    The candidate plays ``games`` games against three copies of each rung (``search_games``
    against a search rung, and against every rung where it is itself a search rung, as on
    the ladder), seats rotated, game ``g`` of every field on env seed
    ``seed + g``, with the ruleset's default options: every rung played the same deals
    against the same fields when the ladder was made. ``quick_games`` is the quick mode's
    count per field, the first games of each non-search field. Ratings are Plackett–Luce
    strengths scaled so that ``zero`` rates 0 and ``thousand`` rates 1000."""

    version: str
    rungs: tuple[str, ...]
    search_rungs: tuple[str, ...]
    games: int
    search_games: int
    quick_games: int
    seed: int
    zero: str = "random_no_call"
    thousand: str = "heuristic"

    def __post_init__(self):
        missing = [rung for rung in (*self.search_rungs, self.zero, self.thousand) if rung not in self.rungs]
        if missing:
            raise ValueError(f"protocol {self.version}: {', '.join(missing)} not among its rungs {self.rungs}")

    def fields(self, quick: bool = False) -> tuple[str, ...]:
        """The rungs a candidate meets (quick: the non-search ones)."""
        return tuple(rung for rung in self.rungs if not (quick and rung in self.search_rungs))

    def games_against(self, field: str, quick: bool = False) -> int:
        if quick:
            return self.quick_games
        return self.search_games if field in self.search_rungs else self.games

    def to_dict(self) -> dict:
        """As JSON stores it (lists, not tuples): what a stored ladder's protocol is compared with."""
        return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(self).items()}


PROTOCOLS = {
    "1": RatingProtocol(
        version="1",
        rungs=("random_no_call", "heuristic", "heuristic_cautious", "ppo:pretrained", "ismcts:10@ppo:pretrained"),
        search_rungs=("ismcts:10@ppo:pretrained",),
        games=200, search_games=40, quick_games=48, seed=470_000),
}
"""Every protocol by version; :data:`PROTOCOL` is the current one."""
PROTOCOL = PROTOCOLS["1"]


def get_protocol(version: str) -> RatingProtocol:
    try:
        return PROTOCOLS[version]
    except KeyError:
        raise ValueError(f"unknown rating protocol {version!r}; protocols are {', '.join(PROTOCOLS)}") from None
