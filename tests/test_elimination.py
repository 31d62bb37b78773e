"""Players who leave the game for good (an elimination variant): the engine's
``eliminated`` seats and what becomes of their agents while the others play on
(``eliminated_agents``: ``"stay"`` by default, ``"remove"`` for PettingZoo's dead step).

The rulesets with elimination rules test them on their own rules; here a 150 game whose
seat 1 is made to leave after the second turn exercises the shared machinery alone, and
carte_v0 and kaboom_v0 games check that both ways pay every agent the same."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_test

import cardenv
from cardenv.envs.base import wrap
from cardenv.eval.tournament import run_tournament
from cardenv.games.onefifty import OneFiftyConfig
from cardenv.games.onefifty.rules import OneFiftyState, Phase
from cardenv.onefifty_v0 import raw_env as OneFiftyRawEnv
from cardenv.testing.aec import play_aec_game
from cardenv.train.single_seat import SingleSeatEnv

LEAVING_SEAT = 1


class LeavingState(OneFiftyState):
    """150 in which seat 1 leaves the game once two turns have been played."""

    def _end_turn(self) -> None:
        if self.turns_completed == 1:
            self.eliminate(LEAVING_SEAT)
        p = self.current_player
        if self._count_turn_and_continue(p):
            self.current_player = self.next_seat_in_play(p)
            self.phase = Phase.MAIN


class LeavingEnv(OneFiftyRawEnv):
    state_class = LeavingState


def play_until_seat_leaves(env, seed=0):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.game.eliminated[LEAVING_SEAT]:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_next_seat_in_play_skips_eliminated_seats():
    state = OneFiftyState(OneFiftyConfig(num_players=4), np.random.default_rng(0))
    state.eliminate(1)
    state.eliminate(2)
    assert [state.next_seat_in_play(p) for p in range(4)] == [3, 3, 3, 0]
    assert state.seats_in_play() == [0, 3]
    assert state.clone().eliminated == [False, True, True, False]
    state.eliminate(0)
    assert state.next_seat_in_play(3) == 3


@pytest.mark.parametrize("reward_mode", ["points", "outcome"])
def test_by_default_an_eliminated_agent_stays_unselected_until_the_end(reward_mode):
    env = LeavingEnv(num_players=4, single_round=True, reward_mode=reward_mode)
    play_until_seat_leaves(env)
    leaving = f"player_{LEAVING_SEAT}"
    assert leaving in env.agents and not any(env.terminations.values())
    assert env.agent_selection == f"player_{env.game.current_player}" != leaving
    assert not env.observe(leaving)["action_mask"].any()
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if not env.game.is_terminal:
            assert agent != leaving and leaving in env.agents and not env.terminations[leaving]
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    # It was done with everyone at the end and stepped with None like them.
    assert env.game.is_terminal and env.agents == []


@pytest.mark.parametrize("reward_mode", ["points", "outcome"])
def test_an_eliminated_agent_steps_once_with_none_and_leaves(reward_mode):
    env = LeavingEnv(num_players=4, single_round=True, reward_mode=reward_mode, eliminated_agents="remove")
    play_until_seat_leaves(env)
    leaving = f"player_{LEAVING_SEAT}"
    assert env.terminations == {a: a == leaving for a in env.agents}
    # PettingZoo's dead-step protocol: the done agent is selected first.
    assert env.agent_selection == leaving
    if reward_mode == "outcome":
        assert env.last()[1] == -1.0
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    env.step(None)
    assert leaving not in env.agents and len(env.agents) == 3
    assert env.agent_selection == f"player_{env.game.current_player}"
    # The others play on to the end of the round, without the one who left.
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        assert agent != leaving
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    assert env.game.is_terminal and env.agents == []


@pytest.mark.parametrize("eliminated_agents", ["stay", "remove"])
def test_the_wrapped_env_with_an_elimination_passes_api_test(eliminated_agents):
    api_test(wrap(LeavingEnv(num_players=4, single_round=True, eliminated_agents=eliminated_agents)),
             num_cycles=400)


@pytest.mark.parametrize("reward_mode", ["points", "outcome"])
@pytest.mark.parametrize("ruleset, options", [
    ("carte_v0", {"num_players": 4, "starting_score": 60, "max_turns_per_round": 20}),
    ("kaboom_v0", {"num_players": 4, "elimination": True, "target_score": 60}),
])
def test_both_ways_pay_every_agent_the_same(ruleset, options, reward_mode):
    """R-17, K-19: for the same seed and actions, ``"stay"`` pays every agent what
    ``"remove"`` (PettingZoo's dead step) pays it: the same ``env.rewards`` after every
    move (an agent that was removed counts 0), so the same sums from ``last()``."""
    module = getattr(cardenv, ruleset)
    games_with_a_player_out = 0
    for seed in range(12):
        stay = play_aec_game(module.env(reward_mode=reward_mode, **options), seed, rng=np.random.default_rng(seed))
        remove = play_aec_game(module.env(reward_mode=reward_mode, eliminated_agents="remove", **options), seed,
                               stay.moves)
        assert stay.rewards == pytest.approx(remove.rewards, abs=1e-9)
        for after_stay, after_remove in zip(stay.step_rewards, remove.step_rewards, strict=True):
            assert after_stay == pytest.approx({a: after_remove.get(a, 0.0) for a in after_stay}, abs=1e-9)
        assert stay.left_mid_game == remove.left_mid_game
        assert stay.selected_after_leaving == 0  # never selected again
        assert (remove.selected_after_leaving > 0) == remove.left_mid_game  # the dead steps
        games_with_a_player_out += stay.left_mid_game
    assert games_with_a_player_out >= 3


@pytest.mark.parametrize("eliminated_agents", ["stay", "remove"])
def test_pettingzoo_seed_and_state_tests_pass_while_players_leave(eliminated_agents):
    def make():
        return cardenv.kaboom_v0.env(num_players=4, elimination=True, target_score=40,
                                     eliminated_agents=eliminated_agents)

    seed_test(make, num_cycles=300)
    pettingzoo_state_test(make(), num_cycles=300)


def test_tournaments_and_game_records_are_the_same_games_either_way():
    """The runners that drive the engine's current player (cardenv eval, game records)
    play and replay the same games whatever becomes of the agents that leave."""
    games, left_mid_game = {}, 0
    for eliminated_agents in ("stay", "remove"):
        env_kwargs = {"num_players": 3, "elimination": True, "eliminated_agents": eliminated_agents}
        records = []
        result = run_tournament("kaboom_v0", "random", ["random"], games=6, env_kwargs=env_kwargs,
                                on_record=lambda index, record: records.append(record))
        games[eliminated_agents] = [(o.final_scores, o.steps) for o in result.outcomes], [r.actions for r in records]
        for record in records:
            env = record.make_env()
            for _ in record.replay(env):  # raises unless it is the identical game
                left_mid_game += True in env.game.eliminated and not env.game.is_terminal
    assert games["stay"] == games["remove"]
    assert left_mid_game


@pytest.mark.parametrize("eliminated_agents", ["stay", "remove"])
def test_a_learner_who_leaves_gets_its_outcome_in_the_single_seat_view(eliminated_agents):
    """K-19 with outcome rewards: the learner's episode ends as it leaves, so its -1 must
    come then, whatever becomes of its agent afterwards."""
    env = SingleSeatEnv("kaboom_v0", "random", {"num_players": 3, "elimination": True, "target_score": 30,
                                                "reward_mode": "outcome", "eliminated_agents": eliminated_agents})
    rng = np.random.default_rng(0)
    returns_of_learners_who_left = []
    for episode in range(200):  # a learner leaves a game that goes on in about one episode in 20
        if len(returns_of_learners_who_left) == 3:
            break
        env.reset(seed=episode)
        episode_return, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            episode_return += reward
            done = terminated or truncated
        if not env.env.game.is_terminal:
            returns_of_learners_who_left.append(episode_return)
    assert returns_of_learners_who_left and set(returns_of_learners_who_left) == {-1.0}
