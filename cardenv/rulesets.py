"""The rulesets: one record each (:class:`Ruleset`), and :data:`RULESETS`, the only list of them.

A ruleset is a package (its rules engine, observer, heuristic, mini variant and shipped
policies) that defines one :class:`Ruleset` record, and one line below naming where that
record is. Everything else reads this registry: the envs (``cardenv.<name>.env()``), the
PettingZoo, Gymnasium and OpenSpiel registrations, the agents (``heuristic`` and
``ppo:pretrained`` for every ruleset), the command line's choices and the generated docs.

The registry imports nothing above it: a record is loaded from its package the first time
it is asked for (:func:`get_ruleset`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

RULESETS: dict[str, str] = {
    "onefifty_v0": "cardenv.games.onefifty:RULESET",
    "cut_v0": "cardenv.games.cut:RULESET",
    "kaboom_v0": "cardenv.games.kaboom:RULESET",
    "carte_v0": "cardenv.games.carte:RULESET",
}
"""Ruleset name -> where its :class:`Ruleset` record is (``"package:attribute"``)."""

_loaded: dict[str, Ruleset] = {}


@dataclass(frozen=True)
class Ruleset:
    """Everything the library needs to know of one ruleset.

    ``config`` (a :class:`cardenv.engine.options.GameConfig` dataclass: the options),
    ``state`` (the rules engine, a :class:`cardenv.engine.rounds.GameState`: made as
    ``state(config, rng, scenario_options)``) and ``observer`` (a
    :class:`cardenv.engine.observation.Observer`: made as ``observer(config)``) are the
    game; ``heuristic`` is its rule-based agent (a :class:`cardenv.core.agent.Agent`,
    whose ``cautious_settings`` make ``heuristic_cautious``); ``call_kinds`` the action
    kinds that call a round's end (``random_no_call`` avoids them); ``mini_variant`` the
    options of a game small enough to solve exactly; ``package`` the package whose
    ``pretrained/`` folder holds the shipped policies (``pretrained.zip`` plays as
    ``ppo:pretrained``); ``docs`` its page; ``env_doc`` the env's docstring (its options).
    """

    name: str
    title: str
    config: type
    state: type
    observer: type
    heuristic: type
    call_kinds: tuple[str, ...]
    mini_variant: Mapping[str, Any] = field(default_factory=dict)
    package: str = ""
    docs: str = ""
    env_doc: str = ""

    @property
    def env_id(self) -> str:
        """The PettingZoo id: ``cardenv/<game>-<version>`` (``onefifty_v0`` -> ``cardenv/onefifty-v0``)."""
        game, _, version = self.name.rpartition("_")
        return f"cardenv/{game}-{version}"

    @property
    def single_seat_id(self) -> str:
        """The Gymnasium id of its single-seat view: ``cardenv/<game>-single-seat-<version>``."""
        game, _, version = self.name.rpartition("_")
        return f"cardenv/{game}-single-seat-{version}"


def ruleset_names() -> list[str]:
    """Every registered ruleset's name, in registration order."""
    return list(RULESETS)


def check_ruleset(name: Any) -> str:
    """``name`` if it names a registered ruleset; otherwise a one-line ValueError listing them."""
    if not isinstance(name, str) or name not in RULESETS:
        raise ValueError(f"unknown ruleset {name!r}; rulesets are {', '.join(RULESETS)}")
    return name


def get_ruleset(name: str) -> Ruleset:
    """The record of ruleset ``name`` (its package is imported the first time)."""
    record = _loaded.get(name)
    if record is None:
        module, _, attribute = RULESETS[check_ruleset(name)].partition(":")
        record = getattr(importlib.import_module(module), attribute)
        if not isinstance(record, Ruleset) or record.name != name:
            raise TypeError(f"{RULESETS[name]} is not the Ruleset record of {name!r}")
        _loaded[name] = record
    return record


def mini_variants() -> dict[str, dict[str, Any]]:
    """Per registered ruleset with one, the options of its mini variant."""
    return {name: dict(get_ruleset(name).mini_variant) for name in RULESETS if get_ruleset(name).mini_variant}


def register_ruleset(record: Ruleset) -> None:
    """Register a ruleset defined outside this module's list (a user's own game, a test's
    toy game) for this process: envs, agents and the command line's choices then take it
    by name. ``cardenv.envs.base.ruleset_env_api(name)`` gives its ``env``,
    ``raw_env`` and ``parallel_env``."""
    if not isinstance(record, Ruleset):
        raise TypeError(f"register_ruleset takes a Ruleset record, got {type(record).__name__}")
    if record.name in RULESETS and get_ruleset(record.name) is not record:
        raise ValueError(f"a ruleset named {record.name!r} is already registered")
    RULESETS[record.name] = f"{__name__}:_loaded[{record.name!r}]"
    _loaded[record.name] = record


def unregister_ruleset(name: str) -> None:
    """Remove a ruleset :func:`register_ruleset` added (the built-in ones stay)."""
    check_ruleset(name)
    if not RULESETS[name].startswith(f"{__name__}:"):
        raise ValueError(f"{name!r} is a built-in ruleset; only rulesets added by register_ruleset can be removed")
    del RULESETS[name]
    _loaded.pop(name, None)
