"""A ruleset's options: table-driven validation (:class:`GameConfig`), the options every
slot-and-pile ruleset shares (:class:`SlotGameConfig`), and the checks of a ``deck`` and a
``first_starter`` option. A bad value gets one clear error naming the option, the value
and what is accepted (:mod:`cardenv.core.validation`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import partial
from typing import Any, ClassVar

import numpy as np

from cardenv.core import validation
from cardenv.core.cards import card_name, parse_card, parse_cards, standard_deck
from cardenv.core.knowledge import MEMORY_MODELS

INITIAL_SLOTS = 4  # a 2×2 grid: slots 0, 1 on top, 2, 3 below (the bottom row is seen: peeked_slots)
MAX_HAND_SLOTS_LIMIT = 64  # the largest max_hand_slots accepted
MAX_RECENT_EVENTS = 256  # the largest recent_events accepted


@dataclass(frozen=True)
class GameConfig:
    """Table-driven validation of a ruleset's options (no fields of its own): every field
    of a subclass is validated and normalised (numpy integers to ``int`` and so on) when
    a config is made, by the checks of :meth:`option_checks`. A subclass declares each
    field with its type; a ``bool``, ``int`` or ``float`` field is then checked from its
    annotation alone, and ``option_checks`` adds bounds or choices. The checks below are
    those of the options most rulesets share (a check for a field a config lacks is
    never used).
    """

    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6

    @classmethod
    def option_checks(cls) -> dict[str, Callable[[str, Any], Any]]:
        """Per field: a check ``(name, value) -> normalised value`` that raises TypeError
        or ValueError (see :mod:`cardenv.core.validation`). A subclass extends the dict
        of ``super().option_checks()``; fields missing here are checked by annotation."""
        return {
            "num_players": partial(validation.integer, low=cls.min_players, high=cls.max_players),
            "max_turns_per_round": partial(validation.integer, low=1),
            "memory": partial(validation.choice, options=MEMORY_MODELS),
            "max_rounds": partial(validation.optional_integer, low=1),
            "recent_events": partial(validation.integer, low=0, high=MAX_RECENT_EVENTS),
        }

    @classmethod
    def option_names(cls) -> list[str]:
        """The keyword arguments a config accepts, in declaration order."""
        return [f.name for f in fields(cls)]

    def __post_init__(self):
        checks = self.option_checks()
        for option in fields(self):
            check = checks.get(option.name) or _check_by_annotation(type(self), option)
            # Frozen: the normalised value replaces the given one through object.__setattr__.
            object.__setattr__(self, option.name, check(option.name, getattr(self, option.name)))


@dataclass(frozen=True)
class SlotGameConfig(GameConfig):
    """Options every slot-and-pile ruleset has; a ruleset's config subclasses it, sets
    ``min_players``/``max_players`` and may change the defaults."""

    num_players: int = 4
    target_score: int = 100
    max_turns_per_round: int = 200
    single_round: bool = False
    memory: str = "perfect"
    max_hand_slots: int = 8
    max_rounds: int | None = 100
    recent_events: int = 16
    # Part of the ruleset's deck (card names separated by spaces; "" is the whole deck)
    # and a smaller initial grid: what a mini variant changes (the ruleset's mini.py).
    deck: str = ""
    initial_slots: int = INITIAL_SLOTS
    # The seat that starts the first round; -1: drawn at random (from the seed).
    first_starter: int = -1

    # The ruleset's whole deck (card types), which ``deck`` takes cards from.
    full_deck: ClassVar[Callable[[], np.ndarray]] = staticmethod(standard_deck)

    @classmethod
    def option_checks(cls) -> dict[str, Callable[[str, Any], Any]]:
        return {
            **super().option_checks(),
            "target_score": partial(validation.integer, low=1),
            # A Match or a penalty must be able to add a slot to the initial grid; the
            # upper bound keeps the action table and the observation a sane size.
            "max_hand_slots": partial(validation.integer, low=INITIAL_SLOTS + 1, high=MAX_HAND_SLOTS_LIMIT),
            "deck": partial(check_deck, full_deck=cls.full_deck()),
            # A grid of two rows: 2×2, or one card above another.
            "initial_slots": partial(validation.choice, options=(INITIAL_SLOTS, 2)),
        }

    def __post_init__(self):
        super().__post_init__()
        check_first_starter(self)
        check_deck_size(self, self.num_players * self.initial_slots + 1,
                        f"{self.num_players} players with initial_slots={self.initial_slots}",
                        "the deal and one card to draw")

    def deck_types(self, full_deck: np.ndarray) -> np.ndarray:
        return deck_types(self.deck, full_deck)

    @property
    def peeked_slots(self) -> tuple[int, ...]:
        """The bottom row of the initial grid, which each player sees at a round's start."""
        return tuple(range(self.initial_slots // 2, self.initial_slots))


def deck_types(deck: str, full_deck: np.ndarray) -> np.ndarray:
    """The card types of the deck a game is played with: its ``deck`` option's cards, or
    the ruleset's ``full_deck`` when the option is ``""``."""
    return np.asarray(parse_cards(deck), dtype=np.int64) if deck else full_deck


def check_first_starter(config) -> None:
    """A config's ``first_starter`` option: a seat, or -1 (drawn at random)."""
    high = config.num_players - 1
    validation.integer("first_starter", config.first_starter, -1, high,
                       accepted=f"a seat from 0 to {high}, or -1 (drawn at random)")


def check_deck_size(config, need: int, who: str, why: str) -> None:
    """A config's ``deck`` option (when one is given) holds at least ``need`` cards: ``who``
    (the players and the deal) needs them for ``why``."""
    if config.deck:
        cards = len(config.deck.split())
        if cards < need:
            raise ValueError(f"deck has {cards} cards; {who} need at least {need} ({why})")


def check_deck(name: str, value: Any, full_deck: np.ndarray) -> str:
    """A ``deck`` option: card names of ``full_deck`` (no more copies than it has),
    returned space-separated in deck order."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be card names separated by spaces (a str), got {validation.show(value)}")
    if not value.strip():
        return ""
    try:
        types = parse_cards(value.split())
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    have = np.bincount(full_deck, minlength=64)
    want = np.bincount(types, minlength=64)
    too_many = [card_name(t) for t in np.flatnonzero(want > have)]
    if too_many:
        raise ValueError(f"{name} has more copies of {', '.join(too_many)} than this ruleset's deck "
                         f"(its cards are {' '.join(sorted(set(map(card_name, full_deck.tolist())), key=parse_card))})")
    return " ".join(card_name(t) for t in sorted(types))


# Fields without an entry in option_checks() are checked by their annotation (a string,
# since the ruleset modules use ``from __future__ import annotations``).
_CHECKS_BY_ANNOTATION: dict[str, Callable[[str, Any], Any]] = {
    "int": validation.integer,
    "bool": validation.boolean,
    "float": validation.real,
    "int | None": validation.optional_integer,
}


def _check_by_annotation(config_class: type, option) -> Callable[[str, Any], Any]:
    annotation = option.type if isinstance(option.type, str) else getattr(option.type, "__name__", str(option.type))
    try:
        return _CHECKS_BY_ANNOTATION[annotation]
    except KeyError:
        # A programming error in a ruleset, not a user's bad value.
        raise TypeError(
            f"{config_class.__name__}.{option.name} is annotated {annotation!r}, which has no default check; "
            f"add one to {config_class.__name__}.option_checks()"
        ) from None
