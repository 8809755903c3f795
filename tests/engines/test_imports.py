"""The engine layer's imports: every project import at the top of its module (none inside a function, so
what a module needs shows in its first lines), no import cycle between its modules, and nothing from
Django or the rest of the project (engines are pure)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "games" / "engines"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(ENGINES.rglob("*.py"))}


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (for `from package import module`, the module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]


def imports(path: Path) -> tuple[list[str], list[tuple[int, str]]]:
    """(modules imported at the top level, (line, module) of imports nested in a function or class)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top += imported(node)
    nested = [
        (inner.lineno, name)
        for outer in ast.walk(tree)
        if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for inner in ast.walk(outer)
        if isinstance(inner, (ast.Import, ast.ImportFrom))
        for name in imported(inner)
    ]
    return top, nested


def test_no_engine_module_imports_inside_a_function() -> None:
    nested = [f"{name} line {line}: {module}" for name, path in MODULES.items() for line, module in imports(path)[1]]
    assert nested == []


def test_the_engine_modules_import_each_other_without_a_cycle() -> None:
    graph = {name: {m for m in imports(path)[0] if m in MODULES and m != name} for name, path in MODULES.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycle = path[path.index(name) :] + [name]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for other in sorted(graph[name]):
            visit(other, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_engines_import_nothing_from_django_or_the_rest_of_the_project() -> None:
    outside = [
        f"{name}: {module}"
        for name, path in MODULES.items()
        for module in imports(path)[0] + [m for _, m in imports(path)[1]]
        if module.split(".")[0] in {"django", "pbem", "celery", "anymail"}
        or (module.startswith("games.") and not module.startswith("games.engines"))
    ]
    assert outside == []
