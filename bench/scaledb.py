"""A PostgreSQL database of many open games, built with bulk SQL, for figures that look at all games at once.

    .venv/bin/python bench/scaledb.py --games 100000 [--engine piraeus] [--rebuild]

Bench scripts call `ensure(games)`: it returns when the database `pbem_scale_<N>` (pbem_scale_10k,
pbem_scale_100k) is ready. A database that already holds the requested shape (same games and engine, same
builder source, same migrations on disk) is reused as it is; otherwise it is dropped, migrated by Django,
filled with INSERT ... SELECT over generate_series (nothing goes through the models row by row), then
VACUUM ANALYZEd, so the planner sees a database like one that has run for a while. `clone(db, name)` copies
it (a file copy) for a measurement that changes rows, leaving the built one untouched.

The shape, with the JSON of a real game (see `record_traces`): the engine plays a few 4-seat games with
random orders, and the database's rows store those games' own states, prompts and orders, so rows are as wide
as a real server's.

- N open games of 4 seats, each seat a player (2N players, so a player sits in two games on average), each at
  its first phase: the engine's opening state, the phase open with half of its owed orders in and its turn
  emails sent. No history (resolved phases, log, old emails): the sweeps find due work through partial indexes
  of open phases and the email sender reads a game's latest emails, so a history only adds disk (it took 27 KB
  an open game, 8.1 GB at 300,000, until 2026-12-06; now about a quarter of that, which lets a million fit).
- The open phases' deadlines, against the database's `clock`: 1 % overdue (reminded already), 5 % due a
  reminder (deadline in 8 h, reminder lead 12 h, not reminded), 7 % reminded already, the rest (87 %) due
  later, opened at times spread evenly over the last 30.45 hours to the second (deadline 17.55-48 h away,
  reminder 5.55-36 h away): about 476 reminders fall due in any one minute of that span, a real server's
  steady minute (bench/scale.py's "realistic minute"), beside the 1 % and 5 % all due at once (its stress
  minute).
- A league of 2,000 active members (and 20 on standby): 10 finished rounds of 500 tables, i.e. 5,000
  finished games of 30 resolved phases with their orders (no log or emails: no league figure reads them),
  1 table in 50 with a seat that changed hands at phase 13, and a started 11th round whose 500 tables are
  open games 1-500.

The clock: deadlines are set against the time the database was built (`ScaleDB.clock`). When a database
older than a few minutes is reused, `ensure` moves every time column of its open phases forward by its age,
so what is overdue or due a reminder stays the same share whenever it is measured.

Columns the builder does not fill take their model default (or NULL), so a migration that adds a column
with a default needs no change here; one that adds a required column without a default stops the build with
a message naming it. Editing this file or adding a migration rebuilds the databases on their next use.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make the project importable

import psycopg  # noqa: E402

PG = "host=127.0.0.1 port=5432 user=postgres"
SECRET_KEY = "bench-scale-secret-key-not-for-production-0123456789abcdefghijklmnopq"
SEATS = 4
RESOLVED = 5  # resolved phases per open game; the next one is open
TRACES = 4  # real games recorded; game g stores trace g mod TRACES
LEAGUE_PLAYERS = 2000
LEAGUE_STANDBY = 20
LEAGUE_TABLES = LEAGUE_PLAYERS // SEATS  # tables per round
LEAGUE_ROUNDS = 10  # finished rounds: LEAGUE_ROUNDS * LEAGUE_TABLES finished games
LEAGUE_PHASES = 30
SHARED_SEAT_AT = 13  # a changed seat's newcomer holds it from this phase on
REBASE_AFTER = timedelta(minutes=5)
# Multipliers coprime with LEAGUE_PLAYERS: round r seats player (i * MIX[r] + r) mod 2000 at place i, so each
# round meets new opponents.
MIX = [1, 3, 7, 9, 11, 13, 17, 19, 21, 23]
FILLED = [  # (app label, model) of every table the builder fills; their secondary indexes are built after
    ("games", "Player"),
    ("games", "Game"),
    ("games", "Seat"),
    ("games", "Phase"),
    ("games", "Order"),
    ("games", "Event"),
    ("games", "OutboundEmail"),
    ("leagues", "Membership"),
    ("leagues", "Table"),
    ("leagues", "Seating"),
]


@dataclass(frozen=True)
class ScaleDB:
    name: str
    games: int
    clock: datetime  # "now" for its deadlines
    build_s: float | None  # None: reused as it was
    counts: dict[str, int]
    steps: dict[str, float]  # seconds per build step (empty when reused)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:5432/{self.name}"


# Several checkouts on one machine each name their own (BENCH_SCALE_DB=pbem_scale_mine: pbem_scale_mine_100k, ...).
PREFIX = os.environ.get("BENCH_SCALE_DB", "pbem_scale")


def database_name(games: int) -> str:
    return f"{PREFIX}_{games // 1000}k" if games % 1000 == 0 else f"{PREFIX}_{games}"


def shape(games: int, engine: str) -> dict[str, Any]:
    """What a database must match to be reused: any change to this file or to a migration rebuilds it."""
    migrations = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("games/**/migrations/0*.py"))
    import django

    return {
        "games": games,
        "engine": engine,
        "builder": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "migrations": migrations,
        "migration_source": hashlib.sha256(b"".join((ROOT / m).read_bytes() for m in migrations)).hexdigest(),
        "django": django.get_version(),
    }


def _connect(dbname: str) -> psycopg.Connection[Any]:
    return psycopg.connect(f"{PG} dbname={dbname}", autocommit=True)


def _stored(name: str) -> dict[str, Any] | None:
    with _connect("postgres") as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            return None
    with _connect(name) as conn:
        if conn.execute("SELECT to_regclass('bench_scale_shape')").fetchone() == (None,):
            return None  # an unfinished build
        row = conn.execute("SELECT shape, clock, counts FROM bench_scale_shape").fetchone()
    return None if row is None else {"shape": row[0], "clock": row[1], "counts": row[2]}


def ensure(games: int, engine: str = "piraeus", rebuild: bool = False, quiet: bool = False) -> ScaleDB:
    """The database of `games` open games, built unless one of the same shape exists."""
    name = database_name(games)
    wanted = shape(games, engine)
    stored = None if rebuild else _stored(name)
    if stored is not None and stored["shape"] == wanted:
        clock = rebase_clock(name, stored["clock"])
        return ScaleDB(name, games, clock, None, stored["counts"], {})
    if not quiet:
        print(f"building {name}: {games} open games of {engine} (bulk SQL)...", flush=True)
    start = time.perf_counter()
    with _connect("postgres") as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    env = django_env(name)
    cmd = [sys.executable, str(Path(__file__)), "fill", "--database", name, "--games", str(games), "--engine", engine]
    out = subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    with _connect(name) as conn:
        conn.execute(
            "UPDATE bench_scale_shape SET shape = %s", [psycopg.types.json.Jsonb(wanted)]
        )  # written last: a build that failed halfway is never reused
    build_s = round(time.perf_counter() - start, 1)
    if not quiet:
        print(f"built {name} in {build_s} s: " + ", ".join(f"{k} {v:,}" for k, v in report["counts"].items()))
    clock = datetime.fromisoformat(report["clock"])
    return ScaleDB(name, games, clock, build_s, report["counts"], report["steps"])


def rebase_clock(name: str, clock: datetime) -> datetime:
    """Move the open phases' time columns forward by the database's age, so the same share is overdue or due
    a reminder now as when it was built. Returns the new clock."""
    now = datetime.now(UTC)
    if now - clock < REBASE_AFTER:
        return clock
    with _connect(name) as conn:
        columns = [
            row[0]
            for row in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'games_phase' "
                "AND data_type = 'timestamp with time zone' ORDER BY column_name"
            )
        ]
        moved = ", ".join(f"{c} = {c} + %(age)s" for c in columns)
        with conn.transaction():
            conn.execute(f"UPDATE games_phase SET {moved} WHERE status = 'open'", {"age": now - clock})
            conn.execute("UPDATE bench_scale_shape SET clock = %s", [now])
        conn.execute("VACUUM ANALYZE games_phase")
    return now


def clone(db: ScaleDB, name: str) -> str:
    """A copy of the built database (dropped first if it exists), for a measurement that changes rows."""
    with _connect("postgres") as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {db.name} STRATEGY FILE_COPY")
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def drop(name: str) -> None:
    with _connect("postgres") as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def django_env(database: str) -> dict[str, str]:
    """The environment of a Django process on `database`, with production settings and no broker."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
        DEBUG="0",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        EMAIL_PROVIDER="test",
        CELERY_BROKER_URL="",
        DJANGO_SETTINGS_MODULE="pbem.settings",
        PYTHONPATH=str(ROOT),
    )
    return env


