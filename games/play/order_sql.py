"""The order store's two hottest statements, written by hand (issue 31 item 6).

Every order POST and PUT locks its phase and updates the seat's order. Through the ORM, building and compiling
those two statements costs more CPU than PostgreSQL spends planning and running them (bench/README.md, "Where an
order POST's time goes"); their SQL never changes, so it is written once here, per table names read from the
models. They run through Django's connection, so a test's CaptureQueriesContext counts them like any other.

The lock is PostgreSQL's alone (FOR NO KEY UPDATE): on SQLite (`make run`), which locks the whole database per
write transaction anyway, `locked_phase` answers None and the caller reads through the ORM."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection

from games.models import Game, Order, Phase

# The columns submit_order reads of the phase it locks and of its game (games.play.orders.LOCKED), in this order.
PHASE_FIELDS = ("id", "game_id", "number", "name", "prompts", "status", "complete_at")
GAME_FIELDS = ("id", "engine", "status", "state")  # the models' order: from_db takes the values so


def _column(model: type[Any], attname: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(attname.removesuffix("_id")).column)


def _lock_sql() -> str:
    phase, game = (connection.ops.quote_name(m._meta.db_table) for m in (Phase, Game))
    columns = [f"p.{_column(Phase, f)}" for f in PHASE_FIELDS] + [f"g.{_column(Game, f)}" for f in GAME_FIELDS[1:]]
    # Without OF, as the ORM's select_for_update(no_key=True) over the join: the game's row is locked too.
    # Only quoted names from the models go into the text; values are parameters.
    return (
        f"SELECT {', '.join(columns)} FROM"  # noqa: S608
        f" {phase} p INNER JOIN {game} g ON g.{_column(Game, 'id')} = "
        f"p.{_column(Phase, 'game_id')} WHERE p.{_column(Phase, 'game_id')} = %s AND p.{_column(Phase, 'number')} "
        "= %s LIMIT 1 FOR NO KEY UPDATE"
    )


def _update_sql() -> str:
    table = connection.ops.quote_name(Order._meta.db_table)
    data, revision, submitted, default, written, phase, seat = (
        _column(Order, f)
        for f in ("data", "revision", "submitted_at", "is_default", "written_at", "phase_id", "seat_id")
    )
    return (
        f"UPDATE {table} SET"  # noqa: S608
        f" {data} = %s, {revision} = {revision} + 1, {submitted} = %s, {default} = %s, "
        f"{written} = %s WHERE {phase} = %s AND {seat} = %s"
    )


_sql: dict[str, str] = {}


def _cached(name: str, build: Any) -> str:
    # Built on first use, not at import: the models' tables are only known once the apps are loaded.
    name = f"{connection.vendor}:{name}"  # quoting is the backend's
    if name not in _sql:
        _sql[name] = build()
    return _sql[name]


def locked_phase(game_id: int, number: int) -> tuple[bool, Phase | None]:
    """(True, the phase `number` of the game with its game, both rows locked FOR NO KEY UPDATE, or None if there
    is none) on PostgreSQL; (False, None) elsewhere, for the ORM's read. Only PHASE_FIELDS and GAME_FIELDS are
    read; the others are deferred, as the ORM's only() leaves them."""
    if connection.vendor != "postgresql":
        return False, None
    with connection.cursor() as cursor:
        cursor.execute(_cached("lock", _lock_sql), [game_id, number])
        row = cursor.fetchone()
    if row is None:
        return True, None
    json = Phase._meta.get_field("prompts")
    values = list(row)
    # JSON arrives as text (Django registers that loader for psycopg); the field decodes it as a read would.
    for at in (PHASE_FIELDS.index("prompts"), len(values) - 1):  # the phase's prompts, the game's state
        values[at] = json.from_db_value(values[at], None, connection)  # type: ignore[arg-type]
    phase = Phase.from_db(connection.alias, list(PHASE_FIELDS), values[: len(PHASE_FIELDS)])
    game = Game.from_db(connection.alias, list(GAME_FIELDS), [values[1], *values[len(PHASE_FIELDS) :]])
    phase.game = game
    return True, phase


def revise_order(
    phase_id: int, seat_id: int, data: dict[str, Any], now: datetime, default: bool, written_at: datetime | None
) -> bool:
    """Replace the seat's stored order of the phase, counting the revision; False if it has none stored."""
    prep = {f.attname: f for f in Order._meta.concrete_fields}
    params = [
        prep["data"].get_db_prep_save(data, connection),
        prep["submitted_at"].get_db_prep_save(now, connection),
        default,
        prep["written_at"].get_db_prep_save(written_at, connection),
        phase_id,
        seat_id,
    ]
    with connection.cursor() as cursor:
        cursor.execute(_cached("update", _update_sql), params)
        return cursor.rowcount > 0
