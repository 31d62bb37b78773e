"""Modules that moved keep their old import paths: each old path is a two-line module
that makes itself the new one (the same module object, so classes and ``isinstance``
agree whichever path imported them).

Moved after 0.1.0: ``cardenv.play``, ``cardenv.records``, ``cardenv.replay_html`` to
:mod:`cardenv.human`; ``cardenv.rllib`` and ``cardenv.registry`` to
:mod:`cardenv.adapters`; ``cardenv.testing_oracles`` to :mod:`cardenv.testing.oracles`.
"""

import importlib
import sys


def alias(old_name: str, new_name: str) -> None:
    """Make ``import old_name`` give the module ``new_name``."""
    sys.modules[old_name] = importlib.import_module(new_name)
