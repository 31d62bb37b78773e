"""Who knows the identity of which physical card.

Where every card lies is public (everyone sees which slots change), so the only hidden
thing is identity, and a boolean table ``known[player, card]`` captures all of it. The
table itself is public knowledge-of-knowledge: everyone saw who peeked where, so an
observation may say *which* players know a card without saying what the card is.

Memory models decide what an observation shows out of this table:

* ``perfect``: every card the player has legitimately seen (and can still locate).
* ``none``: only cards revealed to the player since that player's last decision;
  remembering anything older is the agent's job.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

MEMORY_MODELS = ("perfect", "none")


class Knowledge:
    """The knowledge table plus the clock the ``none`` memory model needs."""

    __slots__ = ("known", "learned_at", "decided_at", "clock")

    def __init__(self, num_players: int, num_cards: int):
        self.known = np.zeros((num_players, num_cards), dtype=bool)
        # When each player last learned each card, and when each player last decided,
        # both on the clock that ticks once per applied action.
        self.learned_at = np.full((num_players, num_cards), -1, dtype=np.int64)
        self.decided_at = np.full(num_players, -1, dtype=np.int64)
        self.clock = 0

    def clone(self) -> Knowledge:
        other = Knowledge.__new__(Knowledge)
        other.known = self.known.copy()
        other.learned_at = self.learned_at.copy()
        other.decided_at = self.decided_at.copy()
        other.clock = self.clock
        return other

    def tick(self, player: int) -> None:
        """Mark that ``player`` decides now; call before applying the decision."""
        self.clock += 1
        self.decided_at[player] = self.clock

    # The rules pass one card, a short list of cards or a slice. numpy turns a list index
    # into an array on every use, which costs more than writing a few cards one by one.
    def reveal(self, player: int, cards: int | Iterable[int]) -> None:
        """``player`` privately sees ``cards``."""
        if isinstance(cards, (list, tuple)):
            known, learned_at, clock = self.known[player], self.learned_at[player], self.clock
            for card in cards:
                known[card] = True
                learned_at[card] = clock
            return
        self.known[player, cards] = True
        self.learned_at[player, cards] = self.clock

    def reveal_to_all(self, cards: int | Iterable[int]) -> None:
        """``cards`` are shown face up to every player."""
        if isinstance(cards, (list, tuple)):
            if len(cards) <= 2:
                for card in cards:
                    self.known[:, card] = True
                    self.learned_at[:, card] = self.clock
                return
            cards = np.array(cards, dtype=np.intp)
        self.known[:, cards] = True
        self.learned_at[:, cards] = self.clock

    def forget(self, cards: int | Iterable[int]) -> None:
        """``cards`` went back into a shuffled deck: nobody can locate them any more."""
        if isinstance(cards, (list, tuple)):
            cards = np.array(cards, dtype=np.intp)
        self.known[:, cards] = False
        self.learned_at[:, cards] = -1

    def knows(self, player: int, card: int) -> bool:
        return bool(self.known[player, card])

    def shown_to(self, player: int, memory: str) -> np.ndarray:
        """Boolean per card: does ``player``'s observation show this card's identity?"""
        if memory == "perfect":
            return self.known[player]
        if memory == "none":
            return self.known[player] & (self.learned_at[player] >= self.decided_at[player])
        raise ValueError(f"unknown memory model {memory!r}; expected one of {MEMORY_MODELS}")

