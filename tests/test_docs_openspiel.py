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


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_runs(snippet, tmp_path):
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_mini_table_shows_the_benchmarks_figures():
    page = json.loads((DOCS / "results" / "openspiel_mini.json").read_text())
    results = next(table["data"] for table in page["tables"] if table["id"] == "mini")
    text = (DOCS / "results" / "openspiel_mini.md").read_text()
    assert sorted(results) == sorted(MINI_VARIANTS)
    for ruleset, result in results.items():
        assert result["options"] == MINI_VARIANTS[ruleset], "the figures are for the shipped option set"
        assert f"{result['tree']['histories']:,}" in text
        assert result["cfr"]["final"] < result["cfr"]["uniform_exploitability"] / 100
        assert (DOCS / f"openspiel_cfr_{ruleset}.png").exists()
    assert cardenv.MINI_VARIANTS is MINI_VARIANTS
