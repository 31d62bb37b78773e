"""Checks every ruleset's tests share: invariants after each step, masks that are
exact, and observations that leak nothing (information-set resampling).

They work on any rules engine built on :class:`cardenv.games.base.CardGameState` and
any observer with ``observe(state, seat, out=None)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cardenv.games.base import CardGameState


def check_invariants(state: CardGameState) -> None:
    """Every card lies in exactly one place, and the player to act has a legal action."""
    state.table.check_every_card_once()
    if state.is_terminal:
        assert state.current_player is None, "a finished game has no player to act"
        assert not state.legal_action_mask().any(), "a finished game has no legal action"
    else:
        assert state.legal_action_mask().any(), f"player_{state.current_player} has no legal action"


def check_legal_actions_apply(state: CardGameState) -> None:
    """Every masked-in action applies without error (each on its own copy)."""
    for action in state.legal_actions():
        state.clone().apply(action)


def check_no_leak(
    state: CardGameState,
    observe: Callable[[CardGameState, int], np.ndarray],
    seat: int,
    rng: np.random.Generator,
    samples: int = 3,
) -> None:
    """Resampling what ``seat`` cannot know changes neither its observation nor (when
    it is to act) its action mask."""
    expected_obs = observe(state, seat).copy()
    expected_mask = state.legal_action_mask().copy() if state.current_player == seat else None
    for _ in range(samples):
        world = state.sample_world(seat, rng)
        obs = observe(world, seat)
        if not np.array_equal(obs, expected_obs):
            changed = np.flatnonzero(obs != expected_obs)
            raise AssertionError(f"observation of seat {seat} changed under resampling at indices {changed[:20]}")
        if expected_mask is not None and not np.array_equal(world.legal_action_mask(), expected_mask):
            raise AssertionError(f"action mask of seat {seat} changed under resampling")


def play_random(
    state: CardGameState,
    rng: np.random.Generator,
    on_step: Callable[[CardGameState], None] | None = None,
    choose: Callable[[CardGameState, np.random.Generator], int] | None = None,
    max_steps: int = 1_000_000,
) -> int:
    """Play ``state`` to the end with uniformly random legal actions (or ``choose``);
    call ``on_step(state)`` before the first and after every action. Returns the steps."""
    if on_step:
        on_step(state)
    steps = 0
    while not state.is_terminal and steps < max_steps:
        if choose is None:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        else:
            action = choose(state, rng)
        state.apply(action)
        steps += 1
        if on_step:
            on_step(state)
    return steps
