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


@pytest.mark.pettingzoo_make
@pytest.mark.parametrize("ruleset", RULESETS)
def test_registered_with_pettingzoo_make(ruleset):
    env_id = "cardenv/" + ruleset.replace("_v", "-v")
    assert env_id in cardenv.ENV_IDS
    env = pettingzoo.make("aec", env_id, num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.metadata["name"] == ruleset


@pytest.mark.parametrize("ruleset", RULESETS)
def test_action_names_for_a_seat_name_every_player_an_offset_points_at(ruleset):
    env = getattr(cardenv, ruleset).raw_env(num_players=4)
    env.reset(seed=0)
    game = env.game
    for spec in game.action_table.specs:
        for seat in range(4):
            name = game.action_name_for(spec.id, seat)
            if spec.offset:
                assert f"player_{(seat + spec.offset) % 4} (+{spec.offset})" in name, name
            else:
                assert name == spec.name


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_round_end_shows_each_players_cards_in_their_own_group(ruleset):
    env = getattr(cardenv, ruleset).raw_env(num_players=3, single_round=True)
    env.reset(seed=5)
    game = env.game
    hands_at_the_end = []
    score_round = game._score_round

    def note_hands(reason):
        hands_at_the_end.append([[game.card_name(c) for c in game.table.cards_in_hand(p)] for p in range(3)])
        return score_round(reason)

    game._score_round = note_hands
    chooser = np.random.default_rng(0)
    while not game.is_terminal:
        env.step(int(chooser.choice(game.legal_actions())))
    [end] = [event for event in game.events if event.kind == "round end"]
    [hands] = hands_at_the_end
    line = end.describe(game.card_name, 0)
    groups = line.split(": ", 1)[1].split("; ")
    assert len(groups) == 3, line
    for p, (group, hand) in enumerate(zip(groups, hands)):
        assert group.startswith(f"player_{p} {' '.join(hand) if hand else 'no cards'} ("), (group, hand)


def test_registration_without_a_pettingzoo_registry(monkeypatch):
    """PettingZoo before 1.27 has no registry (no ``pettingzoo.make``): importing cardenv
    still works, and the Gymnasium ids are still registered."""
    import gymnasium

    from cardenv.adapters.registration import SINGLE_SEAT_IDS

    for name in ("aec_registry", "register", "make"):
        monkeypatch.delattr(pettingzoo, name, raising=False)  # already absent before 1.27
    for env_id in SINGLE_SEAT_IDS:
        monkeypatch.delitem(gymnasium.registry, env_id)
    cardenv.register_envs()
    assert set(SINGLE_SEAT_IDS) <= set(gymnasium.registry)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_wrappers_take_the_bookkeeping_copies_of_older_pettingzoo(ruleset):
    """PettingZoo before 1.24.3 copies the AEC bookkeeping onto every wrapper after each
    reset and step (``self.agents = self.env.agents``); the wrapped env keeps playing."""
    env = getattr(cardenv, ruleset).env(num_players=3)
    env.reset(seed=0)
    names = ("agent_selection", "rewards", "terminations", "truncations", "infos", "agents", "_cumulative_rewards")
    for _ in range(20):
        layer = env
        while layer is not env.unwrapped:
            for name in names:
                setattr(layer, name, getattr(layer.env, name))
            layer = layer.env
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agent_selection == env.unwrapped.agent_selection
    assert env.rewards is env.unwrapped.rewards


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
