"""A resolution's statements written by hand on PostgreSQL (issue 43), as games/play/order_sql.py writes an order's.

Through the ORM, a resolution spent about two thirds of its CPU building and compiling its statements and building
its rows (bench/README.md, "Where a resolution's time goes"). Here each text is built from the models' own names
(once per process where it never changes), values go as parameters prepared by each field as the ORM would, and
rows come back as model instances through each field's own converters (Model.from_db), so the signals' receivers
get what the ORM would have handed them. They run through Django's connection, so a test's CaptureQueriesContext
counts them like any other.

- `locked_phase`: the phase with its game, both rows locked FOR NO KEY UPDATE (the ORM's
  select_for_update(no_key=True, of=("self", "game")));
- `seats`: the game's seats with their players and the phase's sealed orders (LEFT JOINs), in seat order;
- `write_turn`: the resolution's writes in two statements: the log's new lines, the resolved phase and the game in
  one (data-modifying WITH), then the next phase, whose id it sets;
- `insert`: rows of one model in one INSERT (the outbox rows).

Each answers None (or False) elsewhere than PostgreSQL: SQLite (`make run`) keeps the ORM's path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Field, Model

from games.models import Event, Game, Order, Phase, Player, Seat

M = TypeVar("M", bound=Model)
# The sealed order's columns a resolution reads with each seat (the ORM path's annotations, by the same names).
SEALED = (("sealed_id", "id"), ("sealed_data", "data"), ("sealed_default", "is_default"))


def handwritten() -> bool:
    return connection.vendor == "postgresql"


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def fields(model: type[Model]) -> list[Field[Any, Any]]:
    return list(model._meta.concrete_fields)


def select(model: type[Model], alias: str) -> str:
    return ", ".join(f"{alias}.{_q(f.column)}" for f in fields(model))


# Per model: each concrete field's attname and converters, in column order (a resolution builds about ten rows).
_readers: dict[type[Model], list[tuple[str, list[Any]]]] = {}


def from_db(model: type[M], values: Sequence[Any]) -> M:
    """A model instance from its concrete columns' values as PostgreSQL sent them, through each field's converters
    (the JSON fields' decoding), as the ORM builds one."""
    if model not in _readers:
        _readers[model] = [(f.attname, f.get_db_converters(connection)) for f in fields(model)]  # type: ignore[attr-defined]
    readers = _readers[model]
    converted = []
    for (_, converters), value in zip(readers, values, strict=True):
        for convert in converters:
            value = convert(value, None, connection)
        converted.append(value)
    return model.from_db(connection.alias, [name for name, _ in readers], converted)


_sql: dict[str, str] = {}


def _cached(name: str, build: Any) -> str:
    # Built on first use, not at import: the models' tables are only known once the apps are loaded.
    if name not in _sql:
        _sql[name] = build()
    return _sql[name]


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    return next(f for f in fields(model) if name in (f.name, f.attname))


def _column(model: type[Model], name: str) -> str:
    return _q(_field(model, name).column)


def _lock_sql() -> str:
    phase, game = _q(Phase._meta.db_table), _q(Game._meta.db_table)
    # Only quoted names from the models go into the text; the phase's id is a parameter.
    return (
        f"SELECT {select(Phase, 'p')}, {select(Game, 'g')} FROM {phase} p"  # noqa: S608
        f" INNER JOIN {game} g ON g.{_column(Game, 'id')} = p.{_column(Phase, 'game')}"
        f" WHERE p.{_column(Phase, 'id')} = %s FOR NO KEY UPDATE OF p, g"
    )


def locked_phase(phase_id: int) -> tuple[bool, Phase | None]:
    """(True, the phase with its game as `phase.game`, both rows locked, or None if there is none) on PostgreSQL;
    (False, None) elsewhere, for the ORM's read."""
    if not handwritten():
        return False, None
    with connection.cursor() as cursor:
        cursor.execute(_cached("lock", _lock_sql), [phase_id])
        row = cursor.fetchone()
    if row is None:
        return True, None
    split = len(fields(Phase))
    phase, game = from_db(Phase, row[:split]), from_db(Game, row[split:])
    phase.game = game
    return True, phase


def _seats_sql() -> str:
    seat, order, player = (_q(m._meta.db_table) for m in (Seat, Order, Player))
    sealed = ", ".join(f"o.{_column(Order, column)}" for _, column in SEALED)
    return (
        f"SELECT {select(Seat, 's')}, {sealed}, {select(Player, 'pl')} FROM {seat} s"  # noqa: S608
        f" LEFT OUTER JOIN {order} o ON o.{_column(Order, 'seat')} = s.{_column(Seat, 'id')}"
        f" AND o.{_column(Order, 'phase')} = %s"
        f" LEFT OUTER JOIN {player} pl ON pl.{_column(Player, 'id')} = s.{_column(Seat, 'player')}"
        f" WHERE s.{_column(Seat, 'game')} = %s ORDER BY s.{_column(Seat, 'number')}"
    )


def seats(game: Game, phase: Phase) -> list[Any] | None:
    """The game's seats in seat order, each with its player (or None) and `sealed_id`, `sealed_data` and
    `sealed_default` of its order of `phase` (None without one), the game row as its game; None elsewhere than
    PostgreSQL."""
    if not handwritten():
        return None
    with connection.cursor() as cursor:
        cursor.execute(_cached("seats", _seats_sql), [phase.pk, game.pk])
        rows = cursor.fetchall()
    width = len(fields(Seat))
    data = _field(Order, "data")
    found = []
    for row in rows:
        seat = from_db(Seat, row[:width])
        sealed_id, sealed_data, sealed_default = row[width : width + len(SEALED)]
        seat.sealed_id, seat.sealed_default = sealed_id, sealed_default  # type: ignore[attr-defined]
        seat.sealed_data = data.from_db_value(sealed_data, None, connection) if sealed_id else None  # type: ignore[attr-defined]
        player = from_db(Player, row[width + len(SEALED) :]) if seat.player_id is not None else None
        Seat.player.field.set_cached_value(seat, player)
        Seat.game.field.set_cached_value(seat, game)
        found.append(seat)
    return found


def _insert(objs: Sequence[Model], returning: bool = False, ignore_conflicts: bool = False) -> tuple[str, list[Any]]:
    """One INSERT of `objs` (rows of one model, their id left to the database), values prepared by each field."""
    model = type(objs[0])
    written = [f for f in fields(model) if not f.primary_key]
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in written]
    row = f"({', '.join(['%s'] * len(written))})"
    sql = (
        f"INSERT INTO {_q(model._meta.db_table)} ({', '.join(_q(f.column) for f in written)})"  # noqa: S608
        f" VALUES {', '.join([row] * len(objs))}"
    )
    if ignore_conflicts:
        sql += " ON CONFLICT DO NOTHING"
    if returning:
        sql += f" RETURNING {_column(model, 'id')}"
    return sql, params


