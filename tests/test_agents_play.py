"""Every agent plays full games on every ruleset without an illegal move."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.eval.tournament import play_game
from cardenv.rulesets import ruleset_names

FAST_AGENTS = ["random", "random_no_call", "heuristic", "heuristic_no_call", "heuristic_cautious"]


def _play(ruleset: str, specs: list[str], seed: int, **env_kwargs):
    info = ruleset_info(ruleset, **env_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    agents = [make_agent(spec, info, np.random.default_rng(seed + i)) for i, spec in enumerate(specs)]
    steps = play_game(env, agents, seed)  # raw_env raises on any illegal action; Agent.act asserts the mask
    assert env.game.is_terminal and steps > 0
    return env.game


@pytest.mark.parametrize("ruleset", ruleset_names())
@pytest.mark.parametrize("agent", FAST_AGENTS)
def test_fast_agents_play_full_games(ruleset, agent):
    n = ruleset_info(ruleset).num_players
    for seed in range(3):
        _play(ruleset, [agent] + ["random_no_call"] * (n - 1), seed)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_heuristics_play_each_other_with_other_player_counts_and_no_memory(ruleset):
    for num_players in (3, 5):
        _play(ruleset, ["heuristic"] * num_players, 11, num_players=num_players)
    _play(ruleset, ["heuristic"] * ruleset_info(ruleset).num_players, 12, memory="none")


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_ismcts_plays_a_full_single_round_game(ruleset):
    n = ruleset_info(ruleset).num_players
    state = _play(ruleset, ["ismcts:8"] + ["heuristic"] * (n - 1), 5, single_round=True)
    assert len(state.round_results) == 1


@pytest.mark.parametrize("ruleset", ruleset_names())
@pytest.mark.parametrize("spec", ["random_no_call", "heuristic_no_call"])
def test_no_call_agents_never_call(ruleset, spec):
    info = ruleset_info(ruleset)
    env = make_raw_env(ruleset, single_round=True)
    calls = info.call_action_ids()
    assert len(calls) > 0
    for seed in range(2):
        agents = [make_agent(spec, info, np.random.default_rng(seed + 10 * seat)) for seat in range(info.num_players)]
        env.reset(seed=seed)
        state = env.game
        while not state.is_terminal:
            seat = state.current_player
            action = agents[seat].act(env.observe(env.possible_agents[seat]), state, seat)
            assert action not in calls
            env.step(action)
        if ruleset in ("onefifty_v0", "cut_v0"):  # the call that ends a round early: END (O-10), Cut! (C-14)
            assert all(result.caller is None for result in state.round_results)


def test_no_call_agents_decide_as_their_inner_agent_on_the_mask_without_calls():
    """random_no_call is uniform over the legal non-call actions (the reference below), and
    heuristic_no_call is the heuristic wherever the call is not legal anyway."""
    info = ruleset_info("cut_v0")
    env = make_raw_env("cut_v0", single_round=True)
    calls = info.call_action_ids()
    no_call = make_agent("random_no_call", info, np.random.default_rng(3))
    reference_rng = np.random.default_rng(3)
    heuristic_no_call = make_agent("heuristic_no_call", info, np.random.default_rng(4))
    heuristic = make_agent("heuristic", info, np.random.default_rng(4))
    env.reset(seed=8)
    state = env.game
    compared = 0
    while not state.is_terminal and compared < 150:
        seat = state.current_player
        observation = env.observe(env.possible_agents[seat])
        mask = observation["action_mask"].copy()
        mask[calls] = 0
        legal = np.flatnonzero(mask)
        assert no_call.act(observation, state, seat) == legal[reference_rng.integers(len(legal))]
        if seat == 0:
            expected = heuristic.act(observation, state, seat)
            chosen = heuristic_no_call.act(observation, state, seat)
            if not observation["action_mask"][calls].any():
                assert chosen == expected
            compared += 1
        env.step(legal[0] if seat else chosen)
    assert compared > 20


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_heuristic_cautious_is_the_heuristic_with_a_stricter_call(ruleset):
    """At every decision of the cautious heuristic (seat 0, against never-callers so that
    its rounds last until it calls), a heuristic twin (same memory, same random numbers)
    makes the same move, except that it may call where the cautious one does not; the
    cautious one never calls where the heuristic does not. In carte_v0 (saying carte is
    no gamble) it is the heuristic itself."""
    info = ruleset_info(ruleset)
    env = make_raw_env(ruleset)
    calls = info.call_action_ids()
    heuristic_calls = cautious_calls = 0
    for seed in range(3):
        table = [make_agent("heuristic_cautious", info, np.random.default_rng(seed))]
        table += [make_agent("heuristic_no_call", info, np.random.default_rng(seed * 10 + seat))
                  for seat in range(1, info.num_players)]
        twin = make_agent("heuristic", info, np.random.default_rng(0))
        env.reset(seed=seed)
        state = env.game
        while not state.is_terminal:
            seat = state.current_player
            observation = env.observe(env.possible_agents[seat])
            if seat == 0:
                twin.rng.bit_generator.state = table[0].rng.bit_generator.state
                heuristic = twin.act(observation, state, seat)
            action = table[seat].act(observation, state, seat)
            if seat == 0:
                heuristic_calls += heuristic in calls
                cautious_calls += action in calls
                if heuristic != action:
                    assert heuristic in calls and action not in calls and ruleset != "carte_v0"
            env.step(action)
    if ruleset == "carte_v0":
        assert cautious_calls == heuristic_calls > 0
    else:
        assert 0 < cautious_calls < heuristic_calls


def test_agents_are_reproducible_from_their_seed():
    def actions(seed):
        info = ruleset_info("onefifty_v0")
        env = make_raw_env("onefifty_v0", single_round=True)
        agent = make_agent("heuristic", info, np.random.default_rng(seed))
        other = make_agent("random_no_call", info, np.random.default_rng(seed + 1))
        env.reset(seed=seed)
        taken = []
        while not env.game.is_terminal:
            seat = env.game.current_player
            obs = env.observe(env.possible_agents[seat])
            action = (agent if seat == 0 else other).act(obs, env.game, seat)
            taken.append(action)
            env.step(action)
        return taken

    assert actions(4) == actions(4)
    assert actions(4) != actions(5)


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda agent: pickle.loads(pickle.dumps(agent))])
@pytest.mark.parametrize("ruleset", ruleset_names())
@pytest.mark.parametrize("spec", ["heuristic", "heuristic_cautious"])
def test_a_copied_agent_plays_as_the_original(ruleset, spec, copier):
    """A copy made mid-game (deepcopy or pickle: a search copies its players) decides as
    the original from there on, with the same memory and generator."""
    info = ruleset_info(ruleset)
    env = make_raw_env(ruleset, single_round=True)
    env.reset(seed=3)
    table = [make_agent(spec, info, np.random.default_rng(seat)) for seat in range(info.num_players)]
    for _ in range(3 * info.num_players):  # a few turns: memories of cards seen
        seat = env.game.current_player
        env.step(table[seat].act(env.observe(env.possible_agents[seat]), env.game, seat))
    copies = [copier(agent) for agent in table]
    other_env = copy.deepcopy(env)
    while not env.game.is_terminal:
        seat = env.game.current_player
        action = table[seat].act(env.observe(env.possible_agents[seat]), env.game, seat)
        assert copies[seat].act(other_env.observe(other_env.possible_agents[seat]), other_env.game, seat) == action
        env.step(action)
        other_env.step(action)


def test_a_mixture_plays_one_of_its_agents_per_game_drawn_from_its_generator():
    """``heuristic|random_no_call``: at every reset one of them is drawn (both turn up over
    a few games, in the same order from the same seed), and each game is played exactly
    as that agent plays it alone from the same generator state."""
    from cardenv.agents.base import MixtureAgent

    info = ruleset_info("onefifty_v0")
    draws = []
    for _ in range(2):
        mixture = make_agent("heuristic|random_no_call", info, np.random.default_rng(5))
        assert isinstance(mixture, MixtureAgent) and mixture.needs_observation_vector
        picked = []
        for _ in range(12):
            mixture.reset()
            picked.append(mixture.current.name)
        draws.append(picked)
    assert draws[0] == draws[1] and set(draws[0]) == {"heuristic", "random_no_call"}

    env = make_raw_env("onefifty_v0", single_round=True)
    for game in range(4):
        mixture = make_agent("heuristic|random_no_call", info, np.random.default_rng(game))
        mixture.reseed(100 + game)
        mixture.reset()
        alone = make_agent(mixture.current.name, info, np.random.default_rng(0))
        alone.reseed(100 + game)
        alone.rng.integers(2)  # the draw the mixture made from the shared generator
        alone.reset()
        others = make_agent("heuristic", info, np.random.default_rng(game))
        env.reset(seed=game)
        state = env.game
        while not state.is_terminal:
            seat = state.current_player
            observation = env.observe(env.possible_agents[seat])
            if seat == 0:
                action = mixture.act(observation, state, seat)
                assert alone.act(observation, state, seat) == action
            else:
                action = others.act(observation, state, seat)
            env.step(action)


def test_mixture_specs_are_checked_part_by_part():
    from cardenv.agents import parse_spec

    assert parse_spec("heuristic|heuristic_no_call") == ("mixture", "heuristic|heuristic_no_call")
    with pytest.raises(ValueError, match=r"unknown agent 'heurstic'; agents are"):
        parse_spec("heuristic|heurstic")
