"""Rule-based agents, one file per ruleset (registered in cardenv.agents.rulesets)."""
