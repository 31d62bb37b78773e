"""What agents know of each ruleset: its heuristic, its raw env, its action table,
observation layout and config (:func:`ruleset_info`).

Adding a ruleset takes one heuristic file (``cardenv/agents/heuristics/<game>.py``) and
one line in :data:`HEURISTICS`. Every agent module may import this one; none imports
:mod:`cardenv.agents.registry`, which builds agents from specs: an agent made of other
agents (a search's prior, a policy's guide) gets them from whoever builds it.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from cardenv.agents.base import Agent, RulesetInfo

# ruleset -> "module:HeuristicClass" (imported on first use).
HEURISTICS: dict[str, str] = {
    "onefifty_v0": "cardenv.agents.heuristics.onefifty:OneFiftyHeuristic",
    "cut_v0": "cardenv.agents.heuristics.cut:CutHeuristic",
    "kaboom_v0": "cardenv.agents.heuristics.kaboom:KaboomHeuristic",
    "carte_v0": "cardenv.agents.heuristics.carte:CarteHeuristic",
}


def _import(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def rulesets() -> list[str]:
    return list(HEURISTICS)


def check_ruleset(ruleset: str) -> str:
    """``ruleset`` if it is one; otherwise a one-line ValueError listing the rulesets."""
    if ruleset not in HEURISTICS:
        raise ValueError(f"unknown ruleset {ruleset!r}; rulesets are {', '.join(sorted(HEURISTICS))}")
    return ruleset


def heuristic_class(ruleset: str) -> type[Agent]:
    return _import(HEURISTICS[check_ruleset(ruleset)])


def raw_env_class(ruleset: str) -> type:
    """``cardenv.<ruleset>.raw_env`` (e.g. ``cardenv.onefifty_v0.raw_env``)."""
    return importlib.import_module(f"cardenv.{check_ruleset(ruleset)}").raw_env


def make_raw_env(ruleset: str, **env_kwargs):
    return raw_env_class(ruleset)(**env_kwargs)


def _freeze(env_kwargs: dict) -> tuple:
    return tuple(sorted(env_kwargs.items()))


@lru_cache(maxsize=32)
def _ruleset_info(ruleset: str, frozen_kwargs: tuple) -> RulesetInfo:
    env_kwargs = dict(frozen_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    return RulesetInfo(
        name=ruleset,
        env_kwargs=env_kwargs,
        action_table=env.action_table,
        layout=env.layout,
        num_players=env.config.num_players,
        call_kinds=tuple(heuristic_class(ruleset).call_kinds),
        config=env.config,
        state_class=env.state_class,
        observer_class=env.observer_class,
    )


def ruleset_info(ruleset: str, **env_kwargs) -> RulesetInfo:
    """The action table, observation layout and config of ``ruleset`` with these env options."""
    frozen = _freeze(env_kwargs)
    try:
        hash(frozen)
    except TypeError:  # an unhashable value is no valid option: let the env's validation name it
        make_raw_env(ruleset, **env_kwargs)
        raise
    return _ruleset_info(ruleset, frozen)
