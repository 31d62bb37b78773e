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
from cardenv.train import SingleSeatEnv


class AecSingleSeatEnv(SingleSeatEnv):
    """The view as it was: every move, the learner's and the other seats', through the raw
    env's AEC ``step``, the learner paid what ``env.rewards`` says, and done seats stepped
    with None after each move (PettingZoo's dead-step protocol)."""

    def _advance(self, action: int) -> float:
        env = self.env
        env.step(action)
        reward = float(env.rewards[env.possible_agents[self.learner_seat]])
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
