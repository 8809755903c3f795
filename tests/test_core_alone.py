"""The core works without the leagues app and names none of it: the leagues reach the core only through
games.extensions (signals, and what their AppConfig.ready() registers), and import its session helpers from
games.incoming.sessions, never from the core's views."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.import_graph import ROOT, import_graph, project_modules

MODULES = project_modules("games", "pbem")
LEAGUES = {name for name in MODULES if name.startswith("games.leagues")}
# The API (games/api/) is a plug-in like the leagues: it may serve a league's standings when that app is there;
# so is the webhooks app (games/hooks/), whose hooks may name a league, and the lobby (games/lobby/), which uses
# the leagues' deadline arithmetic.
HOOKS = {name for name in MODULES if name.startswith("games.hooks")}
PLUGINS = {name for name in MODULES if name.startswith(("games.api", "games.lobby"))} | HOOKS
CORE = {name for name in MODULES if name not in LEAGUES | PLUGINS and not name.startswith("games.engines")}


def test_the_core_imports_nothing_of_the_leagues_app() -> None:
    graph = import_graph(MODULES)
    assert sorted(f"{name} imports {m}" for name in CORE for m in graph[name] & LEAGUES) == []


def test_the_core_imports_nothing_of_the_webhooks_app() -> None:
    graph = import_graph(MODULES)
    assert sorted(f"{name} imports {m}" for name in CORE for m in graph[name] & HOOKS) == []


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


def test_the_core_runs_and_its_tests_pass_with_the_leagues_app_removed() -> None:
    """tests/core_alone.py and the service layer's own tests (tests/test_turns.py) in a pytest of their own,
    with the leagues app removed from INSTALLED_APPS (tests/settings_core_alone.py)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings_core_alone"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ds=tests.settings_core_alone"]
    run = subprocess.run(
        [*command, "tests/core_alone.py", "tests/test_turns.py"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-2000:]
