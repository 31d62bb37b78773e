"""The benchmark script runs: every cardenv row gives a positive rate, and a peer that
cannot be loaded is skipped, not an error. No timing is asserted (only that play happened)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

import cardenv

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_envs.py"


def load_script(name: str):
    """A script of benchmarks/ as a module (its folder on the path, as when it runs)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPT.parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_envs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_cardenv_row_plays(bench, tmp_path, capsys):
    out = tmp_path / "bench.json"
    result = bench.main(["--seconds", "0.1", "--repeats", "1", "--only", "cardenv", "--json", str(out)])
    rates = result["decisions_per_second"]
    rulesets = bench.cardenv_rulesets()
    assert {"onefifty_v0", "cut_v0", "kaboom_v0"} <= set(rulesets)
    assert all(hasattr(cardenv, r) for r in rulesets)
    for ruleset in rulesets:
        for row in ("env()", "raw engine + observations", "raw engine, no observations"):
            assert rates[f"cardenv {ruleset} {row}"] > 0
    assert all(name.startswith("cardenv") for name in rates)
    assert result["skipped"] == []
    assert out.read_text().startswith("{")
    assert "cardenv onefifty_v0 env()" in capsys.readouterr().out


def test_missing_peer_is_skipped(bench, monkeypatch, capsys):
    def unavailable(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(bench, "load_module", unavailable)
    result = bench.main(["--seconds", "0.05", "--repeats", "1", "--only", "leduc", "--only", "gin_rummy"])
    assert result["decisions_per_second"] == {}
    assert len(result["skipped"]) == 2
    assert any("leduc_holdem_v4" in line for line in result["skipped"])
    assert any("gin_rummy" in line for line in result["skipped"])
    printed = capsys.readouterr().out
    assert printed.count("skipped:") == 2


def test_env_is_seeded_once_per_run(bench):
    calls = []

    class Recorder:
        """A one-step, one-agent AEC env that records how it is reset."""

        def reset(self, seed=None):
            calls.append(seed)
            self.agents = ["a"]
            self._done = False

        def last(self):
            return {"action_mask": [1]}, 0.0, self._done, False, {}

        def step(self, action):
            if self._done:
                self.agents = []
            self._done = True

        def close(self):
            pass

    decisions, elapsed = bench.aec_runner(Recorder, seed=7)(0.01)
    assert decisions > 1 and elapsed > 0
    assert calls[0] == 7 and len(calls) > 1 and all(seed is None for seed in calls[1:])


def test_players_benchmark_measures_every_player_count(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_players", SCRIPT.parent / "bench_players.py")
    players = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(players)
    out = tmp_path / "scaling.json"
    result = players.main(["--seconds", "0.05", "--repeats", "1", "--only", "kaboom_v0", "--json", str(out)])
    rows = result["rows"]
    assert [row["players"] for row in rows] == list(players.PLAYER_COUNTS["kaboom_v0"])
    for row in rows:
        assert row["decisions_per_second"] > 0 and row["us_per_observation"] > 0
        assert row["memory_bytes"] > 0
    # More players, a longer observation.
    sizes = [row["observation_size"] for row in rows]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    assert out.read_text().startswith("{")
    with pytest.raises(SystemExit):
        players.main(["--only", "poker_v0"])


def test_strength_table_fills_every_cell_and_keeps_finished_ones(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("strength_table", SCRIPT.parent / "strength_table.py")
    strength = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strength)
    out, tables = tmp_path / "strength.json", tmp_path / "strength.md"
    argv = ["--rulesets", "onefifty_v0", "--games", "4", "--search-games", "4", "--budgets", "1", "2",
            "--search", "candidate", "--env-arg", "single_round=True", "--skip", "ismcts:2 vs random*",
            "--cell-games", "* vs heuristic=8", "--json", str(out), "--markdown", str(tables)]
    strength.main(argv)
    results = json.loads(out.read_text())
    agents = strength.agents_for("onefifty_v0", [1, 2])
    assert agents[:5] == ["random", "random_no_call", "heuristic", "ismcts:1", "ismcts:2"]
    assert agents[-3:] == ["ppo:pretrained", "ppo:pretrained_guided", "ppo:pretrained_mmd"]  # where they ship
    assert not {"ppo:pretrained_guided", "ppo:pretrained_mmd"} & set(strength.agents_for("carte_v0", [1]))
    fields = [a for a in agents if not a.startswith("ismcts")]
    assert sorted(results) == sorted(strength.cell_key("onefifty_v0", c, f) for c in agents for f in fields
                                     if not (c == "ismcts:2" and f.startswith("random")))
    assert {cell["games"] for cell in results.values() if cell["field"] == "heuristic"} == {8}
    assert {cell["games"] for cell in results.values() if cell["field"] != "heuristic"} == {4}
    for cell in results.values():
        assert 0 <= cell["ci95"][0] <= cell["win_share"] <= cell["ci95"][1] <= 1
        assert cell["command"].endswith("--seed 0 --env-arg single_round=True")
    assert "| heuristic | " in tables.read_text()

    def no_more_games(*args, **kwargs):
        raise AssertionError("a finished cell was played again")

    monkeypatch.setattr(strength, "run_tournament", no_more_games)
    strength.main(argv)


def test_the_parts_benchmark_measures_every_part_and_puts_each_back(tmp_path):
    """``bench_parts.py`` takes each part out in turn; afterwards every class and module
    holds its own code again (the same observations, events and records as before)."""
    spec = importlib.util.spec_from_file_location("bench_parts", SCRIPT.parent / "bench_parts.py")
    parts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parts)

    def snapshot(ruleset):
        raw = getattr(cardenv, ruleset).raw_env()
        raw.reset(seed=3)
        for _ in range(20):
            raw.step(int(raw.game.legal_actions()[0]))
        game = raw.game
        return raw.observer.observe(game, game.current_player).tolist(), len(game.events), game.event_records.tolist()

    before = {ruleset: snapshot(ruleset) for ruleset in ("onefifty_v0", "carte_v0")}
    result = parts.main(["--seconds", "0.02", "--repeats", "1", "--only", "onefifty_v0", "--only", "carte_v0",
                         "--json", str(tmp_path / "parts.json")])
    for ruleset, figures in result["rulesets"].items():
        timings = figures["us_per_decision"]
        assert "without the observation" in timings and "without the engine's event log" in timings
        assert all(0 < us < float("inf") for us in timings.values())
    assert "without the compiled call" in result["rulesets"]["onefifty_v0"]["us_per_decision"]
    assert "without gathering the state's facts" in result["rulesets"]["carte_v0"]["us_per_decision"]
    assert {ruleset: snapshot(ruleset) for ruleset in before} == before
    assert (tmp_path / "parts.json").read_text().startswith("{")


def test_the_best_response_benchmark_runs_end_to_end_and_keeps_finished_targets(tmp_path, capsys, monkeypatch):
    module = load_script("best_response")
    out = tmp_path / "br.json"
    argv = ["--rulesets", "onefifty_v0", "--targets", "heuristic", "random_no_call", "--timesteps", "4096",
            "--games", "4", "--runs", str(tmp_path / "runs"), "--json", str(out), "--markdown", str(tmp_path / "br.md"),
            "--env-arg", "single_round=True", "--env-arg", "max_turns_per_round=30"]
    assert module.main(argv) == 0
    rows = json.loads(out.read_text())
    assert [r["target"] for r in rows] == ["heuristic", "random_no_call"]
    for row in rows:
        assert 0.0 <= row["ci95"][0] <= row["win_share"] <= row["ci95"][1] <= 1.0
        assert row["games"] == 4 and row["timesteps"] >= 4096 and row["recipe"] == "guided"
        assert (tmp_path / "runs" / f"onefifty_v0-{row['target']}" / "final_model.zip").exists()
    assert "| onefifty_v0 | heuristic |" in (tmp_path / "br.md").read_text()
    assert module.main(argv) == 0  # a rerun measures nothing again
    assert json.loads(out.read_text()) == rows
    # --record puts the rows (env options and all) into the results page, and a rerun replaces them
    results = load_script("results")
    monkeypatch.setitem(sys.modules, "results", results)
    monkeypatch.setattr(results, "RESULTS", tmp_path / "results")
    for _ in range(2):
        assert module.main(argv + ["--record"]) == 0
        recorded = json.loads((tmp_path / "results" / "best_response.json").read_text())["tables"][0]["data"]["rows"]
        assert [(r["target"], r["env_kwargs"]) for r in recorded] == [
            (target, {"single_round": True, "max_turns_per_round": 30}) for target in ("heuristic", "random_no_call")]
    assert module.main(["--targets", "nobody"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_the_search_benchmark_measures_every_row_against_a_baseline(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_search", SCRIPT.parent / "bench_search.py")
    search = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(search)
    out = tmp_path / "search.json"
    # The baseline is this checkout itself: its ismcts:N row and the baseline's measure the same code.
    result = search.main(["--rulesets", "cut_v0", "--budgets", "3", "--decisions", "1", "--repeats", "1",
                          "--peer-decisions", "1", "--baseline", str(SCRIPT.parents[1]), "--json", str(out)])
    rows = {row["search"]: row for row in result["rows"]}
    assert {"baseline ismcts:3", "ismcts:3", "ismcts:3/static", "ismcts:3@ppo:pretrained",
            "ismcts:3/value@ppo:pretrained", "ismcts:3/next_value@ppo:pretrained"} <= set(rows)
    for row in rows.values():
        assert row["simulations_per_second"] > 0 and row["decisions"] >= 1
        assert 1 <= row["simulations"] <= 3 * row["decisions"]
        assert row["ratio_to_baseline"] > 0
    # The peer row: open_spiel comes with the test extra, so a skipped peer is a failure.
    assert "openspiel ISMCTSBot:3" in rows, result["skipped"]
    assert not any("ISMCTSBot" in line for line in result["skipped"]), result["skipped"]
    assert out.read_text().startswith("{")
    with pytest.raises(SystemExit):
        search.main(["--budgets", "0"])


def test_the_search_gain_benchmark_records_a_paired_row_per_cell_and_keeps_other_cells(tmp_path, monkeypatch):
    """benchmarks/search_gain.py: search:W@BLUEPRINT against its blueprint on the same games,
    one row per (ruleset, blueprint, field, worlds); a later run keeps the other cells'."""
    gain = load_script("search_gain")
    monkeypatch.setattr(gain.results, "RESULTS", tmp_path)
    argv = ["--rulesets", "onefifty_v0", "--blueprints", "heuristic", "--games", "4", "--worlds", "1", "--record"]
    assert gain.main(argv + ["--fields", "blueprint", "random_no_call"]) == 0
    assert gain.main(argv + ["--fields", "blueprint"]) == 0
    assert gain.main(argv + ["--fields", "blueprint", "--search-option", "z=3", "--env-arg", "single_round=True"]) == 0
    page = json.loads((tmp_path / "search.json").read_text())
    rows = page["tables"][0]["data"]["rows"]
    assert sorted(r["field"] for r in rows) == ["blueprint", "blueprint", "random_no_call"]
    assert [(r["options"], r["env_kwargs"]) for r in rows][-1] == ({"z": 3}, {"single_round": True})
    for row in rows:
        assert row["games"] == 4 and row["worlds"] == 1 and 0 <= row["games_differing"] <= 4
        low, high = row["points_gain_ci95"]
        assert low <= row["points_gain"] <= high and row["ms_per_decision"] > 0
        assert 0 < row["searched_share"] <= 1 and 0 <= row["deviation_share"] <= row["searched_share"]
    page = (tmp_path / "search.md").read_text()
    assert "| 2 | onefifty_v0 | `search:1@heuristic` | `heuristic` | 4 (" in page
    assert "| 3 | onefifty_v0 | `search:1@heuristic` single_round=True z=3 | `heuristic` | 4 (" in page
    # each row names the command that plays it again
    again = ("3. `python benchmarks/search_gain.py --rulesets onefifty_v0 --blueprints heuristic --fields blueprint "
             "--games 4 --worlds 1 --seed 480000 --env-arg single_round=True --search-option z=3` (")
    assert again in page
    for bad in (["--search-option", "zz=1"], ["--search-option", "reward=wins"], ["--env-arg", "memory=some"],
                ["--fields", "nobody"], ["--search-option", "belief=exact"]):
        with pytest.raises(SystemExit) as error:
            gain.main(argv + bad)
        assert error.value.code == 2


def test_the_training_benchmark_measures_the_view_beside_a_null_env(tmp_path, monkeypatch):
    """benchmarks/bench_training.py: the view alone and PPO on it, for each field, beside PPO
    on a null env; ``--record`` puts the figures into the speed results page."""
    module = load_script("bench_training")
    monkeypatch.setattr(sys.modules["results"], "RESULTS", tmp_path / "results")
    out = tmp_path / "training.json"
    result = module.main(["--opponents", "random_no_call", "--view-steps", "50", "--repeats", "1",
                          "--segments", "1", "--segment-steps", "512", "--json", str(out), "--record"])
    assert list(result["view_us_per_step"]) == ["random_no_call"]
    assert result["view_us_per_step"]["random_no_call"] > 0
    assert set(result["ppo_steps_per_second"]) == {"null env", "random_no_call"}
    assert result["ratio"]["random_no_call"] > 0
    assert json.loads(out.read_text())["ruleset"] == "onefifty_v0"
    recorded = json.loads((tmp_path / "results" / "speed.json").read_text())["tables"][0]
    assert recorded["id"] == "training" and recorded["data"] == json.loads(out.read_text())
    assert recorded["command"].startswith("python benchmarks/bench_training.py --opponents random_no_call")
    assert set(recorded["measured"]) == {"date", "commit", "machine"}
    page = (tmp_path / "results" / "speed.md").read_text()
    assert "| random_no_call | " in page and "| null env | – | " in page and recorded["command"] in page


def test_the_results_pages_are_up_to_date():
    """docs/results/<name>.md are what benchmarks/results.py draws from the JSON beside them."""
    results = load_script("results")
    assert results.names() == ["best_response", "equilibrium_learners", "leaderboard", "openspiel_mini", "search",
                               "speed", "strength"]
    assert results.stale_pages() == []


def test_every_results_table_names_its_command_and_when_it_was_measured():
    results = load_script("results")
    for name in results.names():
        page = results.load(name)
        for table in page["tables"]:
            assert table["kind"] in results.RENDERERS
            assert table["command"].startswith(("python benchmarks/", "cardenv eval ")), table["id"]
            assert table["measured"].get("date") and table["measured"].get("machine"), table["id"]
        assert len(results.render(page, name).splitlines()) <= 400


def test_a_win_share_without_an_interval_gets_wilsons():
    results = load_script("results")
    from cardenv.eval.intervals import wilson_interval

    assert results.wilson(0.25, 40) == pytest.approx(wilson_interval(10, 40))
    assert results.share_text({"win_share": 0.25, "games": 40}).endswith("†")
    assert results.share_text({"win_share": 0.25, "ci95": [0.1, 0.4], "games": 40}) == "0.250 [0.100, 0.400]"


def test_the_results_check_exits_1_on_a_stale_page(tmp_path, monkeypatch, capsys):
    results = load_script("results")
    monkeypatch.setattr(results, "RESULTS", tmp_path)
    monkeypatch.setattr(results, "ROOT", tmp_path)
    results.save("speed", results.load("speed"))
    assert results.main(["--check"]) == 0
    (tmp_path / "speed.md").write_text("# Speed results\n\ntyped by hand\n")
    assert results.main(["--check"]) == 1
    assert "out of date: speed.md" in capsys.readouterr().out
    assert results.main([]) == 0 and results.main(["--check"]) == 0
