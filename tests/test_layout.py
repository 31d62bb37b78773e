"""The package layout: moved modules keep their old import paths, and no module imports
itself around a circle of other modules."""

from __future__ import annotations

import ast
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
NEEDS_AN_EXTRA = {"cardenv.rllib"}  # the rllib extra


def test_old_import_paths_give_the_moved_modules_themselves():
    # A fresh interpreter, so that each old path is imported before its new one.
    script = f"""
import importlib
from cardenv.extras import MissingExtra
checked = []
for old, new in {MOVED!r}.items():
    try:
        via_old = importlib.import_module(old)
    except MissingExtra:  # its extra is not installed: nothing to compare
        if old not in {NEEDS_AN_EXTRA!r}:
            raise
        continue
    assert via_old is importlib.import_module(new), (old, new)
    public = [name for name in dir(via_old) if not name.startswith("_")]
    assert public and all(getattr(via_old, name) is getattr(importlib.import_module(new), name) for name in public)
    checked.append(old)
from cardenv.records import GameRecord
from cardenv.human.records import GameRecord as MovedGameRecord
assert GameRecord is MovedGameRecord
print(*checked)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=PACKAGE_DIR.parent)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) >= set(MOVED) - NEEDS_AN_EXTRA


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its file: at the top, inside
    functions, under any condition. ``from package import submodule`` names the submodule,
    ``from module import attribute`` the module; a moved module's old path
    (``alias(__name__, "new.path")``) imports the new one."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *filter(None, [node.module])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                named.add(submodule if submodule in modules else base)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "alias"
              and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)):
            named.add(node.args[1].value)
    return {module for module in named if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """A cycle for each back edge of a depth-first search: none exactly when the graph has none."""
    found, finished, stack = [], set(), []

    def visit(node: str) -> None:
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor in stack:
                found.append(stack[stack.index(successor):] + [successor])
            elif successor not in finished:
                visit(successor)
        stack.pop()
        finished.add(node)

    for node in sorted(graph):
        if node not in finished:
            visit(node)
    return found


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_import_graph_sees_imports_inside_functions_and_old_paths():
    graph = import_graph()
    assert "cardenv.agents.ismcts" in graph["cardenv.agents.registry"]  # imported inside a factory
    assert "cardenv.human.play" in graph["cardenv.play"]  # an old path
    assert "cardenv.onefifty_v0" in graph["cardenv"]  # from cardenv import onefifty_v0


def test_no_module_imports_itself_around_a_circle():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)
