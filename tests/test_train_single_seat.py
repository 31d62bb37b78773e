"""The single-seat Gymnasium view: check_env, masks, and the learner's own rewards."""

from __future__ import annotations

import warnings

import gymnasium
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


def _play_episodes(env, seed: int, episodes: int) -> list:
    """Every observation, reward and end of ``episodes`` episodes after ``reset(seed=seed)``,
    the learner playing the first legal action."""
    trace = [env.reset(seed=seed)[0].tobytes()]
    for episode in range(episodes):
        if episode:
            trace.append(env.reset()[0].tobytes())
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append((observation.tobytes(), reward, terminated, truncated))
            done = terminated or truncated
    return trace


@pytest.mark.parametrize("opponents", ["random", "heuristic", ["random", "heuristic", "random_no_call"]])
def test_the_episodes_after_a_seeded_reset_are_the_same_whenever_they_are_played(opponents):
    """The deals come from the view's generator and the seats' generators are reseeded from
    it at a seeded reset only: episodes played before a seeded reset change nothing after
    it, another seed plays other games, and each seat has a generator of its own."""
    fresh = _play_episodes(SingleSeatEnv("onefifty_v0", opponents), seed=5, episodes=4)
    used = SingleSeatEnv("onefifty_v0", opponents)
    _play_episodes(used, seed=9, episodes=3)
    assert _play_episodes(used, seed=5, episodes=4) == fresh
    assert _play_episodes(SingleSeatEnv("onefifty_v0", opponents), seed=6, episodes=4) != fresh
    view = SingleSeatEnv("onefifty_v0", opponents)
    view.reset(seed=5)
    generators = [agent.rng for agent in view.opponents]
    assert len({id(rng) for rng in generators}) == 3


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
        last_mover = next(event.player for event in reversed(state.events) if event.player >= 0)
        if last_mover != 0 and result.points_added[0] > 0:
            ended_by_other_with_points += 1
    assert ended_by_other_with_points > 0


def test_a_deal_that_gives_the_learner_no_decision_is_dealt_again():
    """carte's mini variant, learner second: the starter often goes out on its first turn,
    which ends the single-round game before the learner ever acts (R-15). Such a deal is no
    episode; reset deals again with the same seat until the learner has a decision."""
    env = SingleSeatEnv("carte_v0", "heuristic", cardenv.MINI_VARIANTS["carte_v0"], seat=1)
    redealt = 0
    for episode in range(200):
        _, info = env.reset(seed=episode)
        state = env.env.game
        assert not state.is_terminal and state.current_player == 1 == info["learner_seat"]
        assert env.action_masks().any()
        redealt += info["redeals"] > 0
    assert redealt > 0


def test_points_lost_before_the_learners_first_decision_are_paid_with_its_first_step():
    """Several rounds of carte's mini variant, learner second: when the starter goes out at
    once, the learner loses points before it has acted. Its episode's rewards must still
    add up to minus every point it lost (reward_mode="points")."""
    options = {**cardenv.MINI_VARIANTS["carte_v0"], "single_round": False}
    env = SingleSeatEnv("carte_v0", "heuristic", options, seat=1)
    paid_late = 0
    for episode in range(100):
        env.reset(seed=episode)
        paid_late += bool(env.env.game.round_results) and env.env.game.round_results[0].points_added[1] > 0
        rng = np.random.default_rng(episode)
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, terminated, truncated, _ = env.step(action)
            total += reward
            done = terminated or truncated
        lost = sum(result.points_added[1] for result in env.env.game.round_results)
        assert np.isclose(total, -0.01 * lost)
    assert paid_late > 0


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
    from cardenv.rulesets import get_ruleset, ruleset_names

    assert sorted(cardenv.adapters.registration.SINGLE_SEAT_IDS.values()) == sorted(ruleset_names())
    assert sorted(cardenv.ENV_IDS) == sorted(get_ruleset(name).env_id for name in ruleset_names())
    assert get_ruleset("onefifty_v0").single_seat_id == "cardenv/onefifty-single-seat-v0"


@pytest.mark.parametrize("option, value, error", [
    ("opponents", 3, TypeError),
    ("opponents", ["random"], ValueError),
    ("seat", 4, ValueError),
    ("seat", 1.5, TypeError),
    ("seat", True, TypeError),
    ("render_mode", 3, TypeError),
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


def test_an_unsupported_render_mode_warns_and_turns_rendering_off():
    """Gymnasium's convention (its make() warns and passes the mode on): the env starts
    without rendering instead of refusing, and passes Gymnasium's render check."""
    with pytest.warns(UserWarning, match=r"render_mode 'depth_array' is not supported \(supported: None, 'ansi', "
                                         r"'human', 'rgb_array'\)"):
        env = gymnasium.make("cardenv/onefifty-single-seat-v0", render_mode="depth_array")
    assert env.unwrapped.render_mode is None
    env.reset(seed=0)
    assert env.render() is None


def test_rendering_through_gymnasium_make_does_not_warn():
    """Gymnasium's render check warns when the metadata has no render_fps."""
    env = gymnasium.make("cardenv/cut-single-seat-v0", render_mode="ansi")
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "player" in env.render()


@pytest.mark.parametrize("env_id", sorted(cardenv.adapters.registration.SINGLE_SEAT_IDS))
def test_stable_baselines3_make_vec_env_makes_every_single_seat_view(env_id):
    """SB3's make_vec_env asks for render_mode="rgb_array" (and retries only on a TypeError):
    the views draw their tables, which SB3's get_images (what VecVideoRecorder reads) returns."""
    from stable_baselines3.common.env_util import make_vec_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vec_env = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs={"env_kwargs": {"num_players": 3}})
    observations = vec_env.reset()
    assert observations.shape == (2, *vec_env.observation_space.shape)
    masks = vec_env.env_method("action_masks")
    vec_env.step(np.array([int(np.flatnonzero(mask)[0]) for mask in masks]))
    assert [image.shape for image in vec_env.get_images()] == [(720, 1280, 3)] * 2
    vec_env.close()


def test_a_masked_sampler_runs_through_gymnasium_make_vec_across_autoresets():
    """make_vec's default next-step autoreset takes one action after an episode's last
    step and discards it: the mask offered for it must allow something."""
    envs = gymnasium.make_vec("cardenv/onefifty-single-seat-v0", num_envs=2,
                              env_kwargs={"num_players": 3, "single_round": True})
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes_ended = np.zeros(2, dtype=int)
    autoreset = np.zeros(2, dtype=bool)
    while episodes_ended.min() < 2:
        masks = envs.call("action_masks")
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        _, _, terminated, truncated, infos = envs.step(actions)
        stepped = ~autoreset  # on an autoreset step the env was reset, not stepped
        assert "illegal_action" not in infos or not infos["_illegal_action"][stepped].any()
        autoreset = terminated | truncated
        episodes_ended += autoreset
    envs.close()


@pytest.mark.parametrize("env_kwargs, message", [
    ({"env_kwargs": {"num_players": 3}}, "unknown option 'env_kwargs'"),
    ({"num_players": [3]}, "num_players must be an integer"),
])
def test_an_unhashable_env_option_gets_the_envs_own_message(env_kwargs, message):
    with pytest.raises(TypeError, match=message):
        SingleSeatEnv("cut_v0", env_kwargs=env_kwargs)
