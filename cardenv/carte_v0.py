"""``cardenv.carte_v0``: family rummy with "carte" as a PettingZoo AEC environment: ``env()`` (wrapped),
``raw_env()`` and ``parallel_env()``, as in pettingzoo.classic (docs/carte.md)."""

from cardenv.envs.base import ruleset_env_api

raw_env, env, parallel_env = ruleset_env_api(__name__.rpartition(".")[2])

__all__ = ["env", "parallel_env", "raw_env"]
