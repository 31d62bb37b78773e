"""Moved to :mod:`cardenv.testing.oracles`; this path keeps working (see :mod:`cardenv._moved`)."""
from cardenv._moved import alias

alias(__name__, "cardenv.testing.oracles")
