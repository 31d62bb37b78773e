"""Policies trained with ``cardenv train`` that ship with the package.

``ppo:pretrained`` in any agent spec plays the shipped policy of the env's ruleset (a
model file ``<ruleset>.zip`` in this folder, made for the ruleset's default options):
a network that sees the observation alone, cloned from a heuristic and fine-tuned by
PPO. The other names play other shipped policies of the same ruleset where one ships:
``ppo:pretrained_guided`` the guided policies that shipped before them (the heuristic's move is
part of their input; ``<ruleset>_guided.zip``); ``ppo:pretrained_memory`` a policy
trained under ``memory="none"`` with a memory of its own, a frame stack
(``<ruleset>_memory.zip``). docs/agents.md gives the command that trained each one and
how strong it is.
"""

from __future__ import annotations

from importlib import resources

PRETRAINED = "pretrained"
"""The ``ppo`` argument that names the shipped policy (``ppo:pretrained``)."""

SHIPPED_VARIANTS = {PRETRAINED: "", "pretrained_guided": "_guided", "pretrained_memory": "_memory"}
"""``ppo`` arguments that name a shipped policy -> the suffix of its file name."""


def _model_file(ruleset: str, variant: str):
    return resources.files(__name__) / f"{ruleset}{SHIPPED_VARIANTS[variant]}.zip"


def shipped_rulesets(variant: str = PRETRAINED) -> list[str]:
    """The rulesets a shipped policy of this variant ships for."""
    folder = resources.files(__name__)
    suffix = SHIPPED_VARIANTS[variant] + ".zip"
    others = [s + ".zip" for s in SHIPPED_VARIANTS.values() if len(s) > len(SHIPPED_VARIANTS[variant])]
    return sorted(entry.name.removesuffix(suffix) for entry in folder.iterdir()
                  if entry.name.endswith(suffix) and not any(entry.name.endswith(other) for other in others))


def pretrained_model_path(ruleset: str, variant: str = PRETRAINED) -> str:
    """The model file of ``ruleset``'s shipped policy of this variant; ValueError naming
    the rulesets it ships for."""
    if variant not in SHIPPED_VARIANTS:
        raise ValueError(f"unknown shipped policy {variant!r}; shipped policies are {', '.join(SHIPPED_VARIANTS)}")
    model = _model_file(ruleset, variant)
    if not model.is_file():
        shipped = ", ".join(shipped_rulesets(variant)) or "none"
        raise ValueError(f"no {variant} policy ships for {ruleset}; 'ppo:{variant}' is available for: {shipped}")
    return str(model)
