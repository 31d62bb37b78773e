"""Every ruleset's env survives deepcopy, pickle and cloudpickle mid-game with identical
behaviour afterwards; a cloned engine state put back into an env (rewind and branch)
is observed afresh; ``state()`` is PettingZoo's omniscient global state."""

from __future__ import annotations

import copy
import pickle

import cloudpickle
import numpy as np
import pytest
from pettingzoo.test.state_test import state_test as pettingzoo_full_state_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

import cardenv
from cardenv.core.cards import card_name
from cardenv.core.table import EMPTY

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]

COPIERS = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "cloudpickle": lambda env: cloudpickle.loads(cloudpickle.dumps(env)),
}


def random_step(env, rng) -> None:
    """A random legal action that rarely ends the round by calling (games last)."""
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        env.step(None)
        return
    legal = np.flatnonzero(obs["action_mask"])
    specs = env.unwrapped.action_table.specs
    quiet = [a for a in legal if specs[a].kind not in ("call", "cut", "kaboom")]
    if quiet and rng.random() < 0.97:
        legal = quiet
    env.step(int(legal[rng.integers(len(legal))]))


def play_both(first, second, rng, steps: int) -> int:
    """Play the same random actions in both envs; compare everything each agent sees."""
    compared = 0
    for _ in range(steps):
        if not first.agents:
            assert not second.agents
            break
        assert first.agent_selection == second.agent_selection
        for agent in first.agents:
            a, b = first.observe(agent), second.observe(agent)
            assert np.array_equal(a["observation"], b["observation"]), agent
            assert np.array_equal(a["action_mask"], b["action_mask"]), agent
        assert first.last()[0]["observation"].any(), "an observation of all zeros"
        assert first.rewards == second.rewards
        assert first._cumulative_rewards == second._cumulative_rewards
        assert np.array_equal(first.state(), second.state())
        action_rng = copy.deepcopy(rng)
        random_step(first, rng)
        random_step(second, action_rng)
        compared += 1
    return compared


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_copied_env_plays_on_identically(ruleset, wrapped, how):
    module = getattr(cardenv, ruleset)
    env = module.env() if wrapped else module.raw_env()
    env.reset(seed=11)
    rng = np.random.default_rng(5)
    for _ in range(40):  # mid-game, observations cached
        random_step(env, rng)
        env.last()
    assert env.agents, "the game should still be on"
    duplicate = COPIERS[how](env)
    untouched = COPIERS[how](env)
    at_copy = env.state()
    assert play_both(env, duplicate, rng, 400) >= 100
    # The copies are independent: playing the others left this one where it was.
    assert np.array_equal(untouched.state(), at_copy)
    assert play_both(untouched, COPIERS[how](untouched), rng, 50) >= 1


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_copied_engine_plays_on_identically(ruleset, how):
    env = getattr(cardenv, ruleset).raw_env()
    env.reset(seed=2)
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    for _ in range(30):
        game.apply(int(rng.choice(game.legal_actions())))
        assert not game.is_terminal
    duplicate = COPIERS[how](game)
    observer = env.unwrapped.observer
    while not game.is_terminal:
        assert np.array_equal(game.legal_action_mask(), duplicate.legal_action_mask())
        for seat in range(game.num_players):
            assert np.array_equal(observer.observe(game, seat), observer.observe(duplicate, seat))
        action = int(rng.choice(game.legal_actions()))
        game.apply(action)
        duplicate.apply(action)
    assert duplicate.is_terminal and duplicate.scores == game.scores


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rewind_and_branch_observes_the_restored_state(ruleset):
    """A clone put back into the env is observed afresh, not from the cache of the
    branch it replaced (clones never share a cache key)."""
    env = getattr(cardenv, ruleset).raw_env()
    env.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(20):
        random_step(env, rng)
    observer = env.unwrapped.observer
    snapshot = env.unwrapped.game.clone()
    branch_point = {a: env.observe(a)["observation"].copy() for a in env.agents}
    for _ in range(15):  # play on a branch, every observation cached
        random_step(env, rng)
        for agent in env.agents:
            env.observe(agent)
    env.unwrapped.game = snapshot.clone()
    for agent in env.agents:
        seat = env.agent_name_mapping[agent]
        observed = env.observe(agent)
        assert np.array_equal(observed["observation"], branch_point[agent])
        assert np.array_equal(observed["observation"], observer.observe(snapshot, seat))
        expected_mask = snapshot.legal_action_mask() if seat == snapshot.current_player else 0 * observed["action_mask"]
        assert np.array_equal(observed["action_mask"], expected_mask)
    # Two clones of one state at the same clock never share a cache key.
    first, second = snapshot.clone(), snapshot.clone()
    assert first.version is not second.version is not snapshot.version


