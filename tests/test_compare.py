"""Head to head (``cardenv compare``, :func:`cardenv.eval.compare.compare`): the games are
paired, the intervals are Student t's (checked against scipy), the command's errors are
one line with exit status 2."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats  # the test extra has scipy

from cardenv.cli import main
from cardenv.eval import compare, run_tournament
from cardenv.eval.compare import _points_difference
from cardenv.eval.intervals import mean_interval, paired_difference_interval, student_t_cdf, t_quantile
from cardenv.eval.tournament import GameOutcome
from tests.test_cli import assert_user_error



@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 15, 39, 99, 399, 1999, 10**6])
def test_t_quantile_and_cdf_match_scipy(df):
    for probability in (0.5, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 0.025, 0.001):
        assert t_quantile(probability, df) == pytest.approx(stats.t.ppf(probability, df), abs=1e-8, rel=1e-9)
    for t in (-30.0, -4.2, -1.0, -1e-3, 0.0, 0.5, 1.96, 3.0, 12.7):
        assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-9)


def test_mean_interval_is_scipys_t_interval():
    values = np.random.default_rng(5).normal(0.1, 1.0, size=37)
    mean, (low, high) = mean_interval(values)
    expected = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert mean == pytest.approx(values.mean())
    assert (low, high) == pytest.approx(expected, rel=1e-9)
    _, (low90, high90) = mean_interval(values, confidence=0.9)
    assert (low90, high90) == pytest.approx(
        stats.t.interval(0.9, len(values) - 1, loc=values.mean(), scale=stats.sem(values)), rel=1e-9)
    a, b = values, values[::-1] * 0.5
    mean, interval = paired_difference_interval(a, b)
    assert mean == pytest.approx((a - b).mean()) and interval == pytest.approx(mean_interval(a - b)[1])


def test_equal_values_give_a_zero_width_interval_and_bad_inputs_are_named():
    assert mean_interval([0.25] * 8) == (0.25, (0.25, 0.25))
    with pytest.raises(ValueError, match="a t-interval needs at least 2 values, got 1"):
        mean_interval([1.0])
    with pytest.raises(ValueError, match="confidence must lie strictly between 0 and 1"):
        mean_interval([1.0, 2.0], confidence=95)
    with pytest.raises(ValueError, match="paired values need equal lengths"):
        paired_difference_interval([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="probability must lie strictly between 0 and 1"):
        t_quantile(1.0, 5)


def test_the_differences_are_those_of_two_tournaments_on_the_same_seeds():
    result = compare("onefifty_v0", "heuristic", "random_no_call", field="heuristic", games=12, seed=3)
    a = run_tournament("onefifty_v0", "heuristic", "heuristic", 12, seed=3)
    b = run_tournament("onefifty_v0", "random_no_call", "heuristic", 12, seed=3)
    differences = np.array([x.share - y.share for x, y in zip(a.outcomes, b.outcomes)])
    expected = stats.t.interval(0.95, len(differences) - 1, loc=differences.mean(), scale=stats.sem(differences))
    assert result.games == 12 and result.seed == 3 and result.field == ["heuristic"] * 3
    assert result.a.win_share == a.win_share and result.b.win_share == b.win_share
    assert result.win_share_difference.estimate == pytest.approx(differences.mean())
    assert result.win_share_difference.ci95 == pytest.approx(expected, rel=1e-9)
    assert result.points_per_round_difference.estimate == pytest.approx(
        a.mean_points_per_round - b.mean_points_per_round)
    low, high = result.points_per_round_difference.ci95
    assert low < result.points_per_round_difference.estimate < high < 0  # the heuristic loses fewer points
    assert [o.final_scores for o in result.a_outcomes] == [o.final_scores for o in a.outcomes]
    assert [o.candidate_seat for o in result.a_outcomes] == [o.candidate_seat for o in result.b_outcomes]


@pytest.mark.parametrize("spec", ["heuristic", "random"])
def test_an_agent_against_itself_differs_by_exactly_zero(spec):
    # random draws from its generator: only restarting it the same way for A and B pairs the games
    result = compare("cut_v0", spec, spec, field="random", games=8, seed=11)
    assert result.games_differing == 0
    assert result.win_share_difference.estimate == 0.0 and result.win_share_difference.ci95 == (0.0, 0.0)
    assert result.points_per_round_difference.estimate == 0.0
    assert result.points_per_round_difference.ci95 == (0.0, 0.0)
    assert "no difference detected" in result.describe()


def _outcome(points: list[int]) -> GameOutcome:
    return GameOutcome(0, 0.0, [0, 0, 0, 0], len(points), 0, points, 0, 0, False)


def test_points_per_round_with_equal_rounds_per_game_is_the_paired_t_interval():
    # With the same number of rounds in every game the linearised pooled ratio is each game's
    # points per round exactly, so the delta method gives the plain paired t-interval.
    rng = np.random.default_rng(2)
    a_points, b_points = rng.integers(0, 40, size=(15, 3)), rng.integers(0, 40, size=(15, 3))
    difference = _points_difference([_outcome(list(p)) for p in a_points], [_outcome(list(p)) for p in b_points])
    per_game = a_points.mean(axis=1) - b_points.mean(axis=1)
    assert difference.estimate == pytest.approx(per_game.mean())
    assert difference.ci95 == pytest.approx(
        stats.t.interval(0.95, 14, loc=per_game.mean(), scale=stats.sem(per_game)), rel=1e-9)


def test_verdicts_name_the_better_side():
    result = compare("onefifty_v0", "heuristic", "random_no_call", games=8, seed=0)
    text = result.describe()
    assert "A - B" in text and "heuristic better" in text.splitlines()[-2]
    assert result.to_dict()["win_share_difference"]["estimate"] == result.win_share_difference.estimate
    assert "a_outcomes" not in result.to_dict() and len(result.to_dict(with_games=True)["b_outcomes"]) == 8


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown ruleset 'onefity_v0'"):
        compare("onefity_v0", "heuristic", "random", games=4)
    with pytest.raises(ValueError, match="games must be"):
        compare("onefifty_v0", "heuristic", "random", games=0)


def test_cli_compare_prints_the_table_and_json_to_stdout(capsys, tmp_path):
    argv = ["compare", "cut_v0", "heuristic", "random_no_call", "--games", "8", "--seed", "2", "--no-progress"]
    assert main([*argv, "--json", "-"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["games"] == 8 and data["field"] == ["heuristic"] * 3 and data["a"]["spec"] == "heuristic"
    assert len(data["win_share_difference"]["ci95"]) == 2 and "a_outcomes" not in data
    assert "A - B" in captured.err and "paired" in captured.err
    assert main([*argv, "--json", str(tmp_path / "c.json"), "--with-games", "--field", "random"]) == 0
    assert "A - B" in capsys.readouterr().out
    written = json.loads((tmp_path / "c.json").read_text())
    assert len(written["a_outcomes"]) == 8 and written["field"] == ["random"] * 3
    assert main(["compare", "cut_v0", "heuristic", "random_no_call", "--games", "6", "--no-progress"]) == 0
    assert "playing 8 games, not 6" in capsys.readouterr().out


USER_ERRORS = [
    (["compare", "onefity_v0", "heuristic", "random"], "unknown ruleset 'onefity_v0'; rulesets are"),
    (["compare", "onefifty_v0", "heurstic", "random"], "unknown agent 'heurstic'"),
    (["compare", "onefifty_v0", "heuristic", "ppo:missing.zip"], "ppo model file 'missing.zip' does not exist"),
    (["compare", "onefifty_v0", "heuristic", "random", "--field", "random,random"], "--field needs one spec, or 3"),
    (["compare", "onefifty_v0", "heuristic", "random", "--games", "0"], "--games: expected an integer of at least 1"),
    (["compare", "onefifty_v0", "heuristic", "random", "--env-arg", "num_player=3"], "unknown option 'num_player'"),
    (["compare", "onefifty_v0", "heuristic", "random", "--ray", "--workers", "2"], "--ray and --workers exclude"),
    (["compare", "onefifty_v0", "heuristic"], "the following arguments are required: B"),
    (["compare", "onefifty_v0", "heuristic", "random", "--json", "/nonexistent/dir/c.json"],
     "argument --json: cannot write '/nonexistent/dir/c.json': no directory"),
]


@pytest.mark.parametrize("argv, message", USER_ERRORS, ids=[" ".join(a) for a, _ in USER_ERRORS])
def test_a_user_error_is_one_line_with_exit_status_2(argv, message, capsys):
    assert_user_error(argv, message, capsys)
