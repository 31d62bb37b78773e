"""Agents for every cardenv ruleset behind one interface (:class:`Agent`).

    from cardenv.agents import make_agent, ruleset_info
    info = ruleset_info(RULESET)  # a ruleset name: cardenv.rulesets.ruleset_names()
    agent = make_agent("heuristic", info, np.random.default_rng(0))

Your own agent subclasses :class:`Agent` and implements ``choose(observation, state, seat)``.
"""

from cardenv.agents.specs import AGENTS, make_agent, parse_spec
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.envs.info import make_raw_env, ruleset_info

__all__ = ["AGENTS", "Agent", "RulesetInfo", "make_agent", "make_raw_env", "parse_spec", "ruleset_info"]
