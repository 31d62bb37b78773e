"""Contracts every ruleset's env keeps, checked the same way for each: the game depends
only on the env's seed (never on the global generators), the env is registered with
PettingZoo's ``make``, and PettingZoo's probe of ``reset(options=...)`` passes quietly."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pettingzoo
import pytest

import cardenv

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]


def _trace(ruleset: str, seed: int, steps: int = 400) -> list:
    env = getattr(cardenv, ruleset).env(num_players=3)
    env.reset(seed=seed)
    chooser = np.random.default_rng(1234)
    trace = []
    for agent in env.agent_iter(steps):
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        action = None if terminated or truncated else int(chooser.choice(np.flatnonzero(obs["action_mask"])))
        # Anything that reads the global generators must not change the game.
        np.random.seed(len(trace))
        random.seed(len(trace))
        np.random.random(3)
        random.random()
        env.step(action)
    return trace


@pytest.mark.parametrize("ruleset", RULESETS)
def test_global_rng_does_not_matter(ruleset):
    np.random.seed(1)
    random.seed(1)
    first = _trace(ruleset, 7)
    np.random.seed(99)
    random.seed(99)
    second = _trace(ruleset, 7)
    assert first == second
    assert _trace(ruleset, 8) != first  # the seed itself does matter


@pytest.mark.parametrize("ruleset", RULESETS)
def test_registered_with_pettingzoo_make(ruleset):
    env_id = "cardenv/" + ruleset.replace("_v", "-v")
    assert env_id in cardenv.ENV_IDS
    env = pettingzoo.make("aec", env_id, num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.metadata["name"] == ruleset


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoos_reset_probe_is_accepted_quietly(ruleset):
    """PettingZoo's api_test and parallel_test reset with options={"options": 1} to check
    that reset takes the keyword; unknown keys are errors otherwise (test_bad_inputs)."""
    env = getattr(cardenv, ruleset).env()
    env.reset(seed=3)
    plain = env.observe(env.agent_selection)["observation"].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=3, options={"options": 1})
    assert np.array_equal(env.observe(env.agent_selection)["observation"], plain)  # it set nothing
