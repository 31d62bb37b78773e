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


def test_rllib_example_without_ray_names_the_extra():
    """Run where Ray is missing (blocked here, so the check does not depend on this venv):
    one line naming the extra, exit status 2, no traceback."""
    example = str(ROOT / "examples" / "rllib_selfplay.py")
    without_ray = ("import runpy, sys\n"
                   "sys.modules['ray'] = None  # import ray now fails as where Ray is not installed\n"
                   f"sys.argv = [{example!r}]\n"
                   f"runpy.run_path({example!r}, run_name='__main__')\n")
    completed = subprocess.run([sys.executable, "-c", without_ray], capture_output=True, text=True, cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.count("\n") == 1, completed.stderr
    assert "needs the 'rllib' extra" in completed.stderr and "pip install 'cardenv[rllib]'" in completed.stderr


def test_readme_test_command_is_what_ci_runs_on_the_main_install():
    """The README's test command is .ci/run's, verbatim, and installs the main install's
    versions: the rllib extra (whose Ray pins an older gymnasium) has a CI step of its own."""
    readme_commands = [line for line in (ROOT / "README.md").read_text().splitlines()
                       if line.startswith("python3 -m venv") and "pytest" in line]
    assert len(readme_commands) == 1, readme_commands
    assert readme_commands[0] in (ROOT / ".ci" / "run").read_text().splitlines()
    assert "pip install -e '.[train,test]' &&" in readme_commands[0]


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
