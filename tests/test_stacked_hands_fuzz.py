"""Fuzzing from stacked scenarios with empty and near-empty hands, for every ruleset:
the player to act always has a legal action, every masked-in action applies, and every
card lies in exactly one place — the corners random deals almost never reach."""

from __future__ import annotations

import numpy as np
import pytest

import cardenv
from cardenv.core.cards import card_name
from cardenv.testing import check_invariants, check_legal_actions_apply, play_random

RULESETS = [name for name in ("onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0") if hasattr(cardenv, name)]
HAND_SIZES = (0, 0, 1, 1, 2, 4)


def stacked_options(raw, rng: np.random.Generator) -> dict:
    """Hands of 0, 1, 2 or 4 cards (at least one player empty-handed or nearly so), a
    random draw pile and sometimes a discard pile."""
    n = raw.config.num_players
    deck = [card_name(int(t)) for t in rng.permutation(raw.observer.deck)]
    sizes = [int(rng.choice(HAND_SIZES)) for _ in range(n)]
    sizes[int(rng.integers(n))] = int(rng.choice((0, 1)))
    hands, at = [], 0
    for size in sizes:
        hands.append(deck[at: at + size])
        at += size
    discard = deck[at: at + int(rng.integers(0, 3))]
    return {"hands": hands, "discard_pile": discard, "starter": int(rng.integers(n))}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_player_to_act_always_has_a_legal_action_from_stacked_corners(ruleset):
    module = getattr(cardenv, ruleset)
    rng = np.random.default_rng(0)
    steps = 0
    for game in range(150):
        raw = module.raw_env(num_players=int(rng.integers(3, 6)), single_round=True)
        raw.reset(seed=game, options=stacked_options(raw, rng))
        state = raw.unwrapped.game

        def per_step(state):
            check_invariants(state)
            if not state.is_terminal and rng.random() < 0.2:
                check_legal_actions_apply(state)

        steps += play_random(state, rng, on_step=per_step)
    assert steps > 1000
