"""Melds of the rummy family: sets and runs with jokers, on hands that are multisets.

A rummy hand is a multiset of card *types*: two identical cards are interchangeable, so
actions and observations count types instead of naming slots. This module works on
*meld types*: the 52 standard types of :mod:`cardenv.core.cards` (``rank * 4 + suit``,
ace = rank 0) plus one joker type, ``JOKER`` = 52 (a red and a black joker play alike).
Counts are arrays of length ``NUM_MELD_TYPES``.

Rules (parameters of :class:`MeldRules`; the defaults are the common family rummy):

* a **set** is ``set_min``–``set_max`` cards of one rank, suits free, duplicates allowed;
* a **run** is at least ``run_min`` cards of one suit in consecutive rank order; aces are
  high only, so a run spans *positions* 0 … 12 = 2, 3, … K, A (Q-K-A is a run, A-2-3 and
  K-A-2 are not);
* a joker stands for any card; every meld has a real card, and a meld with exactly one
  real card (or only one real rank) is a set;
* canonical joker placement in a run: gaps first, then the high end up to the ace, then
  the low end; a joker added to a run goes high if it can, else low. A joker never moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardenv.core.cards import (
    EITHER_JOKER_NAME,
    NUM_STANDARD_RANKS,
    NUM_STANDARD_TYPES,
    NUM_SUITS,
    RANK_NAMES,
    SUIT_NAMES,
)

JOKER = NUM_STANDARD_TYPES  # the one joker meld type
NUM_MELD_TYPES = NUM_STANDARD_TYPES + 1
NUM_POSITIONS = NUM_STANDARD_RANKS  # run positions 0..12 = 2..A
MELD_TYPE_NAMES: tuple[str, ...] = tuple(
    [RANK_NAMES[t >> 2] + SUIT_NAMES[t & 3] for t in range(NUM_STANDARD_TYPES)] + [EITHER_JOKER_NAME]
)


def meld_type(card_type: int) -> int:
    """The meld type of a core card type (both jokers are ``JOKER``)."""
    return min(int(card_type), JOKER)


def position_of_rank(rank: int) -> int:
    """Run position of a rank (ace = 0 in the core) with aces high: 2 → 0 … K → 11, A → 12."""
    return (rank + NUM_STANDARD_RANKS - 1) % NUM_STANDARD_RANKS


def rank_of_position(position: int) -> int:
    return (position + 1) % NUM_STANDARD_RANKS


def type_at(suit: int, position: int) -> int:
    """The standard type at a run position of a suit."""
    return _TYPE_AT[suit][position]


_TYPE_AT = [[((p + 1) % NUM_STANDARD_RANKS) * NUM_SUITS + s for p in range(NUM_STANDARD_RANKS)] for s in range(NUM_SUITS)]


@dataclass(frozen=True)
class MeldRules:
    set_min: int = 3
    set_max: int = 4
    run_min: int = 3
    run_max: int = NUM_POSITIONS


DEFAULT_RULES = MeldRules()


@dataclass(frozen=True)
class MeldShape:
    """A valid meld: a set of ``key`` = rank, or a run of ``key`` = suit over positions
    ``low`` … ``high``. ``positions[i]`` is where the i-th card of the input stands (runs;
    jokers placed canonically), -1 for sets."""

    is_run: bool
    key: int
    low: int
    high: int
    positions: tuple[int, ...]


def classify(types: Sequence[int], rules: MeldRules = DEFAULT_RULES) -> MeldShape | None:
    """The meld that cards of these meld types form, jokers placed canonically, or None."""
    reals = [t for t in types if t != JOKER]
    jokers = len(types) - len(reals)
    n = len(types)
    if not reals:
        return None
    ranks = {t >> 2 for t in reals}
    if len(ranks) == 1:
        if rules.set_min <= n <= rules.set_max:
            return MeldShape(False, reals[0] >> 2, -1, -1, (-1,) * n)
        return None
    suits = {t & 3 for t in reals}
    real_positions = [position_of_rank(t >> 2) for t in reals]
    if len(suits) != 1 or len(set(real_positions)) != len(reals):
        return None
    low, high = min(real_positions), max(real_positions)
    gaps = high - low + 1 - len(reals)
    if gaps > jokers or n > rules.run_max or n < rules.run_min:
        return None
    spare = jokers - gaps
    up = min(spare, NUM_POSITIONS - 1 - high)
    high += up
    low -= spare - up
    free = [p for p in range(low, high + 1) if p not in set(real_positions)]
    placed, joker_index = [], 0
    position_of = dict(zip(range(len(reals)), real_positions))
    real_index = 0
    for t in types:
        if t == JOKER:
            placed.append(free[joker_index])
            joker_index += 1
        else:
            placed.append(position_of[real_index])
            real_index += 1
    return MeldShape(True, reals[0] & 3, low, high, tuple(placed))


def accepts(is_run: bool, key: int, low: int, high: int, size: int, t: int,
            rules: MeldRules = DEFAULT_RULES) -> int | None:
    """Where a meld takes a card of meld type ``t``: for a set 0 (it takes it) or None;
    for a run the position the card would stand at, or None."""
    if not is_run:
        if size >= rules.set_max:
            return None
        return 0 if t == JOKER or t >> 2 == key else None
    if size >= rules.run_max:
        return None
    if t == JOKER:
        return high + 1 if high < NUM_POSITIONS - 1 else low - 1
    if t & 3 != key:
        return None
    position = position_of_rank(t >> 2)
    if position == high + 1 or position == low - 1:
        return position
    return None


def accepted_types(is_run: bool, key: int, low: int, high: int, size: int,
                   rules: MeldRules = DEFAULT_RULES) -> list[int]:
    """Every meld type a meld takes now (what :func:`accepts` says yes to)."""
    if not is_run:
        if size >= rules.set_max:
            return []
        return [key * NUM_SUITS + s for s in range(NUM_SUITS)] + [JOKER]
    if size >= rules.run_max:
        return []
    taken = []
    if low > 0:
        taken.append(type_at(key, low - 1))
    if high < NUM_POSITIONS - 1:
        taken.append(type_at(key, high + 1))
    return taken + [JOKER]


def counts_of(types: Sequence[int]) -> np.ndarray:
    return np.bincount(np.asarray(types, dtype=np.int64), minlength=NUM_MELD_TYPES)


def completable(selection: Sequence[int], available: Sequence[int], min_type: int, is_allowed=None,
                rules: MeldRules = DEFAULT_RULES) -> bool:
    """Whether the selected cards (counts per meld type) can become a valid meld by
    adding cards of ``available`` (counts) of meld type ``min_type`` or higher
    (selections are made in type order, so each meld has one path).
    ``is_allowed(meld_counts)``, when given, vetoes final melds (a ruleset's own
    restriction, e.g. on what must stay in hand). Works on lists (fast) or arrays."""
    reals = [t for t in range(JOKER) if selection[t]]
    if not reals:
        return False
    jokers_selected = selection[JOKER]
    jokers_free = available[JOKER]
    size = sum(selection[t] for t in reals) + jokers_selected
    rank = reals[0] >> 2
    if all(t >> 2 == rank for t in reals) and _set_completable(
            selection, available, min_type, rank, size, jokers_free, is_allowed, rules):
        return True
    suit = reals[0] & 3
    if all(t & 3 == suit and selection[t] == 1 for t in reals):
        return _run_completable(selection, available, min_type, suit, reals, jokers_selected, jokers_free,
                                is_allowed, rules)
    return False


def can_start_meld(hand: Sequence[int], t: int, rules: MeldRules = DEFAULT_RULES) -> bool:
    """``completable`` for a selection of one card of type ``t`` from ``hand`` (counts,
    the card included) with no veto, in closed form: the common case of every mask."""
    if t == JOKER:
        return False
    jokers = hand[JOKER]
    rank, suit = t >> 2, t & 3
    same_rank = sum(hand[t: rank * NUM_SUITS + NUM_SUITS])
    if same_rank + jokers >= rules.set_min:
        return True
    # A run whose lowest-ordered real card is t: the other reals have higher types, i.e.
    # higher positions below the ace for a non-ace (the ace's type is its suit's lowest),
    # any other position for an ace. Taking every present card between t and the
    # farthest real one only helps, so try each farthest real card in turn.
    row = _TYPE_AT[suit]
    p = position_of_rank(rank)
    if p == NUM_POSITIONS - 1:
        span = range(p - 1, -1, -1)
    else:
        span = range(p + 1, NUM_POSITIONS - 1)
    count = 1
    for length, q in enumerate(span, start=2):
        if hand[row[q]]:
            count += 1
            if length - count <= jokers and count + jokers >= rules.run_min and length <= rules.run_max:
                return True
        elif length - count > jokers:
            break  # the gaps to fill only grow from here
    return False



# The bit tables of ``startable_types``: per real meld type t, the positions of its suit a
# run started by t may add (every other real card's type must be higher: above t's
# position and below the ace, or anywhere below the ace's); the two nearest as a bit mask
# (0 if there are not two), and per number of jokers j the positions within j + 1 of it.
def _run_windows(t: int) -> tuple[int, list[int]]:
    p = position_of_rank(t >> 2)
    span = range(p - 1, -1, -1) if p == NUM_POSITIONS - 1 else range(p + 1, NUM_POSITIONS - 1)
    nearest_two = (1 << span[0]) | (1 << span[1]) if len(span) >= 2 else 0
    return nearest_two, [sum(1 << q for q in span if abs(q - p) <= jokers + 1) for jokers in range(NUM_POSITIONS)]


_POSITION_BIT = [1 << position_of_rank(t >> 2) for t in range(JOKER)]
_NEAREST_TWO, _WINDOWS = map(list, zip(*(_run_windows(t) for t in range(JOKER))))
_MAX_WINDOW = NUM_POSITIONS - 1


def startable_types(hand: list[int], present: list[int], rules: MeldRules = DEFAULT_RULES) -> list[bool]:
    """``can_start_meld(hand, t)`` for every type ``t`` in ``present`` (the types ``hand``,
    counts per type, holds, ascending), at once: what a mask asks for every card in hand.

    Under the default rules (sets and runs from three cards) it works from bit masks of
    the hand's positions per suit: a set needs three cards of its rank from this type up,
    jokers counted; a run needs a second real card at a position the jokers can bridge
    to, or with no joker the two next positions both held (the selection order cannot
    skip a gap). Other rules ask ``can_start_meld`` type by type."""
    if rules is not DEFAULT_RULES and rules != DEFAULT_RULES:
        return [can_start_meld(hand, t, rules) for t in present]
    jokers = hand[JOKER]
    suit_bits = [0, 0, 0, 0]
    # Per type, the cards of its rank from it up (``present`` is sorted: walk it down).
    rank_from = []
    rank = count = -1
    for t in reversed(present):
        if t != JOKER:
            suit_bits[t & 3] |= _POSITION_BIT[t]
            if t >> 2 != rank:
                rank, count = t >> 2, 0
            count += hand[t]
        rank_from.append(count)
    rank_from.reverse()
    window = _MAX_WINDOW if jokers > _MAX_WINDOW else jokers
    result = []
    for t, same_rank in zip(present, rank_from):
        if t == JOKER:
            result.append(False)
        elif same_rank + jokers >= DEFAULT_RULES.set_min:
            result.append(True)
        elif jokers:
            result.append(bool(suit_bits[t & 3] & _WINDOWS[t][window]))
        else:
            pair = _NEAREST_TWO[t]
            result.append(pair != 0 and suit_bits[t & 3] & pair == pair)
    return result

def candidate_melds(hand: Sequence[int]) -> list[list[int]]:
    """Melds a hand (counts per meld type) could put down now under the default rules,
    each as a sorted list of types (jokers last): every set of a rank with at least three
    cards (jokers filling up to three; at most four real cards), and every run of
    consecutive present cards of a suit, three or more long, one joker filling a gap or,
    for two adjacent cards, an end. Not every way to use the jokers: the melds a player
    would think of first."""
    jokers = hand[JOKER]
    melds = []
    for rank in range(NUM_STANDARD_RANKS):
        reals = [t for t in range(rank * NUM_SUITS, rank * NUM_SUITS + NUM_SUITS) for _ in range(hand[t])][:4]
        if reals and len(reals) + jokers >= 3:
            melds.append(reals + [JOKER] * max(0, 3 - len(reals)))
    for suit in range(NUM_SUITS):
        present = [p for p in range(NUM_POSITIONS) if hand[type_at(suit, p)]]
        for start_index in range(len(present)):
            used_jokers = 0
            run = [present[start_index]]
            for p in present[start_index + 1:]:
                gap = p - run[-1] - 1
                if gap and used_jokers + gap > min(jokers, 1):
                    break
                used_jokers += gap
                run.append(p)
                if len(run) + used_jokers >= 3:
                    melds.append(sorted(type_at(suit, q) for q in run) + [JOKER] * used_jokers)
            if len(run) == 2 and used_jokers == 0 and jokers and run[1] == run[0] + 1:
                melds.append(sorted(type_at(suit, q) for q in run) + [JOKER])
    return melds


def near_meld(hand: Sequence[int], t: int) -> bool:
    """Whether a card of meld type ``t`` is part of a meld in the making in ``hand``
    (counts, the card included): half of a pair of its rank, or within two positions of
    another card of its suit. A joker always is."""
    if t == JOKER:
        return True
    rank, suit = t >> 2, t & 3
    if sum(hand[u] for u in range(rank * NUM_SUITS, rank * NUM_SUITS + NUM_SUITS)) >= 2:
        return True
    p = position_of_rank(rank)
    return any(0 <= q < NUM_POSITIONS and hand[type_at(suit, q)] for q in (p - 2, p - 1, p + 1, p + 2))


def _set_completable(selection, available, min_type, rank, size, jokers_free, is_allowed, rules) -> bool:
    first = rank * NUM_SUITS
    pool = [(t, available[t]) for t in range(max(first, min_type), first + NUM_SUITS) if available[t]]
    if jokers_free:
        pool.append((JOKER, jokers_free))
    if is_allowed is None:
        return size <= rules.set_max and size + sum(count for _, count in pool) >= rules.set_min
    meld = list(selection)

    def search(index: int, n: int) -> bool:
        if rules.set_min <= n <= rules.set_max and is_allowed(meld):
            return True
        if n >= rules.set_max or index == len(pool):
            return False
        t, count = pool[index]
        for k in range(min(count, rules.set_max - n), 0, -1):
            meld[t] += k
            found = search(index + 1, n + k)
            meld[t] -= k
            if found:
                return True
        return search(index + 1, n)

    return search(0, size)


def _run_completable(selection, available, min_type, suit, reals, jokers_selected, jokers_free, is_allowed,
                     rules) -> bool:
    positions = 0
    for t in reals:
        positions |= 1 << position_of_rank(t >> 2)
    extra_types = []
    for p in range(NUM_POSITIONS):
        t = type_at(suit, p)
        if not positions >> p & 1 and t >= min_type and available[t]:
            extra_types.append(t)
    for mask in range(1 << len(extra_types)):
        chosen = [extra_types[i] for i in range(len(extra_types)) if mask >> i & 1]
        occupied = positions
        for t in chosen:
            occupied |= 1 << position_of_rank(t >> 2)
        n_real = bin(occupied).count("1")
        if n_real < 2:
            continue
        low_position = (occupied & -occupied).bit_length() - 1
        span = occupied.bit_length() - low_position
        gaps = span - n_real
        low = max(jokers_selected, gaps, rules.run_min - n_real)
        high = min(jokers_selected + jokers_free, rules.run_max - n_real)
        for jokers in range(low, high + 1):
            if is_allowed is None:
                return True
            meld = list(selection)
            for t in chosen:
                meld[t] += 1
            meld[JOKER] = jokers
            if is_allowed(meld):
                return True
    return False