# --- state() ------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:State numpy array is all zeros")
@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_state_test(ruleset):
    """PettingZoo's state checks, the parallel env's (parallel_env()) included."""
    env = getattr(cardenv, ruleset).env()
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=300)
    pettingzoo_full_state_test(getattr(cardenv, ruleset).env(), getattr(cardenv, ruleset).parallel_env())
    raw = getattr(cardenv, ruleset).raw_env(num_players=3)
    pettingzoo_state_space_test(raw)


# The slot-grid rulesets' global state; carte's (hands as counts) has its own test in
# tests/test_carte_env.py.
@pytest.mark.parametrize("ruleset", [name for name in RULESETS if name != "carte_v0"])
def test_state_shows_every_card_where_it_lies(ruleset):
    env = getattr(cardenv, ruleset).env()
    env.reset(seed=4)
    rng = np.random.default_rng(2)
    for step in range(200):
        if not env.agents:
            break
        game = env.unwrapped.game
        vector = env.state()
        assert vector.dtype == np.float32 and env.state_space.contains(vector)
        pieces = env.unwrapped.state_pieces(vector)
        table = game.table
        for p, hand in enumerate(table.hands):
            for s, card in enumerate(hand):
                if card == EMPTY:
                    assert not pieces["slot_present"][p, s].any()
                    continue
                shown = int(np.argmax(pieces["slot_card"][p, s]))
                assert card_name(shown) == game.card_name(card)
                assert np.array_equal(pieces["slot_known_by"][p, s] > 0, table.knowledge.known[:, card])
        upcoming = table.draw_pile[::-1][: len(pieces["draw_pile_next"])]
        assert [card_name(int(np.argmax(row))) for row in pieces["draw_pile_next"][: len(upcoming)]] == [
            game.card_name(c) for c in upcoming]
        if game.current_player is not None:
            assert np.argmax(pieces["current_player"]) == game.current_player  # absolute seats
        # The same vector whoever is to act: a global state, not a view.
        assert np.array_equal(env.state(), vector)
        random_step(env, rng)


def test_a_state_changed_by_hand_is_masked_afresh_after_mark_changed():
    """Caches follow the state's version: apply() renews it; code that edits a state by
    hand calls mark_changed()."""
    env = cardenv.onefifty_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"hands": [["5S", "9C"], ["2D"], ["3D"]], "discard_pile": ["4H"], "starter": 0})
    game = env.unwrapped.game
    take_slot_1 = game.action_from_name("take discard into slot 1")
    assert game.legal_action_mask()[take_slot_1]
    game.table.hands[0][1] = -1  # empty the slot by hand: the cached mask is now stale
    assert game.legal_action_mask()[take_slot_1]
    game.mark_changed()
    assert not game.legal_action_mask()[take_slot_1]
    assert not env.observe("player_0")["action_mask"][take_slot_1]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_rounds_actions_replayed_from_its_deal_give_the_state(ruleset):
    """``round_actions`` (every action since the round was dealt), replayed in order on a
    copy of the state as dealt, give the very state, at every step of several rounds; a new
    round starts the list afresh. Asked to, the state keeps that copy itself
    (``round_start``, replayed alike); its copies keep none."""
    env = getattr(cardenv, ruleset).raw_env()
    env.reset(seed=7)
    game = env.unwrapped.game
    observer = env.unwrapped.observer
    rng = np.random.default_rng(3)
    assert game.round_start is None
    game.keep_round_starts()
    assert game.clone().round_start is None
    dealt = game.clone()
    rounds_seen = set()
    for _ in range(600):
        if game.is_terminal:
            break
        index = game.round_index
        game.apply(int(rng.choice(game.legal_actions())))
        if game.round_index != index:
            assert game.round_actions == []
            dealt = game.clone()
            continue
        rounds_seen.add(index)
        for start in (dealt, game.round_start):
            replay = start.clone()
            for action in game.round_actions:
                replay.apply(action)
            assert replay.current_player == game.current_player and replay.scores == game.scores
            for seat in range(game.num_players):
                assert np.array_equal(observer.observe(replay, seat), observer.observe(game, seat))
    assert len(rounds_seen) >= 2
