"""Registration of every cardenv environment: the AEC envs with PettingZoo's ``make``
and the single-seat views with Gymnasium's ``make``, one of each per registered ruleset
(:mod:`cardenv.rulesets`).

After ``import cardenv``:

    pettingzoo.make("aec", "cardenv/<game>-v0")        # ENV_IDS (PettingZoo >= 1.27)
    gymnasium.make("cardenv/<game>-single-seat-v0",    # SINGLE_SEAT_IDS
                   opponents="heuristic", env_kwargs={"num_players": 3})
"""

from __future__ import annotations

import importlib.util
import warnings

from cardenv.rulesets import get_ruleset, ruleset_names

SINGLE_SEAT_ENTRY_POINT = "cardenv.train.single_seat:SingleSeatEnv"


def env_ids() -> dict:
    """PettingZoo id -> entry point of the wrapped env constructor, per registered ruleset:
    ``"cardenv.<ruleset>:env"``, or the constructor itself for a ruleset added by
    :func:`cardenv.rulesets.register_ruleset` (which has no module of its own)."""
    from cardenv.envs.base import ruleset_env_api

    return {get_ruleset(name).env_id: f"cardenv.{name}:env" if importlib.util.find_spec(f"cardenv.{name}")
            else ruleset_env_api(name)[1] for name in ruleset_names()}


def single_seat_ids() -> dict[str, str]:
    """Gymnasium id of the single-seat view -> ruleset, per registered ruleset."""
    return {get_ruleset(name).single_seat_id: name for name in ruleset_names()}


ENV_IDS: dict = env_ids()
"""PettingZoo id -> entry point of the wrapped env constructor (the built-in rulesets)."""
SINGLE_SEAT_IDS: dict[str, str] = single_seat_ids()
"""Gymnasium id -> ruleset, one per AEC env (the built-in rulesets)."""


def register_envs() -> None:
    """Register the environments unless they already are (safe to call again: after
    :func:`cardenv.rulesets.register_ruleset`, it registers the new ruleset's)."""
    import gymnasium
    import pettingzoo

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # PettingZoo has a registry (``pettingzoo.make``) from 1.27 on; with an older
        # release ``cardenv.<ruleset>.env()`` is the way to make an env.
        if hasattr(pettingzoo, "aec_registry"):
            for env_id, entry_point in env_ids().items():
                if env_id not in pettingzoo.aec_registry:
                    pettingzoo.register("aec", env_id, entry_point)
        for env_id, ruleset in single_seat_ids().items():
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point=SINGLE_SEAT_ENTRY_POINT, kwargs={"ruleset": ruleset})
