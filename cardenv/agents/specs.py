"""Which agents exist, and building one from its spec (:func:`make_agent`).

Every agent but the heuristic is generic: ``random`` and ``random_no_call`` use the
action table, ``ismcts`` the rules engine with the ruleset's heuristic for rollouts,
``ppo`` a saved model. The heuristic is the ruleset's own, named in its registry record
(:mod:`cardenv.rulesets`). Agents made of other agents
(a search's prior, a guided policy's guide) get :func:`make_agent` from this module's
factories: no agent module imports this one.

Agent specs are strings ``name`` or ``name:argument`` — ``ismcts:200`` (simulations per
move; ``ismcts:30@ppo:pretrained`` searches with the shipped policy as its prior),
``ppo:runs/RULESET/final_model.zip`` (model file), ``ppo:pretrained`` (the policy
shipped for the ruleset, see :mod:`cardenv.agents.pretrained`), ``rllib:CHECKPOINT`` or
``rllib:CHECKPOINT#MODULE`` (an RLlib algorithm checkpoint; needs the ``rllib`` extra),
``python:MODULE:NAME`` (a function or protocol class of the user's, in a module or ``.py``
file: :mod:`cardenv.agents.python_policy`), ``onnx:FILE`` or ``onnx:FILE#sample`` (a network
from any framework; needs the ``onnx`` extra: :mod:`cardenv.agents.onnx_policy`).
Specs joined by ``|`` are a mixture, one of them drawn per game (``heuristic|heuristic_no_call``).

The other seats of a table are given the same way everywhere (``cardenv eval --field``,
``cardenv play --opponents``, ``cardenv train --opponent``, :func:`run_tournament`'s
``field``): one spec for every other seat, or one spec per other seat separated by
commas (``heuristic,heuristic,random``); :func:`seat_specs` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np

from cardenv.agents.base import MIXTURE_SEPARATOR, SAMPLE, SPEC_OPTIONS, MixtureAgent, NoCallAgent, split_option
from cardenv.agents.pretrained import PRETRAINED, SHIPPED_VARIANTS, pretrained_model_path
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.core.extras import require_extra
from cardenv.rulesets import get_ruleset


def _make_random(info, rng, argument):
    from cardenv.agents.random import RandomAgent

    return RandomAgent(info, rng)


def _make_random_no_call(info, rng, argument):
    return NoCallAgent(_make_random(info, rng, argument))


def _make_heuristic(info, rng, argument):
    return get_ruleset(info.name).heuristic(info, rng)


def _make_heuristic_no_call(info, rng, argument):
    return NoCallAgent(_make_heuristic(info, rng, argument))


def _make_heuristic_cautious(info, rng, argument):
    agent = _make_heuristic(info, rng, argument)
    for setting, value in getattr(agent, "cautious_settings", {}).items():  # none: as the heuristic
        setattr(agent, setting, value)
    agent.name = "heuristic_cautious"
    return agent


def _make_ismcts(info, rng, argument):
    from cardenv.agents.ismcts import ISMCTSAgent

    budget, _, prior = (argument or "").partition(PRIOR_SEPARATOR)
    simulations, _, leaf = budget.partition(LEAF_SEPARATOR)
    return ISMCTSAgent(info, rng, simulations=int(simulations) if simulations else ISMCTSAgent.default_simulations,
                       prior=prior or "heuristic", agent_factory=make_agent, leaf=leaf or "rollout")


def _make_search(info, rng, argument):
    from cardenv.agents.blueprint_search import DEFAULT_WORLDS, BlueprintSearchAgent

    worlds, _, blueprint = argument.partition(PRIOR_SEPARATOR)
    return BlueprintSearchAgent(info, rng, blueprint, make_agent, worlds=int(worlds) if worlds else DEFAULT_WORLDS)


def _make_ppo(info, rng, argument):
    from cardenv.agents.ppo import PPOAgent

    path, option = split_option(argument)
    if path in SHIPPED_VARIANTS:
        path = pretrained_model_path(info.name, path)
    # the model file, checked by parse_spec
    return PPOAgent(info, rng, path, deterministic=option != SAMPLE, agent_factory=make_agent)


def _make_rllib(info, rng, argument):
    from cardenv.agents.rllib import RLlibAgent

    checkpoint, _, module_id = argument.partition("#")
    return RLlibAgent(info, rng, checkpoint, module_id or None)


def _make_python(info, rng, argument):
    from cardenv.agents.python_policy import make_python_agent

    return make_python_agent(info, rng, argument)


def _make_onnx(info, rng, argument):
    from cardenv.agents.onnx_policy import ONNXAgent

    path, option = split_option(argument)
    return ONNXAgent(info, rng, path, sample=option == SAMPLE)


# name -> factory(info, rng, argument or None)
AGENTS: dict[str, Callable[[RulesetInfo, np.random.Generator, str | None], Agent]] = {
    "random": _make_random,
    "random_no_call": _make_random_no_call,
    "heuristic": _make_heuristic,
    "heuristic_no_call": _make_heuristic_no_call,
    "heuristic_cautious": _make_heuristic_cautious,
    "ismcts": _make_ismcts,
    "search": _make_search,
    "ppo": _make_ppo,
    "rllib": _make_rllib,
    "python": _make_python,
    "onnx": _make_onnx,
}
AGENT_SPECS = ("random, random_no_call, heuristic, heuristic_no_call, heuristic_cautious, "
               "ismcts[:SIMULATIONS[/LEAF][@PRIOR]], search[:WORLDS]@BLUEPRINT, ppo:MODEL.zip[#sample], "
               f"ppo:{PRETRAINED}[#sample], "
               + "".join(f"ppo:{variant}, " for variant in SHIPPED_VARIANTS if variant != PRETRAINED)
               + "rllib:CHECKPOINT[#MODULE], python:MODULE:NAME, onnx:FILE[#sample], "
               "or several joined by | (one drawn per game)")
"""The accepted agent specs, as a user reads them."""
AGENT_EXTRAS = {"ppo": "train", "rllib": "rllib", "onnx": "onnx"}
"""Agents that need an optional dependency: name -> the extra that brings it."""
PRIOR_SEPARATOR = "@"  # ismcts:30@ppo:pretrained: the search's prior agent
LEAF_SEPARATOR = "/"  # ismcts:300/static: how a simulation's leaf is judged
SEARCH_PRIORS = ("heuristic", "ppo", "onnx", "python")  # agents that can be a search's prior
SEARCH = "search"  # search:16@ppo:pretrained: the search around a blueprint
MIXTURE = "mixture"  # parse_spec's name for a mixture; its argument is the whole spec
SEAT_SEPARATOR = ","  # heuristic,heuristic,random: one spec per other seat


def split_seat_specs(specs: str | Sequence[str]) -> list[str]:
    """The specs of ``specs``: a string of specs separated by commas, or a list whose
    items may each hold several (``["heuristic,random", "ismcts"]``); not checked."""
    if isinstance(specs, str):
        specs = [specs]
    return [spec for item in specs for spec in item.split(SEAT_SEPARATOR)]


def seat_specs(specs: str | Sequence[str], num_players: int, option: str = "field", ruleset: str = "") -> list[str]:
    """One agent spec per other seat (``num_players - 1`` of them, in seat order) from one
    spec for every other seat or one spec per other seat (comma-separated, see
    :func:`split_seat_specs`); a ValueError naming ``option`` for another count. The
    specs themselves are not checked (see :func:`parse_spec`)."""
    given = split_seat_specs(specs)
    others = num_players - 1
    if len(given) == 1:
        return given * others
    if len(given) != others:
        table = f"{ruleset} with {num_players} players" if ruleset else f"{num_players} players"
        wanted = ("one spec (for the one other seat) for " if others == 1
                  else f"one spec, or {others} comma-separated specs (one per other seat), for ")
        raise ValueError(f"{option} needs {wanted}{table}; got {len(given)}: {SEAT_SEPARATOR.join(given)!r}")
    return given


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``(name, argument)`` of an agent spec, checked: one-line errors name the spec and
    what is accepted (TypeError for a non-string, ValueError otherwise). A ``ppo`` model
    file must exist; like stable-baselines3, ``ppo:run/final_model`` finds
    ``run/final_model.zip``, and the argument returned is the file's path;
    ``ppo:pretrained`` is the policy that ships for the ruleset (checked when the agent
    is made, which knows the ruleset; a file named ``pretrained`` is ``ppo:./pretrained``).
    An agent whose extra is not installed raises :class:`cardenv.core.extras.MissingExtra`."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string ({AGENT_SPECS}), got {spec!r} ({type(spec).__name__})")
    if MIXTURE_SEPARATOR in spec:
        for alternative in spec.split(MIXTURE_SEPARATOR):
            parse_spec(alternative)
        return MIXTURE, spec
    if spec.startswith(SEARCH + PRIOR_SEPARATOR):  # search@BLUEPRINT: the default budget
        name, sep, argument = SEARCH, ":", spec[len(SEARCH):]
    else:
        name, sep, argument = spec.partition(":")
    if name not in AGENTS:
        raise ValueError(f"unknown agent {spec!r}; agents are {AGENT_SPECS}")
    if name in AGENT_EXTRAS:
        require_extra(AGENT_EXTRAS[name], f"agent {spec!r}")
    if name == "ismcts":
        budget, has_prior, prior = argument.partition(PRIOR_SEPARATOR)
        simulations, has_leaf, leaf = budget.partition(LEAF_SEPARATOR)
        if sep and not (simulations.isdigit() and int(simulations) >= 1):
            raise ValueError(f"ismcts simulations must be an integer of at least 1, got {simulations!r} in {spec!r}")
        from cardenv.agents.ismcts import LEAF_EVALUATIONS, VALUE_LEAVES

        if has_leaf and leaf not in LEAF_EVALUATIONS:
            raise ValueError(f"the ismcts leaf evaluation must be one of {', '.join(LEAF_EVALUATIONS)} (as in "
                             f"'ismcts:300/static'), got {leaf!r} in {spec!r}")
        if has_prior:
            prior_name, prior_argument = parse_spec(prior)
            if prior_name not in SEARCH_PRIORS:
                raise ValueError(f"the ismcts prior must be heuristic or a ppo model, an onnx network or a python "
                                 f"policy (as in 'ismcts:30@ppo:pretrained'), got {prior!r} in {spec!r}")
            if prior_name == "ppo":
                argument = f"{budget}{PRIOR_SEPARATOR}ppo:{prior_argument}"
        if leaf in VALUE_LEAVES and not (has_prior and prior_name == "ppo"):
            raise ValueError(f"the ismcts leaf {leaf!r} reads a policy's value function: give a ppo prior (as in "
                             f"'ismcts:100/{leaf}@ppo:pretrained'), got {spec!r}")
    elif name == "search":
        argument = _checked_search(spec, argument)
    elif name == "ppo":
        path, option = split_option(argument)
        if not path:
            raise ValueError(f"the ppo agent needs a model file, as in 'ppo:runs/RULESET/final_model.zip' (add "
                             f"'#sample' to sample its moves), got {spec!r}")
        if path not in SHIPPED_VARIANTS and not os.path.isfile(path):
            if path.endswith(".zip") or not os.path.isfile(path + ".zip"):
                raise ValueError(f"ppo model file {path!r} does not exist")
            argument = path + ".zip" + (f"#{option}" if option else "")
    elif name == "rllib":
        checkpoint = argument.partition("#")[0]
        if not checkpoint:
            raise ValueError(f"the rllib agent needs a checkpoint directory, as in 'rllib:runs/rllib/checkpoint' "
                             f"(add '#MODULE' to pick a module), got {spec!r}")
        if not os.path.isdir(checkpoint):
            raise ValueError(f"rllib checkpoint directory {checkpoint!r} does not exist")
    elif name == "python":
        from cardenv.agents.python_policy import load_target

        load_target(argument)  # imports the module: a missing module, file or name is an error now
    elif name == "onnx":
        path, option = split_option(argument)
        if not path:
            raise ValueError(f"the onnx agent needs a model file, as in 'onnx:policy.onnx' (add '#sample' to sample "
                             f"its moves), got {spec!r}")
        if not os.path.isfile(path):
            unknown = argument.rpartition("#")[2] if "#" in argument and option is None else None
            hint = f" (after '#' it takes {', '.join(SPEC_OPTIONS)}, not {unknown!r})" if unknown is not None else ""
            raise ValueError(f"onnx model file {path!r} does not exist{hint}")
    elif sep:
        raise ValueError(f"agent {name!r} takes no argument, got {spec!r}")
    return name, (argument if sep else None)


def _checked_search(spec: str, argument: str) -> str:
    """The argument of a ``search[:WORLDS]@BLUEPRINT`` spec (after ``search:``, or the
    whole spec's tail after ``search``), checked, with the blueprint's own argument
    resolved (a ppo model file)."""
    worlds, has_blueprint, blueprint = argument.partition(PRIOR_SEPARATOR)
    if not has_blueprint or not blueprint:
        raise ValueError(f"the search needs a blueprint agent after '@', as in 'search@ppo:pretrained' or "
                         f"'search:16@heuristic', got {spec!r}")
    if worlds and not worlds.isdigit():
        raise ValueError(f"the search's worlds per decision must be an integer of at least 0, got {worlds!r} in "
                         f"{spec!r}")
    blueprint_name, blueprint_argument = parse_spec(blueprint)
    if blueprint_name in (SEARCH, "ismcts", MIXTURE):
        raise ValueError(f"the search's blueprint must be an agent that does not search, and not a mixture (as in "
                         f"'search@ppo:pretrained'), got {blueprint!r} in {spec!r}")
    if blueprint_name == "ppo":
        blueprint = f"ppo:{blueprint_argument}"
    return f"{worlds}{PRIOR_SEPARATOR}{blueprint}"


def make_agent(spec: str, info: RulesetInfo, rng: np.random.Generator) -> Agent:
    """Build the agent ``spec`` (``"heuristic"``, ``"ismcts:200"``, ``"ppo:model.zip"``,
    ``"heuristic|heuristic_no_call"``)."""
    name, argument = parse_spec(spec)
    if name == MIXTURE:
        return make_mixture(spec, info, rng, make_agent)
    return AGENTS[name](info, rng, argument)


def make_mixture(spec: str, info: RulesetInfo, rng: np.random.Generator,
                 agent_factory: Callable[[str, RulesetInfo, np.random.Generator], Agent]) -> MixtureAgent:
    """The mixture ``a|b|...``, each alternative built by ``agent_factory`` (a runner's own
    factory may know more names, such as training's ``selfplay``) on one shared generator."""
    return MixtureAgent([agent_factory(alternative, info, rng) for alternative in spec.split(MIXTURE_SEPARATOR)])
