"""cardenv: multi-agent RL environments for card games of hidden and remembered
information, as PettingZoo AEC environments.

    import cardenv
    env = cardenv.onefifty_v0.env()

Importing cardenv also registers every environment with PettingZoo's registry (PettingZoo
1.27 and later; older releases have none), so ``pettingzoo.make("aec", "cardenv/onefifty-v0")``
works after ``import cardenv``.
"""

from cardenv import carte_v0, cut_v0, kaboom_v0, onefifty_v0
from cardenv.adapters.registration import ENV_IDS, register_envs
from cardenv.games.mini import MINI_VARIANTS

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "MINI_VARIANTS", "carte_v0", "cut_v0", "kaboom_v0", "onefifty_v0", "register_envs"]

register_envs()
