"""Distributed tournaments: a local Ray cluster plays exactly the games of one process."""

from __future__ import annotations

import json
import socket

import pytest

from cardenv.cli import main
from cardenv.eval import run_tournament
from tests.test_rating import TINY, tiny, tiny_ladders  # noqa: F401  (fixtures: the tiny rating protocol)

# Ray is imported by the fixture: a run without it collects this module and deselects it
# (pyproject's addopts); CI runs it in the venv that has Ray (pytest -m ray).
pytestmark = pytest.mark.ray


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def ray():
    import ray

    return ray


# These two come before the tests that start a cluster in this process.
def test_no_cluster_at_auto_is_one_line_with_exit_status_2(ray, monkeypatch, capsys):
    def no_cluster(**_):  # what ray.init(address="auto") raises when no cluster runs
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to by "
                              "setting `--address` flag or `RAY_ADDRESS` environment variable.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", no_cluster)
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--ray", "auto"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "--ray auto: no Ray cluster at 'auto' (Could not find any running Ray instance)" in captured.err


def test_nothing_listening_at_an_address_is_one_line_with_exit_status_2(ray, monkeypatch, capsys):
    def never(**_):  # Ray retries an unreachable address for minutes: never get there
        raise AssertionError("ray.init was called")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", never)
    address = f"127.0.0.1:{_free_port()}"
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--ray",
                 address]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert f"--ray {address}: no Ray cluster answers at {address}" in captured.err


@pytest.fixture(scope="module")
def local_cluster():
    import ray

    # The test starts its cluster (two CPUs, as on CI) and stops it.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def without_timing(result_json: str) -> dict:
    data = json.loads(result_json)
    data.pop("seconds")
    return data


def test_ray_tournament_gives_the_json_of_one_process(local_cluster):
    field = ["random_no_call", "heuristic", "random"]
    one = run_tournament("cut_v0", "heuristic", field, games=20, seed=11)
    records = []
    distributed = run_tournament("cut_v0", "heuristic", field, games=20, seed=11, ray_address="auto",
                                 on_record=lambda g, r: records.append((g, r)))
    assert without_timing(distributed.to_json(with_games=True)) == without_timing(one.to_json(with_games=True))
    assert [g for g, _ in records] == list(range(20))  # records stream in game order
    records[7][1].check()


def test_cli_eval_with_ray(local_cluster, tmp_path, capsys):
    out = tmp_path / "ray.json"
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "8", "--seed", "2", "--no-progress",
                 "--ray", "--json", str(out)]) == 0
    local = run_tournament("onefifty_v0", "heuristic", ["random_no_call"], games=8, seed=2)
    assert without_timing(out.read_text()) == without_timing(local.to_json())
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--ray", "--workers", "2"]) == 2
    assert "exclude each other" in capsys.readouterr().err


@pytest.mark.usefixtures("tiny")
def test_rate_with_ray_gives_the_card_of_one_process(local_cluster, tmp_path, capsys):
    """cardenv rate --ray: the games play as Ray tasks and the score card is the one
    process's (tiny protocol, its ladder made in a temporary folder)."""
    from cardenv.rating.rate import rate

    one = rate("onefifty_v0", "heuristic_no_call", quick=True, protocol=TINY)
    distributed = rate("onefifty_v0", "heuristic_no_call", quick=True, protocol=TINY, ray_address="auto")
    assert distributed.to_dict() == one.to_dict()
    out = tmp_path / "card.json"
    assert main(["rate", "onefifty_v0", "--agent", "heuristic_no_call", "--protocol", "tiny", "--quick", "--ray",
                 "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["rating"] == one.rating
    assert main(["rate", "onefifty_v0", "--agent", "heuristic", "--protocol", "tiny", "--ray", "--workers", "2"]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_compare_with_ray_gives_the_differences_of_one_process(local_cluster):
    from cardenv.eval.compare import compare

    one = compare("cut_v0", "heuristic", "heuristic_cautious", field="heuristic", games=8, seed=3)
    distributed = compare("cut_v0", "heuristic", "heuristic_cautious", field="heuristic", games=8, seed=3,
                          ray_address="auto")
    for result in (one, distributed):
        result.a.seconds = result.b.seconds = 0.0
    assert distributed.to_dict(with_games=True) == one.to_dict(with_games=True)
