"""Any agent as an OpenSpiel policy of a mini variant, and its exact exploitability (the
``openspiel`` extra).

:func:`agent_exploitability` turns an agent spec into a tabular policy of the mini
variant's game (``cardenv_<game>_mini``, :data:`cardenv.MINI_VARIANTS`): at every
information state, the agent's action on the env's observation there. The game's tree is
cached once per variant (OpenSpiel's ``cached_tree`` transform, kept for the process), so
every further agent costs only its decisions and OpenSpiel's exploitability (C++).

How an agent becomes a policy:

- The agent starts afresh at each information state (``reset()``, its generator seeded
  from ``seed``, the sample's index and the information state's digest) and acts on that
  player's observation and action mask. Under the mini variants' ``memory="perfect"`` the
  observation holds every card the player has seen; an agent that keeps a memory of its
  own between decisions (a frame stack) gets none here.
- ``random`` and ``random_no_call`` are measured exactly: their distribution at a state is
  known (uniform over the legal actions, the calls left out). So is a network played with
  ``#sample`` (``ppo:FILE#sample``, ``onnx:FILE#sample``): the policy is its probabilities
  (``Agent.sampled_distribution``).
- Any other agent acts ``samples`` times per information state and the policy is the
  frequencies of its actions. A deterministic agent (the heuristic, a greedy ppo policy)
  needs one. For an agent that draws from its generator (``ismcts``, a mixture) one sample
  is one deterministic draw of it, not the agent: give more samples, and the figure is
  exact for the policy of those frequencies. A mixture ``a|b`` (one part per game) is
  measured per state, as the frequencies of its parts there.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from functools import cache

import numpy as np
import pyspiel

from cardenv.adapters.openspiel import MINI_VARIANTS, CardenvState, game_name
from cardenv.agents.base import NoCallAgent
from cardenv.agents.random import RandomAgent
from cardenv.agents.specs import make_agent, parse_spec
from cardenv.core import validation
from cardenv.envs.info import ruleset_info


@dataclass
class AgentExploitability:
    """An agent's exact exploitability on a mini variant, in points per game (the game's
    zero-sum returns): OpenSpiel's, the mean over the players of what a best response to
    the others gains against the agent's policy (``nash_conv`` / players)."""

    ruleset: str
    game: str  # the OpenSpiel game, cardenv_<game>_mini
    agent: str
    exploitability: float
    nash_conv: float
    uniform_exploitability: float  # the uniform random policy's, on the same game
    information_states: int
    samples: int  # the agent's draws per information state (1 for an exactly known distribution)
    exact_distribution: bool  # True where the agent's distribution is known (random, random_no_call)
    seed: int
    seconds: float  # this agent's policy and its exploitability (the tree is cached per process)
    tree_seconds: float  # caching the game's tree, paid once per variant and process (0 when cached)

    @property
    def relative_to_uniform(self) -> float:
        """The exploitability as a share of the uniform random policy's."""
        return self.exploitability / self.uniform_exploitability

    def describe(self) -> str:
        """One sentence with the figure and what it means."""
        how = ("its exact distribution" if self.exact_distribution
               else f"{self.samples} draw{'s' if self.samples > 1 else ''} per information state")
        return (f"{self.agent} on {self.game} ({self.information_states:,} information states, {how}) is exploitable "
                f"by {self.exploitability:.4f} points per game ({self.relative_to_uniform:.1%} of uniform random's "
                f"{self.uniform_exploitability:.4f}); 0 is a Nash equilibrium.")

    def to_dict(self) -> dict:
        return {**asdict(self), "relative_to_uniform": self.relative_to_uniform}


def mini_ruleset(ruleset_or_mini: str) -> str:
    """The ruleset whose mini variant is meant: a ruleset with one (``<game>_v0``) or the
    mini game's name (``cardenv_<game>_mini``); one-line ValueError for anything else."""
    by_game = {game_name(ruleset, mini=True): ruleset for ruleset in MINI_VARIANTS}
    if isinstance(ruleset_or_mini, str):
        if ruleset_or_mini in MINI_VARIANTS:
            return ruleset_or_mini
        if ruleset_or_mini in by_game:
            return by_game[ruleset_or_mini]
    raise ValueError(f"exact exploitability needs a mini variant: one of {', '.join(MINI_VARIANTS)} (or "
                     f"{', '.join(by_game)}), got {ruleset_or_mini!r}")


@dataclass
class _Tree:
    """A mini variant's cached game and its information states (one history each)."""

    cached: object
    # information state string -> (player, the history's actions, legal actions)
    states: dict
    uniform_exploitability: float
    seconds: float


@cache
def _tree(ruleset: str) -> _Tree:
    started = time.perf_counter()
    cached = pyspiel.load_game(f"cached_tree(game={game_name(ruleset, mini=True)}())")
    states: dict = {}
    stack = [cached.new_initial_state()]
    while stack:  # every history once (the cached tree builds itself as it is walked)
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            actions = [action for action, _ in state.chance_outcomes()]
        else:
            actions = state.legal_actions()
            key = state.information_state_string()
            if key not in states:
                states[key] = (state.current_player(), state.history(), actions)
        stack.extend(state.child(action) for action in actions)
    uniform = pyspiel.exploitability(cached, pyspiel.UniformRandomPolicy(cached))
    return _Tree(cached, states, uniform, time.perf_counter() - started)


