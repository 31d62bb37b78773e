"""The slot heuristics' call estimate after its deals are sampled, compiled with numba.

Whether to call is decided over sampled deals of the unknown cards (128 rows of uniform
draws, one draw per unseen card; a row's lowest draws deal their cards to the unknown
places in order). After the draws and their sort (numpy's vectorised sort beats any
compiled row-by-row sort tried), numpy took a gather, a one-hot product and a dozen array
calls for the totals and the scoring, about 50 µs a decision, most of it the calls'
fixed cost; one compiled loop does it in about 4. Imported when the first slot heuristic
is built, so ``import cardenv`` does not load numba. ``tests/test_heuristic_call_reference.py``
keeps the numpy estimate and checks the same decision on random inputs and at every call
decision of heuristic games.

Every hand total is a sum of small integers, exact in float64 in any order; only the
mean over the deals is not, and it is summed as numpy's ``sum`` sums (:func:`numpy_sum`)
so that a decision on the margin falls the same way.
"""

from __future__ import annotations

import numpy as np

from cardenv.engine.encoders import compiled

# How a call is scored, by the rule that scores it (the heuristic's ``call_scoring``).
CALLER_DOUBLES, CALLER_PENALISED, CALLER_PAYS_PER_LOSS = range(3)
SCORING_BY_RULE = {"O-19": CALLER_DOUBLES, "C-16": CALLER_PENALISED, "K-16": CALLER_PAYS_PER_LOSS}

PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE: longer runs are split in two and summed by halves


@compiled(inline=True)
def block_sum(values: np.ndarray, start: int, count: int) -> float:
    """numpy's sum of a run of at most 128 values: eight running sums, then the rest in turn."""
    if count < 8:
        total = 0.0
        for i in range(start, start + count):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    whole = count - count % 8
    for i in range(start + 8, start + whole, 8):
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(start + whole, start + count):
        total += values[i]
    return total


@compiled
def numpy_sum(values: np.ndarray, start: int, count: int) -> float:
    """``values[start:start + count].sum()`` as numpy adds it up (its pairwise summation:
    blocks of up to 128 values, :func:`block_sum`, longer runs split in two, the first
    half a multiple of 8, and the halves' sums added), for a contiguous run of at most
    8192 values (numpy's buffer: longer runs it sums in pieces). The halving is walked
    with a stack of its own: numba cannot cache a recursive function."""
    if count <= PAIRWISE_BLOCK:
        return block_sum(values, start, count)
    # Pending work, last first: a run to sum (start, count) or, with count -1, the addition
    # of the last two sums.
    run_start = np.empty(64, dtype=np.int64)
    run_count = np.empty(64, dtype=np.int64)
    sums = np.empty(64)
    pending, done = 1, 0
    run_start[0], run_count[0] = start, count
    while pending:
        pending -= 1
        first, length = run_start[pending], run_count[pending]
        if length < 0:
            done -= 1
            sums[done - 1] += sums[done]
        elif length <= PAIRWISE_BLOCK:
            sums[done] = block_sum(values, first, length)
            done += 1
        else:
            half = length // 2
            half -= half % 8
            run_start[pending], run_count[pending] = 0, -1
            run_start[pending + 1], run_count[pending + 1] = first + half, length - half
            run_start[pending + 2], run_count[pending + 2] = first, half
            pending += 3
    return sums[0]


@compiled
def call_pays(lowest_columns: np.ndarray, unseen: np.ndarray, present: np.ndarray, known: np.ndarray,
              known_points: np.ndarray, opponents: np.ndarray, scoring: int, stake: float,
              final_turn_gain: float, min_call_success: float, call_margin: float) -> bool:
    """Whether the sampled deals favour calling: success (the caller strictly below every
    opponent in ``opponents`` after each of them sheds ``final_turn_gain``) in at least
    ``min_call_success`` of them, and a mean relative result (what calling adds to the
    caller minus the mean the opponents add, scored by ``scoring`` with ``stake``) of at
    most ``-call_margin``.

    A deal (a row of ``lowest_columns``: the ``unseen`` cards it deals, in order) gives
    them to the unknown places (``present`` and not ``known``, seat by seat, slot by slot);
    a known place counts its ``known_points``. When no place is unknown there is one deal,
    of no cards."""
    deals = lowest_columns.shape[0]
    players, slots = present.shape
    known_totals = np.zeros(players)
    unknown_seat = np.empty(players * slots, dtype=np.int64)
    places = 0
    for p in range(players):
        for s in range(slots):
            if present[p, s]:
                if known[p, s]:
                    known_totals[p] += known_points[p, s]
                else:
                    unknown_seat[places] = p
                    places += 1
    totals = np.empty(players)
    relative = np.empty(deals)
    successes = 0
    for deal in range(deals):
        totals[:] = known_totals
        for place in range(places):
            totals[unknown_seat[place]] += unseen[lowest_columns[deal, place]]
        mine = totals[0]
        success = True
        others_total = 0.0
        losses = 0
        for o in opponents:
            other = totals[o] - final_turn_gain
            if not mine < other:
                success = False
            if other <= mine:
                losses += 1
            others_total += other
        if success:
            successes += 1
        if scoring == CALLER_DOUBLES:
            # O-19: success → the caller adds 0, the others their totals; failure → the
            # caller adds double, players strictly below the caller add 0, the rest their totals.
            others_added = 0.0
            for o in opponents:
                other = totals[o] - final_turn_gain
                if success or other >= mine:
                    others_added += other
            relative[deal] = (0.0 if success else 2 * mine) - others_added / len(opponents)
        elif scoring == CALLER_PENALISED:
            # C-16: everyone adds their total; a caller who is not strictly lowest adds ``stake`` more.
            relative[deal] = (mine + (0.0 if success else stake)) - others_total / len(opponents)
        else:
            # K-16: −stake when strictly lowest, else +stake per player lower or tied.
            bonus = stake * losses if losses > 0 else -stake
            relative[deal] = (mine + bonus) - others_total / len(opponents)
    return (successes / deals >= min_call_success
            and numpy_sum(relative, 0, deals) / deals <= -call_margin)
