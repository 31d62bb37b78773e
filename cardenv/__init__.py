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



def rate(ruleset: str, agent: str, **options):
    """Rate ``agent`` (an agent spec: ``"heuristic"``, ``"ppo:model.zip"``,
    ``"python:my_agent.py:act"``, ``"onnx:policy.onnx"``...) on ``ruleset``: its score card
    (:class:`cardenv.rating.rate.ScoreCard`), as ``cardenv rate`` prints it. ``options`` are
    :func:`cardenv.rating.rate.rate`'s: ``quick``, ``protocol``, ``workers``,
    ``ray_address``, ``progress``, ``exploit``, ``mini``. Needs the ``rate`` extra."""
    from cardenv.core.extras import require_extra
    from cardenv.rating.rate import rate as rate_agent

    require_extra("rate", "cardenv.rate")
    return rate_agent(ruleset, agent, **options)


def compare(ruleset: str, a: str, b: str, **options):
    """Play agents ``a`` and ``b`` on the same deals, in the same seats, against the same
    field: the paired difference of their win shares and points per round with 95%
    intervals (:class:`cardenv.eval.compare.ComparisonResult`). ``options`` are
    :func:`cardenv.eval.compare.compare`'s: ``field``, ``games``, ``seed``, ``env_kwargs``,
    ``workers``, ``progress``, ``ray_address``."""
    from cardenv.eval.compare import compare as compare_agents

    return compare_agents(ruleset, a, b, **options)


__all__ = ["ENV_IDS", "__version__", "MINI_VARIANTS", "RULESETS", "compare", "rate", "register_envs",
           *ruleset_names()]

register_envs()
