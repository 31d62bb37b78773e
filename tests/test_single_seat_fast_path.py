"""The single-seat view drives the rules engine itself; it must play and pay exactly as
it did through the raw env's AEC loop. ``AecSingleSeatEnv`` is that earlier view, kept
here as the reference: every seat's move goes through ``env.step`` and the learner's
reward is read from ``env.rewards``. Both views play the same seeded episodes with the
same learner actions (a few of them illegal) and must return identical observations,
rewards, ends, infos and masks."""

from __future__ import annotations

import numpy as np
import pytest

import cardenv
from cardenv.agents.base import observation_for
from cardenv.core import validation
from cardenv.train import SingleSeatEnv


class AecSingleSeatEnv(SingleSeatEnv):
    """The view as it was: every move through the raw env's AEC ``step``."""

    def step(self, action):
        state = self.env.game
        if state.is_terminal or self._ended_by_illegal_action or state.eliminated[self.learner_seat]:
            raise RuntimeError("step() after the episode ended; call reset()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        action = validation.action_id(action)
        if not state.is_legal(action):
            self._ended_by_illegal_action = True
            info = {"learner_seat": self.learner_seat, "illegal_action": action}
            return self._observation(), self.illegal_reward, True, False, info
        learner = self.env.possible_agents[self.learner_seat]
        self.env.step(action)
        reward = float(self.env.rewards[learner]) + self._pending_reward
        self._pending_reward = 0.0
        reward += self._play_others()
        left = bool(state.eliminated[self.learner_seat]) and not state.is_terminal
        terminated = (state.is_terminal and not state.is_truncated) or left
        truncated = bool(state.is_truncated)
        info = {"learner_seat": self.learner_seat}
        if state.is_terminal or left:
            winners = [] if left else state.winners()
            info["win_share"] = 1.0 / len(winners) if self.learner_seat in winners else 0.0
            info["final_scores"] = list(state.scores)
        return self._observation(), reward, terminated, truncated, info

    def _play_others(self) -> float:
        env, state = self.env, self.env.game
        learner = env.possible_agents[self.learner_seat]
        reward = 0.0
        env.step_done_agents()
        while (not state.is_terminal and state.current_player != self.learner_seat
               and not state.eliminated[self.learner_seat]):
            seat = state.current_player
            agent = self._agents_by_seat[seat]
            env.step(agent.act(observation_for(agent, env, seat), state, seat))
            reward += float(env.rewards[learner])
            env.step_done_agents()
        return reward


def assert_same_episodes(ruleset: str, opponents, env_kwargs: dict | None = None, episodes: int = 20,
                         steps: int = 2500, **view_kwargs) -> None:
    fast = SingleSeatEnv(ruleset, opponents, env_kwargs, render_mode="ansi", **view_kwargs)
    reference = AecSingleSeatEnv(ruleset, opponents, env_kwargs, render_mode="ansi", **view_kwargs)
    rng = np.random.default_rng(7)
    played = 0
    for episode in range(episodes):
        # A seeded reset, then unseeded ones: the seat rotates and the generators run on.
        seed = 100 + episode if episode % 3 == 0 else None
        got, want = fast.reset(seed=seed), reference.reset(seed=seed)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
        done = False
        while not done and played < steps:
            mask = fast.action_masks()
            np.testing.assert_array_equal(mask, reference.action_masks())
            if rng.random() < 0.005:
                action = int(rng.choice(np.flatnonzero(~mask))) if not mask.all() else 0
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            got, want = fast.step(action), reference.step(action)
            played += 1
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1:] == want[1:], (episode, played)
            assert type(got[1]) is float
            done = got[2] or got[3]
        assert fast.render() == reference.render()
        np.testing.assert_array_equal(fast.action_masks(), reference.action_masks())
        if played >= steps:
            break


MIXED = ["heuristic", "random_no_call", "random_no_call"]


@pytest.mark.parametrize("opponents, env_kwargs, view_kwargs", [
    ("random_no_call", {}, {}),
    ("random", {"reward_mode": "relative"}, {}),
    ("heuristic", {"reward_mode": "outcome"}, {}),
    (MIXED, {"memory": "none", "reward_scale": 0.05}, {}),
    ("random_no_call", {"single_round": True}, {"guide": "heuristic"}),
    ("heuristic", {"single_round": True, "reward_mode": "relative"}, {"seat": 2}),
    ("random_no_call", {"max_rounds": 2, "target_score": 1000}, {}),  # truncated games
    ("heuristic", {"max_rounds": 3, "target_score": 1000, "reward_mode": "outcome"}, {}),
])
def test_onefifty_plays_and_pays_as_through_the_aec_loop(opponents, env_kwargs, view_kwargs):
    assert_same_episodes("onefifty_v0", opponents, env_kwargs, **view_kwargs)


@pytest.mark.parametrize("opponents, env_kwargs, view_kwargs", [
    ("random_no_call", {}, {}),
    ("heuristic", {"num_players": 3, "memory": "none", "reward_mode": "relative"}, {}),
    (["heuristic", "random"], {"num_players": 3, "reward_mode": "outcome"}, {"guide": "heuristic"}),
    ("heuristic", cardenv.MINI_VARIANTS["cut_v0"], {}),
])
def test_cut_plays_and_pays_as_through_the_aec_loop(opponents, env_kwargs, view_kwargs):
    assert_same_episodes("cut_v0", opponents, env_kwargs, **view_kwargs)


@pytest.mark.parametrize("opponents, env_kwargs, view_kwargs", [
    ("random_no_call", {}, {}),
    (MIXED, {"reward_mode": "relative", "memory": "none"}, {}),
    ("random", {"num_players": 3, "elimination": True, "target_score": 30, "reward_mode": "outcome",
                "eliminated_agents": "remove"}, {}),
    ("random", {"num_players": 3, "elimination": True, "target_score": 30, "reward_mode": "relative",
                "eliminated_agents": "stay"}, {}),
    ("heuristic", {"num_players": 3, "elimination": True, "target_score": 40, "eliminated_agents": "remove"},
     {"guide": "heuristic"}),
])
def test_kaboom_plays_and_pays_as_through_the_aec_loop(opponents, env_kwargs, view_kwargs):
    assert_same_episodes("kaboom_v0", opponents, env_kwargs, **view_kwargs)


@pytest.mark.parametrize("opponents, env_kwargs, view_kwargs", [
    ("random_no_call", {}, {}),
    ("heuristic", {"reward_mode": "outcome", "eliminated_agents": "remove"}, {}),
    ("heuristic", {"reward_mode": "relative", "eliminated_agents": "stay", "memory": "none"}, {}),
    (["heuristic", "random", "random_no_call"], {"reward_mode": "outcome"}, {"guide": "heuristic"}),
    ("heuristic", {**cardenv.MINI_VARIANTS["carte_v0"], "single_round": False}, {"seat": 1}),
    ("heuristic", cardenv.MINI_VARIANTS["carte_v0"], {"seat": 1}),
])
def test_carte_plays_and_pays_as_through_the_aec_loop(opponents, env_kwargs, view_kwargs):
    assert_same_episodes("carte_v0", opponents, env_kwargs, **view_kwargs)
