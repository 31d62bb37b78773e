"""Policies trained with ``cardenv train`` that ship with the package.

``ppo:pretrained`` in any agent spec plays the policy of the env's ruleset (a model file
``<ruleset>.zip`` in this folder, made for the ruleset's default options);
docs/agents.md gives the command that trained each one and how strong it is.
"""

from __future__ import annotations

from importlib import resources

PRETRAINED = "pretrained"
"""The ``ppo`` argument that names the shipped policy (``ppo:pretrained``)."""


def shipped_rulesets() -> list[str]:
    """The rulesets a pretrained policy ships for."""
    folder = resources.files(__name__)
    return sorted(entry.name.removesuffix(".zip") for entry in folder.iterdir() if entry.name.endswith(".zip"))


def pretrained_model_path(ruleset: str) -> str:
    """The model file of ``ruleset``'s shipped policy; ValueError naming those that ship."""
    model = resources.files(__name__) / f"{ruleset}.zip"
    if not model.is_file():
        shipped = ", ".join(shipped_rulesets()) or "none"
        raise ValueError(f"no pretrained policy ships for {ruleset}; 'ppo:pretrained' is available for: {shipped}")
    return str(model)
