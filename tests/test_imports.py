"""The project's imports, read from the source (tests/import_graph.py): enqueueing after commit goes one
way, from the services to games.dispatch by a task's name; only an app's ready() imports a tasks module."""

from __future__ import annotations

from tests.import_graph import import_graph, project_modules, read_imports

MODULES = project_modules("games", "pbem")
TASKS = {"games.tasks", "games.leagues.tasks"}


def test_no_module_imports_a_tasks_module_but_the_apps_ready() -> None:
    graph = import_graph(MODULES, nested=False)
    at_top = sorted(f"{name} imports {m}" for name, imported in graph.items() for m in imported & TASKS)
    nested = sorted(
        f"{name} line {n.line} ({n.scope}) imports {n.module}"
        for name in MODULES
        for n in read_imports(name, MODULES).nested
        if n.module in TASKS and not n.scope.endswith("Config.ready")
    )
    assert at_top + nested == []
