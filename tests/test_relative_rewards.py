"""``reward_mode="relative"``: at each round's end every agent dealt into the round gets
``reward_scale`` × (the mean of the points the round's players added − its own). Checked
against the default points rewards of the same games, step by step, on every ruleset,
with carte_v0's eliminations (a seat out before a round is not in its mean and gets 0)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenv
from cardenv.core.scoring import points_relative_to_table

RULESETS = ["onefifty_v0", "cut_v0", "kaboom_v0", "carte_v0"]


def play_pair(ruleset: str, seed: int, **options):
    """The same seeded game in points and relative mode, same random actions: per step,
    both modes' rewards, the seats still in before the step, and whether a round ended."""
    module = getattr(cardenv, ruleset)
    points, relative = module.raw_env(**options), module.raw_env(reward_mode="relative", **options)
    points.reset(seed=seed)
    relative.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = []
    while points.agents and not points.game.is_terminal:
        agent = points.agent_selection
        assert relative.agent_selection == agent
        mask = points.observe(agent)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        in_before = [p for p, out in enumerate(points.game.eliminated) if not out]
        rounds_before = len(points.game.round_results)
        points.step(action)
        relative.step(action)
        ended = len(points.game.round_results) > rounds_before
        steps.append((dict(points.rewards), dict(relative.rewards), in_before, ended))
    return points, steps


@pytest.mark.parametrize("ruleset", RULESETS)
def test_relative_rewards_are_the_points_rewards_against_the_round_mean(ruleset):
    rounds = 0
    for seed in range(3):
        env, steps = play_pair(ruleset, seed, max_rounds=6)
        for points, relative, in_before, ended in steps:
            if not ended:
                assert set(relative.values()) == {0.0}
                continue
            rounds += 1
            mean = sum(points[f"player_{p}"] for p in in_before) / len(in_before)
            for agent, reward in relative.items():
                seat = env.agent_name_mapping[agent]
                expected = points[agent] - mean if seat in in_before else 0.0
                assert reward == pytest.approx(expected, abs=1e-12)
            assert sum(relative.values()) == pytest.approx(0.0, abs=1e-12)
    assert rounds >= 3


def test_seats_out_before_a_round_get_nothing_and_are_not_in_its_mean():
    # carte_v0, R-17: a player on 0 or below is out; random play eliminates players.
    rounds_with_a_seat_out = 0
    for seed in range(6):
        env, steps = play_pair("carte_v0", seed, num_players=3)
        for _, relative, in_before, ended in steps:
            if ended and len(in_before) < 3:
                rounds_with_a_seat_out += 1
                out = [a for a in relative if env.agent_name_mapping[a] not in in_before]
                assert all(relative[a] == 0.0 for a in out)
                assert sum(relative.values()) == pytest.approx(0.0, abs=1e-12)
    assert rounds_with_a_seat_out > 0


def test_points_relative_to_the_table():
    assert points_relative_to_table([10, 20, 0, 30], [0, 1, 2, 3]) == [5.0, -5.0, 15.0, -15.0]
    assert points_relative_to_table([10, 0, 20], [0, 2]) == [5.0, 0.0, -5.0]


def test_an_unknown_reward_mode_names_the_accepted_ones():
    with pytest.raises(ValueError, match="reward_mode.*'points', 'relative', 'outcome'"):
        cardenv.cut_v0.env(reward_mode="relativ")
