"""``parallel_env()`` of every ruleset: PettingZoo's parallel API through its turn-based
conversion. PettingZoo's parallel tests, the same game as the AEC env's, truncation, and
SuperSuit's vector envs on top. Rulesets where players leave the game (carte_v0,
kaboom_v0 with elimination=True) are cases of their own."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel

import cardenv

CASES = [
    ("onefifty_v0", {}),
    ("cut_v0", {}),
    ("kaboom_v0", {}),
    ("kaboom_v0", {"elimination": True}),
    ("carte_v0", {}),
]
LEAVING = {("kaboom_v0", "elimination"), ("carte_v0", "")}  # players leave mid-game


def case_id(case) -> str:
    ruleset, options = case
    return "-".join([ruleset, *options])


def parallel_env(ruleset, options, **more):
    return getattr(cardenv, ruleset).parallel_env(num_players=3, **options, **more)


def aec_env(ruleset, options, **more):
    return getattr(cardenv, ruleset).env(num_players=3, **options, **more)


@pytest.fixture(params=CASES, ids=case_id)
def case(request):
    return request.param


def test_pettingzoo_parallel_api_test(case):
    parallel_api_test(parallel_env(*case), num_cycles=1000)


@pytest.mark.filterwarnings("ignore:.*Illegal move made")
def test_pettingzoo_parallel_seed_test(case):
    ruleset, options = case
    parallel_seed_test(lambda: parallel_env(ruleset, options))  # 500 cycles


def play_parallel(env, seed: int):
    """A whole game of random legal actions; the decisions, each agent's summed rewards and
    how each agent's episode ended."""
    observations, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions, totals, ends = [], dict.fromkeys(env.possible_agents, 0.0), {}
    while env.agents:
        active = infos[env.agents[0]]["active_agent"]
        assert all(info["active_agent"] == active for info in infos.values())
        # Only the agent to act may act, and it is told so by its mask.
        assert [a for a in env.agents if observations[a]["action_mask"].any()] == [active]
        action = int(rng.choice(np.flatnonzero(observations[active]["action_mask"])))
        decisions.append((active, action, observations[active]["observation"].tobytes()))
        # Every agent's action may be given (as PettingZoo's tests do); only the active one's counts.
        actions = {agent: action if agent == active else 0 for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        assert set(observations) == set(rewards) == set(terminations) == set(truncations) == set(infos)
        for agent, reward in rewards.items():
            totals[agent] += reward
        ends.update({a: (terminations[a], truncations[a]) for a in terminations if terminations[a] or truncations[a]})
    return decisions, totals, ends


def play_aec(env, seed: int):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions, totals, ends = [], dict.fromkeys(env.possible_agents, 0.0), {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            ends[agent] = (terminated, truncated)
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        decisions.append((agent, action, observation["observation"].tobytes()))
        env.step(action)
    return decisions, totals, ends


def test_the_parallel_env_plays_the_aec_envs_game(case):
    someone_left = False
    for seed in range(4):
        parallel = parallel_env(*case)
        decisions, totals, ends = play_parallel(parallel, seed)
        assert (decisions, totals, ends) == play_aec(aec_env(*case), seed)
        assert set(ends) == set(parallel.possible_agents)
        someone_left |= any(parallel.unwrapped.game.eliminated)
    ruleset, options = case
    assert someone_left == ((ruleset, "".join(options)) in LEAVING)


def test_max_rounds_truncates_the_parallel_episode_as_it_does_the_aec_one(case):
    """What PettingZoo's max_cycles test checks, for the limit these envs have: a limit of
    cycles does not fit a turn-based game (a parallel step is one agent's turn)."""
    decisions, totals, ends = play_parallel(parallel_env(*case, max_rounds=1), seed=3)
    assert (decisions, totals, ends) == play_aec(aec_env(*case, max_rounds=1), seed=3)
    assert set(ends.values()) == {(False, True)}


def test_aec_to_parallel_is_refused_for_a_turn_based_game(case):
    """PettingZoo's aec_to_parallel takes every agent's action in one step; the metadata
    says that these envs cannot do that (parallel_env() is the conversion that fits)."""
    env = aec_env(*case)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env)


def test_the_parallel_env_has_the_aec_envs_spaces_and_state():
    env = parallel_env("cut_v0", {})
    aec = aec_env("cut_v0", {})
    observations, infos = env.reset(seed=0)
    assert env.possible_agents == aec.possible_agents
    for agent in env.possible_agents:
        assert env.observation_space(agent) == aec.observation_space(agent)
        assert env.observation_space(agent).contains(observations[agent])
        assert env.action_space(agent) == aec.action_space(agent)
    assert env.state_space.contains(env.state())
    assert {info["active_agent"] for info in infos.values()} == {env.unwrapped.agent_selection}


def play_vector_env(vec_env, steps: int, seed: int) -> int:
    """Random legal actions for every sub-env's agents; the number of finished games."""
    observations, _ = vec_env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    games = 0
    for _ in range(steps):
        masks = observations["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in masks])
        observations, _, terminations, truncations, _ = vec_env.step(actions)
        games += int((terminations | truncations).reshape(-1, 3).all(axis=1).sum())  # 3 agents a game
    return games


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_supersuit_vector_envs_run_whole_games(case):
    import supersuit

    steps = 4000 if case[0] == "carte_v0" else 600  # enough for a whole game (carte's are long)
    vec_env = supersuit.pettingzoo_env_to_vec_env_v1(parallel_env(*case))
    assert vec_env.num_envs == 3
    assert play_vector_env(vec_env, steps, seed=0) > 0
    concatenated = supersuit.concat_vec_envs_v1(vec_env, 2, base_class="gymnasium")
    assert concatenated.num_envs == 6
    assert play_vector_env(concatenated, steps, seed=1) > 0


def test_a_step_without_the_active_agents_action_is_one_clear_error():
    env = cardenv.cut_v0.parallel_env(num_players=3)
    _, infos = env.reset(seed=0)
    active = infos["player_0"]["active_agent"]
    others = {agent: 0 for agent in env.agents if agent != active}
    for actions in (others, None):
        with pytest.raises(ValueError, match=f"needs the action of the active agent '{active}'"):
            env.step(actions)
