"""Every ruleset as a package of its own, named by one line of the registry,
:mod:`cardenv.rulesets`. A package holds the rules engine (``rules.py``), the observer
(``observation.py``), the rule-based player (``heuristic.py``), the mini variant
(``mini.py``) and the shipped policies (``pretrained/``), gathered in one
:class:`~cardenv.rulesets.Ruleset` record, ``RULESET``, in its ``__init__.py``. No
PettingZoo here."""
