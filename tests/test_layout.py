"""The tests mirror the source: a folder of tests/ per package of games/ (and pbem/), each engine's tests in its
own folder of tests/engines/, and shared helpers in tests/support/ only: no test module imports another test
module or the conftest, and support imports no test module (a helper that lives in a test file is found by
nobody looking for it, and imports that test file's fixtures with it)."""

from __future__ import annotations

import ast
from pathlib import Path

from games import engines
from tests.support.import_graph import ROOT

TESTS = ROOT / "tests"
NOT_SOURCE = {"support", "screenshots", "replies", "templates", "__pycache__"}


def folders_of_tests() -> list[Path]:
    return [path for path in TESTS.rglob("*") if path.is_dir() and not NOT_SOURCE & set(path.relative_to(TESTS).parts)]


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def is_test_module(module: str) -> bool:
    last = module.split(".")[-1]
    return module.startswith("tests.") and (last.startswith("test_") or last == "conftest")


def test_each_folder_of_tests_is_a_package_of_the_source() -> None:
    unmatched = [
        str(folder.relative_to(ROOT))
        for folder in folders_of_tests()
        if not (ROOT / "games" / folder.relative_to(TESTS)).is_dir() and folder.relative_to(TESTS).parts[0] != "pbem"
    ]
    assert unmatched == []


def test_each_engine_has_its_folder_of_tests() -> None:
    packages = {type(engine).__module__.split(".")[2] for engine in engines.all_engines()}  # games.engines.<package>
    missing = [name for name in sorted(packages) if not list((TESTS / "engines" / name).glob("test_*.py"))]
    assert missing == []


def test_no_test_module_imports_another_or_the_conftest() -> None:
    crossing = sorted(
        f"{path.relative_to(ROOT)} imports {module}"
        for path in TESTS.rglob("*.py")
        for module in imported_modules(path)
        if is_test_module(module)
    )
    assert crossing == []


def test_the_layout_checks_can_fail(tmp_path: Path) -> None:
    stray = tmp_path / "test_stray.py"
    stray.write_text("from tests.play.test_turns import headline\nfrom tests import conftest\n")
    assert {m for m in imported_modules(stray) if is_test_module(m)} == {"tests.play.test_turns", "tests.conftest"}
