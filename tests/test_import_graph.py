"""No import cycles among stagehand_py's modules.

The graph counts every import a module can run: top-level ones, function-local ones, and the
``__init__`` of each package an import passes through (importing ``pkg.a.b`` runs ``pkg.a``'s
``__init__`` first). Imports under ``if TYPE_CHECKING:`` never run, so they are left out; so
is the top package's own ``__init__`` (the public face, which imports nearly everything).
Built from the source with ``ast`` alone: nothing is imported to draw it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import stagehand_py

PACKAGE_ROOT = Path(stagehand_py.__file__).parent


def module_files(root: Path) -> dict[str, Path]:
    """Every module under the package directory ``root``, by dotted name."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree`` that can run, at any depth, except the body of an
    ``if TYPE_CHECKING:`` (its ``else:`` does run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.orelse:
                yield from runtime_imports(ast.Module(body=[statement], type_ignores=[]))
        else:
            yield from runtime_imports(node)


def imported_names(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]
) -> list[str]:
    """The absolute module names an import statement in ``module`` names: the module after
    ``from`` (or each ``import``ed one) and every imported name that is itself a module."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    names = [target]
    names += [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
    return names


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules importing it runs, inside the package at ``root``."""
    top = root.name
    modules = module_files(root)
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    graph: dict[str, set[str]] = {name: set() for name in modules if name != top}
    for module in graph:
        tree = ast.parse(modules[module].read_text(encoding="utf-8"))
        for node in runtime_imports(tree):
            for name in imported_names(module, module in packages, node, modules):
                parts = name.split(".")
                if parts[0] != top:
                    continue
                # Importing a.b.c runs a, then a.b, then a.b.c; the top package is aside, and
                # a package that encloses ``module`` is already running.
                for depth in range(2, len(parts) + 1):
                    step = ".".join(parts[:depth])
                    if step not in modules or step == module:
                        continue
                    if step in packages and module.startswith(step + "."):
                        continue
                    graph[module].add(step)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively),
    each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is not None:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                elif successor in on_stack:
                    low[node] = min(low[node], index[successor])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def loop_through(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One concrete loop inside ``component``, from its first module back to it."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for successor in sorted(graph[node] & members):
            if successor == start:
                return [*paths[node], start]
            if successor not in paths:
                paths[successor] = [*paths[node], successor]
                queue.append(successor)
    return component


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_ROOT)
    found = [f"{', '.join(c)}\n  e.g. {' -> '.join(loop_through(graph, c))}" for c in cycles(graph)]
    assert not found, "import cycles among these modules:\n" + "\n".join(found)


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_cycle_through_a_late_import_and_a_package_init_is_found(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .low import x\nfrom .sub import y\n",
            "pkg/low.py": "def f():\n    from .sub.leaf import z\n",
            "pkg/sub/__init__.py": "from pkg.mid import w\n",
            "pkg/sub/leaf.py": "z = 1\n",
            "pkg/mid.py": "import pkg.low\n",
            "pkg/alone.py": "from . import mid\n",
        },
    )
    graph = import_graph(root)
    assert "pkg" not in graph
    assert graph["pkg.low"] == {"pkg.sub", "pkg.sub.leaf"}
    assert graph["pkg.alone"] == {"pkg.mid"}
    # leaf.py imports nothing: the loop runs through sub's __init__ alone.
    assert cycles(graph) == [["pkg.low", "pkg.mid", "pkg.sub"]]
    assert loop_through(graph, cycles(graph)[0]) == ["pkg.low", "pkg.sub", "pkg.mid", "pkg.low"]


def test_type_checking_imports_and_enclosing_packages_are_no_edges(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": (
                "import typing\nfrom typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .b import B\n"
                "if typing.TYPE_CHECKING:\n    from . import b\nelse:\n    from . import c\n"
            ),
            "pkg/b.py": "from .a import A\n",
            "pkg/c.py": "",
            "pkg/sub/__init__.py": "from .inner import v\n",
            "pkg/sub/inner.py": "from ..sub import other\nfrom pkg.sub import other\n",
            "pkg/sub/other.py": "",
        },
    )
    graph = import_graph(root)
    assert graph["pkg.a"] == {"pkg.c"}
    assert graph["pkg.sub.inner"] == {"pkg.sub.other"}
    assert cycles(graph) == []
