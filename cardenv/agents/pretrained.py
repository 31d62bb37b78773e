"""Policies trained with ``cardenv train`` that ship with the package.

``ppo:pretrained`` in any agent spec plays the shipped policy of the env's ruleset: a
model file ``pretrained/pretrained.zip`` in the ruleset's package (its registry record's
``package``), made for the ruleset's default options: a network that sees the
observation alone, cloned from a heuristic and fine-tuned by PPO. The other names play
other shipped policies of the same ruleset where one ships: ``ppo:pretrained_guided``
guided policies (the heuristic's move is part of their input;
``pretrained_guided.zip``); ``ppo:pretrained_memory`` a policy trained under
``memory="none"`` with a memory of its own, a frame stack (``pretrained_memory.zip``);
``ppo:pretrained_mmd`` a policy trained by self-play with magnetic mirror descent
(``pretrained_mmd.zip``). docs/agents.md gives the command that trained each one.
"""

from __future__ import annotations

from importlib import resources

from cardenv.rulesets import get_ruleset, ruleset_names

PRETRAINED = "pretrained"
"""The ``ppo`` argument that names the shipped policy (``ppo:pretrained``)."""

SHIPPED_VARIANTS = (PRETRAINED, "pretrained_guided", "pretrained_memory", "pretrained_mmd")
"""``ppo`` arguments that name a shipped policy (each is the name of its file)."""


def _model_file(ruleset: str, variant: str):
    """Where the model file would be (None for a ruleset that is not registered or has no package)."""
    if ruleset not in ruleset_names() or not get_ruleset(ruleset).package:
        return None
    package = get_ruleset(ruleset).package
    return resources.files(package) / "pretrained" / f"{variant}.zip"


def shipped_rulesets(variant: str = PRETRAINED) -> list[str]:
    """The rulesets a shipped policy of this variant ships for."""
    return sorted(name for name in ruleset_names() if (model := _model_file(name, variant)) is not None and model.is_file())


def pretrained_model_path(ruleset: str, variant: str = PRETRAINED) -> str:
    """The model file of ``ruleset``'s shipped policy of this variant; ValueError naming
    the rulesets it ships for."""
    if variant not in SHIPPED_VARIANTS:
        raise ValueError(f"unknown shipped policy {variant!r}; shipped policies are {', '.join(SHIPPED_VARIANTS)}")
    model = _model_file(ruleset, variant)
    if model is None or not model.is_file():
        shipped = ", ".join(shipped_rulesets(variant)) or "none"
        raise ValueError(f"no {variant} policy ships for {ruleset}; 'ppo:{variant}' is available for: {shipped}")
    return str(model)
