"""The project's imports, read from the source (tests/import_graph.py), as ruff's PLC0415 also checks:
every project import at the top of its module but an app's ready() (what a module needs shows in its first
lines), no import cycle between the project's modules, and enqueueing after commit goes one way, from the
services to games.outgoing.dispatch by a task's name: only an app's ready() imports a tasks module."""

from __future__ import annotations

from tests.import_graph import find_cycle, import_graph, project_modules, read_imports

MODULES = project_modules("games", "pbem")
TASKS = {"games.play.tasks", "games.leagues.tasks"}


def in_ready(scope: str) -> bool:
    # Django loads the models first, then calls each AppConfig.ready(): the one place for imports that need
    # the models loaded (receivers, checks, tasks) in a module Django imports before them.
    return scope.endswith("Config.ready")


def test_no_project_module_is_imported_inside_a_function_but_an_apps_ready() -> None:
    nested = [
        f"{name} line {n.line} ({n.scope}): {n.module}"
        for name in MODULES
        for n in read_imports(name, MODULES).nested
        if n.module.split(".")[0] in {"games", "pbem"} and not in_ready(n.scope)
    ]
    assert nested == []


def test_the_project_modules_import_each_other_without_a_cycle() -> None:
    assert find_cycle(import_graph(MODULES)) is None


def test_a_cycle_is_found_and_named() -> None:
    graph = {
        "games.play.turns": {"games.models", "games.play.tasks"},
        "games.play.tasks": {"games.play.turns"},
        "games.models": set(),
    }
    assert find_cycle(graph) == ["games.play.tasks", "games.play.turns", "games.play.tasks"]
    assert find_cycle({"games.play.turns": {"games.models"}, "games.models": set()}) is None


def test_no_module_imports_a_tasks_module_but_the_apps_ready() -> None:
    graph = import_graph(MODULES, nested=False)
    at_top = sorted(f"{name} imports {m}" for name, imported in graph.items() for m in imported & TASKS)
    nested = sorted(
        f"{name} line {n.line} ({n.scope}) imports {n.module}"
        for name in MODULES
        for n in read_imports(name, MODULES).nested
        if n.module in TASKS and not in_ready(n.scope)
    )
    assert at_top + nested == []
