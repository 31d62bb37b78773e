"""Moved to :mod:`cardenv.adapters.registration`; this path keeps working (see :mod:`cardenv._moved`)."""
from cardenv._moved import alias

alias(__name__, "cardenv.adapters.registration")
