"""The project's imports read from its source with ast (nothing is imported): which project module each
module imports at its top level, and which imports sit inside a function or class body. Shared by the
import tests of the engines (tests/engines/test_imports.py) and of the whole project (tests/test_imports.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(*packages: str, root: Path = ROOT) -> dict[str, Path]:
    """Every module of `packages` (folders under `root`), migrations aside, by dotted name."""
    return {
        module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


@dataclass(frozen=True)
class Nested:
    """An import inside a function or class body: where it is and what it imports."""

    line: int
    scope: str  # the enclosing function or class, dotted (`LeaguesConfig.ready`)
    module: str


@dataclass(frozen=True)
class Imports:
    top: frozenset[str]  # modules imported at the top level, `if TYPE_CHECKING:` blocks aside
    nested: tuple[Nested, ...]


def imported(node: ast.Import | ast.ImportFrom, name: str, modules: Mapping[str, Path]) -> list[str]:
    """The modules an import statement names: for `from package import module`, the module; relative
    imports resolved against `name`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = name.split(".") if modules[name].name == "__init__.py" else name.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([node.module] if node.module else [])])
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def _type_checking(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING")


def read_imports(name: str, modules: Mapping[str, Path]) -> Imports:
    tree = ast.parse(modules[name].read_text(), filename=str(modules[name]))
    top = {
        module
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for module in imported(node, name, modules)
    }
    nested: list[Nested] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, [*scope, child.name])
            elif isinstance(child, ast.Import | ast.ImportFrom) and scope:
                nested.extend(Nested(child.lineno, ".".join(scope), m) for m in imported(child, name, modules))
            elif not (isinstance(child, ast.stmt) and _type_checking(child)):
                visit(child, scope)

    visit(tree, [])
    return Imports(frozenset(top), tuple(nested))


def owning_module(module: str, modules: Mapping[str, Path]) -> str | None:
    """The project module an imported name belongs to (`games.play.turns.resolve_phase` -> `games.play.turns`)."""
    while module and module not in modules:
        module = module.rpartition(".")[0]
    return module or None


def import_graph(modules: Mapping[str, Path], *, nested: bool = True) -> dict[str, set[str]]:
    """Each module's project imports (top level, and with `nested` those inside functions too)."""
    graph: dict[str, set[str]] = {}
    for name in modules:
        found = read_imports(name, modules)
        names = set(found.top) | ({n.module for n in found.nested} if nested else set())
        graph[name] = {m for m in (owning_module(n, modules) for n in names) if m and m != name}
    return graph


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One import cycle (a path that comes back to its start), or None."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return path[path.index(name) :] + [name]
        if name in done:
            return None
        for other in sorted(graph.get(name, ())):
            cycle = visit(other, [*path, name])
            if cycle:
                return cycle
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = visit(name, [])
        if cycle:
            return cycle
    return None
