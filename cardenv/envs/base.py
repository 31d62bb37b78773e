"""The thin PettingZoo AEC layer shared by every ruleset.

A ruleset's env is made from its registry record (:func:`raw_env_class`): a subclass of
:class:`CardGameEnv` that names the record's config, state and observer classes;
everything PettingZoo-specific (agents, rewards, spaces, wrappers, rendering, PettingZoo's
reset probe) lives here once. ``cardenv.<ruleset>`` exposes ``env``, ``raw_env`` and
``parallel_env`` (:func:`ruleset_env_api`), as ``pettingzoo.classic`` does.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.wrappers.base import BaseWrapper

from cardenv.core import validation
from cardenv.core.chance import copy_generator
from cardenv.core.scoring import points_relative_to_table
from cardenv.engine.rounds import GameState, IllegalActionError
from cardenv.rulesets import Ruleset, get_ruleset

PETTINGZOO_PROBE_KEY = "options"
"""PettingZoo's api_test and parallel_test reset with ``options={"options": 1}`` only to
check that ``reset`` takes the keyword: that one key alone, with a value that is no
mapping, sets nothing and is accepted quietly (:func:`scenario_options`). Any other
unknown key is an error (a typo such as ``hand`` must not be ignored, nor scenario keys
nested one level too deep)."""

REWARD_MODES = ("points", "relative", "outcome")
DEFAULT_REWARD_MODE = "points"
DEFAULT_REWARD_SCALE = 0.01
# What becomes of the agent of a seat that leaves the game while the others play on.
ELIMINATED_AGENTS_MODES = ("stay", "remove")
# The render modes that draw the table (pygame), and how many recent events a frame lists.
DRAWN_RENDER_MODES = ("human", "rgb_array")
DRAWN_EVENTS = 16


def scenario_options(options: Any) -> Mapping | None:
    """``reset``'s ``options`` as the rules engine takes them: None for PettingZoo's probe
    (:data:`PETTINGZOO_PROBE_KEY`), else as given (the engine checks them)."""
    if (isinstance(options, Mapping) and list(options) == [PETTINGZOO_PROBE_KEY]
            and not isinstance(options[PETTINGZOO_PROBE_KEY], Mapping)):
        return None
    return options


class UnknownAgentError(KeyError):
    """An agent name the env does not have: a KeyError, as PettingZoo's dicts of agents
    raise, with a message that says which agents there are."""

    def __str__(self) -> str:
        return str(self.args[0])  # KeyError's own would show the message in quotes


class CardGameEnv(AECEnv):
    """AEC environment over a rules engine.

    Args (shared by every ruleset, the rest go to the ruleset's config):
        render_mode: ``"ansi"`` (``render()`` returns the text), ``"rgb_array"``
            (``render()`` returns the drawn table, an ``(720, 1280, 3)`` uint8 array) or
            ``"human"`` (the drawn table in a window, after every step), or None. The drawn
            modes need pygame (the ``render`` extra).
        render_omniscient: render every card face up instead of the current player's view.
        reward_mode: ``"points"``: at each round end every agent receives
            ``-reward_scale * points added``; ``"relative"``: at each round end every
            agent in the round receives ``reward_scale *`` (the mean of the points the
            round's players added − its own), zero-sum over the table, so that a round
            in which the others gain more than the agent pays it less; ``"outcome"``: at game end +1 for every
            winner (lowest total, ties included) and -1 for everyone else; in rulesets
            where players are eliminated, a player who leaves before the end gets its -1
            then.
        reward_scale: multiplier of the points in ``"points"`` and ``"relative"`` modes (a
            finite number > 0).
        eliminated_agents: what becomes of the agent of a seat that leaves the game while
            the others play on (the rulesets with eliminations).
            ``"stay"`` (default): it stays in ``agents``, not terminated, and is never
            selected again; at the game's end it is done with everyone and its rewards
            since its last action reach it in ``last()``. Every client that ends an
            episode when the selected agent is done, or only once every agent is,
            plays whole games. ``"remove"``: PettingZoo's dead-step protocol: it is
            terminated at once, selected for one None step and removed from ``agents``.
            ``rewards`` are the same, step by step, either way.

    Bad options raise TypeError (wrong type) or ValueError (right type, bad value) with a
    one-line message naming the option (see :mod:`cardenv.core.validation`); calls in the
    wrong order (``step()`` before ``reset()`` or after every agent is done) raise
    RuntimeError.
    """

    # Not parallelizable: one agent acts at a time, so PettingZoo's aec_to_parallel (every
    # agent's action in one step) does not apply; parallel_env() is the turn-based conversion.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": False,
                                "render_fps": 1}
    ruleset: Ruleset  # the registry record the class was made from (raw_env_class)
    config_class: type
    state_class: type[GameState]
    observer_class: type

    def __init__(
        self,
        render_mode: str | None = None,
        render_omniscient: bool = False,
        reward_mode: str = DEFAULT_REWARD_MODE,
        reward_scale: float = DEFAULT_REWARD_SCALE,
        eliminated_agents: str = "stay",
        **config: Any,
    ):
        super().__init__()
        # Every option is checked before any attribute is set.
        validation.unknown_keywords(self.metadata.get("name", type(self).__name__), config, self.option_names())
        render_mode = validation.choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        render_omniscient = validation.boolean("render_omniscient", render_omniscient)
        reward_mode = validation.choice("reward_mode", reward_mode, REWARD_MODES)
        reward_scale = validation.real("reward_scale", reward_scale, 0, low_inclusive=False)
        eliminated_agents = validation.choice("eliminated_agents", eliminated_agents, ELIMINATED_AGENTS_MODES)
        self.config = self.config_class(**config)
        self._renderer = TableRenderer(render_mode, self.metadata["render_fps"]) if render_mode else None
        self.render_mode = render_mode
        self.render_omniscient = render_omniscient
        self.reward_mode = reward_mode
        self.reward_scale = reward_scale
        self.eliminated_agents = eliminated_agents
        self.observer = self.observer_class(self.config)
        self._observers_by_memory = {self.config.memory: self.observer}  # see observer_with_memory
        self.layout = self.observer.layout
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        # A throwaway state gives the action table for this configuration (and warms the
        # observer, below).
        throwaway = self.state_class(self.config, np.random.default_rng(0))
        self.action_table = throwaway.action_table
        num_actions = len(self.action_table)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.layout.low(), self.layout.high(), (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        state_layout = self.observer.state_layout
        self.state_space = spaces.Box(state_layout.low(), state_layout.high(), (state_layout.size,), np.float32)
        self._buffers = [self.observer.new_buffer() for _ in range(n)]
        # The observation's compiled encoder comes from numba's cache on its first call, a
        # quarter of a second once per process: paid here, with the env's construction,
        # rather than as a stall in the middle of the first game.
        self.observer.write(throwaway, throwaway.current_player, self._buffers[0])
        # The game version each buffer was built for (see GameState.version).
        self._buffer_versions: list[object | None] = [None] * n
        self._np_random: np.random.Generator | None = None
        self.game: GameState | None = None

    @classmethod
    def option_names(cls) -> list[str]:
        """Every keyword the constructor accepts: the env's own, then the ruleset's."""
        own = ["render_mode", "render_omniscient", "reward_mode", "reward_scale", "eliminated_agents"]
        return own + cls.config_class.option_names()

    # Each looks ``agent`` up in its dict directly (action_space runs on every step, in the
    # wrappers' bounds check); a KeyError or TypeError (an unhashable name) means unknown.
    def observation_space(self, agent: str) -> spaces.Space:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Space:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``"player_2"`` → 2); :class:`UnknownAgentError` for a
        name the env does not have."""
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent: Any) -> UnknownAgentError:
        return UnknownAgentError(f"unknown agent {validation.show(agent)}; the agents are "
                                 f"{', '.join(self.possible_agents)}")

    # --- the AEC loop ---------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.

        ``options`` sets up a scenario (see the ruleset's docs): ``hands``, ``draw_pile``,
        ``discard_pile`` (card names), ``starter`` and ``scores``; any other key is a
        ValueError (but for PettingZoo's probe, :data:`PETTINGZOO_PROBE_KEY`).
        ``seed`` is None or an integer >= 0. A reset that raises leaves the env exactly as it was.
        """
        seed = validation.seed(seed)
        # The new game is built on a generator of its own and committed only once it
        # exists: the engine checks the scenario options, and an error there must not
        # consume the env's generator nor replace the game in progress.
        if seed is not None or self._np_random is None:
            rng, _ = seeding.np_random(seed)
        else:
            rng = copy_generator(self._np_random)
        self._start_game(rng, options)

    def _start_game(self, rng: np.random.Generator, options: dict | None) -> None:
        """:meth:`reset` with the new game's generator given: the game draws from ``rng``
        itself (shared, not copied). For a front end that deals its games from a stream of
        its own (the single-seat view: building a generator per game costs numpy more than
        the deal). An error in ``options`` leaves the env as it was but may have drawn from
        ``rng``."""
        game = self.state_class(self.config, rng, scenario_options(options))
        # Read from the new game before anything of the env changes, so that nothing below
        # can fail half-way through.
        first_agent = self.possible_agents[game.current_player]
        self._np_random = rng
        self.game = game
        self.agents = self.possible_agents.copy()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._agents_out: set[str] = set()  # agents whose seats have left the game (see _agents_leave)
        self._buffer_versions = [None] * len(self.possible_agents)
        self.agent_selection = first_agent

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_game("observe()")
        seat = self.seat_of(agent)
        state = self.game
        buffer = self._buffers[seat]
        if self._buffer_versions[seat] is not state.version:
            self.observer.write(state, seat, buffer)  # the env's own seat and buffer: nothing to check
            self._buffer_versions[seat] = state.version
        if seat == state.current_player:
            mask = state.legal_action_mask().copy()
        else:
            mask = np.zeros(len(self.action_table), dtype=np.int8)
        return {"observation": buffer.copy(), "action_mask": mask}

    def observer_with_memory(self, memory: str):
        """The observer of this env's options but the memory model ``memory`` (made on
        first use): what a runner gives an agent that remembers for itself
        (``Agent.memory``)."""
        if memory not in self._observers_by_memory:
            config = dataclasses.replace(self.config, memory=memory)  # the config checks memory
            self._observers_by_memory[memory] = self.observer_class(config)
        return self._observers_by_memory[memory]

    def state(self) -> np.ndarray:
        """The omniscient global state as a float32 vector in ``state_space`` (every
        card's identity and place, who knows what, phase, scores; seats absolute) — what
        a centralised critic trains on, never an agent's input at play time."""
        self._require_game("state()")
        return self.observer.encode_state(self.game)

    def state_pieces(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views of a ``state()`` vector (see the docs' table)."""
        return self.observer.state_layout.views(vector)

    def _require_game(self, call: str) -> None:
        """Raise RuntimeError unless a reset() has succeeded."""
        if self.game is None:
            raise RuntimeError(f"{call} needs a game: call reset() first")

    def _require_agents(self, call: str) -> None:
        """Raise RuntimeError unless a game is on and an agent is still to be stepped."""
        self._require_game(call)
        if not self.agents:
            # PettingZoo's dead-step protocol has removed every agent: agent_selection
            # still names the last one, whose entries are gone.
            raise RuntimeError(f"{call}: the game is over and every agent is done; call reset() to play again")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._require_agents("last()")
        return super().last(observe)

    def step(self, action: int | None) -> None:
        self._require_agents("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game
        if action is None:
            raise IllegalActionError(f"{agent} must act: None is only for agents that are done")
        action = self.action_id_of(action)
        self._cumulative_rewards[agent] = 0.0
        rounds_before = len(state.round_results)
        in_round = self.seats_in_round()
        state.apply(action)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if len(state.round_results) > rounds_before and self.reward_mode != "outcome":
            seat_rewards = self.round_end_rewards(state.round_results[-1].points_added, in_round)
            for a in self.agents:
                self.rewards[a] = seat_rewards[self.agent_name_mapping[a]]
        if state.is_terminal:
            # Seats that left earlier and stayed in ``agents`` had their outcome as they
            # left; they are done with everyone, and truncated with everyone when the game
            # is: RLlib's PettingZoo wrapper ends an episode only when the agents done last
            # are all terminated or all truncated.
            if self.reward_mode == "outcome":
                winners = set(state.winners())
                for a in self.agents:
                    if a not in self._agents_out:
                        self.rewards[a] = self.outcome_reward(self.agent_name_mapping[a] in winners)
            done = self.truncations if state.is_truncated else self.terminations
            for a in self.agents:
                done[a] = True
        else:
            self.agent_selection = self.possible_agents[state.current_player]
            self._agents_leave()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # --- the reward rules, which the single-seat view applies too ---------------------
    def seats_in_round(self) -> list[int] | tuple[()]:
        """Read before a step: the seats dealt into the round, which ``"relative"``
        rewards compare (those still in before the step: a seat that the round's end
        eliminates took part in it); empty in the other modes, which do not need them."""
        if self.reward_mode != "relative":
            return ()
        return [p for p, out in enumerate(self.game.eliminated) if not out]

    def round_end_rewards(self, points_added: tuple[int, ...], in_round: list[int] | tuple[()]) -> list[float]:
        """Every seat's reward for a round that ended with ``points_added``, in the
        ``"points"`` and ``"relative"`` modes (``in_round`` from :meth:`seats_in_round`)."""
        added = points_added
        if self.reward_mode == "relative":
            added = [-p for p in points_relative_to_table(added, in_round)]
        return [-self.reward_scale * a for a in added]

    @staticmethod
    def outcome_reward(won: bool) -> float:
        """A seat's ``"outcome"`` reward at the game's end (or as it leaves the game, lost)."""
        return 1.0 if won else -1.0

    def _agents_leave(self) -> None:
        """Agents whose seats left the game while it goes on get their -1 now in
        ``"outcome"`` mode (they cannot win; a single-seat learner's episode ends here).
        With ``eliminated_agents="remove"`` they are terminated and, by PettingZoo's
        dead-step protocol, step once with None before they are removed from ``agents``;
        with ``"stay"`` they stay, never selected again."""
        eliminated = self.game.eliminated
        if True not in eliminated:  # every step of a game without eliminations
            return
        leaving = [a for a in self.agents
                   if eliminated[self.agent_name_mapping[a]] and a not in self._agents_out]
        if not leaving:
            return
        self._agents_out.update(leaving)
        if self.reward_mode == "outcome":
            for a in leaving:
                self.rewards[a] = self.outcome_reward(False)
        if self.eliminated_agents == "remove":
            for a in leaving:
                self.terminations[a] = True
            self._deads_step_first()

    def step_done_agents(self) -> None:
        """Step every done agent that is selected with None (PettingZoo's dead-step
        protocol) while the game goes on. Runners that drive the engine's current player
        call it after each step: with ``eliminated_agents="remove"`` a seat eliminated
        mid-game leaves this way (with ``"stay"`` there is nothing to step)."""
        while (self.agents and not self.game.is_terminal
               and (self.terminations[self.agent_selection] or self.truncations[self.agent_selection])):
            self.step(None)

    def action_id_of(self, action: Any) -> int:
        """``action`` as an ``int`` id; a non-integer is a TypeError (an id out of range
        or illegal is left to the engine's IllegalActionError, which lists the legal ids)."""
        if validation.is_integer(action):
            return int(action)
        hint = ""
        if isinstance(action, str) and action in self.action_names:
            hint = f"; to act by name use env.unwrapped.action_from_name({action!r})"
        return validation.action_id(action, hint)  # raises, with the hint

    # --- names, layout, rendering ------------------------------------------------------
    @property
    def action_names(self) -> list[str]:
        return [spec.name for spec in self.action_table.specs]

    def action_name(self, action: int) -> str:
        return self.action_table.name(action)

    def action_from_name(self, name: str) -> int:
        return self.action_table.from_name(name)

    def observation_pieces(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views of an observation vector (see the docs' table)."""
        return self.layout.views(observation)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        self._require_game("render()")
        viewer = None if self.render_omniscient else self.agent_name_mapping[self.agent_selection]
        return self._renderer.render(self.game, viewer, self.config.memory)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()


class TableRenderer:
    """What ``render()`` gives in a render mode (not None): the text (``"ansi"``), the drawn
    frame (``"rgb_array"``), or the frame shown in a window (``"human"``, opened at the
    first frame, closed by :meth:`close`)."""

    def __init__(self, mode: str, fps: float):
        if mode in DRAWN_RENDER_MODES:
            from cardenv.drawing.frame import import_pygame

            import_pygame()  # its absence is one clear error now, not at the first frame
        self.mode, self.fps = mode, fps
        self.window = None

    def render(self, game: GameState, viewer: int | None, memory: str) -> str | np.ndarray | None:
        if self.mode == "ansi":
            return game.render_text(viewer, memory)
        view = game.table_view(viewer, memory, DRAWN_EVENTS)
        if self.mode == "rgb_array":
            from cardenv.drawing.frame import draw_frame

            return draw_frame(view)
        if self.window is None:
            from cardenv.drawing.window import TableWindow

            self.window = TableWindow(game.game_name, self.fps)
        self.window.show(view)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None


# What the AEC loop reads on every step. Every wrapper layer forwards these to the raw
# env; PettingZoo's wrappers do it through ``__getattr__`` (a failed lookup, a name check
# and a getattr per layer per read), which costs a large share of an env() step.
_RAW_ENV_ATTRIBUTES = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos",
                       "_cumulative_rewards")


class ReadsRawEnv:
    """Wrapper mixin: the AEC bookkeeping is read straight from the raw env (the same
    values the ``__getattr__`` chain would return), and written there. A read that fails
    (before the first reset) still goes to the wrapper's ``__getattr__``, with its error
    message."""

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any):
        self._raw = env.unwrapped  # first: older PettingZoo's constructor writes the bookkeeping
        super().__init__(env, *args, **kwargs)


def _write_to_raw_env(name: str) -> Callable[[Any, Any], None]:
    def write(wrapper: Any, value: Any) -> None:
        setattr(wrapper._raw, name, value)

    return write


# PettingZoo before 1.24.3 copies the bookkeeping onto each wrapper after every reset and
# step (``self.agents = self.env.agents``): the value is the raw env's own, so it goes back
# there and the wrapper keeps reading one copy.
for _name in _RAW_ENV_ATTRIBUTES:
    setattr(ReadsRawEnv, _name, property(attrgetter(f"_raw.{_name}"), _write_to_raw_env(_name)))


class TerminateIllegalWrapper(ReadsRawEnv, wrappers.TerminateIllegalWrapper):
    """PettingZoo's wrapper, reading the AEC bookkeeping straight from the raw env."""


class OrderEnforcingWrapper(ReadsRawEnv, wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcer with two changes: a reset() that raises does not
    count as a reset (PettingZoo's marks the env as reset before trying, so a later
    step() would fail with an AttributeError deep inside), and once every agent is done
    step() and last() raise the raw env's RuntimeError (PettingZoo's step() only logs a
    warning and does nothing; its last() fails with a KeyError)."""

    def step(self, action: Any) -> None:
        if self._has_reset and not self.agents:
            self.unwrapped._require_agents("step()")  # raises: the game is over
        super().step(action)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        had_reset = self._has_reset
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset = had_reset
            raise

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._raw._require_agents("last()")
        return super().last(observe)

    def __str__(self) -> str:
        # PettingZoo's prints just the env's name only for its own class, not a subclass.
        return str(self.env)


class AssertOutOfBoundsWrapper(ReadsRawEnv, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's bounds check, with a message that names the bad action: a
    non-integer is the raw env's TypeError, an id out of range an AssertionError (the
    classic wrappers' convention) saying which ids exist. It replaces the parent's check
    (which would test the same action again on every step)."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if action is not None or not done:
            action = self._raw.action_id_of(action)
            num_actions = self.action_space(agent).n
            if not 0 <= action < num_actions:
                raise AssertionError(f"action {action} is out of range: action ids are 0 to {num_actions - 1}")
        BaseWrapper.step(self, action)


def wrap(raw: CardGameEnv) -> AECEnv:
    """The PettingZoo classic wrappers: an illegal action ends the game with -1 for the
    player who made it; out-of-range actions raise; the AEC call order is enforced."""
    env = TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)


def make_env_constructor(raw_class: type[CardGameEnv]) -> Callable[..., AECEnv]:
    def env(**kwargs: Any) -> AECEnv:
        return wrap(raw_class(**kwargs))

    env.__doc__ = f"{raw_class.metadata['name']} with PettingZoo's classic wrappers.\n\n{raw_class.__doc__}"
    return env


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based conversion of ``env()`` to the parallel API. One agent acts
    per step: ``step`` uses the action of the agent to act (named by every
    ``infos[agent]["active_agent"]``, and the only one whose ``action_mask`` allows
    anything) and ignores the others'; every agent still in the game gets its observation
    and its reward of that step, and agents that are done leave ``agents`` after the step
    that ended them. Not PettingZoo's ``aec_to_parallel``: that one takes every agent's
    action in one step, which a turn-based game cannot do (hence
    ``metadata["is_parallelizable"]`` is False).

    ``reset`` and ``step`` are PettingZoo's with two changes: ``active_agent`` is in the
    infos after ``reset`` too, and it is written into copies of the AEC env's infos (not
    into the AEC env's own dicts, where it would go stale)."""

    def reset(self, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        return observations, self._infos_naming_the_active_agent(infos)

    def step(self, actions: dict):
        if not self.agents:
            return {}, {}, {}, {}, {}
        aec = self.aec_env
        active = aec.agent_selection
        if not isinstance(actions, Mapping) or active not in actions:
            raise ValueError(f"step() needs the action of the active agent {active!r} (infos[agent]['active_agent']) "
                             f"in its dict of actions, got {actions!r}")
        aec.step(actions[active])
        observations = {agent: aec.observe(agent) for agent in aec.agents}
        rewards, terminations, truncations = dict(aec.rewards), dict(aec.terminations), dict(aec.truncations)
        infos = {agent: dict(info) for agent, info in aec.infos.items()}  # the dead steps delete entries
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # PettingZoo's dead step: a done agent leaves ``agents``
        self.agents = aec.agents.copy()
        return observations, rewards, terminations, truncations, self._infos_naming_the_active_agent(infos)

    def _infos_naming_the_active_agent(self, infos: dict) -> dict:
        if not self.aec_env.agents:
            return infos
        active = self.aec_env.agent_selection
        return {agent: {**info, "active_agent": active} for agent, info in infos.items()}


def make_parallel_env_constructor(raw_class: type[CardGameEnv]) -> Callable[..., ParallelEnv]:
    def parallel_env(**kwargs: Any) -> ParallelEnv:
        return TurnBasedParallelEnv(wrap(raw_class(**kwargs)))

    parallel_env.__doc__ = (f"{raw_class.metadata['name']} with the parallel API (one agent acts per step; "
                            f"see TurnBasedParallelEnv).\n\n{raw_class.__doc__}")
    return parallel_env


class _RegisteredEnvs:
    """``raw_envs.<ruleset>``: where a raw env class of a ruleset without a module of its
    own (one added by :func:`cardenv.rulesets.register_ruleset`) is found by pickle."""

    def __getattr__(self, name: str) -> type[CardGameEnv]:
        if name.startswith("_"):
            raise AttributeError(name)
        return raw_env_class(name)


raw_envs = _RegisteredEnvs()
_RAW_ENV_CLASSES: dict[str, type[CardGameEnv]] = {}


def raw_env_class(ruleset: str | Ruleset) -> type[CardGameEnv]:
    """The raw env class of a registered ruleset (made once per process from its record):
    ``cardenv.<ruleset>.raw_env``."""
    record = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)
    cls = _RAW_ENV_CLASSES.get(record.name)
    if cls is None or cls.ruleset is not record:
        has_module = importlib.util.find_spec(f"cardenv.{record.name}") is not None
        cls = type("raw_env", (CardGameEnv,), {
            "__doc__": record.env_doc or f"{record.title} ({record.name}).",
            "__module__": f"cardenv.{record.name}" if has_module else __name__,
            "__qualname__": "raw_env" if has_module else f"raw_envs.{record.name}",
            "metadata": {**CardGameEnv.metadata, "name": record.name},
            "ruleset": record,
            "config_class": record.config,
            "state_class": record.state,
            "observer_class": record.observer,
        })
        _RAW_ENV_CLASSES[record.name] = cls
    return cls


def ruleset_env_api(ruleset: str) -> tuple[type[CardGameEnv], Callable[..., AECEnv], Callable[..., ParallelEnv]]:
    """``raw_env``, ``env`` (PettingZoo's classic wrappers) and ``parallel_env`` of a
    registered ruleset, as ``cardenv.<ruleset>`` exposes them."""
    raw_class = raw_env_class(ruleset)
    env, parallel_env = make_env_constructor(raw_class), make_parallel_env_constructor(raw_class)
    for constructor in (env, parallel_env):
        constructor.__module__ = raw_class.__module__
    return raw_class, env, parallel_env
