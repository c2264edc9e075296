"""The package's import graph has no cycles and no upward imports (docs/architecture.md,
"Layer order", whose table this test reads).

Every module is parsed (not imported), and every import counts: module level, inside
functions and under `TYPE_CHECKING`, since each is a dependency a reader has to follow. A
module's package is its first name under `todo_ls/` (`todo_ls/supervisor/runtime.py`:
`supervisor`; `todo_ls/cli.py`: `cli`; `todo_ls/__init__.py`: `__init__`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "todo_ls"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its `__init__`)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = modules()


def imported(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """The package modules `name` imports, each with the line of its import."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            # `from pkg import mod` names the module; `from mod import thing`, the module.
            targets = [
                f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in MODULES else prefix
                for alias in node.names
            ]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target, node.lineno


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_table() -> dict[str, int]:
    """Package -> layer number, from the "Layer order" table of docs/architecture.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("### Layer order", 1)[1].split("\n#", 1)[0]
    layers: dict[str, int] = {}
    for row in re.finditer(r"^\| (\d+) \| ([^|]+) \|", section, re.MULTILINE):
        for package in re.findall(r"`([^`]+)`", row.group(2)):
            assert package not in layers, f"{package} is in two layers of the table"
            layers[package] = int(row.group(1))
    assert layers, "docs/architecture.md has no layer table under `### Layer order`"
    return layers


def graph() -> dict[str, dict[str, int]]:
    """Module -> {imported module: line}."""
    edges: dict[str, dict[str, int]] = {}
    for name, path in MODULES.items():
        edges[name] = {}
        for target, line in imported(name, path):
            edges[name].setdefault(target, line)
    return edges


def cycles(edges: Mapping[str, set[str] | Mapping[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one node (each is a cycle or several)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_package_has_a_layer() -> None:
    layers = layer_table()
    missing = sorted({package_of(m) for m in MODULES} - set(layers))
    assert missing == [], f"packages with no row in docs/architecture.md's layer table: {missing}"
    stale = sorted(set(layers) - {package_of(m) for m in MODULES})
    assert stale == [], f"the layer table names packages that do not exist: {stale}"


def test_no_module_imports_from_a_higher_layer() -> None:
    layers = layer_table()
    upward = [
        f"{MODULES[source].relative_to(ROOT)}:{line} imports {target} "
        f"(layer {layers[package_of(target)]} above {layers[package_of(source)]})"
        for source, targets in graph().items()
        for target, line in targets.items()
        if layers.get(package_of(target), 0) > layers.get(package_of(source), 0)
    ]
    assert upward == []


def test_no_import_cycles_between_modules() -> None:
    assert cycles(graph()) == []


def test_no_import_cycles_between_packages() -> None:
    packages: dict[str, set[str]] = {}
    for source, targets in graph().items():
        for target in targets:
            if package_of(source) != package_of(target):
                packages.setdefault(package_of(source), set()).add(package_of(target))
    assert cycles(packages) == []


def test_the_checker_sees_what_it_must() -> None:
    """The graph is not empty by accident: known imports of each kind are found (a function's
    own import, one under TYPE_CHECKING, a relative-free `from package import module`)."""
    edges = graph()
    assert "todo_ls.supervisor.runtime" in edges["todo_ls.supervisor.service"]  # in a function
    assert "todo_ls.hosts.base" in edges["todo_ls.supervisor.service"]  # TYPE_CHECKING
    assert "todo_ls.checklist" in edges["todo_ls.workspace"]  # `from todo_ls import checklist`
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