def _known_distribution(agent, mask: np.ndarray, call_ids: np.ndarray) -> np.ndarray | None:
    """The action distribution of an agent whose play is known (random, random_no_call),
    else None."""
    if type(agent) is RandomAgent:
        legal = mask.astype(float)
    elif type(agent) is NoCallAgent and type(agent.inner) is RandomAgent:
        legal = mask.astype(float)
        legal[call_ids] = 0.0
        if not legal.any():  # only calling is legal: the agent calls
            legal = mask.astype(float)
    else:
        return None
    return legal / legal.sum()


def agent_policy(ruleset_or_mini: str, spec: str, seed: int = 0, samples: int = 1) -> pyspiel.TabularPolicy:
    """The agent ``spec`` as a tabular policy of the mini variant's cached game (see the
    module docstring for how it is read)."""
    return _agent_policy(mini_ruleset(ruleset_or_mini), spec, seed, samples)[0]


def _agent_policy(ruleset: str, spec: str, seed: int, samples: int) -> tuple[pyspiel.TabularPolicy, bool]:
    parse_spec(spec)
    validation.integer("seed", seed, 0)
    validation.integer("samples", samples, 1)
    tree = _tree(ruleset)
    info = ruleset_info(ruleset, **MINI_VARIANTS[ruleset])
    agent = make_agent(spec, info, np.random.default_rng(seed))
    call_ids = info.call_action_ids()
    game = pyspiel.load_game(game_name(ruleset, mini=True))
    table, exact = {}, True
    try:
        for key, (seat, history, legal) in tree.states.items():
            mask = np.zeros(len(info.action_table), np.int8)
            mask[legal] = 1
            probabilities = _known_distribution(agent, mask, call_ids)
            if probabilities is None:  # the agent acts at the history's state
                state = game.new_initial_state()
                for action in history:
                    state.apply_action(action)
                probabilities = _stated_distribution(agent, state, seat)
                if probabilities is None:
                    exact = False
                    probabilities = _sampled_distribution(agent, state, seat, seed, samples)
            table[key] = [(action, float(probabilities[action])) for action in legal]
    finally:
        agent.close()
    return pyspiel.TabularPolicy(table), exact


def _observation(state: CardenvState, seat: int) -> dict[str, np.ndarray]:
    mask = state.engine.legal_action_mask().copy()
    return {"observation": np.asarray(state.observation_tensor(seat), np.float32), "action_mask": mask}


def _stated_distribution(agent, state: CardenvState, seat: int) -> np.ndarray | None:
    """The distribution the agent samples at ``state`` where it states it
    (``Agent.sampled_distribution``: a network played with ``#sample``), else None."""
    agent.reset()
    return agent.sampled_distribution(_observation(state, seat), state.engine, seat)


def _sampled_distribution(agent, state: CardenvState, seat: int, seed: int, samples: int) -> np.ndarray:
    """The frequencies of the agent's actions in ``samples`` draws at ``state``, each from
    a generator seeded by ``seed``, the draw and the information state."""
    observation = _observation(state, seat)
    digest = np.frombuffer(state.information_state_digest(seat)[:16], np.uint32)
    counts = np.zeros(len(observation["action_mask"]))
    for sample in range(samples):
        agent.reset()
        agent.reseed(np.random.SeedSequence([seed, sample, *digest]))
        counts[agent.act(observation, state.engine, seat)] += 1
    return counts / samples


def agent_exploitability(ruleset_or_mini: str, spec: str, seed: int = 0, samples: int = 1) -> AgentExploitability:
    """The exact exploitability of the agent ``spec`` playing every seat of a mini variant
    (``<game>_v0`` or ``cardenv_<game>_mini``; :data:`cardenv.MINI_VARIANTS`). ``samples``: the
    agent's draws per information state, for an agent that draws from its generator (see
    the module docstring). One-line ValueError for a ruleset without a mini variant, a bad
    spec (or one made for another game, such as a model trained on the full ruleset)."""
    ruleset = mini_ruleset(ruleset_or_mini)
    parse_spec(spec)
    validation.integer("seed", seed, 0)
    validation.integer("samples", samples, 1)
    misses = _tree.cache_info().misses
    tree = _tree(ruleset)
    built = _tree.cache_info().misses > misses
    started = time.perf_counter()
    policy, exact = _agent_policy(ruleset, spec, seed, samples)
    nash_conv = pyspiel.nash_conv(tree.cached, policy)
    players = tree.cached.num_players()
    return AgentExploitability(
        ruleset=ruleset, game=game_name(ruleset, mini=True), agent=spec, exploitability=nash_conv / players,
        nash_conv=nash_conv, uniform_exploitability=tree.uniform_exploitability,
        information_states=len(tree.states), samples=1 if exact else samples, exact_distribution=exact, seed=seed,
        seconds=round(time.perf_counter() - started, 1), tree_seconds=round(tree.seconds, 1) if built else 0.0)


__all__ = ["AgentExploitability", "agent_exploitability", "agent_policy", "mini_ruleset"]
