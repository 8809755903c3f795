"""The order store's hottest statements, written by hand (issue 31 item 6, issue 43).

Every order POST and PUT reads the caller's seat with its game's open phase (`seats_with_turn`), locks the phase and
updates the seat's order. Through the ORM, building and compiling those statements costs more CPU than PostgreSQL
spends planning and running them (bench/README.md, "Where an order POST's time goes"); their SQL never changes, so
it is written once here, per table names read from the models. They run through Django's connection, so a test's
CaptureQueriesContext counts them like any other.

The lock is PostgreSQL's alone (FOR NO KEY UPDATE): on SQLite (`make run`), which locks the whole database per
write transaction anyway, `locked_phase` and `seats_with_turn` answer None and the caller reads through the ORM."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection

from games.models import Game, Order, Phase, Player, Seat
from games.play import turn_sql

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


def _seats_sql() -> str:
    seat, game, player, phase = (connection.ops.quote_name(m._meta.db_table) for m in (Seat, Game, Player, Phase))
    s_game, s_player, s_id = (_column(Seat, f) for f in ("game_id", "player_id", "id"))
    ph_game, ph_number, ph_status = (_column(Phase, f) for f in ("game_id", "number", "status"))
    # The game's open phase joined as with_open_phase's FilteredRelation joins it: its number, and open. Only quoted
    # names from the models go into the text; the game, the seats, the player and the status are parameters.
    return (
        f"SELECT {turn_sql.select(Seat, 's')}, {turn_sql.select(Game, 'g')}, {turn_sql.select(Player, 'pl')},"  # noqa: S608
        f" {turn_sql.select(Phase, 'ph')} FROM {seat} s INNER JOIN {game} g ON g.{_column(Game, 'id')} = s.{s_game}"
        f" LEFT OUTER JOIN {player} pl ON pl.{_column(Player, 'id')} = s.{s_player}"
        f" LEFT OUTER JOIN {phase} ph ON ph.{ph_game} = g.{_column(Game, 'id')}"
        f" AND ph.{ph_number} = g.{_column(Game, 'phase_number')} AND ph.{ph_status} = %s"
        f" WHERE s.{s_game} = %s AND (s.{s_id} = ANY(%s) OR s.{s_player} = %s)"
    )


def seats_with_turn(game_id: int, seat_ids: list[int], player_id: int | None) -> list[Seat] | None:
    """The game's seats among `seat_ids` or held by `player_id`, each with its game, its player and its game's open
    phase, as `with_open_phase(...).select_related("player")` reads them (for `carried_phase`), in one statement
    written by hand: compiling that read's FilteredRelation through the ORM cost the order POST and PUT more CPU
    than any other of their statements. None elsewhere than PostgreSQL, where the caller reads through the ORM."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(_cached("seats", _seats_sql), [Phase.Status.OPEN, game_id, seat_ids, player_id])
        rows = cursor.fetchall()
    widths = [len(turn_sql.fields(m)) for m in (Seat, Game, Player)]
    found = []
    for row in rows:
        seat = turn_sql.from_db(Seat, row[: widths[0]])
        game = turn_sql.from_db(Game, row[widths[0] : widths[0] + widths[1]])
        rest = row[widths[0] + widths[1] :]
        player = turn_sql.from_db(Player, rest[: widths[2]]) if seat.player_id is not None else None
        opened = rest[widths[2] :]
        Seat.game.field.set_cached_value(seat, game)
        Seat.player.field.set_cached_value(seat, player)
        if opened[0] is not None:  # as the ORM leaves it: without an open phase, the caller reads the phase asked
            seat.__dict__["open_phase"] = turn_sql.from_db(Phase, opened)
        found.append(seat)
    return found
