"""Where an engine's random outcomes come from (cardenv.core.chance): a seeded env plays
exactly the game it always played, and an external source replaying a seeded game's
outcomes card by card plays the same game (the deferred deal is the shuffle)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from gymnasium.utils import seeding

import cardenv
from cardenv.core.cards import standard_deck
from cardenv.core.chance import CARD, NEXT, SEAT, ChanceNeeded, ExternalChance, SeededChance
from cardenv.core.reaction import ReactionWindow
from cardenv.core.table import CardTable
from cardenv.envs.info import ruleset_info
from cardenv.rulesets import ruleset_names

# Digests of seeded env trajectories (random legal actions), taken before the engines
# drew through cardenv.core.chance: any change in what a seed plays changes them.
GOLDEN = [
    ("onefifty_v0", 3, {}, "770c41e16ad1f85b5c0c2d95bba477d6"),
    ("onefifty_v0", 4, {"num_players": 5}, "e7ac9cbd4d58ec711b39bd6a8c350738"),
    ("cut_v0", 5, {}, "74890a7236da40c7ba8fea11b876d9a9"),
    ("cut_v0", 6, {"num_players": 3}, "659ec444d8fad5080f039f961f301b20"),
    ("kaboom_v0", 7, {}, "14055ab3c551d1df728f3c0e35fc9e3f"),
    ("kaboom_v0", 8, {"num_players": 2}, "81464ec8e9bab2d062cca835cae2d699"),
    ("carte_v0", 9, {}, "21e8e3d3829fa27dbbd72f59ac74489d"),
    ("carte_v0", 10, {"num_players": 3}, "f4bcf864d66d2ea4379f984eb8f85335"),
]


def trajectory_digest(ruleset: str, seed: int, steps: int = 1500, **kwargs) -> str:
    env = getattr(cardenv, ruleset).env(**kwargs)
    digest = hashlib.blake2b(digest_size=16)
    rng = np.random.default_rng(seed + 1)
    env.reset(seed=seed)
    for n, agent in enumerate(env.agent_iter()):
        observation, reward, terminated, truncated, _ = env.last()
        digest.update(agent.encode())
        digest.update(observation["observation"].tobytes())
        digest.update(observation["action_mask"].tobytes())
        digest.update(np.float64(reward).tobytes())
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if n >= steps:
            break
    return digest.hexdigest()


@pytest.mark.parametrize("ruleset, seed, kwargs, expected", GOLDEN)
def test_a_seeded_env_plays_the_game_it_always_played(ruleset, seed, kwargs, expected):
    assert trajectory_digest(ruleset, seed, **kwargs) == expected


def play_recorded(ruleset: str, seed: int, steps: int, **env_kwargs):
    """A seeded engine with its outcomes recorded, played by random legal actions; returns
    the record, the actions and every seat's observation after every step."""
    info = ruleset_info(ruleset, **env_kwargs)
    observer = info.observer_class(info.config)
    record: list = []
    rng, _ = seeding.np_random(seed)
    state = info.state_class(info.config, SeededChance(rng, record))
    pick = np.random.default_rng(seed)
    actions, seen = [], [observe_all(observer, state)]
    while not state.is_terminal and len(actions) < steps:
        legal = state.legal_actions()
        action = legal[int(pick.integers(len(legal)))]
        state.apply(action)
        actions.append(action)
        seen.append(observe_all(observer, state))
    return record, actions, seen


def observe_all(observer, state) -> list[np.ndarray]:
    out = []
    for seat in range(state.num_players):
        buffer = observer.new_buffer()
        observer.write(state, seat, buffer)
        out.append(buffer.copy())
    return out


@pytest.mark.parametrize("ruleset, env_kwargs", [
    ("onefifty_v0", {"num_players": 3}), ("cut_v0", {"num_players": 3}), ("kaboom_v0", {"num_players": 3}),
    ("carte_v0", {"num_players": 2}), ("cut_v0", {"num_players": 2, "max_turns_per_round": 60}),
])
def test_an_external_source_replaying_the_record_plays_the_same_game(ruleset, env_kwargs):
    """The record holds each card as it is taken, so the lazily drawn game equals the shuffled one."""
    record, actions, seen = play_recorded(ruleset, 11, 800, **env_kwargs)
    assert {kind for kind, _ in record} >= {CARD}
    info = ruleset_info(ruleset, **env_kwargs)
    observer = info.observer_class(info.config)
    outcomes = [outcome for _, outcome in record]
    state = info.state_class(info.config, ExternalChance(outcomes))
    assert all(np.array_equal(a, b) for a, b in zip(observe_all(observer, state), seen[0]))
    for step, action in enumerate(actions):
        state.apply(action)
        assert all(np.array_equal(a, b) for a, b in zip(observe_all(observer, state), seen[step + 1])), step
    assert state.chance.used == len(outcomes)


