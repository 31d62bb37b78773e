"""Rating a candidate: its games against every rung of a protocol's ladder, one rating.

The candidate plays the protocol's games against three copies of each rung, on the deals
and in the seats every rung played them when the ladder was made; the score card shows
its result beside each rung's own. Its rating is the Plackett–Luce strength that best
explains its finishing orders with the rungs' strengths held where the ladder put them,
on the ladder's scale (``zero`` rates 0, ``thousand`` rates 1000). Its interval is that of
the candidate's games alone: the ladder is fixed per protocol version.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from cardenv.agents.specs import make_agent
from cardenv.core.extras import require_extra
from cardenv.core.version import __version__
from cardenv.eval.tournament import run_tournament
from cardenv.rating.ladder import (Z95, FieldSummary, Ladder, cell_counts, game_outcomes, ladder_games, load_ladder,
                                   one_blas_thread)
from cardenv.rating.plackett_luce import fit_strengths
from cardenv.rating.protocol import PROTOCOL, RatingProtocol


@dataclass(frozen=True)
class FieldRow:
    """The candidate and every rung against three copies of one rung, on the same deals."""

    field: str
    candidate: FieldSummary
    rungs: dict[str, FieldSummary]

    def to_dict(self) -> dict:
        return {"field": self.field, "candidate": self.candidate.to_dict(),
                "rungs": {rung: summary.to_dict() for rung, summary in self.rungs.items()}}


@dataclass(frozen=True)
class ScoreCard:
    """One candidate rated on one ruleset under one protocol."""

    ruleset: str
    agent: str
    protocol: RatingProtocol
    quick: bool
    rating: float
    rating_ci95: tuple[float, float]
    outside_ladder: bool  # rated above the top rung or below the bottom one: the ladder measures it less well
    games: int
    rows: list[FieldRow]
    ladder: dict[str, tuple[float, float]]  # rung -> (rating, 95% half-width of the ladder's own fit)
    command: str
    cardenv_version: str = __version__
    extras: dict = field(default_factory=dict)  # "exploit" and "mini" results, where asked for

    def to_dict(self) -> dict:
        return {"ruleset": self.ruleset, "agent": self.agent, "protocol": self.protocol.to_dict(),
                "quick": self.quick, "rating": self.rating, "rating_ci95": list(self.rating_ci95),
                "outside_ladder": self.outside_ladder, "games": self.games, "rows": [row.to_dict() for row in self.rows],
                "ladder": {rung: {"rating": r, "half_width": h} for rung, (r, h) in self.ladder.items()},
                "command": self.command, "cardenv_version": self.cardenv_version, **self.extras}

    def describe(self) -> str:
        low, high = self.rating_ci95
        bound = " (outside the ladder: no rung is as strong, or as weak, to measure it by)" if self.outside_ladder else ""
        mode = " quick" if self.quick else ""
        return (f"{self.agent} on {self.ruleset}: rating {self.rating:.0f} [{low:.0f}, {high:.0f}]{bound}, "
                f"protocol {self.protocol.version}{mode}, {self.games} games")


def rating_command(rulesets: Sequence[str], agent: str, quick: bool, protocol: RatingProtocol,
                   exploit: bool = False, mini: bool = False) -> str:
    """The ``cardenv rate`` command that makes the same score card (workers and Ray, which
    change only where the games are played, left out)."""
    words = ["cardenv", "rate"]
    words += [rulesets[0]] if len(rulesets) == 1 else ["--rulesets", *rulesets]
    words += ["--agent", agent]
    if protocol is not PROTOCOL:
        words += ["--protocol", protocol.version]
    words += [flag for flag, on in (("--quick", quick), ("--exploit", exploit), ("--mini", mini)) if on]
    return shlex.join(words)


def place_on_ladder(ladder: Ladder, counts: Counter) -> tuple[float, float]:
    """The candidate's rating (strength index ``len(rungs)`` in ``counts``) and the
    half-width of its 95% interval, the rungs' strengths held where the ladder put them."""
    rungs = ladder.protocol.rungs
    fixed = {i: float(theta) for i, theta in enumerate(ladder.fit.theta)}
    fit = fit_strengths(counts, len(rungs) + 1, fixed)
    theta = float(fit.theta[-1])
    half = Z95 * float(np.sqrt(max(0.0, fit.covariance[-1, -1]))) * ladder.scale
    return theta * ladder.scale, half


def rate_ruleset(ruleset: str, agent: str, quick: bool = False, protocol: RatingProtocol = PROTOCOL,
                 workers: int = 1, ray_address: str | None = None, progress: bool = False,
                 agent_factory: Callable = make_agent, ladder: Ladder | None = None, command: str = "",
                 report: Callable[[str], None] | None = None) -> ScoreCard:
    """Play ``agent`` against every field of ``protocol`` on ``ruleset`` and rate it."""
    ladder = ladder if ladder is not None else load_ladder(ruleset, protocol)
    candidate = len(protocol.rungs)
    counts: Counter = Counter()
    rows = []
    with one_blas_thread():
        for rung in protocol.fields(quick):
            games = protocol.quick_games if quick else ladder_games(protocol, agent, rung)
            result = run_tournament(ruleset, agent, rung, games, seed=protocol.seed,
                                    progress=progress, agent_factory=agent_factory, workers=workers,
                                    ray_address=ray_address)
            counts.update(game_outcomes(result.outcomes, candidate, protocol.rungs.index(rung)))
            rows.append(FieldRow(rung, FieldSummary.of(result.outcomes),
                                 {focal: ladder.summary(focal, rung, quick) for focal in protocol.rungs}))
            if report is not None:
                report(f"{ruleset}: {agent} vs 3 x {rung}: {result.win_share:.3f} over {result.games} games")
    return score_card(ladder, agent, quick, counts, rows,
                      command or rating_command([ruleset], agent, quick, protocol))


