"""The slot block and card counting of a :class:`~cardenv.games.observation.TableObserver`
observation, compiled with numba.

Written with numpy, these pieces took seven array calls per observation (an identity
lookup over the deck, the knowers turned seat-relative, a gather of every slot's row and
a scatter into the slot pieces, the accounted-for counts); each call's fixed cost, not
the arithmetic, was most of the time. One compiled loop over the slots does the same in
a seventh of the time (measured: docs/performance.md), which makes a whole step through
``env()`` about a fifth cheaper. ``tests/test_observation_reference.py`` checks the
result against a straightforward Python reference.

Compiled on first use and cached on disk (numba's ``cache=True``), so a process pays the
compilation once per machine, not once per run. Imported only when an observer is built,
so ``import cardenv`` does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def write_slots_and_accounted(buffer: np.ndarray, slot_cards: np.ndarray, shown: np.ndarray, card_types: np.ndarray,
                              known: np.ndarray, knowers: np.ndarray, destinations: np.ndarray,
                              identity_of_type: np.ndarray, top_discard: int, accounted_start: int,
                              copies: np.ndarray) -> None:
    """Write every slot's row and the ``accounted`` piece into ``buffer`` (zeroed before).

    ``slot_cards``: every slot's card, seat by seat from the observer (-1 for an empty
    slot). A slot's row is ``slot_present``, then its card's identity row
    (``identity_of_type[type]``, only if ``shown``), then ``known[knowers[k], card]`` for
    each knower k (seat-relative); entry j of slot i's row lands at
    ``destinations[i * width + j]``. ``accounted``: per card type, the cards shown or on
    top of the discard pile (``top_discard``, -1 for none), divided by the type's copies."""
    num_slots = slot_cards.shape[0]
    width = destinations.shape[0] // num_slots
    identity_width = identity_of_type.shape[1]
    knowers_column = 1 + identity_width
    for i in range(num_slots):
        card = slot_cards[i]
        if card < 0:
            continue
        row = i * width
        buffer[destinations[row]] = 1.0
        if shown[card]:
            card_type = card_types[card]
            for j in range(identity_width):
                buffer[destinations[row + 1 + j]] = identity_of_type[card_type, j]
        for k in range(knowers.shape[0]):
            if known[knowers[k], card]:
                buffer[destinations[row + knowers_column + k]] = 1.0
    counts = np.zeros(copies.shape[0], dtype=np.int64)
    for card in range(shown.shape[0]):
        if shown[card] or card == top_discard:
            counts[card_types[card]] += 1
    for card_type in range(copies.shape[0]):
        if counts[card_type]:
            buffer[accounted_start + card_type] = counts[card_type] / copies[card_type]


@numba.njit(cache=True, nogil=True)
def write_event_rows(target: np.ndarray, rows: np.ndarray, destinations: np.ndarray) -> None:
    """Scatter the event ``rows`` (newest first, seats absolute) into ``target``: entry j
    of row i lands at ``destinations[i, j]`` (an observer's seat-relative columns)."""
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            target[destinations[i, j]] = rows[i, j]