def test_a_long_record_covers_every_kind_of_event():
    """Reshuffles, random starters and resolution orders all pass through the source."""
    record, _, _ = play_recorded("cut_v0", 2, 3000, num_players=3)
    assert {kind for kind, _ in record} == {CARD, SEAT, NEXT}


def test_the_external_source_asks_with_the_probabilities_of_a_shuffle():
    table = CardTable(standard_deck(), 2)
    chance = ExternalChance()
    table.gather_and_shuffle(chance)
    assert table.draw_pile == list(range(52)), "the order is left to the cards taken"
    with pytest.raises(ChanceNeeded) as needed:
        table.take_top(chance)
    outcomes = needed.value.outcomes
    assert needed.value.kind == CARD and len(outcomes) == 52
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    chance.outcomes.append(7)
    assert table.card_types[table.take_top(chance)] == 7 and len(table.draw_pile) == 51


def test_copies_of_a_type_are_one_outcome_as_likely_as_their_share():
    chance = ExternalChance()
    pile = [0, 1, 2, 3]
    types = np.array([5, 9, 5, 5])
    with pytest.raises(ChanceNeeded) as needed:
        chance.take_card(pile, types)
    assert needed.value.outcomes == [(5, 0.75), (9, 0.25)]


def test_an_impossible_outcome_is_refused_by_name():
    chance = ExternalChance([4])
    with pytest.raises(ValueError, match="chance outcome 4 is not possible for the starter"):
        chance.seat(3, "the starter")


def test_resolution_order_from_outside_is_picked_attempt_by_attempt():
    window = ReactionWindow("trigger", [0, 1, 2])
    for p in range(3):
        window.decide(p, f"attempt {p}")
    chance = ExternalChance([2])
    with pytest.raises(ChanceNeeded) as needed:
        window.resolution_order(chance)
    assert needed.value.kind == NEXT and [o for o, _ in needed.value.outcomes] == [0, 1]
    chance = ExternalChance([2, 0])
    assert [p for p, _ in window.resolution_order(chance)] == [2, 0, 1]


def test_the_same_seed_records_the_same_outcomes():
    assert play_recorded("kaboom_v0", 5, 300)[0] == play_recorded("kaboom_v0", 5, 300)[0]
    assert play_recorded("kaboom_v0", 5, 300)[0] != play_recorded("kaboom_v0", 6, 300)[0]


def test_every_ruleset_is_covered():
    assert sorted(r for r, *_ in GOLDEN) == sorted(ruleset_names() * 2)


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937,
                                           np.random.Philox, np.random.SFC64])
def test_draw_index_is_numpys_integers_draw_for_draw(bit_generator):
    """The reference is numpy's own ``integers(n)``: the same values, and the generator
    left where numpy leaves it (other draws in between read the same stream, the 32-bit
    half numpy keeps for the next draw included)."""
    from cardenv.core.chance import draw_index

    bounds = [1, 2, 3, 5, 7, 12, 101, 1000, 2**31 + 5, 3 * 2**30, 2**32 - 1, 2**32, 2**40]
    for seed in range(40):
        fast, reference = np.random.Generator(bit_generator(seed)), np.random.Generator(bit_generator(seed))
        picks = np.random.default_rng(seed + 10**6)
        for step in range(80):
            n = bounds[int(picks.integers(len(bounds)))]
            if step % 9 == 0:
                n = np.int64(n)  # a numpy integer bound draws the same
            got = draw_index(fast, n)
            assert got == int(reference.integers(n)) and type(got) is int, (seed, step, n)
            if step % 7 == 0:
                assert fast.random() == reference.random()
            if step % 11 == 0:
                assert fast.integers(2**63) == reference.integers(2**63)
        for draw in (lambda g: g.integers(7), lambda g: g.integers(2**63), lambda g: g.random()):
            assert draw(fast) == draw(reference)
