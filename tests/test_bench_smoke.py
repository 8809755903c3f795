"""Each `make bench-*` has a tiny smoke run here, so none rots unseen (bench/README.md): the real script, run as
the Makefile runs it, at sizes that take seconds. They assert what each script promises to print and write, never a
timing. (make bench-bots and make bench-scale have theirs in tests/play/test_commands.py.)

Each runs on what is this test process's own: databases named after its test database (so neither the other
xdist process nor another checkout's test run on the same PostgreSQL meets them), dropped after; its Redis
database (`broker_url`); and a results folder in tmp_path (BENCH_RESULTS, bench/procs.py). Their databases are
copies of one migrated once per test process (BENCH_TEMPLATE_DB, bench/run.py): a migration from nothing takes
about 10 s of CPU, which each script would pay. PostgreSQL and Redis missing skip them, or fail them with
PBEM_REQUIRE_SERVICES=1 (as CI runs); so does wrk for make bench."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from django.db import connection

from bench.run import TEMPLATE_ENV, base_env, fresh_database
from bench.scaledb import drop
from tests.support.services import REQUIRE_SERVICES, missing_service

pytestmark = pytest.mark.services
ROOT = Path(__file__).resolve().parents[1]
LIMIT = 300  # seconds: a smoke that hangs fails here, well before CI's own time limit
NUMBER = r"-?\d+(?:\.\d+)?"


@pytest.fixture(scope="session")
def bench_template(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database migrated once for this test process's smoke runs, which copy it (dropped at the end)."""
    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL (set DATABASE_URL=postgres://...)")
    name = f"{connection.settings_dict['NAME']}_bench_template"
    fresh_database(name, template="")
    env = base_env(name, PBEM_VAR_DIR=str(tmp_path_factory.mktemp("bench-template")))
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert migrate.returncode == 0, migrate.stderr[-3000:]
    yield name
    drop(name)


@pytest.fixture
def own(postgres: None, bench_template: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A prefix for the databases of this test process's own: its test database's name (test_<name>_gw0...).
    The scripts started after copy the migrated template."""
    monkeypatch.setenv(TEMPLATE_ENV, bench_template)
    return f"{connection.settings_dict['NAME']}_bench"


def bench(script: str, *args: str, results: Path, **env: str) -> str:
    """Run bench/<script> as the Makefile does, its figures written to `results`; its standard output. Stopped by
    SIGTERM past LIMIT: the script then stops every process it started, by PID (bench/procs.py run_main)."""
    environment = {**os.environ, "BENCH_RESULTS": str(results), **env}
    command = [sys.executable, f"bench/{script}", *args]
    proc = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        proc.terminate()
        out, err = proc.communicate(timeout=60)
        pytest.fail(f"{' '.join(command)} still ran after {LIMIT} s:\n{out[-2000:]}\n{err[-3000:]}")
    assert proc.returncode == 0, f"{' '.join(command)} exited {proc.returncode}:\n{out[-2000:]}\n{err[-3000:]}"
    return out


def numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def test_make_bench_smoke_plays_measures_and_loads_the_order_post(tmp_path, own, broker_url):
    """make bench, tiny and without the floor: A (a whole game inline), B (a real worker: the sequential,
    streamed, queued and held runs, the in-process steps, a game through the worker) and C (gunicorn loaded by
    wrk for a second, the page's POST and the API's PUT). The summary table's rows are there, each with a
    figure; summary.json holds every part."""
    has_wrk = shutil.which("wrk") is not None
    if not has_wrk and REQUIRE_SERVICES:
        pytest.fail("make bench's part C needs wrk (.ci/run installs it; PBEM_REQUIRE_SERVICES=1: this may not skip)")
    parts = ["A", "B", "C"] if has_wrk else ["A", "B"]
    database = f"{own}_run"
    sizes = "--games 1 --worker-games 1 --sequential 3 --burst 5 --bursts 1 --inprocess 4 --http-games 3"
    only = [arg for part in parts for arg in ("--only", part)]
    try:
        out = bench(
            "run.py", "--no-floor", "--database", database, *only, *sizes.split(), "--wrk-seconds", "1",
            results=tmp_path, BENCH_REDIS_URL=broker_url,
        )  # fmt: skip
    finally:
        drop(database)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [part for part in ("A", "B", "C") if part in summary] == parts
    a, b = summary["A"], summary["B"]
    assert a["simulate"]["finished"] == a["simulate"]["games"] == 1 and a["simulate"]["resolutions"] > 0
    assert numeric(a["latency"]["last_order_to_emails_written_ms"]["median"])
    trip = b["round_trip"]
    assert trip["sequential"]["commit_to_resolution_commit_ms"]["n"] == 3
    assert [len(trip[kind]) for kind in ("streamed", "queued", "held")] == [1, 1, 1]
    assert all(run["n"] == 5 for kind in ("streamed", "queued", "held") for run in trip[kind])
    assert b["simulate"]["finished"] == 1 and b["in_process"]["timed"] == 1
    assert set(b["in_process"]["median_ms"]) == {"submit_last_order", "resolve_phase", "send_pending_emails"}
    rows = summary["headline"]
    expected = [
        "resolution latency median, ms (sequential)",
        "drain, resolutions/s (queued, emails held)",
        "end to end, resolutions/s (streamed)",
        "SQL statements per resolution",
    ]
    if has_wrk:
        c = summary["C"]
        assert c["load"]["requests"] > 0 and c["api_load"]["requests"] > 0
        assert c["verify"]["revisions_stored"] > 0 and c["verify"]["api_revisions_stored"] > 0
        expected += ["order POST p50, ms", "SQL statements per order POST", "API order PUT, requests/s"]
    assert set(expected) <= set(rows)
    assert all(numeric(row["ours"]) and row["floor"] is None and row["ratio"] is None for row in rows.values())
    assert "pbem benchmark summary (no floor run: --no-floor)" in out
    for name in rows:  # the printed table: each row, its figure, no floor
        assert re.search(rf"^{re.escape(name)} +{NUMBER} +- +- ", out, re.M), name
    assert (tmp_path / "run" / "profile-turn.txt").read_text()


def test_make_bench_leagues_smoke_draws_rounds_and_reckons_a_small_season(tmp_path, own):
    """make bench-leagues, tiny and without the large league: 12 players, 3 finished games of 2 phases, each
    measurement once. Every row of the table printed with its figures; leagues.json holds them."""
    database = f"{own}_leagues"
    sizes = "--players 12 --games 3 --phases 2 --repeat 1 --no-scale"
    try:
        out = bench("leagues.py", "--database", database, *sizes.split(), results=tmp_path)
    finally:
        drop(database)
    figures = json.loads((tmp_path / "leagues.json").read_text())
    assert figures["finished_games"] == 3 and "large_league" not in figures
    measured = [key for key, value in figures.items() if isinstance(value, dict)]
    assert len(measured) == 8 and all(numeric(figures[key][ms]) for key in measured for ms in ("median_ms", "min_ms"))
    assert "League figures: 12 players, 3 finished games of 2 phases" in out
    table = re.findall(rf"^( *\S.*?) +({NUMBER}) +({NUMBER})$", out, re.M)
    assert len(table) == 8, out


def test_make_bench_workers_smoke_plays_a_game_through_one_worker(tmp_path, own, broker_url):
    """make bench-workers, tiny: one worker process, one whole bot game, on this process's Redis database.
    The table's row for 1 worker, with its figures; workers.json holds the run."""
    database = f"{own}_workers"
    try:
        out = bench(
            "workers.py", "--counts", "1", "--games", "1", "--broker", broker_url, "--database", database,
            results=tmp_path,
        )  # fmt: skip
    finally:
        drop(database)
    (run,) = json.loads((tmp_path / "workers.json").read_text())["runs"]
    assert run["workers"] == 1 and run["resolutions"] > 0
    assert all(numeric(run[key]) for key in ("resolutions_per_s", "games_per_minute", "latency_ms_median"))
    assert re.search(rf"^ +1 +{NUMBER} +1\.00 +{NUMBER} +{NUMBER} +\d+% ", out, re.M), out


def test_make_bench_faults_smoke_kills_the_worker_and_cuts_the_broker(tmp_path, own, broker_url):
    """make bench-faults, tiny: 2 games in flight, the worker SIGKILLed twice, the broker unreachable for 1 s,
    the sweep every 3 s (settling 2 s) so that a lost task is found within seconds. Every game finishes, and
    what the script checks comes out as it aims: no phase lost, doubled or stuck, no email left unsent. (Not "no
    email sent twice": a kill during a provider's call sends that email again, by design; bench/README.md.)"""
    redis = urlparse(broker_url)
    if (redis.hostname, redis.port or 6379) != ("127.0.0.1", 6379):  # bench/faults.py proxies this Redis
        missing_service(f"bench/faults.py needs Redis at 127.0.0.1:6379, not {broker_url}")
    database = f"{own}_faults"
    sizes = "--kills 2 --outage 1 --games 2 --drain 200 --sweep-every 3 --settle 2"
    try:
        out = bench(
            "faults.py", "--database", database, "--redis-db", redis.path.strip("/") or "0", *sizes.split(),
            results=tmp_path,
        )  # fmt: skip
    finally:
        drop(database)
    figures = json.loads((tmp_path / "faults.json").read_text())
    assert figures["kills"] == 2 and figures["worker_starts"] == 3
    assert figures["games"] >= 2 and figures["games_finished"] == figures["games"]
    assert figures["phases_resolved"] > 0 and figures["emails_sent"] > 0
    zeros = ["phases_lost", "phases_doubled", "phases_stuck", "emails_owed_never_sent"]
    assert {key: figures[key] for key in zeros} == dict.fromkeys(zeros, 0), figures
    assert numeric(figures["longest_last_order_to_resolution_s"]) and numeric(figures["emails_sent_twice"])
    assert "phases lost 0, doubled 0, stuck 0; longest last order to resolution" in out


def test_make_bench_hooks_smoke_resolves_games_without_idle_and_hooked(tmp_path, own):
    """make bench-hooks, tiny: 2 games each way, on a database of its own (the script makes test_<name> from
    DATABASE_URL and drops it). A row for each way with its figures; hooked games' resolutions run more SQL."""
    database = f"{own}_hooks"
    env = {"DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}", "BENCH_HOOKS_GAMES": "2"}
    try:
        out = bench("hooks.py", results=tmp_path, CELERY_BROKER_URL="", **env)
    finally:
        drop(f"test_{database}")
    assert "2 per way, interleaved" in out
    rows = {
        way: (float(median), float(p90), [int(n) for n in sql.split(", ")], float(ratio))
        for way, median, p90, sql, ratio in re.findall(
            rf"^ +(\w+) +median +({NUMBER}) ms +p90 +({NUMBER}) ms +SQL \[([\d, ]+)\] +ratio to without ({NUMBER})$",
            out,
            re.M,
        )
    }
    assert list(rows) == ["without", "idle", "hooked"], out
    assert rows["without"][3] == 1.0
    assert all(p90 >= median for median, p90, _, _ in rows.values())
    assert min(rows["hooked"][2]) > max(rows["without"][2])  # the hooks' deliveries written with the resolution


def test_the_email_floor_is_the_floors_measurement_3_recomputed_for_our_emails_per_resolution():
    """bench/floor.py reads the floor's drain with emails and its alternated drain without (run.sh's measurement 3,
    shaped as its report.py reads it) as a resolution's and an email's share of the drain: recomputed for the
    floor's own emails per resolution it gives the floor's measured rate back, for none its drain without."""
    from bench import floor

    with_emails = [
        {"resolutions_per_s": 300.0, "resolutions_per_s_with_email": r, "emails_per_resolution": 4.0}
        for r in (150.0, 160.0, 140.0)
    ]
    without = [{"resolutions_per_s": r} for r in (400.0, 380.0, 420.0)]
    res = {
        "queued_1proc_c2_reuse_with_email": {"runs": with_emails},
        "queued_1proc_c2_reuse_email_worker": {"runs": without},
    }
    figures = floor.email_floor(res)
    assert floor.email_floor_rate(figures, 4.0) == pytest.approx(150.0)
    assert floor.email_floor_rate(figures, 0.0) == pytest.approx(400.0)
    assert 150.0 < floor.email_floor_rate(figures, 2.2) < 400.0
    assert floor.email_floor({}) == {} and floor.email_floor_rate({}, 2.2) is None  # a floor run with EMAIL=0
