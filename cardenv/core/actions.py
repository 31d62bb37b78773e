"""Action tables: one flat, stable numbering of every action a ruleset has.

Each action id belongs to a *kind* (``"draw"``, ``"swap"`` …) and may carry a slot and a
seat offset (``1`` = the next player clockwise from the one acting). Offsets, not
absolute seats, keep a policy's meaning the same whichever seat it plays.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace

from cardenv.core import validation


@dataclass(frozen=True)
class ActionSpec:
    id: int
    kind: str
    name: str
    slot: int | None = None
    offset: int | None = None
    description: str = ""
    slot_name: str | None = None  # what the slot is where the table names it (a card type: ``AS``)


class ActionTable:
    """Ids, names and arguments of a ruleset's actions, built in a fixed order."""

    def __init__(self) -> None:
        self.specs: list[ActionSpec] = []
        self._id_by_name: dict[str, int] = {}
        self._first_by_kind: dict[str, int] = {}
        self._kind_shape: dict[str, tuple[int, int]] = {}
        self._seat_firsts: dict[str, dict[int, int]] = {}
        self._first_ids: SimpleNamespace | None = None

    def __len__(self) -> int:
        return len(self.specs)

    def _add(self, kind: str, name: str, slot: int | None, offset: int | None, description: str,
             slot_name: str | None = None) -> int:
        action_id = len(self.specs)
        self.specs.append(ActionSpec(action_id, kind, name, slot, offset, description, slot_name))
        if name in self._id_by_name:
            raise ValueError(f"duplicate action name {name!r}")
        self._id_by_name[name] = action_id
        return action_id

    def add(self, kind: str, name: str, description: str = "") -> int:
        """A single action with no arguments."""
        self._first_by_kind[kind] = self._add(kind, name, None, None, description)
        self._kind_shape[kind] = (1, 1)
        return self._first_by_kind[kind]

    def add_slots(self, kind: str, name_format: str, num_slots: int, description: str = "",
                  slot_names: Sequence[str] | None = None) -> int:
        """One action per slot; ``name_format`` uses ``{slot}``, and ``{slot_name}`` when
        ``slot_names`` names the slots (e.g. card types: ``discard {slot_name}``)."""
        self._first_by_kind[kind] = len(self.specs)
        self._kind_shape[kind] = (1, num_slots)
        for s in range(num_slots):
            slot_name = slot_names[s] if slot_names is not None else None
            self._add(kind, name_format.format(slot=s, slot_name=s if slot_name is None else slot_name), s, None,
                      description, slot_name)
        return self._first_by_kind[kind]

    def add_seat_slots(
        self, kind: str, name_format: str, offsets: Iterable[int], num_slots: int, description: str = ""
    ) -> int:
        """One action per (seat offset, slot); ``name_format`` uses ``{offset}`` and ``{slot}``."""
        offsets = list(offsets)
        if offsets != list(range(offsets[0], offsets[0] + len(offsets))):
            raise ValueError("offsets must be consecutive")
        self._first_by_kind[kind] = len(self.specs)
        self._kind_shape[kind] = (len(offsets), num_slots)
        self._seat_firsts[kind] = {o: len(self.specs) + i * num_slots for i, o in enumerate(offsets)}
        for o in offsets:
            for s in range(num_slots):
                self._add(kind, name_format.format(offset=o, slot=s), s, o, description)
        return self._first_by_kind[kind]

    # --- lookups ----------------------------------------------------------------------
    def id(self, kind: str, slot: int | None = None, offset: int | None = None) -> int:
        """The id of ``kind`` at ``slot`` (and seat ``offset``, counted from the first)."""
        first = self._first_by_kind[kind]
        num_offsets, num_slots = self._kind_shape[kind]
        if slot is None:
            return first
        if offset is None:
            return first + slot
        first_offset = self.specs[first].offset
        return first + (offset - first_offset) * num_slots + slot

    def first(self, kind: str) -> int:
        return self._first_by_kind[kind]

    @property
    def first_ids(self) -> SimpleNamespace:
        """Every kind's first id as an attribute (``first_ids.draw``; a kind that is a
        Python keyword gets an underscore: ``first_ids.pass_``): for rules that build a
        mask at every move, where an attribute costs a third of :meth:`first`."""
        if self._first_ids is None or len(vars(self._first_ids)) != len(self._first_by_kind):
            self._first_ids = SimpleNamespace(**{kind + "_" if keyword.iskeyword(kind) else kind: first
                                                 for kind, first in self._first_by_kind.items()})
        return self._first_ids

    def seat_firsts(self, kind: str) -> Mapping[int, int]:
        """Per seat offset of a kind added by ``add_seat_slots``, the id of its slot 0
        (``id(kind, 0, offset)``, looked up once: masks ask for it on every decision)."""
        return self._seat_firsts[kind]

    def span(self, kind: str) -> range:
        num_offsets, num_slots = self._kind_shape[kind]
        first = self._first_by_kind[kind]
        return range(first, first + num_offsets * num_slots)

    def name(self, action_id: int) -> str:
        if action_id.__class__ is not int or not 0 <= action_id < len(self.specs):
            action_id = validation.integer("action", action_id, 0, len(self.specs) - 1)
        return self.specs[action_id].name

    def name_for_seat(self, action_id: int, seat: int, num_players: int) -> str:
        """The name as ``seat`` reads it at a table of ``num_players``: a seat offset also
        names the player it points at (``red 6: player +1 slot 0`` read by player_3 of 4 is
        ``red 6: player_0 (+1) slot 0``). Only ``name`` is an action's identity."""
        name = self.name(action_id)
        offset = self.specs[action_id].offset
        if not offset:
            return name
        target = f"player_{(seat + offset) % num_players} (+{offset})"
        return re.sub(rf"\b(?:player|opponent) \+{offset}\b", target, name, count=1)

    def from_name(self, name: str) -> int:
        try:
            return self._id_by_name[name]
        except KeyError:
            raise ValueError(f"no action named {name!r}") from None

    def markdown(self) -> str:
        """The action table as Markdown, grouped into ranges of ids per kind."""
        lines = ["| ids | kind | names | meaning |", "|---|---|---|---|"]
        for kind, first in self._first_by_kind.items():
            ids = self.span(kind)
            first_name, last_name = self.specs[ids[0]].name, self.specs[ids[-1]].name
            id_text = str(ids[0]) if len(ids) == 1 else f"{ids[0]}–{ids[-1]}"
            names = f"`{first_name}`" if len(ids) == 1 else f"`{first_name}` … `{last_name}`"
            lines.append(f"| {id_text} | {kind} | {names} | {self.specs[ids[0]].description} |")
        return "\n".join(lines)
