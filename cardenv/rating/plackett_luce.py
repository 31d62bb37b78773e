"""Plackett–Luce strengths fitted by maximum likelihood to finishing orders.

Under the Plackett–Luce model, player ``i`` has a strength ``theta_i`` and a game's
finishing order is drawn place by place: the next place goes to a remaining player with
probability proportional to ``exp(theta)``. Players who finish level (equal ranks) form a
group whose probability is that of the group taking the next places in any order.

The fit is a maximum of the log-likelihood over all games at once (scipy's L-BFGS-B), so
the same games give the same strengths whatever their order; the covariance of the free
strengths is the inverse of the observed information (the log-likelihood's curvature at
the maximum). Some strengths can be held fixed: a rating ladder fits its rungs once and
then places a candidate against them with only the candidate's strength free.

A player who finishes above another in every game they share has no finite maximum. As
in BayesElo, a prior of virtual draws keeps the fit finite: every pair of players who met
is credited with ``prior_draws`` two-player games drawn (half a win each way under the
Bradley–Terry model, which is Plackett–Luce for two). Against hundreds of real games the
prior moves strengths little; where one player always finishes above another it sets how
far apart they are (about ``log(games / prior_draws)``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# An outcome: the players (indices into the strengths) of each finishing group, best first.
Outcome = tuple[tuple[int, ...], ...]

STRENGTH_BOUND = 30.0
"""Strengths are searched in [-30, 30] (a factor of e**60 between extremes): a player who
finished first or last in every game has no finite maximum, and its fit stops at the bound."""


def outcome_of(players: Sequence[int], ranks: Sequence[int]) -> Outcome:
    """The outcome of a game where ``players[s]`` (a strength index) finished with rank
    ``ranks[s]`` (1 = best; equal ranks finished level)."""
    levels = sorted(set(ranks))
    return tuple(tuple(sorted(p for p, r in zip(players, ranks) if r == level)) for level in levels)


def outcome_log_probability(theta: np.ndarray, outcome: Outcome) -> float:
    """``log P(outcome)`` under the strengths ``theta`` (in log space throughout: no
    strength is too far from the others to count)."""
    remaining = [theta[p] for group in outcome for p in group]
    total = 0.0
    for group in outcome[:-1]:  # the last group takes the last places with probability 1
        if len(group) == 1:
            total += theta[group[0]] - np.logaddexp.reduce(remaining)
        else:
            orders = []
            for order in itertools.permutations(group):
                left, log_probability = list(remaining), 0.0
                for p in order:
                    log_probability += theta[p] - np.logaddexp.reduce(left)
                    left.remove(theta[p])
                orders.append(log_probability)
            total += np.logaddexp.reduce(orders)
        for p in group:
            remaining.remove(theta[p])
    return float(total)


PRIOR_DRAWS = 2.0
"""Virtual draws per pair of players who met (BayesElo's default prior)."""


def log_likelihood(theta: np.ndarray, counts: Mapping[Outcome, int]) -> float:
    # summed in a fixed order: the same games give the same figure to the last bit, however counted
    return float(sum(n * outcome_log_probability(theta, outcome) for outcome, n in sorted(counts.items())))


def met_pairs(counts: Mapping[Outcome, int]) -> list[tuple[int, int]]:
    """The pairs of distinct players who played at least one game together."""
    pairs = set()
    for outcome in counts:
        players = sorted({p for group in outcome for p in group})
        pairs.update(itertools.combinations(players, 2))
    return sorted(pairs)


def log_prior(theta: np.ndarray, pairs: Sequence[tuple[int, int]], prior_draws: float) -> float:
    """``prior_draws`` virtual draws per pair: each half a win either way."""
    total = 0.0
    for i, j in pairs:
        d = theta[i] - theta[j]
        total -= prior_draws * (np.logaddexp(0.0, d) + np.logaddexp(0.0, -d)) / 2
    return float(total)


@dataclass(frozen=True)
class StrengthFit:
    """Fitted strengths (``theta``, fixed ones included), the covariance of all of them
    (zero rows and columns for the fixed), the number of games, and which free strengths
    stopped at :data:`STRENGTH_BOUND`."""

    theta: np.ndarray
    covariance: np.ndarray
    games: int
    at_bound: tuple[int, ...]


def fit_strengths(counts: Mapping[Outcome, int], num_players: int, fixed: Mapping[int, float],
                  prior_draws: float = PRIOR_DRAWS) -> StrengthFit:
    """The most likely strengths of ``num_players`` players from ``counts``
    (a ``Counter`` of outcomes: games with the same outcome add the same term) and the prior of ``prior_draws`` virtual draws per pair that
    met, the players in ``fixed`` held at their given strength (at least one must be: the
    likelihood does not change when every strength moves together)."""
    from scipy.optimize import minimize

    if not fixed:
        raise ValueError("fit_strengths needs at least one fixed strength (an anchor)")
    free = [p for p in range(num_players) if p not in fixed]
    theta = np.zeros(num_players)
    for p, value in fixed.items():
        theta[p] = value

    def full(x: np.ndarray) -> np.ndarray:
        values = theta.copy()
        values[free] = x
        return values

    pairs = met_pairs(counts)

    def negative(x: np.ndarray) -> float:
        values = full(x)
        return -log_likelihood(values, counts) - log_prior(values, pairs, prior_draws)

    games = sum(counts.values())
    if not free:
        return StrengthFit(theta, np.zeros((num_players, num_players)), games, ())
    start = np.zeros(len(free))
    result = minimize(negative, start, method="L-BFGS-B", bounds=[(-STRENGTH_BOUND, STRENGTH_BOUND)] * len(free),
                      options={"ftol": 1e-12, "gtol": 1e-8, "maxiter": 1000})
    x = result.x
    at_bound = tuple(free[i] for i, value in enumerate(x) if abs(value) >= STRENGTH_BOUND - 1e-6)
    information = _hessian(negative, x)
    covariance = np.zeros((num_players, num_players))
    try:
        inner = np.linalg.inv(information)
    except np.linalg.LinAlgError:
        inner = np.full((len(free), len(free)), np.inf)
    covariance[np.ix_(free, free)] = inner
    return StrengthFit(full(x), covariance, games, at_bound)


def _hessian(function, x: np.ndarray, step: float = 1e-4) -> np.ndarray:
    """The matrix of second derivatives of ``function`` at ``x`` by central differences."""
    n = len(x)
    hessian = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            total = 0.0
            for si, sj, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                shifted = x.copy()
                shifted[i] += si * step
                shifted[j] += sj * step
                total += sign * function(shifted)
            hessian[i, j] = hessian[j, i] = total / (4 * step * step)
    return hessian
