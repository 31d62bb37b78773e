"""onefifty_v0 as a PettingZoo AEC environment: PettingZoo's own tests, registration,
illegal actions, rendering, rewards, options and reproducibility."""

from __future__ import annotations

import functools
import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import cardenv
from cardenv import onefifty_v0
from cardenv.engine.rounds import IllegalActionError
from cardenv.games.onefifty import OneFiftyObserver

O21_HANDS = [["5S", "4H", "3D", "10H"], ["AS", "2H", "6C", "10D"], ["KS", "2S", "2C", "AD"], ["QH", "4C", "3C", "3S"]]
O21_OPTIONS = {"hands": O21_HANDS, "draw_pile": ["7D", "8D", "9D"], "starter": 0}


def step_by_name(env, *names):
    for name in names:
        env.step(env.unwrapped.action_from_name(name))


def masked_random_action(obs, rng):
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


# --- PettingZoo's own tests -------------------------------------------------------------------
# The classic convention (a Dict of observation and action_mask) draws these generic hints.
api_warnings = [pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
                pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")]


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("num_players", [3, 4, 6])
@api_warnings[0]
@api_warnings[1]
def test_pettingzoo_api_test(num_players, memory):
    api_test(onefifty_v0.env(num_players=num_players, memory=memory), num_cycles=1000)


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_pettingzoo_seed_test(num_players, memory):
    seed_test(functools.partial(onefifty_v0.env, num_players=num_players, memory=memory), num_cycles=500)


@api_warnings[0]
@api_warnings[1]
def test_api_test_on_the_raw_env():
    api_test(onefifty_v0.raw_env(num_players=5), num_cycles=500)


@pytest.mark.pettingzoo_make
def test_registered_with_pettingzoo():
    assert "cardenv/onefifty-v0" in cardenv.ENV_IDS
    env = pettingzoo.make("aec", "cardenv/onefifty-v0", num_players=5)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "onefifty_v0"
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    cardenv.register_envs()  # safe to call again


def test_spaces_and_observation_layout():
    env = onefifty_v0.raw_env(num_players=4)
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert env.observation_space(agent).contains(obs)
    assert env.action_space(agent).n == len(env.action_names) == len(obs["action_mask"])
    pieces = env.observation_pieces(obs["observation"])
    assert pieces["slot_present"].shape == (4, 12) and pieces["slot_present"][:, :4].all()
    for other in env.agents:
        if other != agent:
            assert not env.observe(other)["action_mask"].any(), "only the agent to act has a mask"


# --- illegal actions -------------------------------------------------------------------------
def test_raw_env_raises_naming_the_action_and_the_legal_ones():
    env = onefifty_v0.raw_env()
    env.reset(seed=0, options={"hands": O21_HANDS, "starter": 2})
    take = env.action_from_name("take discard into slot 0")
    with pytest.raises(IllegalActionError) as err:
        env.step(take)
    message = str(err.value)
    assert f"illegal action {take} (take discard into slot 0)" in message
    assert "player_2" in message and "(draw)" in message and "(call END)" in message
    with pytest.raises(IllegalActionError):
        env.step(None)


def test_wrapped_env_terminates_on_an_illegal_action():
    env = onefifty_v0.env()
    env.reset(seed=0, options={"hands": O21_HANDS, "starter": 2})
    env.step(env.unwrapped.action_from_name("take discard into slot 0"))  # PettingZoo logs a warning
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": 0, "player_2": -1, "player_3": 0}
    for agent in env.agent_iter():
        assert env.last()[2]
        env.step(None)
    assert env.agents == []


def test_wrapped_env_rejects_out_of_range_actions():
    env = onefifty_v0.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(env.action_space(env.agent_selection).n)


# --- rendering --------------------------------------------------------------------------------
def test_render_ansi_from_the_current_player_and_omniscient():
    env = onefifty_v0.raw_env(render_mode="ansi")
    env.reset(seed=0, options=O21_OPTIONS)
    text = env.render()
    assert "onefifty_v0" in text and "view of player_0" in text
    rows = [line.strip(" *") for line in text.splitlines()]
    lines = {row.split()[0]: row for row in rows if row.startswith("player_") and " score " in row}
    assert set(lines) == {"player_0", "player_1", "player_2", "player_3"}
    assert "0:??  1:??  2:3D(0)  3:10H(0)" in lines["player_0"], "own bottom row shown, top row hidden"
    assert "2:??(1)  3:??(1)" in lines["player_1"], "others' cards hidden, who knows them shown"
    assert "7D" not in text
    omni = onefifty_v0.raw_env(render_mode="ansi", render_omniscient=True)
    omni.reset(seed=0, options=O21_OPTIONS)
    text = omni.render()
    assert "omniscient view" in text and "??" not in text.split("recent events")[0]
    assert "0:QH" in text


def test_render_without_mode_returns_none_and_bad_mode_raises():
    env = onefifty_v0.raw_env()
    env.reset(seed=0)
    assert env.render() is None
    with pytest.raises(ValueError, match="render_mode must be one of None, 'ansi', 'human', 'rgb_array', got 'rgb'"):
        onefifty_v0.raw_env(render_mode="rgb")


# --- rewards ----------------------------------------------------------------------------------
def test_points_rewards_for_every_agent_at_round_end_O21():
    env = onefifty_v0.env()
    env.reset(seed=0, options=O21_OPTIONS)
    step_by_name(env, "call END")
    for _ in range(3):
        assert env.rewards == dict.fromkeys(env.agents, 0.0)
        step_by_name(env, "draw", "discard drawn")
    raw = env.unwrapped
    assert len(raw.game.round_results) == 1 and not raw.game.is_terminal
    expected = {"player_0": -0.24, "player_1": 0.0, "player_2": -0.25, "player_3": -0.30}
    assert env.rewards == pytest.approx(expected)
    # agents who did not make the last move receive theirs when they next act
    assert raw._cumulative_rewards == pytest.approx(expected)
    assert env.agent_selection == "player_1"  # O-06: lowest total starts round 2
    assert env.last()[1] == pytest.approx(0.0)


def _play_game(env, seed, policy_seed):
    """Play with the agent_iter loop; returns the sum of last() rewards per agent."""
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        env.step(None if terminated or truncated else masked_random_action(obs, rng))
    return totals


@pytest.mark.parametrize("num_players", [3, 5])
def test_points_rewards_sum_to_minus_the_scores(num_players):
    env = onefifty_v0.env(num_players=num_players)
    for seed in range(5):
        totals = _play_game(env, seed, seed)
        scores = env.unwrapped.game.scores
        assert max(scores) >= 150
        assert totals == pytest.approx({f"player_{i}": -0.01 * s for i, s in enumerate(scores)})


def test_reward_scale_option():
    env = onefifty_v0.env(reward_scale=1.0)
    totals = _play_game(env, 3, 3)
    assert totals == pytest.approx({f"player_{i}": -float(s) for i, s in enumerate(env.unwrapped.game.scores)})


def test_outcome_rewards():
    env = onefifty_v0.env(reward_mode="outcome")
    for seed in range(5):
        totals = _play_game(env, seed, seed)
        winners = set(env.unwrapped.game.winners())
        assert totals == {f"player_{i}": (1.0 if i in winners else -1.0) for i in range(4)}
    with pytest.raises(ValueError):
        onefifty_v0.env(reward_mode="money")


def test_outcome_rewards_with_a_shared_win_O22():
    env = onefifty_v0.env(reward_mode="outcome")
    env.reset(seed=0, options={"hands": [["5S"], ["10S"], ["10H"], ["KS"]], "discard_pile": ["5H"], "starter": 0,
                               "scores": [130, 120, 140, 135]})
    step_by_name(env, "match select slot 0", "match confirm")
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": 1.0, "player_2": -1.0, "player_3": -1.0}


# --- options -----------------------------------------------------------------------------------
def test_single_round_episode():
    env = onefifty_v0.env(single_round=True)
    env.reset(seed=0, options=O21_OPTIONS)
    step_by_name(env, "call END")
    for _ in range(3):
        step_by_name(env, "draw", "discard drawn")
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == pytest.approx({"player_0": -0.24, "player_1": 0.0, "player_2": -0.25, "player_3": -0.30})


def test_single_round_random_games_last_one_round():
    env = onefifty_v0.env(single_round=True, num_players=6)
    for seed in range(5):
        _play_game(env, seed, seed)
        assert len(env.unwrapped.game.round_results) == 1


def test_max_rounds_truncates():
    env = onefifty_v0.env(max_rounds=1, target_score=10_000)
    env.reset(seed=0, options=O21_OPTIONS)
    step_by_name(env, "call END")
    for _ in range(3):
        step_by_name(env, "draw", "discard drawn")
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_bad_options():
    with pytest.raises(ValueError):
        onefifty_v0.env(memory="goldfish")
    with pytest.raises(ValueError):
        onefifty_v0.env(num_players=7)
    env = onefifty_v0.env()
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"hands": [["AS"]]})
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"draw_pile": ["AS"]})
    with pytest.raises(ValueError, match="unknown reset option 'colour'"):
        env.reset(seed=0, options={"colour": "blue"})


