"""Where a rules engine's random outcomes come from.

An engine never calls a generator itself: it asks its :class:`Chance` for the four kinds
of random event the rulesets have, and the table asks it for every card taken from a
shuffled draw pile.

- :class:`SeededChance` draws from a numpy generator, exactly as the engines always have
  (a pile is shuffled when it is formed; taking a card takes the top one), so a seeded
  env plays the same game, draw for draw.
- :class:`ExternalChance` takes its outcomes from a list supplied from outside, and
  stops the engine with :class:`ChanceNeeded` (saying which outcomes are possible, with
  their probabilities) when the list runs out. A shuffled pile is then dealt lazily:
  each card taken is drawn uniformly from the cards of the pile, which is the same
  game as a shuffle, since nobody sees a shuffled pile's order. This is what gives an
  explicit chance node per random event (OpenSpiel's model, see
  :mod:`cardenv.adapters.openspiel`).

Both report the same events in the same order, so a :class:`SeededChance` can record
its outcomes (``record``) in the form an :class:`ExternalChance` takes them: replaying a
seeded game's record through an external source plays the same game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CARD = "card"  # a card taken from a shuffled pile: the outcome is its card type
SEAT = "seat"  # a random seat (a starter, a dealer): the outcome is the seat
NEXT = "next"  # the next attempt of a reaction window to resolve: the outcome is its player's seat


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state (a third of deepcopy's cost)."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


_UINT32_MAX = 0xFFFFFFFF


def draw_index(rng: np.random.Generator, n: int) -> int:
    """``int(rng.integers(n))`` for an ``int`` n >= 1 — the same value from the same
    stream, leaving the generator in the same state — at a third of its cost: numpy's
    own bounded draw (Lemire's, on 32-bit outputs for n <= 2**32 - 1) written out over the
    bit generator's C ``next_uint32``, without numpy's argument handling, which is most of
    the cost of a single draw. A random agent draws once per decision."""
    if n.__class__ is not int:
        n = int(n)  # a numpy integer would overflow in the product below
    if n == 1:
        return 0  # numpy returns the only value without drawing
    if n > _UINT32_MAX:
        return int(rng.integers(n))
    bit_generator = rng.bit_generator.ctypes
    next_uint32, state = bit_generator.next_uint32, bit_generator.state_address
    scaled = next_uint32(state) * n
    leftover = scaled & _UINT32_MAX
    if leftover < n:  # maybe in the biased zone: redraw below the threshold
        threshold = (_UINT32_MAX - n + 1) % n
        while leftover < threshold:
            scaled = next_uint32(state) * n
            leftover = scaled & _UINT32_MAX
    return scaled >> 32


class ChanceNeeded(Exception):
    """Raised by :class:`ExternalChance` when the engine needs an outcome it was not
    given. The engine is left half-way through an update: discard it and replay the
    update on a copy with one more outcome."""

    def __init__(self, kind: str, what: str, outcomes: list[tuple[int, float]]):
        super().__init__(f"{what}: an outcome is needed among {[o for o, _ in outcomes]}")
        self.kind = kind
        self.what = what
        self.outcomes = outcomes

    def __reduce__(self):
        return (ChanceNeeded, (self.kind, self.what, self.outcomes))


class Chance:
    """The interface an engine and its table use; see the module docstring."""

    def shuffle_pile(self, pile: list[int]) -> None:
        """``pile`` has just been gathered: shuffle it now, or leave its order to the
        cards taken from it (:meth:`take_card`)."""
        raise NotImplementedError

    def take_card(self, pile: list[int], card_types: np.ndarray) -> int:
        """Remove and return the card taken from the top of the shuffled ``pile``."""
        raise NotImplementedError

    def order_is_fixed(self) -> bool:
        """Whether a shuffled pile's order is fixed and nothing is asked or recorded per
        card taken, so that the table may take cards off its top without asking."""
        return False

    def seat(self, num_seats: int, what: str) -> int:
        """A seat drawn uniformly; ``what`` says what for (``"starter"``)."""
        raise NotImplementedError

    def order(self, attempts: list[tuple[int, object]]) -> None:
        """Put a reaction window's ``(player, decision)`` attempts in a uniformly random
        order, in place."""
        raise NotImplementedError

    def clone(self) -> Chance:
        raise NotImplementedError


class SeededChance(Chance):
    """Outcomes from a numpy generator (shared, not copied: the env that passes its
    generator keeps drawing from the same stream). With ``record`` a list, every
    outcome is appended to it as ``(kind, outcome)``, in :class:`ExternalChance`'s form."""

    __slots__ = ("rng", "record")

    def __init__(self, rng: np.random.Generator, record: list | None = None):
        self.rng = rng
        self.record = record

    def shuffle_pile(self, pile: list[int]) -> None:
        self.rng.shuffle(pile)

    def order_is_fixed(self) -> bool:
        return self.record is None

    def take_card(self, pile: list[int], card_types: np.ndarray) -> int:
        card = pile.pop()  # the shuffle fixed the order already
        if self.record is not None:
            self.record.append((CARD, card_types.item(card)))
        return card

    def seat(self, num_seats: int, what: str) -> int:
        seat = int(self.rng.integers(num_seats))
        if self.record is not None:
            self.record.append((SEAT, seat))
        return seat

    def order(self, attempts: list[tuple[int, object]]) -> None:
        if len(attempts) > 1:
            # The same order as indexing by ``rng.permutation(len(attempts))`` (the same
            # draws, applied to the list), at a fifth of its cost.
            self.rng.shuffle(attempts)
            if self.record is not None:
                # An external source picks the attempts one by one; the last is forced.
                self.record.extend((NEXT, player) for player, _ in attempts[:-1])

    def clone(self) -> SeededChance:
        record = None if self.record is None else self.record.copy()
        return SeededChance(copy_generator(self.rng), record)


class ExternalChance(Chance):
    """Outcomes given from outside, in the order the engine asks for them; when they run
    out the engine is stopped by :class:`ChanceNeeded`. Every outcome is an ``int``:
    a card type, or a seat."""

    __slots__ = ("outcomes", "used")

    def __init__(self, outcomes: Sequence[int] = ()):
        self.outcomes = list(outcomes)
        self.used = 0

    def _next(self, kind: str, what: str, outcomes: list[tuple[int, float]]) -> int:
        if self.used == len(self.outcomes):
            raise ChanceNeeded(kind, what, outcomes)
        outcome = self.outcomes[self.used]
        if not any(outcome == o for o, _ in outcomes):
            raise ValueError(f"chance outcome {outcome!r} is not possible for {what}; the possible ones are "
                             f"{[o for o, _ in outcomes]}")
        self.used += 1
        return outcome

    def shuffle_pile(self, pile: list[int]) -> None:
        """Nothing to do: each card taken is drawn from the pile then."""

    def take_card(self, pile: list[int], card_types: np.ndarray) -> int:
        # Copies of a card type are alike to everyone once shuffled (shuffling makes all
        # forget them), so the outcome is the type, as likely as its share of the pile.
        types = card_types[pile]
        values, counts = np.unique(types, return_counts=True)
        total = len(pile)
        outcomes = [(int(t), int(c) / total) for t, c in zip(values, counts)]
        wanted = self._next(CARD, "the card taken from the pile", outcomes)
        # The first card of that type in the pile's list: any would do, one is chosen.
        index = int(np.flatnonzero(types == wanted)[0])
        return pile.pop(index)

    def seat(self, num_seats: int, what: str) -> int:
        return self._next(SEAT, what, [(s, 1 / num_seats) for s in range(num_seats)])

    def order(self, attempts: list[tuple[int, object]]) -> None:
        remaining = attempts.copy()
        ordered = []
        while len(remaining) > 1:
            players = [p for p, _ in remaining]
            player = self._next(NEXT, "the next attempt to resolve", [(p, 1 / len(players)) for p in players])
            ordered.append(remaining.pop(players.index(player)))
        attempts[:] = ordered + remaining

    def clone(self) -> ExternalChance:
        other = ExternalChance(self.outcomes)
        other.used = self.used
        return other


def as_chance(source: Chance | np.random.Generator) -> Chance:
    """``source`` itself, or a :class:`SeededChance` over a generator."""
    if isinstance(source, Chance):
        return source
    if isinstance(source, np.random.Generator):
        return SeededChance(source)
    raise TypeError(f"a source of random outcomes must be a numpy Generator (np.random.default_rng(...)) "
                    f"or a cardenv.core.chance.Chance, got {type(source).__name__}")
