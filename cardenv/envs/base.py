"""The thin PettingZoo AEC layer shared by every ruleset.

A ruleset's env subclasses :class:`CardGameEnv` and names its config, state and
observer classes; everything PettingZoo-specific (agents, rewards, spaces, wrappers,
rendering) lives here once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardenv.games.base import CardGameState, IllegalActionError

REWARD_MODES = ("points", "outcome")


class CardGameEnv(AECEnv):
    """AEC environment over a rules engine.

    Args (shared by every ruleset, the rest go to the ruleset's config):
        render_mode: ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it
            after every step), or None.
        render_omniscient: render every card face up instead of the current player's view.
        reward_mode: ``"points"``: at each round end every agent receives
            ``-reward_scale * points added``; ``"outcome"``: at game end +1 for every
            winner (lowest total, ties included) and -1 for everyone else.
        reward_scale: multiplier of the points in ``"points"`` mode.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False, "render_fps": 1}
    config_class: type
    state_class: type[CardGameState]
    observer_class: type

    def __init__(
        self,
        render_mode: str | None = None,
        render_omniscient: bool = False,
        reward_mode: str = "points",
        reward_scale: float = 0.01,
        **config: Any,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        self.render_mode = render_mode
        self.render_omniscient = render_omniscient
        self.reward_mode = reward_mode
        self.reward_scale = float(reward_scale)
        self.config = self.config_class(**config)
        self.observer = self.observer_class(self.config)
        self.layout = self.observer.layout
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        # A throwaway state gives the action table for this configuration.
        self.action_table = self.state_class(self.config, np.random.default_rng(0)).action_table
        num_actions = len(self.action_table)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, self.layout.high(), (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        state_layout = self.observer.state_layout
        self.state_space = spaces.Box(0.0, state_layout.high(), (state_layout.size,), np.float32)
        self._buffers = [self.observer.new_buffer() for _ in range(n)]
        # The game version each buffer was built for (see CardGameState.version).
        self._buffer_versions: list[object | None] = [None] * n
        self._np_random: np.random.Generator | None = None
        self.game: CardGameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- the AEC loop ---------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.

        ``options`` sets up a scenario (see the ruleset's docs): ``hands``, ``draw_pile``,
        ``discard_pile`` (card names), ``starter`` and ``scores``.
        """
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.game = self.state_class(self.config, self._np_random, options)
        self.agents = self.possible_agents.copy()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._buffer_versions = [None] * len(self.possible_agents)
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        state = self.game
        buffer = self._buffers[seat]
        if self._buffer_versions[seat] is not state.version:
            self.observer.observe(state, seat, buffer)
            self._buffer_versions[seat] = state.version
        if seat == state.current_player:
            mask = state.legal_action_mask().copy()
        else:
            mask = np.zeros(len(self.action_table), dtype=np.int8)
        return {"observation": buffer.copy(), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The omniscient global state as a float32 vector in ``state_space`` (every
        card's identity and place, who knows what, phase, scores; seats absolute) — what
        a centralised critic trains on, never an agent's input at play time."""
        return self.observer.encode_state(self.game)

    def state_pieces(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views of a ``state()`` vector (see the docs' table)."""
        return self.observer.state_layout.views(vector)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game
        if action is None:
            raise IllegalActionError(f"{agent} must act: None is only for agents that are done")
        self._cumulative_rewards[agent] = 0.0
        rounds_before = len(state.round_results)
        state.apply(action)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.reward_mode == "points" and len(state.round_results) > rounds_before:
            added = state.round_results[-1].points_added
            for a in self.agents:
                self.rewards[a] = -self.reward_scale * added[self.agent_name_mapping[a]]
        if state.is_terminal:
            if self.reward_mode == "outcome":
                winners = set(state.winners())
                for a in self.agents:
                    self.rewards[a] = 1.0 if self.agent_name_mapping[a] in winners else -1.0
            done = self.truncations if state.is_truncated else self.terminations
            for a in self.agents:
                done[a] = True
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # --- names, layout, rendering ------------------------------------------------------
    @property
    def action_names(self) -> list[str]:
        return [spec.name for spec in self.action_table.specs]

    def action_name(self, action: int) -> str:
        return self.action_table.name(int(action))

    def action_from_name(self, name: str) -> int:
        return self.action_table.from_name(name)

    def observation_pieces(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views of an observation vector (see the docs' table)."""
        return self.layout.views(observation)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        viewer = None if self.render_omniscient else self.agent_name_mapping[self.agent_selection]
        text = self.game.render_text(viewer, self.config.memory)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


def wrap(raw: CardGameEnv) -> AECEnv:
    """The PettingZoo classic wrappers: an illegal action ends the game with -1 for the
    player who made it; out-of-range actions raise; the AEC call order is enforced."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def make_env_constructor(raw_class: type[CardGameEnv]) -> Callable[..., AECEnv]:
    def env(**kwargs: Any) -> AECEnv:
        return wrap(raw_class(**kwargs))

    env.__doc__ = f"{raw_class.metadata['name']} with PettingZoo's classic wrappers.\n\n{raw_class.__doc__}"
    return env
