"""The core works without its plug-in apps (the leagues, table talk, the API, the webhooks, the lobby, ...) and
names none of them: they reach the core only through games.extensions (signals, and what their
AppConfig.ready() registers) and its public functions, never a private name of the core."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.support.import_graph import ROOT, import_graph, project_modules

MODULES = project_modules("games", "pbem")
LEAGUES = {name for name in MODULES if name.startswith("games.leagues")}
# Every plug-in app (a package of games/ with an apps.py of its own: leagues, talk, api, hooks, lobby, ...).
PACKAGES = tuple(f"games.{apps.parent.name}" for apps in (ROOT / "games").glob("*/apps.py"))
PLUGINS = {name for name in MODULES if name.startswith(PACKAGES)}
CORE = {name for name in MODULES if name not in PLUGINS and not name.startswith("games.engines")}


def test_the_core_imports_nothing_of_a_plug_in() -> None:
    graph = import_graph(MODULES)
    assert sorted(f"{name} imports {m}" for name in CORE for m in graph[name] & PLUGINS) == []


def test_no_plug_in_imports_a_private_name_of_the_core() -> None:
    private = sorted(
        f"{name} line {node.lineno}: {node.module}.{alias.name}"
        for name in PLUGINS
        for node in ast.walk(ast.parse(MODULES[name].read_text()))
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.split(".")[0] == "games"
        and not node.module.startswith(PACKAGES)
        for alias in node.names
        if alias.name.startswith("_")
    )
    assert private == []


def league_names(path: Path) -> list[str]:
    """Strings and keyword names in `path` that mention a league (a relation path such as
    `league_table__round__...`, an app label), docstrings aside."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(first.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and ast.get_docstring(node, clean=False) is not None
        and isinstance(first := node.body[0], ast.Expr)
    }
    found = [
        f"line {node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        if "league" in node.value.lower()
    ]
    found += [
        f"line {node.value.lineno}: {node.arg}="
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg and "league" in node.arg
    ]
    return found


def test_the_core_names_no_league_relation_or_app() -> None:
    # pbem's settings and URLs assemble the apps: they name the leagues app, as they name every app.
    core = sorted(name for name in CORE if not name.startswith("pbem"))
    assert {name: league_names(MODULES[name]) for name in core if league_names(MODULES[name])} == {}


def test_a_league_relation_in_the_core_is_found(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Leagues in a docstring are fine."""\nQ(league_table__round=1) | Q(app="games.leagues")\n')
    assert league_names(sample) == ["line 2: 'games.leagues'", "line 2: league_table__round="]


def test_nothing_in_the_leagues_app_imports_the_core_views() -> None:
    graph = import_graph(MODULES)
    assert sorted(name for name in LEAGUES if "games.incoming.views" in graph[name]) == []


def test_the_core_runs_and_its_tests_pass_with_the_plug_ins_removed() -> None:
    """tests/support/core_alone.py and the service layer's own tests (tests/play/test_turns.py,
    tests/play/test_orders.py) in a
    pytest of their own, with every plug-in app removed from INSTALLED_APPS (tests/support/settings_core_alone.py)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.support.settings_core_alone"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ds=tests.support.settings_core_alone"]
    run = subprocess.run(
        [*command, "tests/support/core_alone.py", "tests/play/test_turns.py", "tests/play/test_orders.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-2000:]
