"""The package layout: moved modules keep their old import paths."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cardenv

PACKAGE_DIR = Path(cardenv.__file__).parent

# old import path -> where the module lives now (the README's Layout section)
MOVED = {
    "cardenv.play": "cardenv.human.play",
    "cardenv.records": "cardenv.human.records",
    "cardenv.replay_html": "cardenv.human.replay_html",
    "cardenv.registry": "cardenv.adapters.registration",
    "cardenv.rllib": "cardenv.adapters.rllib",
    "cardenv.testing_oracles": "cardenv.testing.oracles",
}
NEEDS_RAY = {"cardenv.rllib"}


def test_old_import_paths_give_the_moved_modules_themselves():
    # A fresh interpreter, so that each old path is imported before its new one.
    script = f"""
import importlib, importlib.util
moved = {MOVED!r}
if importlib.util.find_spec("ray") is None:
    moved = {{old: new for old, new in moved.items() if old not in {NEEDS_RAY!r}}}
for old, new in moved.items():
    via_old = importlib.import_module(old)
    assert via_old is importlib.import_module(new), (old, new)
    public = [name for name in dir(via_old) if not name.startswith("_")]
    assert public and all(getattr(via_old, name) is getattr(importlib.import_module(new), name) for name in public)
from cardenv.records import GameRecord
from cardenv.human.records import GameRecord as MovedGameRecord
assert GameRecord is MovedGameRecord
print("checked", len(moved))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=PACKAGE_DIR.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("checked")

