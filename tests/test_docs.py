"""The docs' generated tables match the code, and the documented examples run."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_doc_tables_are_up_to_date():
    generate = _load(ROOT / "docs" / "generate.py")
    assert generate.stale_docs() == []


def test_worked_example_in_onefifty_docs_holds():
    """docs/onefifty.md, 'Worked example': player_1 calls strictly lowest (O-19)."""
    example = _load(ROOT / "examples" / "onefifty_scenario.py")
    result = example.play_worked_example(render=False)
    assert result.hand_totals == (16, 15, 34)
    assert result.points_added == (16, 0, 34)
    assert result.caller == 1


def test_random_play_example_prints_a_finished_game():
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "play_random.py"), "--seed", "3", "--every", "1000"],
        capture_output=True, text=True, check=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # also without an installed cardenv
    )
    assert "final scores:" in completed.stdout
    assert "game over" in completed.stdout


README_SNIPPETS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


@pytest.mark.parametrize("snippet", README_SNIPPETS, ids=lambda snippet: snippet.splitlines()[-1][:40])
def test_readme_python_snippets_run_in_a_fresh_interpreter(snippet, tmp_path):
    """A new user's first lines: nothing imported beforehand (gymnasium.make of a cardenv id
    needs cardenv imported first)."""
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_module_qualified_id_needs_no_import_of_cardenv(tmp_path):
    """The README's "cardenv:cardenv/..." form, for tools that take only an id."""
    snippet = ("import gymnasium\n"
               "env = gymnasium.make('cardenv:cardenv/cut-single-seat-v0')\n"
               "env.reset(seed=0)\n")
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
