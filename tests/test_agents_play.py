"""Every agent plays full games on every ruleset without an illegal move."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info, rulesets
from cardenv.eval.tournament import play_game

FAST_AGENTS = ["random", "random_no_call", "heuristic"]


def _play(ruleset: str, specs: list[str], seed: int, **env_kwargs):
    info = ruleset_info(ruleset, **env_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    agents = [make_agent(spec, info, np.random.default_rng(seed + i)) for i, spec in enumerate(specs)]
    steps = play_game(env, agents, seed)  # raw_env raises on any illegal action; Agent.act asserts the mask
    assert env.game.is_terminal and steps > 0
    return env.game


@pytest.mark.parametrize("ruleset", rulesets())
@pytest.mark.parametrize("agent", FAST_AGENTS)
def test_fast_agents_play_full_games(ruleset, agent):
    n = ruleset_info(ruleset).num_players
    for seed in range(3):
        _play(ruleset, [agent] + ["random_no_call"] * (n - 1), seed)


@pytest.mark.parametrize("ruleset", rulesets())
def test_heuristics_play_each_other_with_other_player_counts_and_no_memory(ruleset):
    for num_players in (3, 5):
        _play(ruleset, ["heuristic"] * num_players, 11, num_players=num_players)
    _play(ruleset, ["heuristic"] * ruleset_info(ruleset).num_players, 12, memory="none")


@pytest.mark.parametrize("ruleset", rulesets())
def test_ismcts_plays_a_full_single_round_game(ruleset):
    n = ruleset_info(ruleset).num_players
    state = _play(ruleset, ["ismcts:8"] + ["heuristic"] * (n - 1), 5, single_round=True)
    assert len(state.round_results) == 1


def test_random_no_call_never_calls():
    info = ruleset_info("onefifty_v0")
    env = make_raw_env("onefifty_v0")
    calls = info.call_action_ids()
    for seed in range(3):
        agents = [make_agent("random_no_call", info, np.random.default_rng(seed))] * info.num_players
        env.reset(seed=seed)
        state = env.game
        while not state.is_terminal:
            observation = env.observe(env.possible_agents[state.current_player])
            action = agents[0].act(observation, state, state.current_player)
            assert action not in calls
            env.step(action)
        assert all(result.caller is None for result in state.round_results)


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
