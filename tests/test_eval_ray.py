"""Distributed tournaments: a local Ray cluster plays exactly the games of one process."""

from __future__ import annotations

import json

import pytest

from cardenv.cli import main
from cardenv.eval import run_tournament

# Ray is imported by the fixture: a run without it collects this module and deselects it
# (pyproject's addopts); CI runs it in the venv that has Ray (pytest -m ray).
pytestmark = pytest.mark.ray


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
