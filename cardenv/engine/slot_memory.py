"""The slot heuristics' memory update and what they believe from it, compiled with numba.

With numpy the update took a dozen array calls per decision on a table of a few dozen
slots (three thresholds, an argmax, a rounding, the re-location check), and each call's
fixed cost, not the arithmetic, was most of its time; one compiled loop over the slots
does the same work. Imported when the first slot heuristic is built, so ``import
cardenv`` does not load numba. ``tests/test_heuristic_memory_reference.py`` checks the
result, and the beliefs drawn from it (:func:`write_beliefs`, a dozen numpy calls
before), against the straightforward numpy rules at every decision of heuristic self-play.
"""

from __future__ import annotations

import numpy as np

from cardenv.engine.call_odds import numpy_sum
from cardenv.engine.encoders import compiled


@compiled
def update_slot_memory(slot_present, slot_known, slot_rank, slot_points, slot_known_by, points_scale,
                       mem_rank, mem_points, mem_knowers, present, shown, still_valid) -> int:
    """Update the memory (``mem_rank``, ``mem_points``, ``mem_knowers``, in place) from an
    observation's slot pieces and write which slots are ``present`` and ``shown``: a shown
    slot's card is remembered as shown; a remembered card out of sight is kept while it
    can still be located (same slot, still present, the same players know it, the player
    among them: ``still_valid``); any other slot is forgotten. Returns how many cards are
    kept out of sight. Points are rounded as numpy rounds ``float32 points × scale``."""
    players, slots = mem_rank.shape
    width = slot_rank.shape[2]
    scale = np.float32(points_scale)
    kept = 0
    for p in range(players):
        for s in range(slots):
            is_present = slot_present[p, s] > 0.5
            is_shown = slot_known[p, s] > 0.5
            present[p, s] = is_present
            shown[p, s] = is_shown
            same_knowers = True
            for q in range(players):
                knows = slot_known_by[p, s, q] > 0.5
                if knows != mem_knowers[p, s, q]:
                    same_knowers = False
                mem_knowers[p, s, q] = knows
            valid = (not is_shown and mem_rank[p, s] >= 0 and is_present
                     and slot_known_by[p, s, 0] > 0.5 and same_knowers)
            still_valid[p, s] = valid
            if valid:
                kept += 1
                continue
            if is_shown:
                best, rank = slot_rank[p, s, 0], 0
                for r in range(1, width):
                    if slot_rank[p, s, r] > best:
                        best, rank = slot_rank[p, s, r], r
                mem_rank[p, s] = rank
            else:
                mem_rank[p, s] = -1
            mem_points[p, s] = np.int64(np.rint(slot_points[p, s] * scale))
    return kept


@compiled
def write_beliefs(accounted, still_valid, kept: int, mem_rank, mem_points, type_rank, type_points, present,
                  unseen_points, known, values) -> tuple[int, float]:
    """What the player believes after the memory update (:func:`update_slot_memory`):
    writes the points of every card type neither accounted for by the observation nor
    remembered out of sight (``unseen_points``, one entry per copy, in type order), which
    places hold a remembered card (``known``), and each place's value: its card's points,
    the mean of the unseen points for an unknown card, NaN for an empty slot (``values``).
    A card remembered out of sight (``still_valid``; ``kept`` of them) accounts for the
    first unseen type of its rank and points. Returns how many points were written and
    their mean (6 when there are none), the mean summed as numpy sums."""
    types = accounted.shape[0]
    players, slots = mem_rank.shape
    unseen = np.empty(types, dtype=np.bool_)
    for t in range(types):
        unseen[t] = accounted[t] < 0.5
    if kept:
        for p in range(players):
            for s in range(slots):
                if still_valid[p, s]:
                    for t in range(types):
                        if unseen[t] and type_rank[t] == mem_rank[p, s] and type_points[t] == mem_points[p, s]:
                            unseen[t] = False
                            break
    count = 0
    for t in range(types):
        if unseen[t]:
            unseen_points[count] = type_points[t]
            count += 1
    expected = numpy_sum(unseen_points, 0, count) / count if count else 6.0
    for p in range(players):
        for s in range(slots):
            is_known = mem_rank[p, s] >= 0
            known[p, s] = is_known
            if not present[p, s]:
                values[p, s] = np.nan
            elif is_known:
                values[p, s] = mem_points[p, s]
            else:
                values[p, s] = expected
    return count, expected