def test_memory_none_shows_cards_only_right_after_they_are_revealed():
    """The memory models (docs/onefifty.md, Options), on the O-05 peek and an O-08 draw."""
    for memory, remembered in (("perfect", True), ("none", False)):
        env = onefifty_v0.raw_env(memory=memory)
        env.reset(seed=0, options=O21_OPTIONS)
        views = env.observation_pieces(env.observe("player_0")["observation"])
        assert views["slot_known"][0].tolist()[:4] == [0, 0, 1, 1], "before the first decision: the O-05 peek"
        step_by_name(env, "draw")
        views = env.observation_pieces(env.observe("player_0")["observation"])
        assert views["drawn_card_rank"][6] == 1, "the card just drawn (7D) is shown"
        assert bool(views["slot_known"][0, 2]) == remembered, "the peek is older than this decision"
        step_by_name(env, "swap drawn into slot 0")
        views = env.observation_pieces(env.observe("player_0")["observation"])
        assert bool(views["slot_known"][0, 0]) == remembered, "the 7D was revealed by the previous decision"
        assert views["slot_rank"][0, 0, 6] == int(remembered)
        # the knowledge itself is public in both models, and face-up cards are always shown
        assert views["slot_known_by"][0, 0, 0] == 1 and views["slot_known_by"][0, 2, 0] == 1
        assert views["top_discard_rank"][4] == 1  # the 5S swapped out


