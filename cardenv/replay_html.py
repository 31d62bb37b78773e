"""Moved to :mod:`cardenv.human.replay_html`; this path keeps working (see :mod:`cardenv._moved`)."""
from cardenv._moved import alias

alias(__name__, "cardenv.human.replay_html")
