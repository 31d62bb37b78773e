"""The masked frame stacks (cardenv.envs.frame_stack): what the stack holds after
several decisions, the current mask, reset, spaces, copies and seeds, PettingZoo's and
Gymnasium's checks, and MaskablePPO learning through the single-seat one."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test

import cardenv
from cardenv.envs.frame_stack import FrameStackWrapper, ParallelFrameStackWrapper, SingleSeatFrameStack, frame_stack
from cardenv.train import SingleSeatEnv

RULESETS = ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"]
NUM_FRAMES = 3


def expected_stack(previous_frames: list[np.ndarray], current: np.ndarray) -> np.ndarray:
    """Zeros for the missing frames, then the last NUM_FRAMES - 1 decisions', then now."""
    kept = previous_frames[-(NUM_FRAMES - 1):]
    missing = [np.zeros_like(current)] * (NUM_FRAMES - 1 - len(kept))
    return np.concatenate([*missing, *kept, current])


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_aec_stack_holds_the_agents_previous_decisions_and_the_current_mask(ruleset):
    module = getattr(cardenv, ruleset)
    env = FrameStackWrapper(module.env(num_players=3, memory="none"), NUM_FRAMES)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    decisions = 0
    for game in range(2):
        env.reset(seed=game)
        seen = {agent: [] for agent in env.possible_agents}  # each agent's frames at its decisions
        for agent in env.agent_iter(300):
            observation, _, terminated, truncated, _ = env.last()
            now = raw.observe(agent)
            assert env.observation_space(agent).contains(observation)
            assert np.array_equal(observation["observation"], expected_stack(seen[agent], now["observation"]))
            assert np.array_equal(observation["action_mask"], now["action_mask"])
            for other in env.agents:  # reading any agent's observation changes no stack
                env.observe(other)
            assert np.array_equal(env.observe(agent)["observation"], observation["observation"])
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            seen[agent].append(now["observation"])
            decisions += 1
    assert decisions > 3 * NUM_FRAMES


def test_reset_clears_every_agents_frames():
    env = FrameStackWrapper(cardenv.cut_v0.env(num_players=3), NUM_FRAMES)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(12):
        observation = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    env.reset(seed=1)
    size = env.unwrapped.observation_space("player_0")["observation"].shape[0]
    for agent in env.agents:
        stacked = env.observe(agent)["observation"]
        assert not stacked[:-size].any()
        assert np.array_equal(stacked[-size:], env.unwrapped.observe(agent)["observation"])


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_parallel_stack_is_the_aec_stack(ruleset):
    """parallel_env() with the parallel frame stack gives the active agent what env() with
    the AEC frame stack gives it, decision by decision (a whole game, leavers included)."""
    module = getattr(cardenv, ruleset)
    parallel = ParallelFrameStackWrapper(module.parallel_env(num_players=3), NUM_FRAMES)
    aec = FrameStackWrapper(module.env(num_players=3), NUM_FRAMES)
    observations, infos = parallel.reset(seed=5)
    aec.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in aec.agent_iter():
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        active = infos[parallel.agents[0]]["active_agent"]
        assert active == agent
        for other in parallel.agents:
            assert parallel.observation_space(other).contains(observations[other])
        assert np.array_equal(observations[active]["observation"], observation["observation"])
        assert np.array_equal(observations[active]["action_mask"], observation["action_mask"])
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        aec.step(action)
        observations, _, _, _, infos = parallel.step({a: action if a == active else 0 for a in parallel.agents})
    assert not parallel.agents


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_api_and_seed_tests_pass_with_the_stack(ruleset):
    module = getattr(cardenv, ruleset)
    api_test(FrameStackWrapper(module.env(num_players=3), NUM_FRAMES), num_cycles=200)
    seed_test(lambda: FrameStackWrapper(module.env(num_players=3), NUM_FRAMES), num_cycles=100)


def test_pettingzoo_parallel_api_test_passes_with_the_stack():
    parallel_api_test(ParallelFrameStackWrapper(cardenv.kaboom_v0.parallel_env(num_players=3), NUM_FRAMES),
                      num_cycles=500)