def score_card(ladder: Ladder, agent: str, quick: bool, counts: Counter, rows: list[FieldRow],
               command: str) -> ScoreCard:
    """The card of ``agent`` from its finishing orders (``counts``, the agent as player
    ``len(rungs)``) and its rows."""
    rating, half = place_on_ladder(ladder, counts)
    ratings = ladder.ratings()
    outside = not min(r for r, _ in ratings.values()) <= rating <= max(r for r, _ in ratings.values())
    return ScoreCard(ladder.ruleset, agent, ladder.protocol, quick, rating, (rating - half, rating + half), outside,
                     sum(counts.values()), rows, ratings, command)


def rung_card(ladder: Ladder, rung: str) -> ScoreCard:
    """The full score card of one of the ladder's rungs, read from the ladder: the games
    ``cardenv rate`` would play for it are exactly its ladder games."""
    protocol = ladder.protocol
    counts: Counter = Counter()
    rows = []
    for opponent in protocol.fields():
        counts.update(cell_counts(protocol, ladder.cells[(rung, opponent)], len(protocol.rungs)))
        rows.append(FieldRow(opponent, ladder.summary(rung, opponent), {focal: ladder.summary(focal, opponent)
                                                                         for focal in protocol.rungs}))
    return score_card(ladder, rung, False, counts, rows, rating_command([ladder.ruleset], rung, False, protocol))


def write_json(cards: Sequence[ScoreCard], path: str) -> str:
    """The cards as JSON (one object for one card, ``{"cards": [...]}`` for several)."""
    data = cards[0].to_dict() if len(cards) == 1 else {"command": cards[0].command,
                                                        "cards": [card.to_dict() for card in cards]}
    text = json.dumps(data, indent=1) + "\n"
    if path == "-":
        print(text, end="")
    else:
        with open(path, "w") as file:
            file.write(text)
    return text


def check_rate_args(rulesets: Sequence[str], agent: str, protocol: str | RatingProtocol, exploit: bool = False,
                    mini: bool = False) -> RatingProtocol:
    """Check what a rating needs before any game: the rulesets, the protocol and its
    ladders, the agent spec, what ``exploit`` and ``mini`` need; one clear ``ValueError``
    (or :class:`~cardenv.core.extras.MissingExtra`) otherwise."""
    from cardenv.agents.specs import parse_spec
    from cardenv.rating.protocol import get_protocol
    from cardenv.rulesets import get_ruleset

    protocol = protocol if isinstance(protocol, RatingProtocol) else get_protocol(str(protocol))
    for ruleset in rulesets:
        get_ruleset(ruleset)
        load_ladder(ruleset, protocol)
    if not isinstance(agent, str):
        raise ValueError(f"agent must be an agent spec (a string), got {agent!r}")
    parse_spec(agent)
    if exploit:
        from cardenv.train.best_response import EXPLOIT_GAMES, EXPLOIT_TIMESTEPS, check_best_response

        require_extra("train", "exploit (a best response)")
        for ruleset in rulesets:
            check_best_response(ruleset, agent, EXPLOIT_TIMESTEPS, "guided", protocol.seed, EXPLOIT_GAMES, None)
    if mini:
        require_extra("openspiel", "mini (exact exploitability)")
        from cardenv.adapters.openspiel_policies import mini_ruleset

        for ruleset in rulesets:
            mini_ruleset(ruleset)
    return protocol


def rate(ruleset: str, agent: str, quick: bool = False, protocol: str | RatingProtocol = PROTOCOL,
         workers: int = 1, ray_address: str | None = None, progress: bool = False, exploit: bool = False,
         mini: bool = False, agent_factory: Callable = make_agent, report: Callable[[str], None] | None = None,
         command: str = "") -> ScoreCard:
    """Rate ``agent`` (an agent spec) on ``ruleset`` under ``protocol`` (the current one by
    default): its score card. ``quick`` meets only the non-search rungs, on the protocol's
    first ``quick_games`` deals of each. ``exploit`` adds the win share of a best response
    trained against three copies of the agent (:func:`cardenv.train.best_response.train_best_response`,
    a lower bound on its exploitability); ``mini`` the agent's exact exploitability on the
    ruleset's mini variant (OpenSpiel; the agent must play that variant)."""
    protocol = check_rate_args([ruleset], agent, protocol, exploit, mini)
    command = command or rating_command([ruleset], agent, quick, protocol, exploit, mini)
    card = rate_ruleset(ruleset, agent, quick, protocol, workers, ray_address, progress, agent_factory,
                        command=command, report=report)
    if exploit:
        from cardenv.train import best_response

        result = best_response.train_best_response(ruleset, agent, timesteps=best_response.EXPLOIT_TIMESTEPS,
                                                   seed=protocol.seed, games=best_response.EXPLOIT_GAMES,
                                                   progress=progress)
        card.extras["exploit"] = {**_without_times(result.to_dict()), "describe": result.describe()}
    if mini:
        from cardenv.adapters.openspiel_policies import agent_exploitability

        result = agent_exploitability(ruleset, agent, seed=protocol.seed)
        card.extras["mini"] = {**_without_times(result.to_dict()), "describe": result.describe()}
    return card


def _without_times(figures: dict) -> dict:
    """A result's figures without how long it took: the same command gives the same card."""
    return {key: value for key, value in figures.items() if not key.endswith("seconds")}
