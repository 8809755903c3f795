"""What a block of Django code asks PostgreSQL: every statement counted and timed, and EXPLAIN of each kind.

    with Statements() as log:          # an execute_wrapper on Django's default connection
        code()
    log.count, log.kinds               # statements, and per kind of statement: calls, time, first parameters

    with Statements(explain=True):     # also EXPLAIN (ANALYZE, BUFFERS) each kind the first time it runs,
        code()                         # just before it runs (a write is explained inside a savepoint that
                                       # is rolled back, then run for real)

A kind is the statement's SQL with its placeholders, a list of them (`IN (%s, %s, ...)`) counted as one, and
savepoints' names left out.
`scans(plan)` lists a plan's table reads: which table, sequentially or by which index, how many rows.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

PLACEHOLDER_LIST = re.compile(r"%s(?:, %s)+")
SAVEPOINT_NAME = re.compile(r'"s\d+_x\d+"')  # Django's savepoint names: one kind of SAVEPOINT, not one each
# A statement sent with the settings it is planned under (models.queries.take): `SET LOCAL ...; <statement>` and
# a `; RESET ...` for each after it; the settings are made, then the statement explained.
WITH_SETTINGS = re.compile(r"^((?:SET LOCAL [^;]+; )+)(.*?)(?:; RESET \w+)*$", re.S)


@dataclass
class Kind:
    sql: str  # the first statement of this kind, as run
    params: Any
    calls: int = 0
    seconds: float = 0.0
    plan: dict[str, Any] | None = None  # EXPLAIN (FORMAT JSON)'s top node, with the planning/execution times


@dataclass
class Statements:
    explain: bool = False
    count: int = 0
    kinds: dict[str, Kind] = field(default_factory=dict)

    def __enter__(self) -> Statements:
        self._wrapper = connection.execute_wrapper(self)
        self._wrapper.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._wrapper.__exit__(*exc)

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        key = SAVEPOINT_NAME.sub('"s_x"', PLACEHOLDER_LIST.sub("%s...", sql))
        kind = self.kinds.get(key)
        if kind is None:
            kind = self.kinds[key] = Kind(sql, params)
            settings, statement = split_settings(sql)
            if self.explain and not many and statement.split(None, 1)[0].upper() in EXPLAINED:
                kind.plan = explain(statement, params, settings)
        self.count += 1
        kind.calls += 1
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            kind.seconds += time.perf_counter() - start

    def described(self, watched: set[str]) -> list[dict[str, Any]]:
        """Each kind, most time first, as plain data: its first SQL (shortened), calls, total time, a summary
        of its plan and the sequential scans of `watched` tables it made."""
        return [
            {
                "sql": kind.sql[:300],
                "calls": kind.calls,
                "ms": round(kind.seconds * 1000, 1),
                "plan": summary(kind.plan) if kind.plan else "",
                "seq_scans": [str(s) for s in seq_scans(kind.plan, watched)] if kind.plan else [],
            }
            for kind in sorted(self.kinds.values(), key=lambda kind: -kind.seconds)
        ]


def print_described(kinds: list[dict[str, Any]], indent: str = "  ") -> None:
    for kind in kinds:
        flag = "  <-- SEQ SCAN: " + "; ".join(kind["seq_scans"]) if kind["seq_scans"] else ""
        print(f"{indent}{kind['calls']:>6} x {kind['ms']:>9.1f} ms total  {kind['sql'][:110]}{flag}")
        if kind["plan"]:
            print(f"{indent}         plan: {kind['plan']}")


EXPLAINED = {"SELECT", "UPDATE", "INSERT", "DELETE", "WITH"}


def split_settings(sql: str) -> tuple[list[str], str]:
    """The `SET LOCAL` statements sent ahead of a statement, and the statement."""
    found = WITH_SETTINGS.match(sql)
    if found is None:
        return [], sql
    return [setting for setting in found.group(1).split("; ") if setting], found.group(2)


def explain(sql: str, params: Any, settings: list[str] | None = None) -> dict[str, Any]:
    """EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of one statement, run on a cursor of its own in a transaction (or
    a savepoint, inside one) that is rolled back, so a write or a row lock it makes does not stay; `settings`
    (`SET LOCAL ...`) made first."""
    raw = connection.connection
    with raw.transaction(force_rollback=True), raw.cursor() as cursor:
        for setting in settings or []:
            cursor.execute(setting)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
        row = cursor.fetchone()
    assert row is not None
    result = row[0][0] if isinstance(row[0], list) else json.loads(row[0])[0]
    return dict(result)


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    node = plan.get("Plan", plan)
    yield node
    for child in node.get("Plans", []):
        yield from nodes(child)


@dataclass(frozen=True)
class Scan:
    node: str  # "Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan", ...
    table: str
    index: str
    rows: int  # actual rows returned, over all loops
    loops: int

    def __str__(self) -> str:
        how = f" using {self.index}" if self.index else ""
        loops = f" x{self.loops} loops" if self.loops > 1 else ""
        return f"{self.node} on {self.table}{how}: {self.rows:,} rows{loops}"


def scans(plan: dict[str, Any]) -> list[Scan]:
    """The plan's reads of tables (a Bitmap Index Scan is reported with its heap scan's table)."""
    found = []
    for node in nodes(plan):
        table = node.get("Relation Name", "")
        index = node.get("Index Name", "")
        if node["Node Type"] == "Bitmap Heap Scan":
            index = ", ".join(n.get("Index Name", "") for n in nodes(node) if n["Node Type"] == "Bitmap Index Scan")
        if table:
            loops = int(node.get("Actual Loops", 1))
            found.append(Scan(node["Node Type"], table, index, int(node.get("Actual Rows", 0)) * loops, loops))
    return found


def seq_scans(plan: dict[str, Any], tables: set[str]) -> list[Scan]:
    return [s for s in scans(plan) if s.node == "Seq Scan" and s.table in tables]


def summary(plan: dict[str, Any]) -> str:
    """One line: execution time, shared buffers hit/read, and each table read."""
    top = plan["Plan"]
    buffers = f"buffers hit {top.get('Shared Hit Blocks', 0):,} read {top.get('Shared Read Blocks', 0):,}"
    reads = "; ".join(str(s) for s in scans(plan)) or "no table read"
    return f"{plan.get('Execution Time', 0):.1f} ms, {buffers}: {reads}"
