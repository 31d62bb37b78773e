"""The heuristics' compiled Monte Carlo deal against the numpy deal it replaced: the first
``k`` cards of each sample's argsorted random keys, summed into the seats' totals."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents.heuristics.sampling import deal_totals


def reference_totals(keys, unseen, unknown_seat, known_totals):
    k, seats = len(unknown_seat), len(known_totals)
    dealt = unseen[np.argsort(keys, axis=1)[:, :k]]
    seat_onehot = np.zeros((k, seats))
    seat_onehot[np.arange(k), unknown_seat] = 1.0
    return known_totals + dealt @ seat_onehot


@pytest.mark.parametrize("seed", range(40))
def test_deal_totals_match_the_argsort_deal(seed):
    rng = np.random.default_rng(seed)
    seats = int(rng.integers(2, 9))
    num_unseen = int(rng.integers(1, 60))
    k = int(rng.integers(1, num_unseen + 1))  # from one unknown place up to every unseen card
    unseen = rng.integers(-1, 26, num_unseen).astype(np.float64)  # points, negative ones included
    unknown_seat = np.sort(rng.integers(0, seats, k))
    known_totals = rng.integers(0, 60, seats).astype(np.float64)
    keys = rng.random((int(rng.integers(1, 200)), num_unseen))
    totals = np.full((len(keys), seats), np.nan)
    deal_totals(keys, unseen, unknown_seat, known_totals, totals)
    np.testing.assert_array_equal(totals, reference_totals(keys, unseen, unknown_seat, known_totals))


def test_deal_totals_follow_the_order_of_the_keys():
    """Not only the multiset: the j-th smallest key's card goes to the j-th unknown place."""
    keys = np.array([[0.9, 0.1, 0.5, 0.3]])
    unseen = np.array([1.0, 10.0, 100.0, 1000.0])
    totals = np.zeros((1, 3))
    deal_totals(keys, unseen, np.array([2, 0, 1]), np.zeros(3), totals)
    assert totals.tolist() == [[1000.0, 100.0, 10.0]]  # keys 0.1 → seat 2, 0.3 → seat 0, 0.5 → seat 1
