"""The single-seat Gymnasium view: check_env, masks, and the learner's own rewards."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardenv

from cardenv.agents import ruleset_info
from cardenv.train import SingleSeatEnv


def test_passes_gymnasium_check_env():
    check_env(SingleSeatEnv("onefifty_v0", "random_no_call"), skip_render_check=True)


def test_seat_rotates_per_episode_and_masks_are_the_learners():
    env = SingleSeatEnv("onefifty_v0", "random_no_call")
    seats = []
    env.reset(seed=0)
    seats.append(env.learner_seat)
    for _ in range(3):
        env.reset()
        seats.append(env.learner_seat)
        assert env.env.game.current_player == env.learner_seat
        assert np.array_equal(env.action_masks(), env.env.game.legal_action_mask().astype(bool))
    assert seats == [0, 1, 2, 3]


def test_the_guide_is_built_by_the_views_agent_factory():
    from cardenv.agents import make_agent

    built = []

    def recording_factory(spec, info, rng):
        built.append(spec)
        return make_agent(spec, info, rng)

    env = SingleSeatEnv("onefifty_v0", "random_no_call", agent_factory=recording_factory, guide="heuristic")
    assert built == ["random_no_call"] * 3 + ["heuristic"]
    assert env.guide.agent.name == "heuristic"


def test_illegal_action_ends_the_episode_with_a_penalty():
    env = SingleSeatEnv("onefifty_v0", "random_no_call")
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"] == illegal


def test_learner_gets_its_own_terminal_reward_when_another_seat_ends_the_game():
    """Single-round games against random seats that call END often: the round (and the
    game) mostly ends on another seat's move; the learner must still receive minus its
    own points added."""
    info = ruleset_info("onefifty_v0", single_round=True)
    env = SingleSeatEnv("onefifty_v0", "random", {"single_round": True}, seat=0)
    call = info.action_table.id("call")
    ended_by_other_with_points = 0
    for episode in range(40):
        env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            action = int(next(a for a in legal if a != call))  # the learner never calls
            _, reward, terminated, truncated, _ = env.step(action)
            total += reward
            done = terminated or truncated
        state = env.env.game
        result = state.round_results[-1]
        assert result.caller != 0
        assert np.isclose(total, -0.01 * result.points_added[0])
        # At the end of a game the raw env leaves agent_selection on the seat that moved last.
        if env.env.agent_selection != "player_0" and result.points_added[0] > 0:
            ended_by_other_with_points += 1
    assert ended_by_other_with_points > 0


@pytest.mark.parametrize("env_id", sorted(cardenv.adapters.registration.SINGLE_SEAT_IDS))
def test_gymnasium_make_finds_every_single_seat_view(env_id):
    import gymnasium
    env = gymnasium.make(env_id, opponents="heuristic", env_kwargs={"num_players": 3})
    assert env.unwrapped.ruleset == cardenv.adapters.registration.SINGLE_SEAT_IDS[env_id]
    check_env(env.unwrapped, skip_render_check=True)
    observation, _ = env.reset(seed=1)
    assert observation.shape == env.observation_space.shape
    assert env.unwrapped.action_masks().any()
    env.close()


def test_there_is_a_single_seat_id_for_every_aec_env():
    assert sorted(cardenv.adapters.registration.SINGLE_SEAT_IDS.values()) == sorted(
        cardenv.adapters.registration._ruleset_of(env_id) for env_id in cardenv.ENV_IDS)
    assert cardenv.adapters.registration.single_seat_id("cardenv/onefifty-v0") == "cardenv/onefifty-single-seat-v0"


@pytest.mark.parametrize("option, value, error", [
    ("opponents", 3, TypeError),
    ("opponents", ["random"], ValueError),
    ("seat", 4, ValueError),
    ("seat", 1.5, TypeError),
    ("seat", True, TypeError),
    ("render_mode", "human", ValueError),
    ("illegal_reward", "x", TypeError),
    ("illegal_reward", float("nan"), ValueError),
    ("env_kwargs", [1], TypeError),
])
def test_bad_options_are_named(option, value, error):
    with pytest.raises(error) as err:
        SingleSeatEnv("onefifty_v0", **{option: value})
    message = str(err.value)
    assert "\n" not in message and (option in message or option == "opponents" and "opponent" in message)
    assert repr(value) in message or option == "opponents"


@pytest.mark.parametrize("action", [1.5, "draw", np.array([0]), None])
def test_an_action_that_is_not_an_id_is_refused_not_rounded(action):
    env = SingleSeatEnv("onefifty_v0", "random_no_call")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="action must be an integer action id"):
        env.step(action)
    legal = int(np.flatnonzero(env.action_masks())[0])
    _, _, _, _, info = env.step(np.array(legal))  # a 0-d integer array, as some trainers pass
    assert "illegal_action" not in info
