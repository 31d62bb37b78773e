"""The event log: what happened, and who could see the identities involved.

That an event happened is always public (locations are public); an event's
``visible_to`` says who saw the identities of its ``cards``: ``None`` for everyone,
otherwise a tuple of players. Rendering and tests read the log; rules never do.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import NamedTuple

PUBLIC = None


class Event(NamedTuple):
    """``text`` reads after the player's name; ``{cards}`` in it stands for the cards,
    ``{0}``, ``{1}`` … for one card each (to group them, as a round's end does by player).

    ``places`` are the ``(seat, slot)`` pairs the event involved (the slots a power
    looked at or swapped, the slot a card left or entered): public, like every location.
    ``cards`` are face up for everyone exactly when ``visible_to`` is ``PUBLIC``.
    """

    clock: int
    round: int
    kind: str
    player: int
    cards: tuple[int, ...] = ()
    visible_to: tuple[int, ...] | None = PUBLIC
    text: str = ""
    places: tuple[tuple[int, int], ...] = ()
    # The types of ``cards`` when they are face up, fixed when the event happened: a
    # later reshuffle makes everyone forget where those cards went, not what was seen.
    face_up_types: tuple[int, ...] = ()

    def is_visible_to(self, viewer: int | None) -> bool:
        """Whether ``viewer`` saw the cards' identities (``None`` is the omniscient view)."""
        return viewer is None or self.visible_to is PUBLIC or viewer in self.visible_to

    def describe(self, name_of_card: Callable[[int], str], viewer: int | None) -> str:
        """One line for ``viewer``; identities it did not see read as ``??``."""
        visible = self.is_visible_to(viewer)
        names = [name_of_card(c) if visible else "??" for c in self.cards]
        joined = " ".join(names)
        text = self.text or self.kind
        if "{" in text:
            text = text.format(*names, cards=joined)
        elif joined:
            text = f"{text} {joined}"
        return f"player_{self.player} {text}" if self.player >= 0 else text


def new_event_records() -> array:
    """An empty log of event records (see :func:`append_event_record`)."""
    return array("i")


def append_event_record(records: array, clock: int, kind: int, player: int, places: tuple[tuple[int, int], ...],
                        face_up_types: tuple[int, ...]) -> None:
    """Append one event's public part to ``records``, a flat array of int32 that compiled
    observers read without touching the :class:`Event` objects:

        clock, kind, player, len(places), seat, slot, …, len(face_up_types), type, …, length

    ``kind`` is the index of the event's kind in its ruleset's ``event_kinds``; ``length``,
    last, counts every entry of the record itself included, so the log reads backwards
    from its end, newest first."""
    record = [clock, kind, player, len(places)]
    for place in places:
        record += place
    record.append(len(face_up_types))
    record += face_up_types
    record.append(len(record) + 1)
    records.fromlist(record)  # half the cost of ``extend``, which takes any iterable
