"""Every ruleset as a package of its own (rules, observer, heuristic, mini variant, shipped
policies), each named by one line of the registry, :mod:`cardenv.rulesets`."""
