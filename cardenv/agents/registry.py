"""Which agents exist, per ruleset.

Adding a ruleset takes one heuristic file (``cardenv/agents/heuristics/<game>.py``) and
one line in :data:`HEURISTICS`. Every other agent is generic: ``random`` and
``random_no_call`` use the action table, ``ismcts`` the rules engine with the ruleset's
heuristic for rollouts, ``ppo`` a saved model.

Agent specs are strings ``name`` or ``name:argument`` — ``ismcts:200`` (simulations per
move), ``ppo:runs/onefifty_v0/final_model.zip`` (model file).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from cardenv.agents.base import Agent, RulesetInfo

# ruleset -> "module:HeuristicClass" (imported on first use).
HEURISTICS: dict[str, str] = {
    "onefifty_v0": "cardenv.agents.heuristics.onefifty:OneFiftyHeuristic",
    "cut_v0": "cardenv.agents.heuristics.cut:CutHeuristic",
    "kaboom_v0": "cardenv.agents.heuristics.kaboom:KaboomHeuristic",
}


def _import(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def rulesets() -> list[str]:
    return list(HEURISTICS)


def heuristic_class(ruleset: str) -> type[Agent]:
    try:
        return _import(HEURISTICS[ruleset])
    except KeyError:
        raise ValueError(f"no heuristic for ruleset {ruleset!r}; known: {rulesets()}") from None


def raw_env_class(ruleset: str) -> type:
    """``cardenv.<ruleset>.raw_env`` (e.g. ``cardenv.onefifty_v0.raw_env``)."""
    if ruleset not in HEURISTICS:
        raise ValueError(f"unknown ruleset {ruleset!r}; known: {rulesets()}")
    return importlib.import_module(f"cardenv.{ruleset}").raw_env


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
    return _ruleset_info(ruleset, _freeze(env_kwargs))


def _make_random(info, rng, argument):
    from cardenv.agents.random import RandomAgent

    return RandomAgent(info, rng)


def _make_random_no_call(info, rng, argument):
    from cardenv.agents.random import RandomNoCallAgent

    return RandomNoCallAgent(info, rng)


def _make_heuristic(info, rng, argument):
    return heuristic_class(info.name)(info, rng)


def _make_ismcts(info, rng, argument):
    from cardenv.agents.ismcts import ISMCTSAgent

    return ISMCTSAgent(info, rng, simulations=int(argument) if argument else ISMCTSAgent.default_simulations)


def _make_ppo(info, rng, argument):
    from cardenv.agents.ppo import PPOAgent

    if not argument:
        raise ValueError("the ppo agent needs a model file: 'ppo:path/to/model.zip'")
    return PPOAgent(info, rng, argument)  # the model file


# name -> factory(info, rng, argument or None)
AGENTS: dict[str, Callable[[RulesetInfo, np.random.Generator, str | None], Agent]] = {
    "random": _make_random,
    "random_no_call": _make_random_no_call,
    "heuristic": _make_heuristic,
    "ismcts": _make_ismcts,
    "ppo": _make_ppo,
}


def parse_spec(spec: str) -> tuple[str, str | None]:
    name, sep, argument = spec.partition(":")
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {sorted(AGENTS)} (spec 'name' or 'name:argument')")
    return name, (argument if sep else None)


def make_agent(spec: str, info: RulesetInfo, rng: np.random.Generator) -> Agent:
    """Build the agent ``spec`` (``"heuristic"``, ``"ismcts:200"``, ``"ppo:model.zip"``)."""
    name, argument = parse_spec(spec)
    return AGENTS[name](info, rng, argument)