# --- The fill, in its own process (Django set up on the new database) -------------------------------------


def record_traces(engine_slug: str) -> list[dict[str, Any]]:
    """TRACES real 4-seat games of the engine, RESOLVED phases each plus the open one, with random legal orders
    normalised as the server stores them: per phase its name, prompts, owed seats, orders and log lines."""
    import random

    from games.engines import get_engine

    engine = get_engine(engine_slug)
    traces = []
    for trace in range(TRACES):
        state = engine.setup(SEATS, {}, random.Random(f"scale{trace}:0"))
        opening = json.loads(json.dumps(state))  # an open game of the database: this state, its first phase open
        phases = []
        for number in range(1, RESOLVED + 2):
            prompts = engine.prompts(state)
            if not prompts:
                raise SystemExit(f"{engine_slug} ended before phase {number}: choose a longer game")
            owed = sorted(prompts)
            rng = random.Random(f"scale{trace}:{number}")
            orders = {s: engine.validate(state, s, engine.random_order(state, s, rng)) for s in owed}
            phase: dict[str, Any] = {
                "number": number,
                "name": engine.phase_name(state)[:120],
                "prompts": {str(s): p.to_json() for s, p in prompts.items()},
                "owed": owed,
            }
            if number <= RESOLVED:
                state, events = engine.resolve(state, orders, rng)
                phase["orders"] = orders
                phase["events"] = [e.to_json() for e in events]
            else:  # the open phase: the first half of its owed seats have ordered
                phase["orders"] = {s: orders[s] for s in owed[: len(owed) // 2]}
                phase["events"] = []
            phases.append(phase)
        traces.append({"state": state, "opening": opening, "phases": phases})
    return traces


def fill(games: int, engine: str) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    steps: dict[str, float] = {}

    def step(label: str, sql: str, params: list[Any] | None = None) -> None:
        start = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        steps[label] = steps.get(label, 0.0) + round(time.perf_counter() - start, 2)

    start = time.perf_counter()
    call_command("migrate", verbosity=0)
    steps["migrate"] = round(time.perf_counter() - start, 2)
    clock = datetime.now(UTC).replace(microsecond=0)
    builder = Builder(games, engine, clock, step)
    builder.prepare(record_traces(engine))
    saved = builder.drop_indexes()
    builder.open_games()
    builder.league()
    builder.restore_indexes(saved)
    step("vacuum analyze", "VACUUM ANALYZE")
    counts = builder.counts()
    step("shape", "CREATE TABLE bench_scale_shape (shape jsonb, clock timestamptz, counts jsonb)")
    step("shape", "INSERT INTO bench_scale_shape VALUES ('{}', %s, %s)", [clock, json.dumps(counts)])
    return {"clock": clock.isoformat(), "counts": counts, "steps": steps}


def lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Builder:
    """The INSERT ... SELECT statements. Ids are arithmetic on the game number, so no statement needs another's
    ids: game g's seat s is seat (g-1)*4+s+1, its phase n is phase (g-1)*6+n, an order is phase*8+seat."""

    def __init__(self, games: int, engine: str, clock: datetime, step: Any) -> None:
        from django.apps import apps

        self.n = games
        self.engine = engine
        self.players = 2 * games
        self.clock = clock
        self.t = f"{lit(clock.isoformat())}::timestamptz"
        self.step = step
        self.models = {name: apps.get_model(app, name) for app, name in FILLED}
        for app, name in [("leagues", "League"), ("leagues", "Season"), ("leagues", "Round")]:
            self.models[name] = apps.get_model(app, name)

    # The statements' frame ------------------------------------------------------------------------------

    def insert(self, label: str, model: str, exprs: dict[str, str], source: str) -> None:
        """INSERT INTO the model's table SELECT `exprs` (column name: SQL over `source`) FROM `source`; every
        other column gets its model default, as a parameter (Django's defaults are not database defaults)."""
        from django.db import connection
        from django.db.models import NOT_PROVIDED

        meta = self.models[model]._meta
        columns, values, params = list(exprs), list(exprs.values()), []
        for field in meta.concrete_fields:
            if field.column in exprs or field.primary_key or field.db_default is not NOT_PROVIDED:
                continue  # the id's identity, or the database's own default
            if field.has_default() or (not field.null and field.empty_strings_allowed):
                columns.append(field.column)  # Django's own value for it: the default, or ""
                values.append("%s")
                params.append(field.get_db_prep_save(field.get_default(), connection))
            elif not field.null:
                raise SystemExit(f"{meta.db_table}.{field.column} has no default: bench/scaledb.py must fill it")
        quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
        sql = f"INSERT INTO {meta.db_table} ({quoted}) SELECT {', '.join(values)} FROM {source}"
        self.step(label, sql, params)

    def drop_indexes(self) -> list[tuple[str, str]]:
        """Drop the filled tables' unique constraints and secondary indexes (rebuilt once, after the fill, which
        is several times faster than keeping them up to date row by row). Foreign keys stay, unchecked while
        filling (session_replication_role), since the builder's ids are consistent by construction."""
        from django.db import connection

        saved: list[tuple[str, str]] = []
        with connection.cursor() as cursor:
            cursor.execute("SET session_replication_role = replica")
            cursor.execute("SET maintenance_work_mem = '512MB'")
            cursor.execute("SET synchronous_commit = off")
            for model in FILLED:
                table = self.models[model[1]]._meta.db_table
                cursor.execute(
                    "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                    "WHERE conrelid = %s::regclass AND contype = 'u'",
                    [table],
                )
                for name, definition in cursor.fetchall():
                    saved.append((f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}', table))
                    cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
                cursor.execute(
                    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname NOT IN "
                    "(SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
                    [table, table],
                )
                for name, definition in cursor.fetchall():
                    saved.append((definition, table))
                    cursor.execute(f'DROP INDEX "{name}"')
        return saved

    def restore_indexes(self, saved: list[tuple[str, str]]) -> None:
        for definition, table in saved:
            self.step(f"indexes {table}", definition)
        for model in FILLED:
            table = self.models[model[1]]._meta.db_table
            self.step(
                "sequences",
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT coalesce(max(id), 1) FROM {table}))",
            )

    def prepare(self, traces: list[dict[str, Any]]) -> None:
        """The recorded games as temporary tables the statements join to, and the open games' deadlines."""
        from django.db import connection
        from psycopg.types.json import Jsonb

        t = self.t
        cursor: Any
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMP TABLE _trace_game (trace int, state jsonb, opening jsonb);"
                "CREATE TEMP TABLE _trace_phase (trace int, number int, name text, prompts jsonb, owed int[]);"
                "CREATE TEMP TABLE _trace_order (trace int, number int, seat int, data jsonb);"
                # The open games' first phase: the orders in (the first half of its owed seats), the emails sent.
                "CREATE TEMP TABLE _open_order (trace int, seat int, data jsonb);"
                "CREATE TEMP TABLE _open_mail (trace int, seat int, kind text);"
                "CREATE FUNCTION pg_temp.missed(phase bigint, seat int) RETURNS bool LANGUAGE sql IMMUTABLE "
                "AS 'SELECT mod(abs(hashint8(phase * 8 + seat)), 100) < 3'"
            )
            for trace, game in enumerate(traces):
                for phase in game["phases"]:
                    n = phase["number"]
                    cursor.execute(
                        "INSERT INTO _trace_phase VALUES (%s, %s, %s, %s, %s)",
                        [trace, n, phase["name"], Jsonb(phase["prompts"]), phase["owed"]],
                    )
                    for seat, data in phase["orders"].items():
                        cursor.execute(
                            "INSERT INTO _trace_order VALUES (%s, %s, %s, %s)", [trace, n, seat, Jsonb(data)]
                        )
                first = game["phases"][0]
                ordered = first["owed"][: len(first["owed"]) // 2]
                for seat in ordered:
                    cursor.execute(
                        "INSERT INTO _open_order VALUES (%s, %s, %s)", [trace, seat, Jsonb(first["orders"][seat])]
                    )
                for seat in first["owed"]:  # its turn email; a reminder too, in the games reminded already
                    cursor.execute("INSERT INTO _open_mail VALUES (%s, %s, 'turn-started')", [trace, seat])
                    if seat not in ordered:
                        cursor.execute("INSERT INTO _open_mail VALUES (%s, %s, 'reminder')", [trace, seat])
                cursor.execute(
                    "INSERT INTO _trace_game VALUES (%s, %s, %s)", [trace, Jsonb(game["state"]), Jsonb(game["opening"])]
                )
            # Game g's open phase: bucket b (a hash of g, 0-99) sets its deadline against the clock.
            cursor.execute(
                f"""CREATE TEMP TABLE _open AS
                SELECT g, trace, b, opened, opened + interval '48 hours' AS deadline,
                    b = 0 OR b BETWEEN 6 AND 12 AS reminded
                FROM (
                    SELECT g, mod(g, {TRACES}) AS trace, b,
                        CASE WHEN b = 0 THEN {t} - interval '49 hours'
                             WHEN b <= 12 THEN {t} - interval '40 hours'
                             ELSE {t} - (b - 13) * interval '21 minutes'
                                  - mod(abs(hashint4(-g)), 1260) * interval '1 second' END AS opened
                    FROM (SELECT g, mod(abs(hashint4(g)), 100) AS b FROM generate_series(1, {self.n}) g) h
                ) o"""
            )
            cursor.execute("ANALYZE _open")

    # The open games -------------------------------------------------------------------------------------

    def open_games(self) -> None:
        """N games at their first phase, open: the engine's opening state, the phase's prompts and deadline, half
        its owed orders in, its turn emails sent (and its reminders, where it was reminded). No history: what the
        sweeps and the email sender read of an open game is its open phase, its seats and its latest emails."""
        t = self.t
        player = f"mod((o.g - 1) * {SEATS} + {{seat}}, {self.players}) + 1"
        self.insert(
            "players",
            "Player",
            {
                "id": "i",
                "email": "'p' || i || '@scale.example'",
                "name": "'Player ' || i",
                "created_at": f"{t} - interval '400 days'",
            },
            f"generate_series(1, {self.players + LEAGUE_STANDBY}) i",
        )
        self.insert(
            "games",
            "Game",
            {
                "id": "o.g",
                "engine": lit(self.engine),
                "title": "'Scale game ' || o.g",
                "seed": "o.g",
                "status": "'active'",
                "state": "tg.opening",
                "phase_length": "interval '48 hours'",
                "reminder_before": "interval '12 hours'",
                "phase_number": "1",
                "created_at": "o.opened",
            },
            "_open o JOIN _trace_game tg ON tg.trace = o.trace",
        )
        self.insert(
            "seats",
            "Seat",
            {
                "id": f"(o.g - 1) * {SEATS} + s + 1",
                "game_id": "o.g",
                "number": "s",
                "player_id": player.format(seat="s"),
                "link_key": f"substr(md5('seat' || ((o.g - 1) * {SEATS} + s)), 1, 12)",
            },
            f"_open o CROSS JOIN generate_series(0, {SEATS - 1}) s",
        )
        # Game g's one phase has id g.
        self.insert(
            "phases",
            "Phase",
            {
                "id": "o.g",
                "game_id": "o.g",
                "number": "1",
                "name": "p.name",
                "prompts": "p.prompts",
                "status": "'open'",
                "opened_at": "o.opened",
                "deadline": "o.deadline",
                "used_defaults": "false",
                "reminded": "o.reminded",
                # Phase.reminder_time: 12 hours before the deadline, never before half-way.
                "remind_at": "CASE WHEN NOT o.reminded THEN "
                "greatest(o.deadline - interval '12 hours', o.opened + (o.deadline - o.opened) / 2) END",
            },
            "_open o JOIN _trace_phase p ON p.trace = o.trace AND p.number = 1",
        )
        self.insert(
            "orders",
            "Order",
            {
                "id": "o.g * 8 + d.seat",
                "phase_id": "o.g",
                "seat_id": f"(o.g - 1) * {SEATS} + d.seat + 1",
                "data": "d.data",
                "is_default": "false",
                "submitted_at": "o.opened + interval '10 hours'",
            },
            "_open o JOIN _open_order d ON d.trace = o.trace",
        )
        self.insert(
            "outbox",
            "OutboundEmail",
            {
                "id": "(o.g * 8 + m.seat) * 4 + CASE m.kind WHEN 'turn-started' THEN 0 ELSE 2 END",
                "game_id": "o.g",
                "phase_id": "o.g",
                "seat_id": f"(o.g - 1) * {SEATS} + m.seat + 1",
                "kind": "m.kind",
                "status": "'sent'",
                "to": f"'p' || ({player.format(seat='m.seat')}) || '@scale.example'",
                "subject": "'Scale game ' || o.g || ': ' || p.name",
                "events_upto": "0",
                "attempts": "1",
                "created_at": "o.opened",
                "sent_at": "o.opened + CASE m.kind WHEN 'reminder' THEN interval '36 hours' ELSE interval '5 s' END",
            },
            "_open o JOIN _open_mail m ON m.trace = o.trace "
            "JOIN _trace_phase p ON p.trace = o.trace AND p.number = 1 "
            "WHERE m.kind <> 'reminder' OR o.reminded",
        )

    # The league -----------------------------------------------------------------------------------------

    def league(self) -> None:
        """2,000 members, 10 finished rounds of 500 finished games, and an 11th round started on open games."""
        from django.db import connection

        league_model, season_model, round_model = (self.models[m] for m in ("League", "Season", "Round"))
        t, n, phases = self.t, self.n, LEAGUE_PHASES
        if n < LEAGUE_TABLES:
            raise SystemExit(f"the league's current round needs {LEAGUE_TABLES} open games")
        clock = self.clock
        league = league_model.objects.create(name="Scale League", slug="scale", engine=self.engine)
        season = season_model.objects.create(league=league, number=1, started_at=clock - timedelta(days=160))
        rounds = round_model.objects.bulk_create(
            round_model(
                season=season,
                number=r,
                starts_at=clock - timedelta(days=14 * (LEAGUE_ROUNDS + 1 - r)),
                status="finished" if r <= LEAGUE_ROUNDS else "started",
                draw_seed=r,
                finished_at=clock - timedelta(days=14 * (LEAGUE_ROUNDS + 1 - r) - 13) if r <= LEAGUE_ROUNDS else None,
            )
            for r in range(1, LEAGUE_ROUNDS + 2)
        )
        round_ids = "ARRAY[" + ", ".join(str(r.pk) for r in rounds) + "]"
        self.insert(
            "league members",
            "Membership",
            {
                "league_id": str(league.pk),
                "player_id": "i",
                "status": f"CASE WHEN i <= {LEAGUE_PLAYERS} THEN 'active' ELSE 'standby' END",
                "calendar_key": "substr(md5('cal' || i), 1, 16)",
                "joined_at": f"{t} - interval '170 days'",
            },
            f"generate_series(1, {LEAGUE_PLAYERS + LEAGUE_STANDBY}) i",
        )
        # Every seat of every finished league game: k numbers the game (1..5000), its round r and table tn.
        # One table in 50 had seat 0 change hands: a standby player holds it from SHARED_SEAT_AT on.
        with connection.cursor() as cursor:
            cursor.execute(
                f"""CREATE TEMP TABLE _lseat AS
                SELECT k, r, tn, s, {n} + k AS game, {SEATS * n} + (k - 1) * {SEATS} + s + 1 AS seat,
                    mod(((tn - 1) * {SEATS} + s) * (ARRAY{MIX})[r] + r, {LEAGUE_PLAYERS}) + 1 AS player,
                    s = 0 AND mod(abs(hashint4(k)), 50) = 0 AS changed,
                    {self.players} + 1 + mod(k, {LEAGUE_STANDBY}) AS newcomer,
                    20 + mod(abs(hashint4(k * 8 + s)), 20) AS score,
                    mod(k, {TRACES}) AS trace,
                    {t} - ({LEAGUE_ROUNDS + 1} - r) * interval '14 days' AS started
                FROM (SELECT k, (k - 1) / {LEAGUE_TABLES} + 1 AS r, mod(k - 1, {LEAGUE_TABLES}) + 1 AS tn
                      FROM generate_series(1, {LEAGUE_ROUNDS * LEAGUE_TABLES}) k) g
                CROSS JOIN generate_series(0, {SEATS - 1}) s;
                CREATE TEMP TABLE _lgame AS
                SELECT k, r, tn, game, trace, started,
                    jsonb_agg(jsonb_build_object('seat', s, 'score', score, 'rank', rank, 'detail', '') ORDER BY s)
                        AS result,
                    jsonb_agg(player ORDER BY s) AS players
                FROM (SELECT *, rank() OVER (PARTITION BY k ORDER BY score DESC) AS rank FROM _lseat) ranked
                GROUP BY k, r, tn, game, trace, started;
                ANALYZE _lseat; ANALYZE _lgame"""
            )
        self.insert(
            "league games",
            "Game",
            {
                "id": "l.game",
                "engine": lit(self.engine),
                "title": "'Scale League R' || l.r || ' T' || l.tn",
                "seed": "l.game",
                "status": "'finished'",
                "state": "tg.state",
                "phase_length": "interval '48 hours'",
                "reminder_before": "interval '12 hours'",
                "phase_number": str(phases),
                "created_at": "l.started",
                "finished_at": "l.started + interval '13 days' + l.tn * interval '1 second'",
                "result": "l.result",
            },
            "_lgame l JOIN _trace_game tg ON tg.trace = l.trace",
        )
        self.insert(
            "league seats",
            "Seat",
            {
                "id": "l.seat",
                "game_id": "l.game",
                "number": "l.s",
                "player_id": "CASE WHEN l.changed THEN l.newcomer ELSE l.player END",
                "link_key": "substr(md5('seat' || l.seat), 1, 12)",
            },
            "_lseat l",
        )
        # Phase p of a league game replays the recorded phases in turn: its prompts, and orders for its owed seats.
        phase_id = f"{n} + (l.k - 1) * {phases} + p"
        opened = "l.started + (p - 1) * interval '10 hours'"
        self.insert(
            "league phases",
            "Phase",
            {
                "id": phase_id,
                "game_id": "l.game",
                "number": "p",
                "name": "tp.name",
                "prompts": "tp.prompts",
                "status": "'resolved'",
                "opened_at": opened,
                "deadline": f"{opened} + interval '48 hours'",
                "resolved_at": f"{opened} + interval '9 hours'",
                "used_defaults": f"EXISTS (SELECT FROM unnest(tp.owed) s WHERE pg_temp.missed({phase_id}, s))",
            },
            f"_lgame l CROSS JOIN generate_series(1, {phases}) p "
            f"JOIN _trace_phase tp ON tp.trace = l.trace AND tp.number = mod(p - 1, {RESOLVED}) + 1",
        )
        self.insert(
            "league orders",
            "Order",
            {
                "id": f"({phase_id}) * 8 + d.seat",
                "phase_id": phase_id,
                "seat_id": f"{SEATS * n} + (l.k - 1) * {SEATS} + d.seat + 1",
                "data": "d.data",
                "is_default": f"pg_temp.missed({phase_id}, d.seat)",
                "submitted_at": f"{opened} + interval '5 hours'",
            },
            f"_lgame l CROSS JOIN generate_series(1, {phases}) p "
            f"JOIN _trace_order d ON d.trace = l.trace AND d.number = mod(p - 1, {RESOLVED}) + 1",
        )
        self.insert(
            "league tables",
            "Table",
            {
                "id": "l.k",
                "round_id": f"({round_ids})[l.r]",
                "number": "l.tn",
                "players": "l.players",
                "game_id": "l.game",
            },
            "_lgame l",
        )
        # The started round: its tables are open games 1..500, whose seats hold players 1..2000.
        self.insert(
            "league tables",
            "Table",
            {
                "id": f"{LEAGUE_ROUNDS * LEAGUE_TABLES} + g",
                "round_id": str(rounds[-1].pk),
                "number": "g",
                "players": f"(SELECT jsonb_agg((g - 1) * {SEATS} + s + 1 ORDER BY s) "
                f"FROM generate_series(0, {SEATS - 1}) s)",
                "game_id": "g",
            },
            f"generate_series(1, {LEAGUE_TABLES}) g",
        )
        self.insert(
            "league seatings",
            "Seating",
            {
                "table_id": "l.k",
                "seat_number": "l.s",
                "player_id": "l.player",
                "until_phase": f"CASE WHEN l.changed THEN {SHARED_SEAT_AT - 1} END",
            },
            "_lseat l",
        )
        self.insert(
            "league seatings",
            "Seating",
            {"table_id": "l.k", "seat_number": "l.s", "player_id": "l.newcomer", "from_phase": str(SHARED_SEAT_AT)},
            "_lseat l WHERE l.changed",
        )
        self.insert(
            "league seatings",
            "Seating",
            {
                "table_id": f"{LEAGUE_ROUNDS * LEAGUE_TABLES} + g",
                "seat_number": "s",
                "player_id": f"(g - 1) * {SEATS} + s + 1",
            },
            f"generate_series(1, {LEAGUE_TABLES}) g CROSS JOIN generate_series(0, {SEATS - 1}) s",
        )

    def counts(self) -> dict[str, int]:
        from django.db import connection

        result = {}
        with connection.cursor() as cursor:
            for model in FILLED:
                table = self.models[model[1]]._meta.db_table
                cursor.execute(f"SELECT count(*) FROM {table}")
                result[table] = cursor.fetchone()[0]
            cursor.execute("SELECT pg_database_size(current_database())")
            result["bytes"] = cursor.fetchone()[0]
        return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="ensure", choices=["ensure", "fill"])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--engine", default="piraeus")
    ap.add_argument("--database", help="fill: the (new, empty) database")
    ap.add_argument("--rebuild", action="store_true", help="build even if a database of this shape exists")
    args = ap.parse_args()
    if args.command == "fill":
        print(json.dumps(fill(args.games, args.engine)))
        return
    db = ensure(args.games, args.engine, rebuild=args.rebuild)
    if db.build_s is None:
        print(f"{db.name} holds this shape already (clock {db.clock:%Y-%m-%d %H:%M} UTC): reused")
    for label, seconds in db.steps.items():
        print(f"  {label:<24} {seconds:>8.1f} s")


if __name__ == "__main__":
    main()
