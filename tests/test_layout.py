"""The package layout: every import, at module level or inside a function, runs down the
layers (the registry, core, engine, games, the drawn table, envs, agents, integrations, the
command line); no module imports itself around a circle; a ruleset's package imports no
other ruleset's; and only the registry line, the ruleset's module and its own package name
a ruleset."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import cardenv
from cardenv.rulesets import ruleset_names

PACKAGE_DIR = Path(cardenv.__file__).parent

# Each layer imports only the ones below it (and itself). A module belongs to the first
# layer whose prefix it starts with.
LAYERS = [
    ("registry", ("cardenv.rulesets",)),
    ("core", ("cardenv.core",)),
    ("engine", ("cardenv.engine",)),
    ("games", ("cardenv.games",)),
    ("drawing", ("cardenv.drawing",)),
    ("envs", ("cardenv.envs", "cardenv.testing", *(f"cardenv.{name}" for name in ruleset_names()))),
    ("agents", ("cardenv.agents",)),
    ("integrations", ("cardenv.adapters", "cardenv.eval", "cardenv.train", "cardenv.human")),
    ("rating", ("cardenv.rating",)),
    ("face", ("cardenv.cli", "cardenv.__main__", "cardenv")),
]


def layer_of(module: str) -> int:
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            if module == "cardenv" and index != len(LAYERS) - 1:
                continue
            return index
    raise AssertionError(f"{module} is in no layer")


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
    functions, under any condition (``if TYPE_CHECKING`` too). ``from package import
    submodule`` names the submodule, ``from module import attribute`` the module."""
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


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports between the package's subpackages (``cardenv.agents`` -> ``cardenv.adapters``)."""
    def top(module: str) -> str:
        return ".".join(module.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for module, imports in graph.items():
        packages.setdefault(top(module), set()).update(top(other) for other in imports if top(other) != top(module))
    for imports in list(packages.values()):
        for other in imports:
            packages.setdefault(other, set())
    return packages


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_import_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "cardenv.agents.ismcts" in graph["cardenv.agents.specs"]  # imported inside a factory
    assert "cardenv.engine.encoders" in graph["cardenv.engine.observation"]  # imported when an observer is built
    assert "cardenv.adapters.registration" in graph["cardenv"]


def test_every_import_runs_down_the_layers():
    upward = [f"{module} ({LAYERS[layer_of(module)][0]}) imports {other} ({LAYERS[layer_of(other)][0]})"
              for module, imports in import_graph().items() for other in sorted(imports)
              if layer_of(other) > layer_of(module)]
    assert not upward, "imports that run back up: " + "; ".join(upward)


def test_the_layer_check_sees_an_upward_import():
    assert layer_of("cardenv.agents.ppo") > layer_of("cardenv.envs.frame_stack") > layer_of("cardenv.games.cut.rules")
    assert layer_of("cardenv.adapters.rllib") > layer_of("cardenv.agents.specs")
    assert layer_of("cardenv") > layer_of("cardenv.cli") - 1 and layer_of("cardenv.rulesets") == 0


def test_no_module_imports_itself_around_a_circle():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def test_no_subpackage_imports_itself_around_a_circle():
    found = cycles(package_graph(import_graph()))
    assert not found, "subpackage cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def test_a_rulesets_package_imports_no_other_ruleset():
    crossing = [f"{module} imports {other}" for module, imports in import_graph().items()
                if module.startswith("cardenv.games.") for other in imports
                if other.startswith("cardenv.games.") and other.split(".")[2] != module.split(".")[2]]
    assert not crossing, "; ".join(crossing)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_a_ruleset_is_named_only_by_its_registry_line_its_module_and_its_package(ruleset):
    game = ruleset.removesuffix("_v0")
    own = {PACKAGE_DIR / "rulesets.py", PACKAGE_DIR / f"{ruleset}.py"}
    pattern = re.compile(rf"\b{re.escape(game)}(_v0|_mini)?\b", re.IGNORECASE)
    naming = sorted(str(path.relative_to(PACKAGE_DIR)) for path in PACKAGE_DIR.rglob("*.py")
                    if PACKAGE_DIR / "games" / game not in path.parents and path not in own
                    and pattern.search(path.read_text()))
    # The package face's docstring names one ruleset as its example.
    assert naming in ([], ["__init__.py"]), naming
