"""docs/openspiel.md: its snippets run; the mini variants' results page shows the benchmark's figures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cardenv
from cardenv import MINI_VARIANTS

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = DOCS / "openspiel.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)


def test_every_snippet_runs_in_the_tests():
    assert len(SNIPPETS) >= 2 and all(s.startswith("# runs in the tests") for s in SNIPPETS)


SLOW = "# runs in the tests (slow)"


@pytest.mark.parametrize("snippet", [pytest.param(s, marks=pytest.mark.slow) if s.startswith(SLOW) else s
                                     for s in SNIPPETS])
def test_snippet_runs(snippet, tmp_path):
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


def stored_mini_figures() -> dict:
    """The mini variants' figures, by ruleset, as benchmarks/openspiel_mini.py stored them."""
    page = json.loads((DOCS / "results" / "openspiel_mini.json").read_text())
    return next(table["data"] for table in page["tables"] if table["id"] == "mini")


def test_the_mini_table_shows_the_benchmarks_figures():
    results = stored_mini_figures()
    text = (DOCS / "results" / "openspiel_mini.md").read_text()
    assert sorted(results) == sorted(MINI_VARIANTS)
    for ruleset, result in results.items():
        assert result["options"] == MINI_VARIANTS[ruleset], "the figures are for the shipped option set"
        assert f"{result['tree']['histories']:,}" in text
        assert result["cfr"]["final"] < result["cfr"]["uniform_exploitability"] / 100
        assert (DOCS / f"openspiel_cfr_{ruleset}.png").exists()
    assert cardenv.MINI_VARIANTS is MINI_VARIANTS


# The live check costs a whole tree: on carte_v0's mini variant, the smallest (29,315
# histories), this test took 17 s alone on the 2-core test machine (34 s for the tree
# and the uniform policy's exploitability while other jobs ran, then 1.5 s per CFR+
# iteration), over the default run's ~10 s a test: it is slow, and the default run
# checks the stored figures above.
@pytest.mark.slow
def test_live_cfr_plus_agrees_with_the_stored_curve_on_the_smallest_mini_variant():
    """The first points of the stored CFR+ curve (benchmarks/openspiel_mini.py's
    ``solve``: iteration 1 is the uniform policy), computed again now."""
    pyspiel = pytest.importorskip("pyspiel")
    from cardenv.adapters import openspiel as cardenv_openspiel

    results = stored_mini_figures()
    ruleset = min(results, key=lambda r: results[r]["tree"]["histories"])
    assert ruleset == "carte_v0"
    stored = results[ruleset]["cfr"]
    game = pyspiel.load_game(f"cached_tree(game={cardenv_openspiel.game_name(ruleset, mini=True)}())")
    uniform = pyspiel.exploitability(game, pyspiel.UniformRandomPolicy(game))
    assert uniform == pytest.approx(stored["uniform_exploitability"], rel=1e-9)
    solver = pyspiel.CFRPlusSolver(game)
    for iteration, value in stored["curve"][:3]:
        solver.evaluate_and_update_policy()
        assert pyspiel.exploitability(game, solver.average_policy()) == pytest.approx(value, rel=1e-9), iteration
