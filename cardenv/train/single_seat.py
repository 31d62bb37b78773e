"""A Gymnasium single-seat view of any cardenv env (torch-free).

The learner plays one seat; every other seat is played inside ``step`` by given agents
until it is the learner's turn again or the game is over. The reward returned by
``step`` is the sum of the learner's own rewards over every env step since its last
action — its own move and all the others' — so a round or game that another seat ends
pays the learner what the env paid the learner. (PettingZoo's SB3 tutorial wrapper
returns the next player's observation with the previous player's reward; this wrapper
always pairs the learner's observation with the learner's reward.)

A game in which the learner gets no decision at all (a player goes out before the
learner's first turn and the learner's points put it out of the game, R-17) is no episode:
``reset`` deals again, with the same seat, and says how many deals it skipped in
``info["redeals"]`` (they are rare: about one reset in 8,000 in a rummy ruleset against
heuristic seats). A Gymnasium episode cannot end before its first step.

The learner's seat rotates per episode (episode ``e`` after a seeded reset uses seat
``e mod n``) unless ``seat`` is fixed. ``action_masks()`` serves sb3-contrib's
MaskablePPO; once the episode is over it allows every action, for the one action a
Gymnasium vector env asks for and discards before its next-step autoreset. An action
outside the mask ends the episode (terminated) with ``illegal_reward`` for the learner
and ``info["illegal_action"]`` set — PettingZoo's classic convention, and what lets
unmasked code (gymnasium's ``check_env``) run.

With ``guide`` (an agent spec such as ``"heuristic"``, built by ``agent_factory`` like the
opponents) the learner's observation ends with the one-hot of the action that agent
would take (:mod:`cardenv.agents.guide`).

The view drives the rules engine (``env.game``) itself, every seat's moves, and pays the
learner by the raw env's reward rules (:meth:`CardGameEnv.round_end_rewards` and
:meth:`CardGameEnv.outcome_reward`): the raw env ``env`` deals (as its ``reset`` does, the
game drawing from the view's own generator) and builds observations, and its AEC
bookkeeping (``agent_selection``, ``rewards``, ...) stays as the deal left it (the AEC
loop's bookkeeping, at every move of every seat, was a large share of the view's time).
Everything random — deals, seats' choices — follows from the seed of the view's last
seeded reset (its first reset seeds from the operating system when none is given).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cardenv.agents.base import observation_for
from cardenv.agents.guide import Guide, policy_observation_space
from cardenv.agents.specs import make_agent
from cardenv.core import validation
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.drawing.frame import import_pygame
from cardenv.envs.base import DRAWN_RENDER_MODES, TableRenderer
from cardenv.envs.info import make_raw_env, ruleset_info
from cardenv.rulesets import ruleset_names


class SingleSeatEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}
    MAX_REDEALS = 1000

    def __init__(
        self,
        ruleset: str = ruleset_names()[0],
        opponents: str | Sequence[str] = "random_no_call",
        env_kwargs: dict | None = None,
        seat: int | None = None,
        agent_factory: Callable[[str, RulesetInfo, np.random.Generator], Agent] = make_agent,
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        guide: str | None = None,
    ):
        env_kwargs = dict(validation.mapping("env_kwargs", env_kwargs) or {})
        self.ruleset = ruleset
        self.info = ruleset_info(ruleset, **env_kwargs)
        self.env = make_raw_env(ruleset, **env_kwargs)
        n = self.info.num_players
        what = "agent specs (or one spec for every opponent)"
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else validation.sequence("opponents", opponents, what)
        if len(specs) != n - 1:
            raise ValueError(f"{ruleset} with {n} players needs {n - 1} opponent specs, got {len(specs)}")
        self.opponent_specs = specs
        self.fixed_seat = validation.optional_integer("seat", seat, 0, n - 1)
        self.render_mode = self._supported_render_mode(render_mode)
        self._renderer = TableRenderer(self.render_mode, self.metadata["render_fps"]) if self.render_mode else None
        self.illegal_reward = validation.real("illegal_reward", illegal_reward)
        self._ended_by_illegal_action = False
        # Each agent its own generator (reseeded in place from the view's at the first reset
        # and every seeded one): a generator shared by the seats would tie their draws.
        self.opponents = [agent_factory(spec, self.info, np.random.default_rng(0)) for spec in specs]
        self.guide = Guide(guide, agent_factory(guide, self.info, np.random.default_rng(0))) if guide else None
        self.observation_space = policy_observation_space(self.info, guided=self.guide is not None)
        self._observation_buffer = self.env.observer.new_buffer()
        self.action_space = spaces.Discrete(len(self.info.action_table))
        self.learner_seat = 0
        self._episode = 0
        self._agents_seeded = False
        self._agents_by_seat: list[Agent | None] = []
        self._pending_reward = 0.0

    # --- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        n = self.info.num_players
        self.learner_seat = self.fixed_seat if self.fixed_seat is not None else self._episode % n
        self._episode += 1
        others = iter(self.opponents)
        self._agents_by_seat = [None if s == self.learner_seat else next(others) for s in range(n)]
        if seed is not None or not self._agents_seeded:
            # The agents' generators start from the view's at a seeded reset (or the first)
            # and run on through the episodes after it, as the view's own does: building a
            # generator costs numpy about 8 µs, and a training run resets every few steps.
            for agent in self.opponents:
                agent.reseed(int(self.np_random.integers(2**63)))
            if self.guide is not None:
                self.guide.agent.reseed(int(self.np_random.integers(2**63)))
            self._agents_seeded = True
        for agent in self.opponents:
            agent.reset()
        if self.guide is not None:
            self.guide.reset()
        self._ended_by_illegal_action = False
        for redeals in range(self.MAX_REDEALS + 1):
            # Every deal comes from the view's own generator (a generator per game would cost
            # numpy more than the deal).
            self.env._start_game(self.np_random, options)
            # What the learner earned before its first decision (a round another seat
            # ended first) is paid with its first step, as every reward since its last action.
            self._pending_reward = self._play_others()
            state = self.env.game
            if not state.is_terminal and not state.eliminated[self.learner_seat]:
                self._render_step()
                return self._observation(), {"learner_seat": self.learner_seat, "redeals": redeals}
        raise RuntimeError(f"{self.ruleset}: the learner's seat "
                           f"{self.learner_seat} got no decision in {self.MAX_REDEALS + 1} deals in a row")

    def step(self, action):
        state = self.env.game
        if state.is_terminal or self._ended_by_illegal_action or state.eliminated[self.learner_seat]:
            raise RuntimeError("step() after the episode ended; call reset()")
        if isinstance(action, np.ndarray) and action.shape == ():  # what Discrete.sample() and some trainers give
            action = action[()]
        action = validation.action_id(action)
        if not state.is_legal(action):
            self._ended_by_illegal_action = True
            info = {"learner_seat": self.learner_seat, "illegal_action": action}
            self._render_step()
            return self._observation(), self.illegal_reward, True, False, info
        reward = self._advance(action) + self._pending_reward
        self._pending_reward = 0.0
        reward += self._play_others()
        # A learner eliminated while the game goes on has lost: its episode ends there.
        left = bool(state.eliminated[self.learner_seat]) and not state.is_terminal
        terminated = (state.is_terminal and not state.is_truncated) or left
        truncated = bool(state.is_truncated)
        info = {"learner_seat": self.learner_seat}
        if state.is_terminal or left:
            winners = [] if left else state.winners()
            info["win_share"] = 1.0 / len(winners) if self.learner_seat in winners else 0.0
            info["final_scores"] = [int(score) for score in state.scores]
        self._render_step()
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions; every action once the episode is over. Gymnasium's
        vector envs (their default next-step autoreset) take one more action after the
        episode's last step and discard it while they reset: an all-False mask there would
        leave a masked sampler nothing to choose from."""
        state = self.env.game
        if (state.is_terminal or self._ended_by_illegal_action or state.current_player != self.learner_seat
                or state.eliminated[self.learner_seat]):
            return np.ones(self.action_space.n, dtype=bool)
        return state.legal_action_mask().astype(bool)

    def render(self):
        """The learner's view: its text (``"ansi"``), the drawn table (``"rgb_array"``), or
        that table in a window (``"human"``, also after every reset and step)."""
        if self.render_mode is None:
            return None
        return self._renderer.render(self.env.game, self.learner_seat, self.info.config.memory)

    def _render_step(self) -> None:
        if self.render_mode == "human":
            self.render()

    # --- helpers --------------------------------------------------------------------------
    def _supported_render_mode(self, render_mode: object) -> str | None:
        """Gymnasium's convention for a render mode the env lacks: ``gymnasium.make`` passes
        it on with a warning, and tools ask for one unprompted (stable-baselines3's
        ``make_vec_env`` asks for ``"rgb_array"``), so the env warns and does not render
        instead of refusing to start; so too for a drawn mode without pygame. A render_mode
        that is not a string is still an error."""
        supported = (None, *self.metadata["render_modes"])
        try:
            mode = validation.choice("render_mode", render_mode, supported)
        except ValueError:
            listed = ", ".join(repr(mode) for mode in supported)
            warnings.warn(f"render_mode {render_mode!r} is not supported (supported: {listed}); "
                          "the env runs without rendering", stacklevel=3)
            return None
        if mode in DRAWN_RENDER_MODES:
            try:
                import_pygame()
            except ImportError as error:
                warnings.warn(f"render_mode {mode!r}: {error}; the env runs without rendering", stacklevel=3)
                return None
        return mode

    def _play_others(self) -> float:
        """Let the other seats act until the learner is to act, has left the game or the
        game is over; return the learner's rewards from those steps."""
        env, state, learner = self.env, self.env.game, self.learner_seat
        agents_by_seat = self._agents_by_seat
        reward = 0.0
        while not state.is_terminal and state.current_player != learner and not state.eliminated[learner]:
            seat = state.current_player
            agent = agents_by_seat[seat]
            reward += self._advance(agent.act(observation_for(agent, env, seat), state, seat))
        return reward

    def _advance(self, action: int) -> float:
        """Apply the action of the seat to act to the engine and return the learner's
        reward for that step, by the raw env's reward rules (what its ``step`` pays the
        learner's agent: the view drives the engine itself, see the module's docs)."""
        env, state, learner = self.env, self.env.game, self.learner_seat
        rounds_before = len(state.round_results)
        in_round = env.seats_in_round()
        state.apply(action)
        if env.reward_mode == "outcome":
            # The learner is still in the game before this step (its episode ends as it leaves).
            if state.is_terminal:
                return env.outcome_reward(learner in state.winners())
            return env.outcome_reward(False) if state.eliminated[learner] else 0.0
        if len(state.round_results) > rounds_before:
            return float(env.round_end_rewards(state.round_results[-1].points_added, in_round)[learner])
        return 0.0

    def _observation(self) -> np.ndarray:
        state = self.env.game
        if self.guide is None:
            # What env.observe gives the learner's agent, without its mask and dict.
            return self.env.observer.write(state, self.learner_seat, self._observation_buffer).copy()
        observation = self.env.observe(self.env.possible_agents[self.learner_seat])
        if self._ended_by_illegal_action or state.current_player != self.learner_seat:
            observation["action_mask"] = np.zeros_like(observation["action_mask"])  # no decision: no guide
        return self.guide.observe(observation, state, self.learner_seat)

    # --- self-play support -------------------------------------------------------------
    def add_snapshot(self, path: str) -> None:
        """Give every opponent that plays from a pool of snapshots a new one."""
        for agent in self.opponents:
            if hasattr(agent, "add_snapshot"):
                agent.add_snapshot(path)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
        for agent in self.opponents:
            agent.close()
