"""Named pieces of a flat observation vector.

A ruleset declares its pieces once (name, shape, meaning); the same declaration gives
the slices the observer writes into, the slices users read from, and the docs table.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    start: int
    stop: int
    description: str
    high: float = 1.0
    low: float = 0.0

    @property
    def size(self) -> int:
        return self.stop - self.start


class ObservationLayout:
    def __init__(self) -> None:
        self.pieces: dict[str, Piece] = {}
        self.size = 0

    def add(self, name: str, shape: int | tuple[int, ...], description: str, high: float = 1.0,
            low: float = 0.0) -> Piece:
        """Append a piece; every value in it lies in ``[low, high]`` (``low`` is 0 unless a
        ruleset has negative quantities, such as cards worth negative points)."""
        if name in self.pieces:
            raise ValueError(f"duplicate observation piece {name!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        piece = Piece(name, shape, self.size, self.size + prod(shape), description, float(high), float(low))
        self.pieces[name] = piece
        self.size = piece.stop
        return piece

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The piece ``name`` of ``vector``, reshaped; a view, so writing to it writes
        into ``vector``."""
        self._check_vector(vector)
        piece = self.pieces[name]
        return vector[piece.start : piece.stop].reshape(piece.shape)

    def _check_vector(self, vector: np.ndarray) -> None:
        """One clear line for a vector that is not this layout's (views of it would not be)."""
        if not isinstance(vector, np.ndarray):
            raise TypeError(f"the vector must be a numpy array of shape ({self.size},) for this layout, got "
                            f"a {type(vector).__name__}")
        if vector.shape != (self.size,):
            raise ValueError(f"the vector must have shape ({self.size},) for this layout, got one of shape "
                             f"{vector.shape}")

    def high(self) -> np.ndarray:
        """Upper bound of every entry."""
        bound = np.empty(self.size, dtype=np.float32)
        for p in self.pieces.values():
            bound[p.start : p.stop] = p.high
        return bound

    def low(self) -> np.ndarray:
        """Lower bound of every entry (0 except in pieces declared with a ``low``)."""
        bound = np.empty(self.size, dtype=np.float32)
        for p in self.pieces.values():
            bound[p.start : p.stop] = p.low
        return bound

    def views(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        self._check_vector(vector)
        return {name: vector[p.start : p.stop].reshape(p.shape) for name, p in self.pieces.items()}

    def markdown(self, after: ObservationLayout | None = None) -> str:
        """The pieces as a markdown table; with ``after``, only the pieces this layout
        has beyond that one (what an option adds), without the total."""
        lines = ["| piece | indices | shape | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces.values():
            if after is not None and p.name in after.pieces:
                continue
            shape = " × ".join(str(d) for d in p.shape)
            lines.append(f"| `{p.name}` | {p.start}–{p.stop - 1} | {shape} | {p.low:g}–{p.high:g} | {p.description} |")
        if after is None:
            lines.append(f"| **total** | {self.size} entries | | | |")
        return "\n".join(lines)
