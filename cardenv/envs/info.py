"""What an agent may know of a ruleset, independent of any deal: its action table,
observation layout and config with a given set of env options (:func:`ruleset_info`),
read off the ruleset's raw env."""

from __future__ import annotations

from functools import lru_cache

from cardenv.core.agent import RulesetInfo
from cardenv.envs.base import CardGameEnv, raw_env_class
from cardenv.rulesets import get_ruleset


def make_raw_env(ruleset: str, **env_kwargs) -> CardGameEnv:
    """``cardenv.<ruleset>.raw_env(**env_kwargs)``."""
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
        call_kinds=tuple(get_ruleset(ruleset).call_kinds),
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
