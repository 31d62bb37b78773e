"""Agents for every cardenv ruleset behind one interface (:class:`Agent`).

    from cardenv.agents import make_agent, ruleset_info
    info = ruleset_info("onefifty_v0")
    agent = make_agent("heuristic", info, np.random.default_rng(0))
"""

from cardenv.agents.base import Agent, RulesetInfo
from cardenv.agents.registry import AGENTS, HEURISTICS, make_agent, make_raw_env, parse_spec, ruleset_info, rulesets

__all__ = ["AGENTS", "HEURISTICS", "Agent", "RulesetInfo", "make_agent", "make_raw_env", "parse_spec",
           "ruleset_info", "rulesets"]
