"""Registration of every cardenv environment: the AEC envs with PettingZoo's ``make``
and the single-seat views with Gymnasium's ``make``.

After ``import cardenv``:

    pettingzoo.make("aec", "cardenv/onefifty-v0")        # ENV_IDS (PettingZoo >= 1.27)
    gymnasium.make("cardenv/onefifty-single-seat-v0",    # SINGLE_SEAT_IDS
                   opponents="heuristic", env_kwargs={"num_players": 3})
"""

from __future__ import annotations

import warnings

# PettingZoo id -> entry point of the wrapped env constructor.
ENV_IDS: dict[str, str] = {
    "cardenv/onefifty-v0": "cardenv.envs.onefifty:env",
    "cardenv/cut-v0": "cardenv.envs.cut:env",
    "cardenv/kaboom-v0": "cardenv.envs.kaboom:env",
    "cardenv/carte-v0": "cardenv.envs.carte:env",
}

SINGLE_SEAT_ENTRY_POINT = "cardenv.train.single_seat:SingleSeatEnv"


def single_seat_id(env_id: str) -> str:
    """``cardenv/onefifty-v0`` -> ``cardenv/onefifty-single-seat-v0``."""
    name, _, version = env_id.rpartition("-")
    return f"{name}-single-seat-{version}"


def _ruleset_of(env_id: str) -> str:
    """``cardenv/onefifty-v0`` -> ``onefifty_v0``."""
    name, _, version = env_id.removeprefix("cardenv/").rpartition("-")
    return f"{name}_{version}"


# Gymnasium id -> ruleset, one per AEC env.
SINGLE_SEAT_IDS: dict[str, str] = {single_seat_id(env_id): _ruleset_of(env_id) for env_id in ENV_IDS}


def register_envs() -> None:
    """Register the environments unless they already are (safe to call again)."""
    import gymnasium
    import pettingzoo

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # PettingZoo has a registry (``pettingzoo.make``) from 1.27 on; with an older
        # release ``cardenv.<ruleset>.env()`` is the way to make an env.
        if hasattr(pettingzoo, "aec_registry"):
            for env_id, entry_point in ENV_IDS.items():
                if env_id not in pettingzoo.aec_registry:
                    pettingzoo.register("aec", env_id, entry_point)
        for env_id, ruleset in SINGLE_SEAT_IDS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point=SINGLE_SEAT_ENTRY_POINT, kwargs={"ruleset": ruleset})
