"""The resampling leak test: for many states reached by random play, both
memory models and several player counts, resampling everything a player cannot know
changes neither that player's observation nor, when it is to act, its action mask."""

from __future__ import annotations

import time

import numpy as np
import pytest

from cardenv.core.cards import RANK_OF
from cardenv.games.onefifty import OneFiftyConfig, OneFiftyObserver, OneFiftyState, Phase
from cardenv.testing import check_no_leak
from tests.conftest import play
from tests.test_onefifty_fuzz import matcher, never_call, uniform


def power_user(state: OneFiftyState, rng: np.random.Generator) -> int:
    """Draws most of the time and fires every face card it draws (O-11 … O-13)."""
    legal = state.legal_actions()
    at = state.action_table
    if state.phase == Phase.MAIN and rng.random() < 0.8:
        return at.first("draw")
    if state.phase == Phase.DRAWN:
        drawn = state.table.held[state.current_player][-1]
        if RANK_OF[state.table.card_types[drawn]] >= 10:  # J, Q, K: the drawer knows it
            return at.first("discard")
    return legal[int(rng.integers(len(legal)))]


RARE = (Phase.MATCH_SELECT, Phase.JACK_OWN, Phase.JACK_TARGET, Phase.QUEEN_PEEK)


def _leak_run(num_players: int, memory: str, games: int, every: int, seed: int):
    """Random games; at every ``every``-th step, in every rarer phase and at the end,
    check every seat."""
    rng = np.random.default_rng(seed)
    config = OneFiftyConfig(num_players=num_players, memory=memory)
    observer = OneFiftyObserver(config)
    phases, checked, resampled = set(), 0, 0
    for g in range(games):
        state = OneFiftyState(config, np.random.default_rng(rng.integers(2**63)))
        policy = (uniform, never_call, matcher, power_user)[g % 4]
        step = 0
        while True:
            if step % every == 0 or state.phase in RARE or state.is_terminal:
                phases.add(state.phase)
                for seat in range(num_players):
                    check_no_leak(state, observer.observe, seat, rng, samples=2)
                    world = state.sample_world(seat, rng)
                    resampled += not np.array_equal(world.table.card_types, state.table.card_types)
                checked += 1
            if state.is_terminal:
                break
            state.apply(policy(state, rng))
            step += 1
    return phases, checked, resampled


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_no_leak_in_observations_and_masks(num_players, memory):
    start = time.perf_counter()
    phases, checked, resampled = _leak_run(num_players, memory, games=8, every=4, seed=num_players)
    assert set(Phase) <= phases, f"phases not reached: {set(Phase) - phases}"
    assert checked >= 300
    assert resampled >= checked * num_players * 0.9, "the hidden cards really were resampled"
    print(f"\nleak {num_players}p/{memory}: {checked} states × {num_players} seats in "
          f"{time.perf_counter() - start:.1f}s")


@pytest.mark.slow
@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_no_leak_every_step_many_games(num_players, memory):
    phases, checked, _ = _leak_run(num_players, memory, games=16, every=1, seed=100 + num_players)
    assert set(Phase) <= phases and checked >= 1500


def test_no_leak_in_hand_made_states():
    """Held drawn card, a Jack half-done, a match being built, a penalty card, a trade."""
    rng = np.random.default_rng(0)
    hands = [["5S", "9C", "5D", "KH"], ["2S", "2H", "2D", "2C"], ["3S", "3H", "3D", "3C"], ["4S", "4H", "4D", "4C"]]
    for memory in ("perfect", "none"):
        state = OneFiftyState(OneFiftyConfig(memory=memory), np.random.default_rng(1),
                              {"hands": hands, "discard_pile": ["5H"], "draw_pile": ["8C", "JS", "QD"],
                               "starter": 0})
        observer = OneFiftyObserver(state.config)
        steps = [("match select slot 0",), ("match select slot 1",), ("match confirm",), ("pass",),
                 ("draw",), ("discard drawn",), ("jack: give own slot 0",), ("jack: take opponent +3 slot 2",),
                 ("pass",), ("draw",), ("discard drawn",), ("queen: peek own slot 1",)]
        for names in steps:
            for seat in range(4):
                check_no_leak(state, observer.observe, seat, rng, samples=5)
            play(state, *names)
