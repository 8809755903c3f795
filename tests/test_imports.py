"""The project's imports, read from the source (tests/support/import_graph.py), as ruff's PLC0415 also checks:
every project import at the top of its module but an app's ready() (what a module needs shows in its first
lines), no import cycle between the project's modules, and enqueueing after commit goes one way, from the
services to games.outgoing.dispatch by a task's name: only an app's ready() imports a tasks module."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.support.import_graph import ROOT, find_cycle, import_graph, project_modules, read_imports

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


# The packages, lowest first, as docs/contributors.md's table ranks them. A module imports modules of its own
# package and of lower ranks, never of a higher one: what comes in calls what plays, which writes what goes out;
# the engines know none of them; the plug-in apps (a package of games/ with its own apps.py) reach the core from
# above, through games.extensions and the services, those that use another app rank above it, and the API is
# over them all. Every plug-in app must be named here (test_every_package_has_a_rank).
RANKS: list[tuple[str, ...]] = [
    ("games.engines",),
    # "games": the package's own __init__.py
    ("games", "games.models", "games.extensions", "games.words", "pbem.settings"),
    ("games.outgoing",),
    ("games.play", "pbem.celery"),
    ("games.incoming",),
    ("games.admin",),
    ("games.talk", "games.leagues", "games.votes", "games.lobby"),
    ("games.hooks",),
    ("games.api",),
    ("games.urls", "games.apps", "games.checks", "games.management", "games.templatetags", "pbem"),
]
PLUG_INS = sorted(
    f"games.{path.parent.name}" for path in (ROOT / "games").glob("*/apps.py") if path.parent.name != "games"
)


def package_of(module: str) -> str:
    """The ranked package `module` belongs to: its longest prefix in RANKS, or its plug-in app."""
    plug_in = next((p for p in PLUG_INS if module == p or module.startswith(p + ".")), None)
    if plug_in:
        return plug_in
    names = [name for group in RANKS for name in group if module == name or module.startswith(name + ".")]
    names = [name for name in names if name != "games" or module == "games"]  # not a catch-all
    return max(names, key=len) if names else module


def rank_of(package: str) -> int | None:
    return next((i for i, names in enumerate(RANKS) if package in names), None)


def test_every_package_has_a_rank() -> None:
    assert sorted({package_of(m) for m in MODULES if rank_of(package_of(m)) is None}) == []


def imports_where(refused: Callable[[str, str], bool]) -> list[str]:
    """Each project import, "<module> imports <module>", whose two packages `refused` refuses."""
    graph = import_graph(MODULES)
    return sorted(
        f"{name} imports {other}"
        for name, imported in graph.items()
        for other in imported
        if refused(package_of(name), package_of(other))
    )


def test_no_package_imports_a_package_of_a_higher_rank() -> None:
    assert imports_where(lambda package, other: (rank_of(package) or 0) < (rank_of(other) or 0)) == []


def test_the_packages_import_each_other_without_a_cycle() -> None:
    graph = import_graph(MODULES)
    packages: dict[str, set[str]] = {}
    for name, imported in graph.items():
        package = package_of(name)
        packages.setdefault(package, set()).update(package_of(m) for m in imported if package_of(m) != package)
    assert find_cycle(packages) is None


def documented_ranks() -> dict[str, int]:
    """docs/contributors.md's table of ranks: each module or folder it names, as a module name, and its rank."""
    table = (ROOT / "docs" / "contributors.md").read_text()
    ranks = {}
    for rank, cells in re.findall(r"^\| (\d+) \| (.*?) \|", table, flags=re.M):
        for path in re.findall(r"`([a-z_/]+(?:\.py)?)`", cells):
            ranks[path.removesuffix(".py").strip("/").replace("/", ".")] = int(rank)
    return ranks


def test_the_ranks_are_the_contributors_guides_table() -> None:
    documented = documented_ranks()
    assert len(documented) >= len(RANKS), documented
    assert {name: rank_of(package_of(name)) for name in documented} == documented


# Which plug-in app may import which other (ranks allow an app of the same rank too): the API is over them all,
# the webhooks name a league's games. Any other reaches the rest through the core only: what two apps share
# belongs in the core (the daily deadlines of a league and of a lobby table: games/play/deadlines.py).
USES: dict[str, set[str]] = {"games.api": set(PLUG_INS), "games.hooks": {"games.leagues"}}


def test_a_plug_in_app_imports_no_other_plug_in_but_those_it_may() -> None:
    def refused(package: str, other: str) -> bool:
        return package in PLUG_INS and other in PLUG_INS and other not in {package, *USES.get(package, set())}

    assert imports_where(refused) == []
