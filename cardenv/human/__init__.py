"""The human-facing parts: a person at the table (:mod:`~cardenv.human.play`, ``cardenv
play``), game records (:mod:`~cardenv.human.records`) and replays, as text and as one
HTML page (:mod:`~cardenv.human.replay_html`, ``cardenv replay``)."""
