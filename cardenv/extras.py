"""The optional dependencies (``pyproject.toml``'s extras): what each brings, and one
clear error naming the extra to install when a feature needs one that is missing."""

from __future__ import annotations

import importlib

# extra -> the module a feature of that extra imports first
EXTRA_MODULES = {"train": "sb3_contrib", "ray": "ray", "rllib": "ray.rllib"}


class MissingExtra(ImportError):
    """A feature needs an optional dependency that is not installed; the message names
    the extra that brings it (the command line reports it in one line, exit status 2)."""


def require_extra(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` unless ``extra``'s module imports; ``feature`` names
    what needs it, as the user wrote it (``"agent 'rllib:ckpt'"``, ``"--ray"``)."""
    try:
        importlib.import_module(EXTRA_MODULES[extra])
    except ImportError as error:
        raise MissingExtra(f"{feature}: needs the {extra!r} extra, which is not installed ({error}): "
                           f"pip install 'cardenv[{extra}]'") from None
