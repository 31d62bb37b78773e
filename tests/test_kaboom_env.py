"""The kaboom_v0 PettingZoo environment: API, seeding, state, determinism, registration,
scenarios, names, rendering, rewards, elimination (K-19) and the generated docs tables."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

from cardenv import kaboom_v0
from cardenv.engine.rounds import IllegalActionError
from cardenv.games.kaboom import Phase

DOCS = Path(__file__).resolve().parents[1] / "docs" / "kaboom.md"


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_api(num_players):
    api_test(kaboom_v0.env(num_players=num_players), num_cycles=200)


def test_api_long_games_and_elimination():
    # A low target and a short turn cap cross many rounds; with elimination agents leave.
    api_test(kaboom_v0.env(target_score=40, max_turns_per_round=30), num_cycles=500)
    api_test(kaboom_v0.env(num_players=5, target_score=30, elimination=True), num_cycles=1000)
    api_test(kaboom_v0.env(num_players=5, target_score=30, elimination=True, eliminated_agents="remove"),
             num_cycles=1000)


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_seed(num_players):
    seed_test(lambda: kaboom_v0.env(num_players=num_players), num_cycles=300)


@pytest.mark.filterwarnings("ignore:State numpy array is all zeros")
@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_state(num_players):
    env = kaboom_v0.env(num_players=num_players)
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=300)


def test_scenario_through_reset_options_names_and_render():
    env = kaboom_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=3, options={"hands": [["9S", "2H", "3H", "4H"], ["7H", "8C", "9C", "10C"]],
                               "draw_pile": ["9D"], "starter": 1})
    assert env.agent_selection == "player_1"
    for name in ("draw", "discard drawn", "decline power", "pass"):
        env.step(env.action_from_name(name))
    assert env.agent_selection == "player_0" and env.game.phase == Phase.WINDOW
    obs = env.observe("player_0")
    names = {env.action_name(a) for a in np.flatnonzero(obs["action_mask"])}
    assert names == {"pass"} | {f"snap select own slot {s}" for s in range(4)}
    pieces = env.observation_pieces(obs["observation"])
    assert pieces["window_open"][0] == 1 and pieces["top_discard_red"][0] == 1
    text = env.render()
    assert "snap window on 9D" in text and "4H" in text and "9S" not in text.split("recent")[0]
    env.step(env.action_from_name("snap select own slot 0"))
    env.step(env.action_from_name("snap confirm"))
    assert env.game.table.hands[0][0] == -1
    assert len(env.action_names) == len(env.action_table)


def test_illegal_action_raises_in_raw_env_and_terminates_in_wrapped_env():
    raw = kaboom_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="discard drawn.*legal actions: 0 \\(draw\\), 1 \\(call KABOOM\\)"):
        raw.step(raw.action_from_name("discard drawn"))
    wrapped = kaboom_v0.env(num_players=2)
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    wrapped.step(wrapped.unwrapped.action_from_name("discard drawn"))
    assert wrapped.terminations[agent] and wrapped.rewards[agent] == -1


def _play_out(env, chooser) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        action = None if terminated or truncated else int(chooser.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return totals


def test_points_rewards_and_single_round():
    env = kaboom_v0.env(num_players=3, single_round=True, reward_scale=0.5)
    env.reset(seed=11)
    totals = _play_out(env, np.random.default_rng(0))
    added = env.unwrapped.game.round_results[0].points_added
    assert len(env.unwrapped.game.round_results) == 1
    assert totals == {f"player_{p}": -0.5 * added[p] for p in range(3)}


def test_outcome_rewards():
    env = kaboom_v0.env(num_players=4, reward_mode="outcome")
    env.reset(seed=5)
    totals = _play_out(env, np.random.default_rng(1))
    state = env.unwrapped.game
    assert state.is_terminal and max(state.scores) >= 100
    winners = state.winners()
    assert totals == {f"player_{p}": (1.0 if p in winners else -1.0) for p in range(4)}


@pytest.mark.parametrize("eliminated_agents", ["stay", "remove"])
@pytest.mark.parametrize("reward_mode", ["points", "outcome"])
def test_k19_elimination_takes_an_agent_out_mid_episode(reward_mode, eliminated_agents):
    """K-19: the agent of a player who leaves is never selected to act again; it stays in
    ``agents`` until the end, or (``"remove"``) steps once with None and is removed."""
    env = kaboom_v0.env(num_players=4, elimination=True, target_score=60, reward_mode=reward_mode,
                        eliminated_agents=eliminated_agents)
    env.reset(seed=2)
    game = env.unwrapped.game
    chooser = np.random.default_rng(3)
    removed_while_on = []
    someone_out_while_on = False
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        out_while_on = [a for a in env.possible_agents if game.eliminated[env.unwrapped.seat_of(a)]
                        and not game.is_terminal]
        someone_out_while_on |= bool(out_while_on)
        if eliminated_agents == "stay":
            assert agent not in out_while_on and set(out_while_on) <= set(env.agents)
        elif terminated and not game.is_terminal:
            removed_while_on.append(agent)
            assert agent in out_while_on
        action = None if terminated or truncated else int(chooser.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if agent in removed_while_on:
            assert agent not in env.agents
    assert someone_out_while_on, "someone left while the game went on"
    assert bool(removed_while_on) == (eliminated_agents == "remove")
    assert game.is_terminal and len(game.seats_in_play()) <= 1
    if reward_mode == "outcome":
        assert totals == {f"player_{p}": (1.0 if p in game.winners() else -1.0) for p in range(4)}
    else:
        expected = [-0.01 * sum(r.points_added[p] for r in game.round_results) for p in range(4)]
        assert list(totals.values()) == pytest.approx(expected)


def test_snap_hints_name_the_own_shown_cards_that_snap_onto_the_top_discard():
    """``snap_hints=True`` appends one piece: own slots whose shown card has the top
    discard's rank and the opposite colour (K-11). Slots 2 and 3 are peeked at the start:
    9S would snap onto 9D, 9H (same colour) would not, and the unseen 9C in slot 0 is no hint."""
    env = kaboom_v0.raw_env(num_players=2, snap_hints=True)
    plain = kaboom_v0.raw_env(num_players=2)
    options = {"hands": [["9C", "3H", "9S", "9H"], ["7H", "8C", "5C", "10C"]], "draw_pile": ["9D"], "starter": 1}
    for e in (env, plain):
        e.reset(seed=3, options=options)
        for name in ("draw", "discard drawn", "decline power"):
            e.step(e.action_from_name(name))
    vector = env.observe("player_0")["observation"]
    pieces = env.observation_pieces(vector)
    assert list(env.layout.pieces)[-1] == "snap_hint" and env.layout.size == plain.layout.size + env.config.max_hand_slots
    assert pieces["window_open"][0] == 1
    assert pieces["snap_hint"].tolist()[:4] == [0, 0, 1, 0] and not pieces["snap_hint"][4:].any()
    assert np.array_equal(vector[: plain.layout.size], plain.observe("player_0")["observation"])


def test_memory_none_shows_only_fresh_reveals():
    env = kaboom_v0.raw_env(num_players=2, memory="none")
    env.reset(seed=0, options={"hands": [["7S", "2H", "3H", "4H"], ["7H", "8C", "9C", "10C"]],
                               "draw_pile": ["AD", "AS"], "starter": 0})
    known = env.observation_pieces(env.observe("player_0")["observation"])["slot_known"]
    assert known[0, :4].tolist() == [0, 0, 1, 1]  # the peek is fresh before the first decision
    env.step(env.action_from_name("draw"))
    known = env.observation_pieces(env.observe("player_0")["observation"])["slot_known"]
    assert known[0, :4].tolist() == [0, 0, 0, 0]  # remembering is now the agent's job


def test_options_are_validated():
    with pytest.raises(ValueError, match="from 2 to 8"):
        kaboom_v0.env(num_players=9)
    with pytest.raises(TypeError, match="elimination"):
        kaboom_v0.env(elimination="yes")
    with pytest.raises(ValueError, match="max_hand_slots"):
        kaboom_v0.env(max_hand_slots=4)
    with pytest.raises(ValueError, match="reward_mode"):
        kaboom_v0.env(reward_mode="money")
    raw = kaboom_v0.raw_env(num_players=2, max_hand_slots=6)
    with pytest.raises(ValueError, match="max_hand_slots"):
        raw.reset(options={"hands": [["AS", "2S", "3S", "4S", "5S", "6S", "7S"], ["8S"]]})


def test_observations_stay_in_their_space_with_negative_points_and_scores():
    env = kaboom_v0.raw_env(num_players=2, single_round=True)
    env.reset(seed=0, options={"hands": [["KH", "KD", "RJ", "BJ"], ["KS", "QS", "JS", "10S"]], "starter": 0})
    env.step(env.action_from_name("call KABOOM"))
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        assert env.observation_space(env.agent_selection).contains(obs)
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        quiet = [a for a in legal if env.action_table.specs[a].kind in ("draw", "discard", "pass", "decline")]
        env.step(int((quiet or legal)[0]))
    assert env.game.scores[0] < 0
    pieces = env.observation_pieces(env.observe("player_0")["observation"])
    assert pieces["scores"][0] == env.game.scores[0] / 100


def _generated_block(text: str, name: str) -> str:
    match = re.search(rf"<!-- BEGIN GENERATED: {name} -->\n(.*?)\n<!-- END GENERATED: {name} -->", text, re.S)
    assert match, f"docs/kaboom.md lacks the {name} markers"
    return match.group(1).strip()


def test_docs_tables_are_generated_from_the_code_and_cite_every_rule():
    text = DOCS.read_text(encoding="utf-8")
    env = kaboom_v0.raw_env()
    assert _generated_block(text, "observation").endswith(env.layout.markdown())
    assert _generated_block(text, "actions").endswith(env.action_table.markdown())
    for rule in range(1, 20):
        assert f"K-{rule:02d}" in text


ELIMINATION = {"elimination": True, "target_score": 30}


@pytest.mark.parametrize("kwargs", [{}, ELIMINATION, {**ELIMINATION, "eliminated_agents": "remove"}],
                         ids=["no elimination", "elimination", "elimination, agents removed"])
def test_single_seat_training_view(kwargs):
    """What ``cardenv train kaboom_v0`` trains on: Gymnasium's checks pass, and with
    elimination a learner that leaves the game ends its episode (K-19), whatever becomes
    of the agents that leave."""
    from gymnasium.utils.env_checker import check_env

    from cardenv.train import SingleSeatEnv

    check_env(SingleSeatEnv("kaboom_v0", "random_no_call", kwargs), skip_render_check=True)
    env = SingleSeatEnv("kaboom_v0", "random", kwargs)
    rng = np.random.default_rng(0)
    left_early = 0
    elimination = kwargs.get("elimination", False)
    # With elimination a learner leaves a game that goes on in about one episode in ten:
    # play until one has (without, eight episodes in which none may).
    for episode in range(200 if elimination else 8):
        if left_early:
            break
        env.reset(seed=episode)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        state = env.env.game
        assert state.is_terminal or state.eliminated[env.learner_seat]
        left_early += not state.is_terminal
    assert (left_early > 0) == elimination
