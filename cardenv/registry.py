"""Registration of every cardenv environment with PettingZoo's ``make``."""

from __future__ import annotations

import warnings

# PettingZoo id -> entry point of the wrapped env constructor.
ENV_IDS: dict[str, str] = {
    "cardenv/onefifty-v0": "cardenv.envs.onefifty:env",
    "cardenv/cut-v0": "cardenv.envs.cut:env",
    "cardenv/carte-v0": "cardenv.envs.carte:env",
}


def register_envs() -> None:
    """Register the environments unless they already are (safe to call again)."""
    import pettingzoo

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for env_id, entry_point in ENV_IDS.items():
            if env_id not in pettingzoo.aec_registry:
                pettingzoo.register("aec", env_id, entry_point)
