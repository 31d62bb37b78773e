"""The slot heuristics' compiled call estimate (``call_kernel.call_pays``) against the
straightforward numpy estimate it replaced, on the same sampled deals: on random inputs, on
inputs whose margins fall exactly on the thresholds (where only the same arithmetic
gives the same answer), and at every call decision of seeded heuristic games."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.engine import call_odds as call_kernel

SCORINGS = list(call_kernel.SCORING_BY_RULE)
COMPILED_CALL_PAYS = call_kernel.call_pays  # the kernel itself, where a test wraps the module's


def reference_estimate(lowest_columns, unseen, present, known, known_points, opponents, scoring, stake,
                       final_turn_gain):
    """Per sampled deal, whether calling succeeds and what it adds to the caller minus the
    mean the opponents add (numpy, as the heuristics computed it)."""
    unknown_seat, _ = np.nonzero(present & ~known)
    known_totals = np.where(present & known, known_points, 0).sum(axis=1).astype(np.float64)
    k = len(unknown_seat)
    if k == 0:
        totals = np.broadcast_to(known_totals, (1, len(known_totals))).copy()
    else:
        seat_onehot = np.zeros((k, len(known_totals)))
        seat_onehot[np.arange(k), unknown_seat] = 1.0
        totals = known_totals + unseen[lowest_columns] @ seat_onehot
    mine = totals[:, 0]
    others = totals[:, opponents] - final_turn_gain
    success = np.all(mine[:, None] < others, axis=1)
    if scoring == "O-19":
        others_added = np.where(success[:, None] | (others >= mine[:, None]), others, 0.0)
        relative = np.where(success, 0.0, 2 * mine) - others_added.mean(axis=1)
    elif scoring == "C-16":
        relative = mine + np.where(success, 0.0, stake) - others.mean(axis=1)
    else:
        losses = np.sum(others <= mine[:, None], axis=1)
        relative = mine + np.where(losses > 0, stake * losses, -stake) - others.mean(axis=1)
    return success, relative


def reference_call_pays(lowest_columns, unseen, present, known, known_points, opponents, scoring, stake,
                        final_turn_gain, min_call_success, call_margin):
    success, relative = reference_estimate(lowest_columns, unseen, present, known, known_points, opponents, scoring,
                                           stake, final_turn_gain)
    return bool(success.mean() >= min_call_success and relative.mean() <= -call_margin)


def compiled_call_pays(*args):
    *estimate, scoring, stake, gain, min_success, margin = args
    return COMPILED_CALL_PAYS(*estimate, call_kernel.SCORING_BY_RULE[scoring], stake, gain, min_success, margin)


def check_on_and_off_the_thresholds(args):
    """The same decision with the given thresholds and with each set exactly on the
    estimate's value (success rate, mean relative result) and next to it."""
    *estimate, min_success, margin = args
    success, relative = reference_estimate(*estimate)
    rate, mean = success.mean(), relative.mean()
    for min_success_here, margin_here in [(min_success, margin), (rate, -mean), (np.nextafter(rate, 2), -mean),
                                          (rate, np.nextafter(-mean, -np.inf)), (0.0, -mean), (rate, -1e9)]:
        checked = (*estimate, float(min_success_here), float(margin_here))
        assert compiled_call_pays(*checked) == reference_call_pays(*checked), checked


def test_numpy_sum_adds_up_as_numpy_does():
    rng = np.random.default_rng(0)
    for count in [*range(0, 40), 63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 300, 1000, 1031, 4096, 8192]:
        for _ in range(20):
            values = rng.normal(size=count + 3) * 10.0 ** rng.integers(-3, 4, count + 3)
            assert call_kernel.numpy_sum(values, 3, count) == values[3:].sum()


@pytest.mark.parametrize("scoring", SCORINGS)
def test_call_estimate_matches_the_numpy_estimate_on_random_inputs(scoring):
    rng = np.random.default_rng(SCORINGS.index(scoring))
    for _ in range(300):
        players, slots = int(rng.integers(2, 6)), int(rng.integers(1, 8))
        present = rng.random((players, slots)) < 0.8
        known = rng.random((players, slots)) < rng.random()
        known_points = rng.integers(-1, 26, (players, slots))
        unknown = int(np.count_nonzero(present & ~known))
        unseen = rng.integers(-1, 26, unknown + int(rng.integers(0, 40))).astype(np.float64)
        deals = int(rng.choice([1, 7, 128, 200]))
        draws = rng.random((deals, len(unseen)))
        lowest_columns = np.argsort(draws, axis=1)[:, :unknown].copy() if unknown else np.empty((1, 0), np.int64)
        opponents = np.flatnonzero(rng.random(players - 1) < 0.7) + 1
        if not len(opponents):
            opponents = np.arange(1, players)
        args = (lowest_columns, unseen, present, known, known_points, opponents, scoring, float(rng.integers(0, 15)),
                float(rng.choice([0.0, 1.0, 1.5, 2.0])), float(rng.random()), float(rng.normal(3, 4)))
        check_on_and_off_the_thresholds(args)


@pytest.mark.parametrize("memory", ["perfect", "none"])
@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0", "kaboom_v0"])
def test_call_estimate_matches_the_numpy_estimate_in_games(ruleset, memory, monkeypatch):
    """At every call decision of heuristic games (with the cautious heuristic's settings
    too): the compiled decision is the numpy one, with the agent's own thresholds and with
    thresholds on the estimate's values."""
    scoring_by_code = {code: rule for rule, code in call_kernel.SCORING_BY_RULE.items()}
    checked = []

    def checking_call_pays(lowest_columns, unseen, present, known, known_points, opponents, scoring, *thresholds):
        args = (lowest_columns, unseen, present.copy(), known.copy(), known_points.copy(), opponents,
                scoring_by_code[scoring], *thresholds)
        decision = COMPILED_CALL_PAYS(lowest_columns, unseen, present, known, known_points, opponents, scoring,
                                      *thresholds)
        assert decision == reference_call_pays(*args)
        check_on_and_off_the_thresholds(args)
        checked.append(decision)
        return decision

    monkeypatch.setattr(call_kernel, "call_pays", checking_call_pays)
    info = ruleset_info(ruleset, memory=memory)
    env = make_raw_env(ruleset, memory=memory)
    specs = ["heuristic", "heuristic_cautious"] * info.num_players
    players = [make_agent(specs[seat], info, np.random.default_rng(seat)) for seat in range(info.num_players)]
    for seed in range(3):
        env.reset(seed=seed)
        for player in players:
            player.reset()
        while not env.game.is_terminal:
            seat = env.game.current_player
            observation = env.observe(env.possible_agents[seat])
            env.step(players[seat].act(observation, env.game, seat))
    assert len(checked) > 50 and any(checked)