# --- reproducibility ---------------------------------------------------------------------------
def _trace(seed, disturb):
    env = onefifty_v0.env(num_players=4)
    env.reset(seed=seed)
    rng = np.random.default_rng(1)
    trace = []
    for agent in env.agent_iter():
        if disturb:  # other code consuming the global generators must not matter
            random.random()
            np.random.rand(agent.__len__() % 3 + 1)
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        env.step(None if terminated or truncated else masked_random_action(obs, rng))
    return trace


def test_same_seed_same_game_whatever_the_global_generators_do():
    random.seed(1)
    np.random.seed(1)
    first = _trace(123, disturb=False)
    random.seed(2)
    np.random.seed(2)
    second = _trace(123, disturb=True)
    assert first == second
    assert _trace(124, disturb=False) != first


def test_reset_without_seed_continues_the_generator():
    env = onefifty_v0.raw_env()
    env.reset(seed=5)
    first = [list(h) for h in env.game.table.hands]
    env.reset()
    second = [list(h) for h in env.game.table.hands]
    env.reset(seed=5)
    assert [list(h) for h in env.game.table.hands] == first != second


def test_observer_matches_env_observation():
    env = onefifty_v0.raw_env(num_players=3)
    env.reset(seed=9)
    observer = OneFiftyObserver(env.config)
    for agent in env.agents:
        seat = env.agent_name_mapping[agent]
        assert np.array_equal(env.observe(agent)["observation"], observer.observe(env.game, seat))
