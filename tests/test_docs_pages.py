"""The snippets of the user docs run: docs/index.md, agents.md, training.md and
adding-a-ruleset.md (the ruleset pages' snippets too).

Every ```python block begins with a marker line:

- ``# runs in the tests``: run in a fresh interpreter, in a temporary folder;
- ``# runs in the tests (slow)``: the same, in the slow run (``pytest -m slow``);
- ``# documentation only: WHY``: not run (it needs something the tests cannot have).

A ```bash block that begins with ``# runs in the tests`` is run by bash in a temporary
folder, ``cardenv`` being this checkout's command line; other shell blocks are commands to
read, not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ["index.md", "agents.md", "training.md", "adding-a-ruleset.md", "rating.md",
         "onefifty.md", "cut.md", "kaboom.md", "carte.md"]
RUN = "# runs in the tests"
SLOW = "# runs in the tests (slow)"
DOCUMENTATION_ONLY = "# documentation only:"


def _blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / page).read_text(), re.S)


def _cases(language: str):
    for page in PAGES:
        for number, snippet in enumerate(_blocks(page, language)):
            first = snippet.splitlines()[0]
            if first == SLOW:
                yield pytest.param(snippet, id=f"{page}-{number}", marks=pytest.mark.slow)
            elif first == RUN:
                yield pytest.param(snippet, id=f"{page}-{number}")


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def test_every_python_snippet_says_whether_it_runs():
    for page in PAGES:
        for snippet in _blocks(page, "python"):
            first = snippet.splitlines()[0]
            assert first in (RUN, SLOW) or first.startswith(DOCUMENTATION_ONLY), f"{page}: {first}"


def test_the_user_pages_have_runnable_snippets():
    for page in ("index.md", "agents.md", "training.md", "adding-a-ruleset.md"):
        assert any(s.startswith((RUN, SLOW)) for s in _blocks(page, "python")), page
    assert any(s.startswith(RUN) for s in _blocks("index.md", "bash")), "the worked training example runs"


@pytest.mark.parametrize("snippet", list(_cases("python")))
def test_python_snippet_runs(snippet, tmp_path):
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env=_env())
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("snippet", list(_cases("bash")))
def test_shell_snippet_runs(snippet, tmp_path):
    script = f'cardenv() {{ "{sys.executable}" -m cardenv "$@"; }}\nset -e\n{snippet}'
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=_env())
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])


def test_no_page_is_too_long():
    for page in [*PAGES, "integrations.md", "openspiel.md", "performance.md", *(f"results/{p.name}" for p in
                                                                                (DOCS / "results").glob("*.md"))]:
        lines = (DOCS / page).read_text().count("\n")
        assert lines <= 425, f"{page}: {lines} lines (about 400 at most)"


def test_the_docs_and_readme_point_at_no_file_outside_the_repository():
    for path in [ROOT / "README.md", *DOCS.glob("*.md")]:
        text = path.read_text()
        # The builders' documents outside the repository (spelled in pieces, so that this
        # file does not name them either).
        for banned in ("../" + "shared", "DESIGN" + ".md", "rules" + "/"):
            assert banned not in text, f"{path.name} mentions {banned}"


def test_relative_links_of_the_user_pages_resolve():
    """Links to files that exist (the results pages too: benchmarks/results.py generates them)."""
    for page in [*PAGES, "integrations.md", "openspiel.md", "performance.md"]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", (DOCS / page).read_text()):
            assert (DOCS / target).exists(), f"{page} links to {target}"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+ (.*)$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_anchors_of_links_between_the_pages_exist():
    for page in [*PAGES, "integrations.md", "openspiel.md"]:
        for target, anchor in re.findall(r"\]\(([^)#:]*)#([^)]+)\)", (DOCS / page).read_text()):
            path = DOCS / (target or page)
            assert path.exists(), f"{page} links to {target}"
            assert anchor in _anchors(path), f"{page} links to {target or page}#{anchor}"
