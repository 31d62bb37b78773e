"""OpenSpiel's algorithms on the cardenv games, at tiny budgets: the Python ISMCTSBot with
a resampler built on the engine's sample_world, outcome-sampling MCCFR, tabular
Q-learning through rl_environment, CFR+ and exact exploitability on a mini variant, and
the mini variants as envs."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr, tabular_qlearner

import cardenv
import cardenv.adapters.openspiel as cardenv_openspiel
from cardenv import MINI_VARIANTS


def play_out_chance(state, rng):
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))


def test_ismcts_bot_with_a_resampler_on_sample_world():
    game = pyspiel.load_game("cardenv_cut_v0(players=2,single_round=true,max_turns_per_round=6)")
    rng = np.random.default_rng(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=2.0,
                           max_simulations=20, random_state=np.random.RandomState(0))
    bot.set_resampler(lambda state, player: state.resample_for(player, rng))
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            play_out_chance(state, rng)
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        steps += 1
    assert steps > 2 and sum(state.returns()) == pytest.approx(0.0)


def test_a_resampled_world_keeps_the_information_state_and_changes_hidden_cards():
    game = pyspiel.load_game("cardenv_kaboom_v0(players=3,single_round=true)")
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    play_out_chance(state, rng)
    player = state.current_player()
    worlds = [state.resample_for(player, rng) for _ in range(20)]
    assert {w.information_state_string(player) for w in worlds} == {state.information_state_string(player)}
    assert all(w.observation_tensor(player) == state.observation_tensor(player) for w in worlds)
    hidden = {tuple(w.engine.table.card_types.tolist()) for w in worlds}
    assert len(hidden) > 1, "the cards the player does not know are dealt again"
    with pytest.raises(ValueError, match="resample at a decision node"):
        game.new_initial_state().resample_for(0, rng)


def test_outcome_sampling_mccfr_runs_on_a_mini_variant():
    game = pyspiel.load_game("cardenv_kaboom_mini")
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    np.random.seed(0)
    for _ in range(200):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    play_out_chance(state, np.random.default_rng(0))
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1.0)


def test_tabular_q_learning_through_rl_environment():
    game = pyspiel.load_game("cardenv_kaboom_mini")
    env = rl_environment.Environment(game, seed=0)
    assert env.observation_spec()["info_state"] == (cardenv_openspiel.DIGEST_SIZE * 8,)
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in range(2)]
    for _ in range(30):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        assert sum(time_step.rewards) == pytest.approx(0.0)
    assert any(len(values) for agent in agents for values in agent._q_values.values())
    by_observation = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    assert by_observation.observation_spec()["info_state"] == (game.observation_tensor_size(),)


@pytest.mark.slow
def test_cfr_plus_on_a_cached_mini_variant_beats_uniform_random():
    """A few CFR+ iterations, exact exploitability on the whole tree (cached_tree; the
    cache is built in about a minute)."""
    game = pyspiel.load_game("cached_tree(game=cardenv_kaboom_mini())")
    uniform = pyspiel.exploitability(game, pyspiel.UniformRandomPolicy(game))
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    assert pyspiel.exploitability(game, solver.average_policy()) < uniform / 4


@pytest.mark.parametrize("ruleset", sorted(MINI_VARIANTS))
def test_a_mini_variant_is_a_cardenv_env_with_the_same_options(ruleset):
    from pettingzoo.test import api_test as pettingzoo_api_test
    env = getattr(cardenv, ruleset).env(**MINI_VARIANTS[ruleset])
    pettingzoo_api_test(env, num_cycles=30)
    game = pyspiel.load_game(cardenv_openspiel.game_name(ruleset, mini=True))
    options = MINI_VARIANTS[ruleset]
    # Two players, or the ruleset's least (150: three, O-01).
    assert game.num_players() == options["num_players"] == max(2, env.unwrapped.game.config.min_players)
    assert game.get_parameters()["deck"] == options["deck"]
    env.reset(seed=0)
    assert len(env.unwrapped.game.table.card_types) == len(options["deck"].split()) <= 8


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(MINI_VARIANTS))
def test_a_mini_variants_whole_tree_has_perfect_recall(ruleset):
    """OpenSpiel's own check, on every history of the mini variant (minutes)."""
    from open_spiel.integration_tests import api_test as openspiel_api_test
    openspiel_api_test._assert_is_perfect_recall(pyspiel.load_game(cardenv_openspiel.game_name(ruleset, mini=True)))
