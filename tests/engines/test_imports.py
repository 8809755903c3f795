"""The engine layer's imports: every project import at the top of its module (none inside a function, so
what a module needs shows in its first lines), no import cycle between its modules, and nothing from
Django or the rest of the project (engines are pure)."""

from __future__ import annotations

from tests.support.import_graph import find_cycle, import_graph, project_modules, read_imports

MODULES = project_modules("games/engines")


def test_no_engine_module_imports_inside_a_function() -> None:
    nested = [f"{name} line {n.line}: {n.module}" for name in MODULES for n in read_imports(name, MODULES).nested]
    assert nested == []


def test_the_engine_modules_import_each_other_without_a_cycle() -> None:
    assert find_cycle(import_graph(MODULES)) is None


def test_engines_import_nothing_from_django_or_the_rest_of_the_project() -> None:
    outside = [
        f"{name}: {module}"
        for name in MODULES
        for module in read_imports(name, MODULES).top | {n.module for n in read_imports(name, MODULES).nested}
        if module.split(".")[0] in {"django", "pbem", "celery", "anymail"}
        or (module.startswith("games.") and not module.startswith("games.engines"))
    ]
    assert outside == []