def _update(obj: Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """One UPDATE of `names` (fields) of `obj` by its primary key."""
    updated = [_field(type(obj), name) for name in names]
    sets = ", ".join(f"{_q(f.column)} = %s" for f in updated)
    params = [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in updated]
    table, key = _q(obj._meta.db_table), _column(type(obj), "id")
    return f"UPDATE {table} SET {sets} WHERE {key} = %s", [*params, obj.pk]  # noqa: S608


def write_turn(
    game: Game,
    game_fields: Sequence[str],
    resolved: Phase,
    resolved_fields: Sequence[str],
    events: Sequence[Event],
    opened: Phase | None,
) -> bool:
    """`events` inserted, `resolved_fields` of the resolved phase and `game_fields` of the game updated, in one
    statement; then `opened` (if any) inserted, its id set. False elsewhere than PostgreSQL (nothing written).

    The parts of a data-modifying WITH run on one snapshot and cannot see each other's rows; none needs to: they
    touch different rows, and the constraints they meet (the log's unique numbers, the keys to the game) hold row
    by row whatever order they run in. The next phase is inserted on its own, once they are written: it is the
    statement that waits on another transaction's phase of the same number (tests/play/test_worker.py)."""
    if not handwritten():
        return False
    parts = [_insert(events)] if events else []
    parts.append(_update(resolved, resolved_fields))
    *before, (last, params) = [*parts, _update(game, game_fields)]
    with_ = ", ".join(f"w{n} AS ({sql})" for n, (sql, _) in enumerate(before))
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {with_} {last}", [p for _, ps in before for p in ps] + params)
        if opened is not None:
            cursor.execute(*_insert([opened], returning=True))
            opened.pk = cursor.fetchone()[0]
            opened._state.adding, opened._state.db = False, connection.alias
    return True


def insert(objs: Sequence[Model], ignore_conflicts: bool = False) -> bool:
    """`objs` (rows of one model) in one INSERT, their ids not read back; False elsewhere than PostgreSQL."""
    if not handwritten():
        return False
    if objs:
        with connection.cursor() as cursor:
            cursor.execute(*_insert(objs, ignore_conflicts=ignore_conflicts))
    return True
