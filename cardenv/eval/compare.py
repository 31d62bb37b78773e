"""Head to head: two agents on the same deals, in the same seats, against the same field.

:func:`compare` runs :func:`~cardenv.eval.tournament.run_tournament` once with A and once
with B as the candidate, with the same seed and field. Game ``g`` then has the same env
seed (``seed + g``), the same seating, and every agent's generator restarted from the
same ``(seed, g, agent index)``: the field's agents draw what they drew in A's game, and
B's generator is the one A had. The games differ only where A and B choose differently,
so the per-game differences are paired, and their mean has a far narrower interval than
the difference of two independent win shares.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from cardenv.agents.specs import make_agent
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.eval.intervals import mean_interval
from cardenv.eval.tournament import GameOutcome, TournamentResult, run_tournament

INTERVAL_METHOD = "paired Student t, 95%, over games (points/round: its ratio linearised per game)"


@dataclass
class AgentSummary:
    """One side of a comparison: what ``cardenv eval`` reports of it, on the shared games."""

    spec: str
    win_share: float
    win_share_ci95: tuple[float, float]  # Wilson score
    points_per_round: float  # points added to its score per round played, on average (pooled over games)
    mean_final_score: float
    seconds: float


@dataclass
class Difference:
    """A minus B, with its 95% paired interval."""

    estimate: float
    ci95: tuple[float, float]

    def verdict(self, a: str, b: str, higher_is_better: bool = True) -> str:
        """Which side the interval puts ahead, or that it includes 0."""
        low, high = self.ci95
        if low <= 0.0 <= high:
            return "no difference detected (the interval includes 0)"
        a_ahead = (low > 0.0) == higher_is_better
        return f"{a if a_ahead else b} better"


@dataclass
class ComparisonResult:
    ruleset: str
    a: AgentSummary
    b: AgentSummary
    field: list[str]
    games: int
    seed: int
    env_kwargs: dict
    win_share_difference: Difference  # A's win share minus B's
    points_per_round_difference: Difference  # A's points per round minus B's (fewer points is better)
    games_differing: int  # games whose finishing scores differ between A's and B's play
    interval_method: str = INTERVAL_METHOD
    a_outcomes: list[GameOutcome] = field(default_factory=list, repr=False)
    b_outcomes: list[GameOutcome] = field(default_factory=list, repr=False)

    def to_dict(self, with_games: bool = False) -> dict:
        data = asdict(self)
        if not with_games:
            data.pop("a_outcomes")
            data.pop("b_outcomes")
        return data

    def to_json(self, with_games: bool = False) -> str:
        return json.dumps(self.to_dict(with_games), indent=2)

    def describe(self) -> str:
        """A plain-text table (one row per agent, one for A − B) and a verdict per measure."""
        from io import StringIO

        from rich import box
        from rich.console import Console
        from rich.table import Table

        table = Table(box=box.ASCII2, header_style="bold")
        for header in ("", "agent", "win share", "95% CI", "pts/round", "95% CI ", "final score"):
            table.add_column(header, justify="left" if header in ("", "agent") else "right")
        for label, side in (("A", self.a), ("B", self.b)):
            low, high = side.win_share_ci95
            table.add_row(label, side.spec, f"{side.win_share:.3f}", f"[{low:.3f}, {high:.3f}]",
                          f"{side.points_per_round:.2f}", "", f"{side.mean_final_score:.1f}")
        share, points = self.win_share_difference, self.points_per_round_difference
        table.add_row("A - B", "paired", f"{share.estimate:+.3f}", f"[{share.ci95[0]:+.3f}, {share.ci95[1]:+.3f}]",
                      f"{points.estimate:+.2f}", f"[{points.ci95[0]:+.2f}, {points.ci95[1]:+.2f}]", "")
        buffer = StringIO()
        Console(file=buffer, width=200, no_color=True, color_system=None, highlight=False).print(table)
        lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
        field_text = ",".join(sorted(set(self.field))) if len(set(self.field)) == 1 else ",".join(self.field)
        lines += [
            f"win share: {share.verdict(self.a.spec, self.b.spec)}; "
            f"points/round (fewer is better): {points.verdict(self.a.spec, self.b.spec, higher_is_better=False)}",
            f"({self.games} games each against {field_text}, the same deals and seats; seed {self.seed}; "
            f"{self.games_differing} games ended differently; {self.a.seconds + self.b.seconds:.1f}s; "
            f"win share CIs: Wilson score; A - B: {self.interval_method})",
        ]
        return "\n".join(lines)


def _summary(result: TournamentResult) -> AgentSummary:
    return AgentSummary(result.candidate, result.win_share, result.win_share_ci95, result.mean_points_per_round,
                        result.mean_final_score, result.seconds)


def _points_difference(a: Sequence[GameOutcome], b: Sequence[GameOutcome]) -> Difference:
    """A's pooled points per round minus B's, with the delta method's paired t-interval:
    a pooled ratio P/R has the per-game linear terms (p_g - (P/R) r_g) / mean(r)."""
    points_a = np.array([sum(o.candidate_points) for o in a], dtype=float)
    points_b = np.array([sum(o.candidate_points) for o in b], dtype=float)
    rounds_a = np.array([o.rounds for o in a], dtype=float)
    rounds_b = np.array([o.rounds for o in b], dtype=float)
    ratio_a, ratio_b = points_a.sum() / rounds_a.sum(), points_b.sum() / rounds_b.sum()
    terms = (points_a - ratio_a * rounds_a) / rounds_a.mean() - (points_b - ratio_b * rounds_b) / rounds_b.mean()
    estimate, interval = mean_interval(terms, center=ratio_a - ratio_b)
    return Difference(estimate, interval)


def compare(
    ruleset: str,
    a: str,
    b: str,
    field: str | Sequence[str] = "heuristic",
    games: int = 2000,
    seed: int = 0,
    env_kwargs: dict | None = None,
    workers: int = 1,
    progress: bool = False,
    ray_address: str | None = None,
    agent_factory: Callable[[str, RulesetInfo, np.random.Generator], Agent] = make_agent,
) -> ComparisonResult:
    """Play agent specs ``a`` and ``b`` each as the candidate of the same tournament
    (:func:`~cardenv.eval.tournament.run_tournament`: ``field``, ``games`` rounded up to
    whole rotations, ``seed``, ``env_kwargs``, ``workers``, ``ray_address`` and
    ``agent_factory`` as there), and return both sides' results with the paired
    differences A − B of the win share and of the points per round, each with its 95%
    t-interval over the games."""
    options = dict(seed=seed, env_kwargs=env_kwargs, progress=progress, agent_factory=agent_factory,
                   workers=workers, ray_address=ray_address)
    result_a = run_tournament(ruleset, a, field, games, **options)
    result_b = run_tournament(ruleset, b, field, games, **options)
    share, share_interval = mean_interval([x.share - y.share for x, y in zip(result_a.outcomes, result_b.outcomes)])
    return ComparisonResult(
        ruleset=ruleset,
        a=_summary(result_a),
        b=_summary(result_b),
        field=result_a.field,
        games=result_a.games,
        seed=result_a.seed,
        env_kwargs=result_a.env_kwargs,
        win_share_difference=Difference(share, share_interval),
        points_per_round_difference=_points_difference(result_a.outcomes, result_b.outcomes),
        games_differing=sum(x.final_scores != y.final_scores for x, y in zip(result_a.outcomes, result_b.outcomes)),
        a_outcomes=result_a.outcomes,
        b_outcomes=result_b.outcomes,
    )
