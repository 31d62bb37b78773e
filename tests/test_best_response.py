"""cardenv.train.best_response: a best response of a fixed recipe against three copies of
any agent, beside the target's own share on the same deals."""

from __future__ import annotations

import json

import pytest

from cardenv.eval.tournament import run_tournament
from cardenv.train.best_response import (EVAL_SEED_OFFSET, EXPLOIT_TIMESTEPS, ROLLOUT, BestResponseResult,
                                         train_best_response)

# One round with a short turn cap: a tiny run, the recipe and the code paths of a real one.
SHORT = {"single_round": True, "max_turns_per_round": 30}


def check_result(result: BestResponseResult, games: int) -> None:
    low, high = result.win_share_ci95
    assert 0.0 <= low <= result.win_share <= high <= 1.0
    low, high = result.target_share_ci95
    assert 0.0 <= low <= result.target_share <= high <= 1.0
    assert result.gain == pytest.approx(result.win_share - result.target_share)
    assert result.gain_ci95[0] <= result.gain <= result.gain_ci95[1]
    assert result.games == games and len(result.outcomes) == games
    assert result.timesteps == ROLLOUT and result.bound == "lower"
    assert "lower bound" in result.describe() and "\n" not in result.describe()
    data = json.loads(json.dumps(result.to_dict()))
    assert data["win_share"] == result.win_share and data["bound"] == "lower" and "outcomes" not in data
    assert len(result.to_dict(with_games=True)["outcomes"]) == games


def test_a_tiny_best_response_runs_end_to_end_and_keeps_its_run(tmp_path):
    out = tmp_path / "br"
    result = train_best_response("onefifty_v0", "heuristic", timesteps=ROLLOUT, games=8, output_dir=out,
                                 env_kwargs=SHORT)
    check_result(result, games=8)
    assert (result.ruleset, result.target, result.recipe, result.seed) == ("onefifty_v0", "heuristic", "guided", 0)
    assert result.model == str(out / "final_model.zip") and (out / "final_model.zip").exists()
    # The target's share is its own play in the candidate's seat, on the same deals.
    alone = run_tournament("onefifty_v0", "heuristic", ["heuristic"], 8, seed=EVAL_SEED_OFFSET, env_kwargs=SHORT)
    assert result.target_share == alone.win_share
    assert [theirs for _, theirs in result.outcomes] == [o.share for o in alone.outcomes]
    with pytest.raises(FileExistsError, match="already holds a training run"):
        train_best_response("onefifty_v0", "heuristic", timesteps=ROLLOUT, games=8, output_dir=out, env_kwargs=SHORT)


@pytest.mark.slow
def test_a_best_response_is_the_same_under_the_same_seed_and_leaves_nothing_without_an_output_dir():
    runs = [train_best_response("cut_v0", "random_no_call", timesteps=ROLLOUT, recipe="plain", seed=3, games=8,
                                env_kwargs=SHORT) for _ in range(2)]
    for result in runs:
        check_result(result, games=8)
        assert result.model is None
    first, second = (r.to_dict(with_games=True) for r in runs)
    for data in (first, second):
        data.pop("train_seconds"), data.pop("eval_seconds")
    assert first == second


@pytest.mark.parametrize("kwargs, message", [
    ({"target_spec": "nobody"}, "unknown agent 'nobody'"),
    ({"target_spec": "heuristic,random"}, "unknown agent"),
    ({"recipe": "fancy"}, "recipe must be one of guided, plain, got 'fancy'"),
    ({"timesteps": 100}, "timesteps must be an integer of at least 4,096"),
    ({"games": 0}, "games must be"),
    ({"seed": -1}, "seed must be"),
    ({"ruleset": "poker_v0"}, "poker_v0"),
    ({"env_kwargs": {"num_players": 99}}, "num_players"),
])
def test_bad_arguments_are_one_line_before_any_training(tmp_path, kwargs, message):
    arguments = {"ruleset": "onefifty_v0", "target_spec": "heuristic", "games": 4, "output_dir": tmp_path / "br",
                 **kwargs}
    with pytest.raises(ValueError) as error:
        train_best_response(**arguments)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert not (tmp_path / "br").exists()


def test_the_default_budget_is_whole_rollouts():
    assert EXPLOIT_TIMESTEPS % ROLLOUT == 0 and EXPLOIT_TIMESTEPS >= ROLLOUT
