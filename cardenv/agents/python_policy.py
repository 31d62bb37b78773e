"""A policy written in any Python code, as an agent: the spec ``python:MODULE:NAME``.

``MODULE`` is an importable module (``pkg.policies``, found on ``sys.path``) or the path
of a ``.py`` file (``my_agents.py``, ``/abs/dir/my_agents.py``); ``NAME`` is an attribute
of it (the spec is split at its *last* colon, so a path may hold colons). ``NAME`` is one of:

- a **function** ``act(observation) -> action id``: ``observation`` is the env's
  ``{"observation": float32 vector, "action_mask": int8 vector}``;
- a **class** with the small protocol: ``Cls(info, rng)`` (``info`` the ruleset's
  :class:`cardenv.core.agent.RulesetInfo`, ``rng`` the agent's seeded
  :class:`numpy.random.Generator`, reseeded by runners before each game: draw every
  random choice from it), ``reset()`` before every game (optional) and
  ``act(observation) -> action id``;
- a subclass of :class:`cardenv.core.agent.Agent` (built as ``Cls(info, rng)``, used as it is).

An action the mask forbids is an error naming the spec and the legal actions (never
corrected). A file is imported once per process, under a module name of its own.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from typing import Any

import numpy as np

from cardenv.core.agent import Agent, RulesetInfo

FORM = "python:MODULE:NAME"
"""The spec, as a user reads it (MODULE a dotted module or a .py file)."""


def is_file_path(module: str) -> bool:
    """Whether ``MODULE`` of a python spec names a file rather than a dotted module."""
    return module.endswith(".py") or "/" in module or os.sep in module


def split_target(argument: str) -> tuple[str, str]:
    """``(MODULE, NAME)`` of a python spec's argument (``MODULE:NAME``), split at the last
    colon; ValueError in one line when a part is missing."""
    module, sep, name = argument.rpartition(":")
    if not sep or not module or not name:
        raise ValueError(f"the python agent needs a module (or .py file) and a name, as in 'python:my_agents.py:act' "
                         f"or 'python:pkg.module:MyAgent', got 'python:{argument}'")
    if not name.isidentifier():
        raise ValueError(f"{name!r} in 'python:{argument}' is not a Python name (the spec is {FORM})")
    return module, name


def _import_file(path: str):
    """The module of a .py file, imported once per process (keyed by its absolute path)."""
    full = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(full))[0]
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in stem)
    module_name = f"cardenv_user_{stem}_{hashlib.sha1(full.encode()).hexdigest()[:10]}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, full)
    if spec is None or spec.loader is None:
        raise ValueError(f"python policy file {path!r} cannot be imported (is it a .py file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before running it: dataclasses and pickling look it up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def _import(module: str, spec: str):
    if is_file_path(module):
        if not os.path.isfile(module):
            raise ValueError(f"python policy file {module!r} does not exist (in {spec!r})")
        loader = _import_file
    else:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # a parent package that does not import
            found = None
        if found is None:
            raise ValueError(f"python module {module!r} is not importable (in {spec!r}): give a .py file "
                             f"('python:path/to/{module.rpartition('.')[2]}.py:NAME') or put it on PYTHONPATH")
        loader = importlib.import_module
    try:
        return loader(module)
    except ValueError:
        raise
    except Exception as error:  # noqa: BLE001 - the user's module raised while importing: one line naming it
        detail = str(error).splitlines()[0] if str(error) else ""
        raise ValueError(f"importing {module!r} (in {spec!r}) failed: {type(error).__name__}: {detail}") from None


def load_target(argument: str) -> Any:
    """The object a python spec's argument ``MODULE:NAME`` names, checked: a callable
    (function, class, or instance with ``__call__``). One-line ValueError naming the bad value."""
    spec = f"python:{argument}"
    module_name, name = split_target(argument)
    module = _import(module_name, spec)
    if not hasattr(module, name):
        public = sorted(n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                        and getattr(v, "__module__", None) == module.__name__)
        raise ValueError(f"{module_name!r} has no {name!r} (in {spec!r}); its functions and classes: "
                         f"{', '.join(public) or 'none'}")
    target = getattr(module, name)
    if not callable(target):
        raise ValueError(f"{name!r} in {module_name!r} is a {type(target).__name__}, not a function or class "
                         f"(in {spec!r}): the python agent takes a function act(observation) -> action id or a "
                         f"class Cls(info, rng) with act(observation)")
    if isinstance(target, type) and not issubclass(target, Agent) and not callable(getattr(target, "act", None)):
        raise ValueError(f"class {name!r} in {module_name!r} has no act(observation) method (in {spec!r}): the "
                         f"protocol is Cls(info, rng), reset() (optional), act(observation) -> action id")
    return target


class PythonPolicyAgent(Agent):
    """Plays the function or protocol class of a ``python:MODULE:NAME`` spec. The class's
    instance is built with this agent's ``info`` and generator (so reseeding the agent
    reseeds it)."""

    name = "python"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, argument: str):
        super().__init__(info, rng)
        self.spec = f"python:{argument}"
        self.name = self.spec
        target = load_target(argument)
        self.policy = target(info, rng) if isinstance(target, type) else None
        self.function = target if self.policy is None else self.policy.act
        self._actions = len(info.action_table)

    def reset(self) -> None:
        super().reset()
        if self.policy is not None and callable(getattr(self.policy, "reset", None)):
            self.policy.reset()

    def choose(self, observation, state, seat) -> int:
        action = self.function(observation)
        mask = observation["action_mask"]
        if isinstance(action, np.ndarray) and action.size == 1:
            action = action.reshape(())[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"{self.spec} returned {action!r} ({type(action).__name__}), not an action id (an int)")
        if not 0 <= action < self._actions or not mask[action]:
            what = (f"action {int(action)} ({self.info.action_table.name(int(action))})" if 0 <= action < self._actions
                    else f"action {int(action)}, outside 0..{self._actions - 1}")
            raise ValueError(f"{self.spec} chose {what}, which the action mask forbids; legal now: "
                             f"{np.flatnonzero(mask).tolist()}")
        return int(action)


def make_python_agent(info: RulesetInfo, rng: np.random.Generator, argument: str) -> Agent:
    """The agent of ``python:ARGUMENT``: the class itself where it subclasses :class:`Agent`,
    else a :class:`PythonPolicyAgent` around the function or protocol class."""
    target = load_target(argument)
    if isinstance(target, type) and issubclass(target, Agent):
        return target(info, rng)
    return PythonPolicyAgent(info, rng, argument)
