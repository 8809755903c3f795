"""Query helpers every service uses: one row or none, a seat read with its game's open phase, and claiming due
rows in batches."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.db import connection, models, transaction
from django.db.models import F, FilteredRelation, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThan

from games.models.games import Game, Phase, Seat

M = TypeVar("M", bound=models.Model)


def unique_row(queryset: QuerySet[M]) -> M | None:
    """The row of a lookup by a unique key, or None. Unlike `.first()`, it adds no ORDER BY: compiling one
    costs about a millisecond, on paths (an order POST, a resolution) that are measured in a few."""
    return next(iter(queryset.order_by()[:1]), None)


def attach_apps(games: QuerySet[Game]) -> int:
    """Mark `games` as having an app's rows (Game.apps_attached), so their resolutions ask the apps' questions:
    called by an app, in the transaction that attaches its rows (a table's game, a vote, a webhook). Returns how
    many were not marked yet."""
    return games.filter(apps_attached=False).update(apps_attached=True)


def with_open_phase(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    """`seats` each read with its game and the game's open phase in the same statement (a LEFT JOIN on the phases'
    unique game and number), for `carried_phase`. An order's page or call reads the seat first anyway, to know
    who asks: reading its turn with it saves the order POST and PUT a statement. One statement is one snapshot,
    so the phase is its game's (a resolution changes both in one transaction)."""
    current = Q(game__phases__number=F("game__phase_number"), game__phases__status=Phase.Status.OPEN)
    joined = seats.annotate(open_phase=FilteredRelation("game__phases", condition=current))
    return joined.select_related("game", "open_phase")  # type: ignore[misc]  # django-stubs knows no FilteredRelation


def carried_phase(seat: Seat) -> tuple[bool, Phase | None]:
    """Whether `seat` was read by `with_open_phase`, and if so its game's open phase then (None: none was open),
    with the seat's game row as its game."""
    if "open_phase" not in seat.__dict__:
        return False, None
    phase: Phase | None = seat.__dict__["open_phase"]
    if phase is not None:
        phase.game = seat.game
    return True, phase


# Rows a sweep takes per statement (games/play/sweep.py): a batch is one short transaction, and a task's arguments.
CLAIM_BATCH = 500


def claim(
    due: QuerySet[M],
    *,
    mark: dict[str, Any],
    enqueue: Callable[[list[Any]], None],
    value: str = "pk",
) -> list[Any]:
    """Take every row of `due`, a batch at a time in its order (an index's), and return their `value`s.

    Each batch is read skipping rows that another transaction holds (a concurrent sweep's batch, a phase being
    resolved this instant), marked with `mark`, which must take the row out of `due`, and handed to `enqueue`
    in the same transaction: what it enqueues after commit goes out only for rows this call really took. So of
    two sweeps running at once each takes different rows, and a later one does not take them again until the
    mark has run out. Only the rows' ids and values are read, never the rows themselves.

    Each batch starts after the last one's last row, by `due`'s order column and then the id (a row comparison,
    which an index on both walks as a range): a batch never walks again over the rows taken before it, which
    made taking 15,000 rows cost as much as 250,000 (bench/README.md). A row skipped because another held it is
    left to the next call."""
    (column,) = due.query.order_by
    if not isinstance(column, str):
        raise TypeError("claim() takes rows ordered by one column, named")
    ordered = due.order_by(column, "pk")
    columns = ["pk", column] if value == "pk" else ["pk", column, value]
    batch = CLAIM_BATCH
    taken: list[Any] = []
    after: QuerySet[M] = ordered
    nested = connection.in_atomic_block  # each batch is then a savepoint, not a transaction of its own
    while True:
        with transaction.atomic():
            locked = after.select_for_update(no_key=True, skip_locked=True, of=("self",))
            rows = take(locked, columns, batch, mark, nested=nested)
            if rows:
                values = [row[0] if value == "pk" else row[2] for row in rows]
                enqueue(values)
                taken += values
        if len(rows) < batch:
            return taken
        last_id, last_value = rows[-1][0], rows[-1][1]
        after = ordered.filter(TupleGreaterThan(Tuple(F(column), F("pk")), (last_value, last_id)))


