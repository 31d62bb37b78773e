"""The slot heuristics' memory update, compiled with numba.

With numpy the update took a dozen array calls per decision on a table of a few dozen
slots (three thresholds, an argmax, a rounding, the re-location check), and each call's
fixed cost, not the arithmetic, was most of its time; one compiled loop over the slots
does the same work. Imported when the first slot heuristic is built, so ``import
cardenv`` does not load numba. ``tests/test_heuristic_memory_reference.py`` checks the
result against the straightforward numpy rule at every decision of heuristic self-play.
"""

from __future__ import annotations

import numpy as np

from cardenv.games.observation_kernels import compiled


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
