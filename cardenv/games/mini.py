"""The mini variants: per ruleset, an option set small enough to solve exactly."""

MINI_VARIANTS: dict[str, dict] = {}
