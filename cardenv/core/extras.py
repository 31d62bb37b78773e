"""The optional dependencies (``pyproject.toml``'s extras): what each brings, and one
clear error naming the extra to install when a feature needs one that is missing."""

from __future__ import annotations

import importlib

# extra -> the module a feature of that extra imports first
EXTRA_MODULES = {"train": "sb3_contrib", "ray": "ray", "rllib": "ray.rllib", "rate": "scipy", "onnx": "onnxruntime",
                 "onnx-export": "onnxscript",
                 "openspiel": "pyspiel", "web": "aiohttp"}


class MissingExtra(ImportError):
    """A feature needs an optional dependency that is not installed; the message names
    the extra that brings it (the command line reports it in one line, exit status 2)."""


def require_extra(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` unless ``extra``'s module imports; ``feature`` names
    what needs it, as the user wrote it (``"agent 'rllib:ckpt'"``, ``"--ray"``)."""
    name = EXTRA_MODULES[extra]
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        reason = str(error)
    else:
        if getattr(module, "__file__", None) is not None:
            return
        # A folder of that name on the path (Ray's session folder /tmp/ray, when Python
        # runs in /tmp) imports as an empty namespace package: not the installed library.
        reason = f"{name!r} is only a folder, {list(module.__path__)[0]!r}"
    raise MissingExtra(f"{feature}: needs the {extra!r} extra, which is not installed ({reason}): "
                       f"pip install 'cardenv[{extra}]'")