def play_on(env, steps: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        if not env.agents:
            break
        observation, _, terminated, truncated, _ = env.last()
        trace.append(observation["observation"].tobytes())
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return trace


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))],
                         ids=["deepcopy", "pickle"])
def test_a_copy_mid_game_keeps_the_frames(copier):
    env = FrameStackWrapper(cardenv.onefifty_v0.env(num_players=3), NUM_FRAMES)
    env.reset(seed=2)
    play_on(env, 20, seed=0)
    twin = copier(env)
    assert play_on(twin, 60, seed=1) == play_on(env, 60, seed=1)


def test_the_single_seat_stack_holds_the_learners_previous_decisions():
    inner = SingleSeatEnv("cut_v0", "heuristic", {"num_players": 3, "memory": "none"})
    env = SingleSeatFrameStack(inner, NUM_FRAMES)
    assert env.observation_space.shape == (NUM_FRAMES * inner.observation_space.shape[0],)
    rng = np.random.default_rng(0)
    for episode in range(3):
        stacked, _ = env.reset(seed=episode)
        seen, done = [], False
        while not done:
            current = inner._observation()
            assert env.observation_space.contains(stacked)
            assert np.array_equal(stacked, expected_stack(seen, current))
            mask = env.action_masks()
            assert np.array_equal(mask, inner.action_masks())
            stacked, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            seen.append(current)
            done = terminated or truncated


def test_the_single_seat_stack_passes_gymnasium_check_env():
    check_env(SingleSeatFrameStack(SingleSeatEnv("onefifty_v0", "random_no_call"), NUM_FRAMES),
              skip_render_check=True)


def test_the_single_seat_stack_repeats_a_seeded_episode():
    def episode(env):
        rng = np.random.default_rng(0)
        stacked, _ = env.reset(seed=11)
        trace, done = [stacked.tobytes()], False
        while not done:
            stacked, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            trace.append(stacked.tobytes())
            done = terminated or truncated
        return trace

    env = SingleSeatFrameStack(SingleSeatEnv("kaboom_v0", "random", {"num_players": 3}), NUM_FRAMES)
    first = episode(env)
    assert episode(env) == first
    assert episode(copy.deepcopy(env)) == first


def test_maskable_ppo_learns_through_the_single_seat_stack():
    from sb3_contrib import MaskablePPO

    env = frame_stack(SingleSeatEnv("cut_v0", "random_no_call", {"num_players": 3, "memory": "none"}), NUM_FRAMES)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256
    stacked, _ = env.reset(seed=1)
    mask = env.action_masks()
    action, _ = model.predict(stacked, action_masks=mask, deterministic=True)
    assert mask[int(action)]


def test_frame_stack_picks_the_wrapper_of_the_envs_kind():
    assert isinstance(frame_stack(cardenv.cut_v0.env()), FrameStackWrapper)
    assert isinstance(frame_stack(cardenv.cut_v0.parallel_env()), ParallelFrameStackWrapper)
    assert isinstance(frame_stack(SingleSeatEnv("cut_v0")), SingleSeatFrameStack)
    with pytest.raises(TypeError, match="env must be a PettingZoo AEC or parallel env or a Gymnasium env"):
        frame_stack("cut_v0")


@pytest.mark.parametrize("num_frames, error", [(0, ValueError), (2.0, TypeError), (True, TypeError)])
def test_a_bad_number_of_frames_is_named(num_frames, error):
    for make in (cardenv.cut_v0.env, cardenv.cut_v0.parallel_env, lambda: SingleSeatEnv("cut_v0")):
        with pytest.raises(error, match="num_frames") as raised:
            frame_stack(make(), num_frames)
        assert "\n" not in str(raised.value) and repr(num_frames) in str(raised.value)


def test_a_frame_stack_of_one_is_the_observation_itself():
    env = FrameStackWrapper(cardenv.cut_v0.env(), 1)
    env.reset(seed=0)
    assert env.observation_space("player_0") == env.unwrapped.observation_space("player_0")
    assert np.array_equal(env.observe("player_1")["observation"], env.unwrapped.observe("player_1")["observation"])
