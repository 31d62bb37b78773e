"""docs/integrations.md: every snippet is marked, and the ones marked as run, run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
RUN = "# runs in the tests"
DOCUMENTATION_ONLY = "# documentation only:"


def test_every_snippet_says_whether_it_runs():
    assert len(SNIPPETS) >= 3
    for snippet in SNIPPETS:
        first = snippet.splitlines()[0]
        assert first == RUN or first.startswith(DOCUMENTATION_ONLY), first


@pytest.mark.parametrize("snippet", [s for s in SNIPPETS if s.startswith(RUN)])
def test_snippet_runs(snippet, tmp_path):
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
