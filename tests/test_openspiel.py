"""The OpenSpiel games (cardenv.adapters.openspiel): the env's game, with explicit chance,
checked by OpenSpiel's own tests (random simulation with serialization, games_sim_test,
golden playthroughs)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from gymnasium.utils import seeding
from open_spiel.python.algorithms import generate_playthrough
from open_spiel.python.tests import games_sim_test

import cardenv
import cardenv.adapters.openspiel as cardenv_openspiel
from cardenv import MINI_VARIANTS
from cardenv.core.chance import SeededChance
from cardenv.envs.info import ruleset_info
from cardenv.rulesets import ruleset_names

PLAYTHROUGHS = Path(__file__).parent / "openspiel"

# Small enough for OpenSpiel's checks to play many games: one round, short turn caps.
SHORT = {
    "onefifty_v0": "players=3,single_round=true,max_turns_per_round=12",
    "cut_v0": "players=2,single_round=true,max_turns_per_round=12",
    "kaboom_v0": "players=3,single_round=true,max_turns_per_round=12",
    "carte_v0": "players=2,single_round=true,max_turns_per_round=12",
}


def short_game(ruleset: str) -> str:
    return f"cardenv_{ruleset}({SHORT[ruleset]})"


def test_every_ruleset_is_registered_with_its_options_as_parameters():
    registered = {t.short_name for t in pyspiel.registered_games()}
    assert {f"cardenv_{r}" for r in ruleset_names()} <= registered
    game = pyspiel.load_game("cardenv_cut_v0(players=3)")
    assert game.num_players() == 3
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    params = game.get_parameters()
    assert params["power_on_replace"] is True and params["memory"] == "perfect" and params["max_rounds"] == 100
    assert game.observation_tensor_size() == ruleset_info("cut_v0", num_players=3).layout.size


def test_a_bad_parameter_is_one_clear_error():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'foo'"):
        pyspiel.load_game("cardenv_cut_v0(foo=1)")
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to"):
        pyspiel.load_game("cardenv_cut_v0(players=9)")


# --- honesty: the env's game ----------------------------------------------------------
HONESTY = [
    ("onefifty_v0", {"num_players": 3, "target_score": 40}, 1),
    ("cut_v0", {"num_players": 3, "target_score": 30}, 2),
    ("cut_v0", {"num_players": 2, "single_round": True}, 3),
    ("kaboom_v0", {"num_players": 4, "target_score": 30}, 4),
    ("kaboom_v0", {"num_players": 3, "target_score": 20, "elimination": True}, 5),
    ("carte_v0", {"num_players": 2, "single_round": True}, 6),
    ("carte_v0", {"num_players": 3, "starting_score": 30, "max_turns_per_round": 60}, 7),
    ("kaboom_v0", {"num_players": 2, "single_round": True, "memory": "none", "recent_events": 4}, 8),
    ("kaboom_v0", dict(MINI_VARIANTS["kaboom_v0"]), 9),
    ("onefifty_v0", dict(MINI_VARIANTS["onefifty_v0"]), 11),
    ("onefifty_v0", dict(MINI_VARIANTS["onefifty_v0"]), 31),
    ("carte_v0", dict(MINI_VARIANTS["carte_v0"]), 12),
    ("carte_v0", dict(MINI_VARIANTS["carte_v0"]), 13),
]


def _params(ruleset: str, options: dict) -> str:
    return ",".join(f"{'players' if k == 'num_players' else k}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in options.items())


@pytest.mark.parametrize("ruleset, options, seed", HONESTY)
def test_the_openspiel_game_is_the_envs_game(ruleset, options, seed):
    """The same seeded deal and the same actions through env() and through the OpenSpiel
    game: every observation, legal-action set and return agree."""
    env = getattr(cardenv, ruleset).env(**options)
    env.reset(seed=seed)
    # The env's outcomes, recorded by an engine on the generator env.reset makes of the
    # seed, played along: each step records the outcomes the OpenSpiel game asks next.
    info = ruleset_info(ruleset, **options)
    record: list = []
    recorder = info.state_class(info.config, SeededChance(seeding.np_random(seed)[0], record))
    game = pyspiel.load_game(f"cardenv_{ruleset}({_params(ruleset, options)})")
    state = game.new_initial_state()
    pick = np.random.default_rng(seed)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    used = decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = record[used][1]
            used += 1
            assert outcome in dict(state.chance_outcomes())
            state.apply_action(outcome)
            continue
        agent = env.agent_selection
        seat = env.unwrapped.seat_of(agent)
        assert state.current_player() == seat
        for a in env.possible_agents:
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(env.unwrapped.seat_of(a)), np.float32),
                                          env.observe(a)["observation"], err_msg=f"{a} at decision {decisions}")
        mask = env.observe(agent)["action_mask"]
        assert state.legal_actions() == np.flatnonzero(mask).tolist()
        action = int(pick.choice(state.legal_actions()))
        recorder.apply(action)
        state.apply_action(action)
        env.step(action)
        for a, r in env.rewards.items():
            rewards[a] += r
        decisions += 1
    assert used == len(record), "every outcome of the env's game was asked for, in order"
    assert all(env.terminations[a] or env.truncations[a] for a in env.agents)
    scale = env.unwrapped.reward_scale
    points = np.array([rewards[a] / scale for a in env.possible_agents])
    np.testing.assert_allclose(state.returns(), points - points.mean(), atol=1e-9)
    assert decisions > 3


# --- OpenSpiel's own checks -----------------------------------------------------------
@pytest.mark.parametrize("ruleset", ruleset_names())
def test_openspiel_random_simulation_with_serialization(ruleset):
    game = pyspiel.load_game(short_game(ruleset))
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_openspiel_random_simulation_of_a_whole_game(ruleset):
    game = pyspiel.load_game(f"cardenv_{ruleset}(players=3,max_rounds=3)")
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_openspiel_games_sim_test(ruleset):
    games_sim_test.GamesSimTest().sim_game(pyspiel.load_game(short_game(ruleset)))


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_states_pickle_and_deserialize_to_the_same_game(ruleset):
    game = pyspiel.load_game(short_game(ruleset))
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(30):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    for copy in (pickle.loads(pickle.dumps(state)), game.deserialize_state(state.serialize()), state.clone()):
        assert str(copy) == str(state) and copy.history() == state.history()
        if not state.is_chance_node() and not state.is_terminal():
            p = state.current_player()
            assert copy.information_state_string(p) == state.information_state_string(p)
            assert copy.observation_tensor(p) == state.observation_tensor(p)


def test_chance_outcomes_are_a_distribution_and_cards_merge_by_type():
    game = pyspiel.load_game(short_game("carte_v0"))
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert len(outcomes) == 54 and outcomes[0][1] == pytest.approx(2 / 108), "two copies of every card type"


def test_information_states_are_per_player_and_hide_the_others_cards():
    """Two deals that differ only in the opponent's cards give player 0 the same
    information state, and player 1 different ones."""
    game = pyspiel.load_game("cardenv_cut_v0(players=2,single_round=true)")

    def dealt(cards):
        state = game.new_initial_state()
        for card in cards:
            state.apply_action(card)
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        return state

    # Deal order is clockwise from player 0, one card at a time: even deals are player 0's.
    a = dealt([0, 1, 2, 3, 4, 5, 6, 7])
    b = dealt([0, 9, 2, 3, 4, 5, 6, 7])  # player 1's top-left card differs (never seen at first)
    c = dealt([0, 1, 2, 3, 4, 5, 6, 8])  # player 1's bottom-right card differs (seen by player 1)
    assert a.information_state_string(0) == b.information_state_string(0) == c.information_state_string(0)
    assert a.information_state_string(1) != c.information_state_string(1)
    assert a.information_state_string(0).startswith("p0:") and a.information_state_string(1).startswith("p1:")


# --- golden playthroughs --------------------------------------------------------------
def test_every_ruleset_and_mini_variant_has_a_golden_playthrough():
    kept = {path.stem for path in PLAYTHROUGHS.glob("*.txt")}
    assert kept == set(ruleset_names()) | {f"{r.removesuffix('_v0')}_mini" for r in MINI_VARIANTS}


@pytest.fixture
def absl_flags():
    """generate_playthrough reads absl flags (their defaults): pytest parses none."""
    from absl import flags
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


@pytest.mark.parametrize("name", sorted(path.stem for path in PLAYTHROUGHS.glob("*.txt")))
def test_golden_playthrough(name, absl_flags):
    """OpenSpiel's playthrough of a short game, kept as a file: any change in the game
    (rules, chance, observations, information states) shows here. Regenerate with
    ``python tests/openspiel/regenerate.py`` after a deliberate change."""
    expected, actual = generate_playthrough.replay(str(PLAYTHROUGHS / f"{name}.txt"))
    assert actual == expected
