"""``cardenv.carte_v0``: ``env()`` (wrapped) and ``raw_env()``, as in pettingzoo.classic."""

from cardenv.envs.carte import env, raw_env

__all__ = ["env", "raw_env"]
