"""The card pieces and event rows of an observation, compiled with numba.

Written with numpy, a :class:`~cardenv.games.observation.TableObserver` observation's
card pieces took about fifteen array calls (an identity lookup over the deck, the
knowers turned seat-relative, a gather of every slot's row and a scatter into the slot
pieces, the accounted-for counts, the top discard, drawn card, phase and player to act
entry by entry), and its event rows three; each call's fixed cost, not the arithmetic,
was most of the time. A compiled loop writes the slot block in about a seventh of the
time of those calls, and the whole step through ``env()`` of a slot ruleset runs about a
quarter fewer instructions (docs/performance.md). ``tests/test_observation_reference.py``
and ``tests/test_carte_observation_reference.py`` check the results bit for bit against
straightforward Python references.

Compiled on first use and cached on disk (numba's ``cache=True``), so a process pays the
compilation once per machine, not once per run; where numba finds no writable place for
its cache, every process compiles them instead (a second or two). Imported only when an
observer is built, so ``import cardenv`` does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np


def compiled(function):
    """``function`` compiled with numba, cached on disk where numba can write its cache."""
    try:
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:  # numba: "cannot cache function …: no locator available"
        return numba.njit(nogil=True)(function)


TOP_DISCARD, DRAWN_CARD, PHASE, CURRENT_PLAYER, ACCOUNTED = range(5)  # entries of ``starts``
HELD_BY_ANOTHER = -2  # ``drawn_card`` when the player to act holds a card the observer may not see


@compiled
def write_table_pieces(buffer: np.ndarray, slot_cards: np.ndarray, shown: np.ndarray, card_types: np.ndarray,
                       known: np.ndarray, knowers: np.ndarray, destinations: np.ndarray,
                       identity_of_type: np.ndarray, starts: np.ndarray, top_discard: int, drawn_card: int,
                       phase: int, current_row: int, copies: np.ndarray) -> None:
    """Write the slot pieces, the top discard, the drawn card, ``phase``,
    ``current_player`` and ``accounted`` into ``buffer`` (zeroed before).

    ``slot_cards``: every slot's card, seat by seat from the observer (-1 for an empty
    slot). A slot's row is ``slot_present``, then its card's identity row
    (``identity_of_type[type]``: 1, rank one-hot, red where colour shows, points; only
    if ``shown``), then ``known[knowers[k], card]`` for each knower k (seat-relative);
    entry j of slot i's row lands at ``destinations[i * width + j]``. The top discard's
    and the drawn card's pieces (present, rank, red, points) are an identity row at
    ``starts[TOP_DISCARD]`` / ``starts[DRAWN_CARD]``; ``drawn_card`` is the observer's
    own drawn card, -1 for none or ``HELD_BY_ANOTHER`` (present only). ``current_row``
    is -1 when nobody is to act. ``accounted``: per card type, the cards shown or on top
    of the discard pile (``top_discard``, -1 for none), divided by the type's copies."""
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
    if top_discard >= 0:
        buffer[starts[TOP_DISCARD]: starts[TOP_DISCARD] + identity_width] = identity_of_type[card_types[top_discard]]
    if drawn_card >= 0:
        buffer[starts[DRAWN_CARD]: starts[DRAWN_CARD] + identity_width] = identity_of_type[card_types[drawn_card]]
    elif drawn_card == HELD_BY_ANOTHER:
        buffer[starts[DRAWN_CARD]] = 1.0
    buffer[starts[PHASE] + phase] = 1.0
    if current_row >= 0:
        buffer[starts[CURRENT_PLAYER] + current_row] = 1.0
    counts = np.zeros(copies.shape[0], dtype=np.int64)
    for card in range(shown.shape[0]):
        if shown[card] or card == top_discard:
            counts[card_types[card]] += 1
    start = starts[ACCOUNTED]
    for card_type in range(copies.shape[0]):
        if counts[card_type]:
            buffer[start + card_type] = counts[card_type] / copies[card_type]


@compiled
def write_event_rows(target: np.ndarray, rows: np.ndarray, column_base: np.ndarray, column_step: np.ndarray,
                     new_start: int, new_count: int, capacity: int) -> None:
    """Write the event pieces of one observation into ``target``: the event ``rows``
    (newest first, seats absolute), entry j of row i at ``column_base[j] + i *
    column_step[j]`` (the observer's seat-relative columns; see
    :func:`~cardenv.games.observation.row_scatter`); then ``event_new``, whole
    (``capacity`` entries at ``new_start``: 1 for each of the ``new_count`` newest
    rows) and ``events_dropped`` (right after it: whether more than ``capacity`` were new).
    Rows beyond ``rows`` are left as they are: zero them before."""
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            target[column_base[j] + i * column_step[j]] = rows[i, j]
    for i in range(capacity):
        target[new_start + i] = 1.0 if i < new_count else 0.0
    target[new_start + capacity] = 1.0 if new_count > capacity else 0.0
