"""``cardenv.kaboom_v0``: ``env()`` (wrapped), ``raw_env()`` and ``parallel_env()``, as in pettingzoo.classic."""

from cardenv.envs.kaboom import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
