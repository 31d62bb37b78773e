"""Reaction windows: what the rules call "at any time" (matching, snaps, catches).

After a triggering event every eligible player decides once, in turn, without seeing
the decisions still pending from the others (an observation may only say whether a
player has decided, never what). When everyone has decided, the attempts are resolved
in an order drawn by the game's source of chance (its seeded RNG): a race whose winner is random.

In AEC terms each decision is an ordinary agent step.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from cardenv.core.chance import Chance, as_chance

PASS = None


class ReactionWindow:
    __slots__ = ("trigger", "players", "decisions", "_position")

    def __init__(self, trigger: Hashable, players: Sequence[int]):
        if len(set(players)) != len(players):
            raise ValueError(f"a player may decide only once per window: {list(players)}")
        self.trigger = trigger
        self.players = list(players)
        self.decisions: list[Any] = []
        self._position = 0

    def clone(self) -> ReactionWindow:
        other = ReactionWindow.__new__(ReactionWindow)
        other.trigger = self.trigger
        other.players = self.players.copy()
        other.decisions = self.decisions.copy()
        other._position = self._position
        return other

    @property
    def is_complete(self) -> bool:
        return self._position >= len(self.players)

    @property
    def current_player(self) -> int | None:
        position = self._position
        return self.players[position] if position < len(self.players) else None

    def has_decided(self, player: int) -> bool:
        return player in self.players[: self._position]

    def decide(self, player: int, decision: Any = PASS) -> None:
        """Record ``player``'s decision; ``PASS`` (None) means no attempt."""
        if self._position >= len(self.players):
            raise ValueError("the reaction window is closed")
        if player != self.players[self._position]:
            raise ValueError(f"player {player} is not the one deciding (player {self.current_player} is)")
        self.decisions.append(decision)
        self._position += 1

    def attempts(self) -> list[tuple[int, Any]]:
        """(player, decision) for every player who did not pass, in deciding order."""
        return [(p, d) for p, d in zip(self.players, self.decisions) if d is not PASS]

    def resolution_order(self, chance: Chance | np.random.Generator) -> list[tuple[int, Any]]:
        """The attempts in the random order in which they are resolved."""
        if not self.is_complete:
            raise ValueError("resolve a reaction window only after every player decided")
        attempts = self.attempts()
        if len(attempts) > 1:
            as_chance(chance).order(attempts)
        return attempts
