"""The engine layer every ruleset builds on, split by concern: the round state machine
(:mod:`~cardenv.engine.rounds`), slot mechanics (:mod:`~cardenv.engine.slots`), options and
their validation (:mod:`~cardenv.engine.options`), scenarios from ``reset(options=...)``
(:mod:`~cardenv.engine.scenarios`), text rendering (:mod:`~cardenv.engine.text`), observation
building (:mod:`~cardenv.engine.observation` and its compiled encoders,
:mod:`~cardenv.engine.encoders`), and the rule-based player every slot ruleset's heuristic
builds on (:mod:`~cardenv.engine.slot_heuristic`, with its compiled parts
:mod:`~cardenv.engine.slot_memory` and :mod:`~cardenv.engine.call_odds`). No PettingZoo here."""
