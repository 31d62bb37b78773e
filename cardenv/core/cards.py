"""Card types, ASCII names and decks.

A *card type* is what is printed on a card (rank and suit); a *physical card* is one
card of a deck, identified by its position in the deck array. Two physical cards can
share a type (a double deck), so rules engines track physical ids and look the
type up only when a card's identity matters.

Type code: ``rank * 4 + suit`` for the 52 standard cards (rank 0 = ace … 12 = king,
suit 0..3 = S H D C), then 52 = red joker, 53 = black joker. ``type >> 2`` is the rank
for every card, jokers included (rank 13).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

RANK_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES: tuple[str, ...] = ("S", "H", "D", "C")
NUM_STANDARD_RANKS = 13
NUM_RANKS = 14  # the 13 standard ranks plus the joker rank
JOKER_RANK = 13
NUM_SUITS = 4
NUM_STANDARD_TYPES = 52
RED_JOKER = 52
BLACK_JOKER = 53
NUM_CARD_TYPES = 54

ACE, JACK, QUEEN, KING = 0, 10, 11, 12
TEN = 9
SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3

CARD_NAMES: tuple[str, ...] = tuple(
    [RANK_NAMES[t >> 2] + SUIT_NAMES[t & 3] for t in range(NUM_STANDARD_TYPES)] + ["RJ", "BJ"]
)
_TYPE_BY_NAME = {name: t for t, name in enumerate(CARD_NAMES)}
EITHER_JOKER_NAME = "JK"
"""A joker of either colour, where a ruleset plays the two alike (in a rummy ruleset's action and
observation names); a card of a deck is ``RJ`` or ``BJ``, never ``JK``."""
CARD_NAME_ACCEPTED = "a card name such as 'AS', '10H' or 'KD', or a joker, 'RJ' (red) or 'BJ' (black)"

RANK_OF = np.arange(NUM_CARD_TYPES, dtype=np.int64) >> 2
"""Rank index of every card type (13 for both jokers)."""

IS_RED = np.array(
    [(t & 3) in (HEARTS, DIAMONDS) for t in range(NUM_STANDARD_TYPES)] + [True, False], dtype=bool
)


def card_type(rank: int, suit: int) -> int:
    """Type code of a standard card."""
    if not (0 <= rank < NUM_STANDARD_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"no standard card with rank {rank} and suit {suit}")
    return rank * NUM_SUITS + suit


def rank_of(card_type_code: int) -> int:
    return card_type_code >> 2


def suit_of(card_type_code: int) -> int | None:
    """Suit index, or None for a joker."""
    return None if card_type_code >= NUM_STANDARD_TYPES else card_type_code & 3


def card_name(card_type_code: int) -> str:
    return CARD_NAMES[card_type_code]


def card_name_accepted(given: object) -> str:
    """What a card name may be, for an error message about ``given``; for ``JK`` it adds
    why that name is refused."""
    if isinstance(given, str) and given.strip().upper() == EITHER_JOKER_NAME:
        return (f"{CARD_NAME_ACCEPTED}; {EITHER_JOKER_NAME!r} names a joker of either colour in actions "
                f"and observations where the two play alike, not a card of the deck")
    return CARD_NAME_ACCEPTED


def parse_card(name: str) -> int:
    """Type code of an ASCII card name such as ``10H``, ``qs`` or ``RJ``.

    Raises TypeError for a non-string and ValueError for a string that names no card."""
    if not isinstance(name, str):
        raise TypeError(f"not a card name: {name!r} ({type(name).__name__}); expected {CARD_NAME_ACCEPTED}")
    try:
        return _TYPE_BY_NAME[name.strip().upper()]
    except KeyError:
        raise ValueError(f"not a card name: {name!r}; expected {card_name_accepted(name)}") from None


def parse_cards(names: str | Iterable[str]) -> list[int]:
    """Type codes of a space-separated string or an iterable of card names."""
    if isinstance(names, str):
        names = names.split()
    elif not isinstance(names, Iterable):
        raise TypeError(f"card names must be a space-separated string or a list of names, "
                        f"got {names!r} ({type(names).__name__})")
    return [parse_card(n) for n in names]


def points_table(points_of: Callable[[int], int]) -> np.ndarray:
    """Points of every card type, from a ruleset's rule ``points_of(type) -> int``.

    Jokers that a ruleset never deals may raise or return anything; they score 0 here.
    """
    table = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
    for t in range(NUM_CARD_TYPES):
        try:
            table[t] = points_of(t)
        except (KeyError, ValueError):
            table[t] = 0
    return table


def standard_deck() -> np.ndarray:
    """52 cards, one of each standard type; the physical id is the index."""
    return np.arange(NUM_STANDARD_TYPES, dtype=np.int64)


def deck_with_jokers() -> np.ndarray:
    """54 cards: the standard deck plus a red and a black joker."""
    return np.arange(NUM_CARD_TYPES, dtype=np.int64)


def double_deck_with_jokers() -> np.ndarray:
    """108 cards: two standard decks and four jokers (two red, two black)."""
    return np.concatenate(
        [standard_deck(), standard_deck(), np.array([RED_JOKER, BLACK_JOKER] * 2, dtype=np.int64)]
    )


def copies_per_type(deck: np.ndarray) -> np.ndarray:
    """How many physical cards of each type a deck holds."""
    return np.bincount(deck, minlength=NUM_CARD_TYPES)
