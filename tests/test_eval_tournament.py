"""Tournament seat rotation, the Wilson interval, and the statistics it reports."""

from __future__ import annotations

import json
import math

import pytest

from cardenv.cli import main
from cardenv.eval import run_tournament, seating, wilson_interval


def test_seating_puts_every_agent_in_every_seat_equally_often():
    for n in (3, 4, 6):
        counts = [[0] * n for _ in range(n)]
        for g in range(2 * n):
            seats = seating(g, n)
            assert sorted(seats) == list(range(n))
            for seat, agent in enumerate(seats):
                counts[agent][seat] += 1
        assert all(c == 2 for row in counts for c in row)


def test_tournament_rotates_the_candidate_through_every_seat_and_rounds_games_up():
    result = run_tournament("onefifty_v0", "random", ["random_no_call"], games=6, seed=3)
    assert result.games == 8  # rounded up to a multiple of 4 players
    assert sorted(r.candidate_seat for r in result.outcomes) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_wilson_interval_known_values():
    low, high = wilson_interval(8, 10)  # textbook: 0.8 with n=10 → [0.490, 0.943]
    assert math.isclose(low, 0.4902, abs_tol=1e-3) and math.isclose(high, 0.9433, abs_tol=1e-3)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and math.isclose(high, 0.1611, abs_tol=1e-3)
    low, high = wilson_interval(50, 100)
    assert math.isclose(0.5 - low, high - 0.5, rel_tol=1e-9)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_tournament_is_seeded_and_its_statistics_are_consistent():
    a = run_tournament("onefifty_v0", "heuristic", ["random_no_call"], games=8, seed=1)
    b = run_tournament("onefifty_v0", "heuristic", ["random_no_call"], games=8, seed=1)
    assert [r.final_scores for r in a.outcomes] == [r.final_scores for r in b.outcomes]
    shares = [r.share for r in a.outcomes]
    assert a.win_share == pytest.approx(sum(shares) / len(shares))
    assert a.win_share_ci95[0] <= a.win_share <= a.win_share_ci95[1]
    assert a.mean_final_score == pytest.approx(sum(r.final_scores[r.candidate_seat] for r in a.outcomes) / 8)
    rounds = sum(r.rounds for r in a.outcomes)
    assert a.call_rate == pytest.approx(sum(r.candidate_calls for r in a.outcomes) / rounds)
    for record in a.outcomes:
        assert sum(record.candidate_points) == record.final_scores[record.candidate_seat]
        assert record.candidate_successful_calls <= record.candidate_calls


def test_field_must_fill_the_other_seats():
    with pytest.raises(ValueError, match="field needs one spec, or 3 comma-separated specs"):
        run_tournament("onefifty_v0", "random", ["random", "random"], games=4)


def test_one_spec_as_a_string_fills_every_other_seat():
    """Not six field agents named r, a, n, d, o, m."""
    as_string = run_tournament("onefifty_v0", "random", "random_no_call", games=4, seed=3)
    as_list = run_tournament("onefifty_v0", "random", ["random_no_call"], games=4, seed=3)
    assert as_string.field == as_list.field == ["random_no_call"] * 3
    assert as_string.outcomes == as_list.outcomes


@pytest.mark.parametrize("option, value, error", [
    ("games", 0, ValueError), ("games", 1.5, TypeError), ("seed", -1, ValueError), ("workers", 0, ValueError),
    ("workers", "2", TypeError), ("env_kwargs", [("num_players", 3)], TypeError), ("field", 5, TypeError),
])
def test_bad_arguments_are_named(option, value, error):
    arguments = {"ruleset": "onefifty_v0", "candidate": "random", "field": "random", "games": 4, option: value}
    with pytest.raises(error) as err:
        run_tournament(**arguments)
    message = str(err.value)
    assert option in message and repr(value) in message and "\n" not in message


def test_cli_eval_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "result.json"
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--field", "random_no_call", "--games", "4",
                 "--json", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "win share" in printed and "heuristic" in printed
    data = json.loads(out.read_text())
    assert data["games"] == 4 and data["candidate"] == "heuristic" and len(data["win_share_ci95"]) == 2


def test_worker_processes_play_exactly_the_games_of_one_process():
    one = run_tournament("cut_v0", "heuristic", ["random_no_call", "random", "heuristic"], games=8, seed=7)
    two = run_tournament("cut_v0", "heuristic", ["random_no_call", "random", "heuristic"], games=8, seed=7, workers=2)
    assert one.outcomes == two.outcomes
    assert one.win_share == two.win_share


def test_a_game_does_not_depend_on_the_games_before_it():
    """Agents are reseeded per game: game 5 played alone is game 5 of the whole run."""
    from cardenv.eval.tournament import TournamentTable

    full = run_tournament("onefifty_v0", "random", ["random_no_call"], games=8, seed=3)
    alone = TournamentTable("onefifty_v0", ["random"] + ["random_no_call"] * 3, 3, {}, record_games=False)
    assert alone.play(5)[0] == full.outcomes[5]


def test_capped_rounds_are_the_rounds_that_ended_at_the_turn_cap():
    """Nobody calls in a table of random_no_call (O-18): with a short cap most rounds end
    there; the rate is the engine's round reasons counted again, game by game."""
    from cardenv.engine.rounds import RoundResult
    from cardenv.envs.info import make_raw_env
    from cardenv.human.records import GameRecord

    options = {"max_turns_per_round": 12, "single_round": True}
    records: list[GameRecord] = []
    result = run_tournament("onefifty_v0", "random_no_call", "random_no_call", 8, seed=4, env_kwargs=options,
                            on_record=lambda index, record: records.append(record))
    reasons = []
    for record in records:
        env = make_raw_env("onefifty_v0", **options)
        env.reset(seed=record.seed)
        for _, action, _name in record.actions:
            env.step(action)
            env.step_done_agents()
        reasons += [r.reason for r in env.game.round_results]
    assert result.capped_round_rate == sum(r == RoundResult.TURN_CAP for r in reasons) / len(reasons)
    assert result.capped_round_rate > 0.5
    called = run_tournament("onefifty_v0", "heuristic", "heuristic", 8, seed=4)
    assert called.capped_round_rate < result.capped_round_rate


def test_worker_processes_share_the_cores_among_their_thread_pools(monkeypatch):
    """Processes started under worker_thread_limits get cores // workers threads for
    OpenMP, OpenBLAS and MKL (a variable the user set is theirs), and the parent's
    environment is as it was afterwards."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from cardenv.eval.tournament import THREAD_POOL_VARIABLES, worker_thread_limits

    for name in THREAD_POOL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        with worker_thread_limits(workers=4):
            seen = list(pool.map(os.getenv, THREAD_POOL_VARIABLES))
    assert seen == ["2", "2", "3"]
    assert "OMP_NUM_THREADS" not in os.environ and "OPENBLAS_NUM_THREADS" not in os.environ
    assert os.environ["MKL_NUM_THREADS"] == "3"
    with worker_thread_limits(workers=16):  # more workers than cores: one thread each
        assert os.environ["OMP_NUM_THREADS"] == "1"
