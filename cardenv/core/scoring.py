"""Ranking helpers shared by every ruleset (lowest total wins; ties share a rank)."""

from __future__ import annotations

from collections.abc import Sequence


def shared_ranks(totals: Sequence[int]) -> list[int]:
    """Competition ranking, lowest first: totals 10, 20, 10, 30 rank 1, 3, 1, 4."""
    return [1 + sum(1 for other in totals if other < own) for own in totals]


def lowest(totals: Sequence[int]) -> list[int]:
    """Indices of every total equal to the minimum."""
    best = min(totals)
    return [i for i, t in enumerate(totals) if t == best]


def first_clockwise_after(candidates: Sequence[int], after: int, num_players: int) -> int:
    """The candidate seat met first going clockwise from ``after + 1`` (``after`` last)."""
    for step in range(1, num_players + 1):
        seat = (after + step) % num_players
        if seat in candidates:
            return seat
    raise ValueError("no candidates")


def points_relative_to_table(added: Sequence[float], players: Sequence[int]) -> list[float]:
    """Per seat, the mean of the points the ``players`` added minus its own (a seat not
    among them gets 0): zero-sum over the table, positive for a better result than the
    table's average. Ranks and wins are decided by totals relative to the others, which
    points alone do not say (a player who adds little can still fall behind a table that
    adds less)."""
    mean = sum(added[p] for p in players) / len(players)
    relative = [0.0] * len(added)
    for p in players:
        relative[p] = mean - added[p]
    return relative
