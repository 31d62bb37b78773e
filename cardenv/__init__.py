"""cardenv: multi-agent RL environments for card games of hidden and remembered
information, as PettingZoo AEC environments.

    import cardenv
    env = cardenv.onefifty_v0.env()

Every ruleset of the registry (:data:`cardenv.rulesets.RULESETS`) is a module here,
``cardenv.<ruleset>``. Importing cardenv also registers every environment with
PettingZoo's registry (PettingZoo 1.27 and later; older releases have none) and the
single-seat views with Gymnasium's, so ``pettingzoo.make("aec", "cardenv/onefifty-v0")``
works after ``import cardenv``.
"""

import importlib

from cardenv.adapters.registration import ENV_IDS, register_envs
from cardenv.core.version import __version__
from cardenv.rulesets import RULESETS, mini_variants, ruleset_names

for _name in ruleset_names():
    globals()[_name] = importlib.import_module(f"{__name__}.{_name}")

MINI_VARIANTS = mini_variants()
"""Per ruleset, the options of its mini variant: a game small enough to solve exactly."""

__all__ = ["ENV_IDS", "__version__", "MINI_VARIANTS", "RULESETS", "register_envs", *ruleset_names()]

register_envs()