def take(
    locked: QuerySet[M], columns: list[str], batch: int, mark: dict[str, Any], nested: bool
) -> list[tuple[Any, ...]]:
    """The first `batch` rows of `locked` (its `columns`, in its order), marked with `mark`. On PostgreSQL in one
    round trip: the read and the mark are one statement (the batch's rows locked, then updated by their physical
    address, no index looked up again), sent with the planner's setting (read_in_order) ahead of it. At 1,000,000
    open games, under a load of 16 on 2 cores, every round trip cost milliseconds waiting for a core: the three
    a batch took (setting, read, mark) were most of the sweep's 11 s (bench/README.md). A batch of its own (not
    `nested` in a caller's transaction) commits without waiting for its WAL to reach the disk: a mark lost in a
    crash only lets a later sweep take the rows again, and every task a claim enqueues does its work once under
    its row's lock. Elsewhere, or when a mark is an expression, the read and then the mark."""
    model = locked.model
    if connection.vendor != "postgresql" or any(hasattr(v, "resolve_expression") for v in mark.values()):
        rows = read_in_order(locked, columns, batch, nested=nested)
        if rows:
            model._default_manager.filter(pk__in=[row[0] for row in rows]).update(**mark)
        return rows
    quote, meta = connection.ops.quote_name, model._meta
    table = quote(meta.db_table)
    address = RawSQL(f"{table}.ctid", ())  # noqa: S611  (the model's own table name, quoted)
    read = locked.annotate(claimed_row=address).values_list(*columns, "claimed_row")[:batch]
    select, params = read.query.sql_with_params()
    concrete = {name: field for field in meta.concrete_fields for name in (field.name, field.attname)}
    fields = [concrete[name] for name in mark]
    sets = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    marks = [field.get_db_prep_save(v, connection) for field, v in zip(fields, mark.values(), strict=True)]
    settings = [*IN_ORDER] if nested else [*IN_ORDER, "synchronous_commit = off"]
    resets = f"; {RESET_IN_ORDER}" if nested else ""
    sql = (
        "".join(f"SET LOCAL {setting}; " for setting in settings) + f"WITH batch AS ({select}) "  # noqa: S608  (names from the model, values bound)
        f"UPDATE {table} SET {sets} FROM batch WHERE {table}.ctid = batch.claimed_row RETURNING batch.*" + resets
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *marks])
        for _ in settings:
            cursor.nextset()  # each setting's result is empty; the update's rows come next
        rows = [tuple(row[: len(columns)]) for row in cursor.fetchall()]
    return sorted(rows, key=lambda row: (row[1], row[0]))  # in the index's order, as read


# The planner settings a read in an index's order runs with (SET LOCAL, for its statement's transaction). Without
# sorting the planner walks the index in order, as it must to stop early. Where no index gives the order (an
# outbox's rare reads, a small table), the plan still sorts, at the planner's penalty cost (10^10), far above
# jit_above_cost: PostgreSQL then compiled each such statement with LLVM, 50-300 ms to read no row, about a second
# of every sweep over the eight outboxes (found profiling the test suite). JIT is off for these statements.
IN_ORDER = ("enable_sort = off", "jit = off")
RESET_IN_ORDER = "; ".join(f"RESET {setting.split(' = ')[0]}" for setting in IN_ORDER)


@contextmanager
def in_index_order(nested: bool) -> Iterator[Any]:
    """A cursor whose transaction reads in index order (IN_ORDER); inside a caller's transaction (`nested`) the
    settings are reset after, for the caller's statements."""
    with connection.cursor() as cursor:
        cursor.execute("; ".join(f"SET LOCAL {setting}" for setting in IN_ORDER))
        try:
            yield cursor
        finally:
            if nested:
                cursor.execute(RESET_IN_ORDER)


def read_in_order(due: QuerySet[M], columns: list[str], batch: int, nested: bool) -> list[tuple[Any, ...]]:
    """The first `batch` rows of `due`, walking its index in order and stopping there. The planner multiplies the
    selectivities of correlated conditions (the due time's bound, the batch's start, the partial index's status):
    after the first batch it expected 70 of 4,603 reminders due, so it read them all and sorted them, for every
    batch (bench/README.md). Without sorting, walking the index is its only way. SET LOCAL ends with the batch's
    transaction; inside a caller's (`nested`) it is reset after the read, for the caller's statements."""
    if connection.vendor != "postgresql":
        return list(due.values_list(*columns)[:batch])
    with in_index_order(nested):
        return list(due.values_list(*columns)[:batch])


def posted_id(text: str) -> int | None:
    """A row's id as a form posts it, or None: ASCII digits that fit a bigint (`'²'.isdigit()` is true but int()
    refuses it; twenty digits overflow PostgreSQL's bigint)."""
    if not (text.isascii() and text.isdecimal()) or len(text) > 18:
        return None
    return int(text)
