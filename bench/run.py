"""pbem benchmark: whole games, the resolution round trip through a real worker, and the order POST under
load, quoted against the bare Django + Celery floor (../shared/floor) measured in the same run.

    .venv/bin/python bench/run.py [--engine piraeus] [--no-floor | --floor-from SUMMARY] [--games 10] ...

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis on 127.0.0.1:6379. Uses (and drops)
the database `pbem_bench` and Redis db 12 (`--database`, BENCH_REDIS_URL name others). Prints a summary table;
writes bench/results/summary.json.
Every process it starts is stopped by PID at the end, on error too. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: make `bench` importable

import psycopg  # noqa: E402
import redis  # noqa: E402

from bench import floor, procs  # noqa: E402
from bench.procs import RESULTS, ROOT, RUN_DIR, VENV_BIN  # noqa: E402
from games.engines import all_engines  # noqa: E402  (pure Python: needs no Django settings)

PG = "host=127.0.0.1 port=5432 user=postgres"
# db 12 is this benchmark's: flushed at start and between steps. BENCH_REDIS_URL names another, for a checkout
# that must not touch db 12 (several checkouts on one machine, each with its own Redis databases).
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
PYTHON = str(VENV_BIN / "python")
# BENCH_TEMPLATE_DB names a migrated database each fresh one is copied from (CREATE DATABASE ... TEMPLATE), so the
# migrate after it has nothing left to do: the smoke tests' (tests/test_bench_smoke.py), which make many.
TEMPLATE_ENV = "BENCH_TEMPLATE_DB"
BENCH_SECRET_KEY = "bench-secret-key-not-for-production-0123456789abcdefghijklmnopqrstuvwxyz"


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", default="pbem_bench", help="dropped and recreated")
    ap.add_argument(
        "--engine", default="piraeus", choices=[e.slug for e in all_engines()], help="the game of A and B (C: Piraeus)"
    )
    ap.add_argument("--games", type=int, default=10, help="A: whole games played inline")
    ap.add_argument("--worker-games", type=int, default=10, help="B: whole games played by the worker")
    ap.add_argument("--concurrency", type=int, default=2, help="B: prefork pool size (the floor's: 2)")
    ap.add_argument("--sequential", type=int, default=100, help="B: resolutions one at a time")
    ap.add_argument("--burst", type=int, default=200, help="B: phases per burst (the floor's PHASES: 200)")
    ap.add_argument("--bursts", type=int, default=3, help="B: runs of each burst kind (the floor's BURSTS: 3)")
    ap.add_argument("--inprocess", type=int, default=40, help="turns timed in-process (profile, SQL counts)")
    ap.add_argument("--http-games", type=int, default=200, help="C: games, 3 signed-in seats each")
    ap.add_argument("--wrk-seconds", type=int, default=15, help="C, and the floor's HTTP cases")
    ap.add_argument("--connections", type=int, default=16, help="C: wrk connections (compared with the floor's 16)")
    ap.add_argument("--floor", action=argparse.BooleanOptionalAction, default=True, help="run the floor too")
    ap.add_argument("--floor-dir", default=str(ROOT.parent / "shared" / "floor"))
    ap.add_argument("--floor-phases", type=int, default=200)
    ap.add_argument("--floor-bursts", type=int, default=3)
    ap.add_argument("--floor-retries", type=int, default=1, help="rerun a failed floor this many times")
    ap.add_argument(
        "--floor-from", metavar="SUMMARY", help="no floor run: reuse the floor of an earlier run's summary.json"
    )
    ap.add_argument(
        "--only", choices=["A", "B", "C", "floor"], action="append", help="run only these ('floor': the floor alone)"
    )
    return ap.parse_args()


# --- environment -------------------------------------------------------------------------------------


def base_env(database: str, **extra: str) -> dict[str, str]:
    """The project's settings come from the environment: the same base for every process started here."""
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
        # Production settings: DEBUG on would log every SQL statement in memory, a cost the floor does not pay.
        DEBUG="0",
        SECRET_KEY=BENCH_SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        CONN_MAX_AGE="600",
        EMAIL_PROVIDER="test",  # anymail's in-memory backend: rendering and sending, no network
        PBEM_VAR_DIR=str(RESULTS / "var"),
        DJANGO_SETTINGS_MODULE="pbem.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def check_services() -> None:
    try:
        with psycopg.connect(f"{PG} dbname=postgres", connect_timeout=3):
            pass
    except psycopg.OperationalError as error:
        raise SystemExit(f"PostgreSQL is not answering on 127.0.0.1:5432 as postgres: {error}") from None
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as error:
        raise SystemExit(f"Redis is not answering on 127.0.0.1:6379: {error}") from None


def ensure_wrk() -> bool:
    if shutil.which("wrk"):
        return True
    print("installing wrk (apt-get)", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, capture_output=True)
    return shutil.which("wrk") is not None


def fresh_database(name: str, template: str | None = None) -> None:
    """Drop and create the database `name`: empty, or a copy of `template` (default: BENCH_TEMPLATE_DB's)."""
    template = os.environ.get(TEMPLATE_ENV, "") if template is None else template
    for each in (name, template) if template else (name,):
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", each):
            raise SystemExit(f"not a plain database name: {each!r}")
    with psycopg.connect(f"{PG} dbname=postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))


def flush_redis() -> None:
    redis.Redis.from_url(REDIS_URL).flushdb()


def drop_queued_calls(database: str) -> None:
    """Flush the broker's database (tasks published while no worker ran) and forget the email sender's call
    among them: its Wake row says a call is on its way (games/outgoing/wakes.py), which is no longer true. Then give
    the freshly filled tables their statistics, as autovacuum keeps them on a running server: without, the
    planner judges the outbox by the few rows it had before the preparation marked thousands sent."""
    flush_redis()
    with psycopg.connect(f"{PG} dbname={database}", autocommit=True) as conn:
        conn.execute("DELETE FROM games_wake")
        conn.execute("ANALYZE")


def run_py(args: list[str], env: dict[str, str], log_name: str, timeout: float = 900) -> str:
    """Run a Python step to completion; its stderr (the app's INFO logging) goes to results/run/."""
    with open(RUN_DIR / f"{log_name}.log", "w") as log:
        res = subprocess.run(
            [PYTHON, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True, timeout=timeout
        )
    if res.returncode != 0:
        tail = "\n".join(res.stdout.splitlines()[-5:])
        raise SystemExit(f"{' '.join(args[:3])} failed ({res.returncode}); see {RUN_DIR / log_name}.log\n{tail}")
    return res.stdout


def read_json(name: str) -> Any:
    return json.loads((RUN_DIR / name).read_text())


def simulate(env: dict[str, str], engine: str, games: int, log_name: str) -> tuple[dict[str, Any], list[int]]:
    out = run_py(
        ["manage.py", "simulate", engine, "--players", "4", "--games", str(games), "--seed", "1"], env, log_name
    )
    figures = json.loads(next(ln for ln in reversed(out.splitlines()) if ln.startswith("{")))
    return figures, [int(g) for g in re.findall(r"game #(\d+) finished", out)]


# --- A: whole games inline ---------------------------------------------------------------------------


def measure_a(args: argparse.Namespace) -> dict[str, Any]:
    env = base_env(args.database)  # no broker: every task runs inline after its commit
    print(f"== A: {args.games} whole games of {args.engine} inline (no broker), PostgreSQL", flush=True)
    figures, game_ids = simulate(env, args.engine, args.games, "a-simulate")
    run_py(
        [
            "-m",
            "bench.resolution",
            "latency",
            "--games",
            ",".join(map(str, game_ids)),
            "--out",
            str(RUN_DIR / "a-latency.json"),
        ],
        env,
        "a-latency",
    )
    return {"simulate": figures, "latency": read_json("a-latency.json")}


# --- B: a real worker ----------------------------------------------------------------------------------


def start_worker(env: dict[str, str], concurrency: int) -> tuple[Any, str]:
    ready = RUN_DIR / "worker.ready"
    ready.unlink(missing_ok=True)
    cmd = [
        str(VENV_BIN / "celery"),
        "-A",
        "bench.probe",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "-n",
        "bench@%h",
        "--loglevel=WARNING",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    proc = procs.start(cmd, "worker", {**env, "BENCH_READY_FILE": str(ready)})
    procs.wait_until(ready.exists, proc, "celery worker")
    return proc, " ".join(cmd).replace(str(ROOT) + "/", "")


def measure_b(args: argparse.Namespace) -> dict[str, Any]:
    timing = RUN_DIR / "worker.timing"
    timing.unlink(missing_ok=True)
    env = base_env(args.database, CELERY_BROKER_URL=REDIS_URL, BENCH_TIMING_FILE=str(timing))
    n_prepared = 12 + args.sequential + args.inprocess + 3 * args.bursts * args.burst
    print(
        f"== B: prepare {n_prepared} open phases of {args.engine} (every owed order in but one), "
        f"in-process turns x{args.inprocess}",
        flush=True,
    )
    run_py(
        [
            "-m",
            "bench.resolution",
            "prepare",
            "--engine",
            args.engine,
            "--sequential",
            str(args.sequential),
            "--burst",
            str(args.burst),
            "--bursts",
            str(args.bursts),
            "--inprocess",
            str(args.inprocess),
            "--profile",
            str(RUN_DIR / "profile-turn.txt"),
            "--out",
            str(RUN_DIR / "b-prepared.json"),
        ],
        env,
        "b-prepare",
    )
    drop_queued_calls(args.database)  # the tasks the preparation enqueued with no worker running
    prepared = read_json("b-prepared.json")
    print(f"== B: celery worker, prefork -c {args.concurrency}", flush=True)
    worker, cmd = start_worker(env, args.concurrency)
    try:
        run_py(
            [
                "-m",
                "bench.resolution",
                "measure",
                "--prepared",
                str(RUN_DIR / "b-prepared.json"),
                "--timing",
                str(timing),
                "--node",
                f"bench@{socket.gethostname()}",
                "--out",
                str(RUN_DIR / "b-measure.json"),
            ],
            env,
            "b-measure",
        )
        print(f"  simulate: {args.worker_games} whole games played by the worker", flush=True)
        figures, game_ids = simulate(env, args.engine, args.worker_games, "b-simulate")
    finally:
        procs.stop(worker)
    run_py(
        [
            "-m",
            "bench.resolution",
            "latency",
            "--games",
            ",".join(map(str, game_ids)),
            "--timing",
            str(timing),
            "--out",
            str(RUN_DIR / "b-latency.json"),
        ],
        env,
        "b-latency",
    )
    return {
        "worker_cmd": cmd,
        "prepare_s": prepared["prepare_s"],
        "owed_orders_per_phase": prepared["owed_orders_per_phase"],
        "in_process": prepared.get("in_process"),
        "round_trip": read_json("b-measure.json"),
        "simulate": figures,
        "simulate_latency": read_json("b-latency.json"),
    }


# --- C: HTTP -----------------------------------------------------------------------------------------------


def run_wrk(port: int, lua: Path, connections: int, seconds: int) -> dict[str, Any]:
    cmd = [
        "wrk",
        "-t",
        "1",
        "-c",
        str(connections),
        "-d",
        f"{seconds}s",
        "--timeout",
        "10s",
        "-s",
        str(lua),
        f"http://127.0.0.1:{port}",
    ]
    cpu0 = procs.cpu_ticks()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=seconds + 60)
    line = next((ln for ln in res.stdout.splitlines() if ln.startswith("BENCHJSON ")), None)
    if res.returncode != 0 or line is None:
        raise SystemExit(f"wrk failed ({res.returncode}):\n{res.stdout}\n{res.stderr}")
    d: dict[str, Any] = json.loads(line.removeprefix("BENCHJSON "))
    d["requests_per_s"] = round(d["requests"] / (d["duration_us"] / 1e6), 1)
    d["cpu_busy_fraction"] = procs.cpu_busy(cpu0, procs.cpu_ticks())
    d["wrk_cmd"] = " ".join(cmd).replace(str(ROOT) + "/", "")
    return d


def measure_c(args: argparse.Namespace) -> dict[str, Any]:
    port = procs.free_port()
    # The API's rate limit raised: 3 tokens post for every seat here (bench/web.py), far over a player's pace,
    # from two workers whose clocks' reads interleave (its UPDATE still runs on every call).
    env = base_env(
        args.database,
        CELERY_BROKER_URL=REDIS_URL,
        SITE_URL=f"http://127.0.0.1:{port}",
        PBEM_API_RATE="100000000",
        PBEM_API_BURST="100000000",
    )
    lua = RUN_DIR / "orders.lua"
    api_lua = RUN_DIR / "api_orders.lua"
    print(
        f"== C: {args.http_games} games of piraeus (C always uses Port of Piraeus), {3 * args.http_games} "
        "signed-in seats; order POST SQL",
        flush=True,
    )
    flush_redis()
    run_py(
        [
            "-m",
            "bench.web",
            "setup",
            "--games",
            str(args.http_games),
            "--lua",
            str(lua),
            "--profile",
            str(RUN_DIR / "profile-post.txt"),
            "--api-lua",
            str(api_lua),
            "--out",
            str(RUN_DIR / "c-setup.json"),
        ],
        env,
        "c-setup",
    )
    drop_queued_calls(args.database)  # the new games' email task: no worker in this measurement
    setup = read_json("c-setup.json")
    cmd = [
        str(VENV_BIN / "gunicorn"),
        "pbem.wsgi:application",
        "--workers",
        "2",
        "--worker-class",
        "sync",
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
    ]
    print(f"== C: gunicorn 2 sync workers, wrk {args.wrk_seconds}s at {args.connections} connections", flush=True)
    proc = procs.start(cmd, "gunicorn", env)
    try:
        procs.wait_until(lambda: _http_ok(f"http://127.0.0.1:{port}/"), proc, "gunicorn")
        load = run_wrk(port, lua, args.connections, args.wrk_seconds)
        print(f"== C: the API's order PUT, wrk {args.wrk_seconds}s at {args.connections} connections", flush=True)
        api_load = run_wrk(port, api_lua, args.connections, args.wrk_seconds)
    finally:
        procs.stop(proc)
    run_py(
        [
            "-m",
            "bench.web",
            "verify",
            "--setup",
            str(RUN_DIR / "c-setup.json"),
            "--out",
            str(RUN_DIR / "c-verify.json"),
        ],
        env,
        "c-verify",
    )
    setup.pop("game_ids")
    setup.pop("api_game_ids", None)
    return {
        "gunicorn_cmd": " ".join(cmd).replace(str(ROOT) + "/", ""),
        "setup": setup,
        "load": load,
        "api_load": api_load,
        "verify": read_json("c-verify.json"),
    }


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 (our own 127.0.0.1 server)
            return bool(r.status == 200)
    except OSError:
        return False


# --- summary ---------------------------------------------------------------------------------------------


def median_of(runs: list[dict[str, Any]], key: str) -> float | None:
    return round(statistics.median(r[key] for r in runs), 1) if runs else None


def ratio(ours: float | None, theirs: float | None) -> float | None:
    return round(ours / theirs, 2) if ours is not None and theirs else None


def per_resolution(b: dict[str, Any]) -> str:
    """Emails per resolution in the sequential run (the same for every phase 1 of one engine, or a range)."""
    e = b["round_trip"]["sequential"]["emails_per_resolution"]
    return f"{e['median']:g}" if e["min"] == e["max"] else f"{e['min']}-{e['max']}"


def headline(out: dict[str, Any]) -> dict[str, Any]:
    """Our figures that have a floor twin, the floor's, their ratio and the aim."""
    b, c, fl = out.get("B"), out.get("C"), out.get("floor", {}).get("figures", {})
    rows: dict[str, Any] = {}

    def row(name: str, ours: float | None, theirs: float | None, aim: str) -> None:
        rows[name] = {"ours": ours, "floor": theirs, "ratio": ratio(ours, theirs), "aim": aim}

    if b:
        rt = b["round_trip"]
        seq = rt["sequential"]["commit_to_resolution_commit_ms"]
        row(
            "resolution latency median, ms (sequential)", seq["median"], fl.get("sequential_latency_ms_median"), "<= 2x"
        )
        row("resolution latency p99, ms (sequential)", seq["p99"], fl.get("sequential_latency_ms_p99"), "<= 5x")
        parts = rt["sequential"]["breakdown_median_ms"]
        row(
            "  of which delivery to the task, ms",
            parts["delivery (last order COMMIT -> task body starts)"],
            fl.get("sequential_delivery_ms_median"),
            "",
        )
        row(
            "  of which task body to COMMIT, ms",
            parts["task body to COMMIT returned"],
            fl.get("sequential_task_body_ms_median"),
            "",
        )
        emails = rt["sequential"]["emails_per_resolution"]["median"]
        row(
            "drain, resolutions/s (queued, emails held)",
            median_of(rt["held"], "resolutions_per_s"),
            fl.get("drain_resolutions_per_s"),
            ">= 0.5x",
        )
        row(
            f"drain incl. sending the emails ({per_resolution(b)} each), res/s",
            median_of(rt["queued"], "resolutions_per_s_with_emails"),
            floor.email_floor_rate(fl, emails),
            ">= 0.5x",
        )
        row(
            "  until the last resolution, the sender sharing the worker",
            median_of(rt["queued"], "resolutions_per_s"),
            fl.get("drain_with_emails_resolutions_per_s"),
            f"(floor: {fmt(fl.get('drain_with_emails_emails_per_resolution'))} emails each)",
        )
        row(
            "end to end, resolutions/s (streamed)",
            median_of(rt["streamed"], "resolutions_per_s"),
            fl.get("streamed_resolutions_per_s"),
            "",
        )
        if b.get("in_process"):
            row(
                "SQL statements per resolution",
                b["in_process"]["sql_count"]["resolve_phase"],
                fl.get("task_sql_count"),
                "",
            )
    if c:
        row(
            f"order POST, requests/s (c={c['load']['wrk_cmd'].split(' -c ')[1].split()[0]})",
            c["load"]["requests_per_s"],
            fl.get("order_post_rps_c16"),
            ">= 0.5x",
        )
        row("order POST p50, ms", c["load"]["lat_p50_us"] / 1000, fl.get("order_post_p50_ms"), "")
        row("SQL statements per order POST", c["setup"]["order_post_sql_count"], fl.get("order_post_sql_count"), "")
        if c.get("api_load"):
            row("API order PUT, requests/s", c["api_load"]["requests_per_s"], fl.get("order_post_rps_c16"), ">= 0.5x")
            row("API order PUT p50, ms", c["api_load"]["lat_p50_us"] / 1000, fl.get("order_post_p50_ms"), "")
            row("SQL statements per API order PUT", c["setup"]["api_put_sql_count"], fl.get("order_post_sql_count"), "")
    return rows


def fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}" if abs(x) < 1000 else f"{x:.0f}"
    return str(x)


def print_summary(out: dict[str, Any]) -> None:
    print("\n" + "=" * 100)
    fl = out.get("floor")
    print("pbem benchmark summary" + (" (no floor run: --no-floor)" if fl is None else ""))
    if fl and fl.get("error"):
        print(f"the floor failed, so there are no ratios: {fl['error']}")
    if fl and fl.get("reused_from"):
        print(f"floor figures reused from {fl['reused_from']}, measured {floor_age(fl)}")
    print("=" * 100)
    a, b, c = out.get("A"), out.get("B"), out.get("C")
    if a:
        s, lat = a["simulate"], a["latency"]["last_order_to_emails_written_ms"]
        print(
            f"\nA. whole games inline, no broker: {s['finished']}/{s['games']} games of "
            f"{out['params']['engine']} (4 players) in {s['seconds']} s"
        )
        print(
            f"   games/minute {s['games_per_minute']}, {s['resolutions']} resolutions, "
            f"SQL per resolution median {s['queries_per_resolution_median']} (max {s['queries_per_resolution_max']})"
        )
        print(
            f"   last order -> emails written: median {fmt(lat.get('median'))} ms, p99 {fmt(lat.get('p99'))} ms"
            f"   (simulate's own figure: {s['latency_ms_median']} / {s['latency_ms_p99']} ms, see README)"
        )
    if b:
        rt, s = b["round_trip"], b["simulate"]
        seq = rt["sequential"]
        owed = "/".join(str(n) for n in b["owed_orders_per_phase"])
        prepared = "/".join(str(n - 1) for n in b["owed_orders_per_phase"])
        print(f"\nB. real worker: {b['worker_cmd']}")
        print(
            f"   {out['params']['engine']}, 4 human seats: phase 1 owes {owed} order(s), {prepared} prepared, the "
            f"completing one timed; each resolution sends {per_resolution(b)} emails"
        )
        print(
            f"   sequential x{seq['commit_to_resolution_commit_ms']['n']}: last order COMMIT -> resolution COMMIT "
            f"median {fmt(seq['commit_to_resolution_commit_ms']['median'])} ms, "
            f"p99 {fmt(seq['commit_to_resolution_commit_ms']['p99'])} ms; -> its emails sent median "
            f"{fmt(seq['commit_to_emails_sent_ms']['median'])} ms "
            f"(first task after start {rt['first_task_cold_ms']} ms)"
        )
        for k, v in seq["breakdown_median_ms"].items():
            print(f"      {k:52s} {v:8.2f} ms")
        for slow in seq.get("slowest", []):
            senders = ", ".join(f"{s['ms']:g} ms from {s['from_ms']:+g} ms" for s in slow["senders_overlapping"])
            print(
                f"      one of the slowest: {slow['ms']:g} ms (delivery {slow['delivery_ms']:g}, "
                f"body {slow['body_ms']:g}); sender runs beside it: {senders or 'none'}"
            )
        print(
            f"      its emails: the sender starts {rt['email_gather_ms']:g} ms after its call "
            "(games/outgoing/wakes.py), so the emails of games resolving meanwhile go out with them"
        )
        for kind in ("streamed", "queued", "held"):
            for i, r in enumerate(rt.get(kind, []), 1):
                extra = (
                    f"latency median {fmt(r['commit_to_resolution_commit_ms']['median'])} / max "
                    f"{fmt(r['commit_to_resolution_commit_ms']['max'])} ms"
                    if kind == "streamed"
                    else f"task body median {fmt(r['breakdown_median_ms']['task body to COMMIT returned'])} ms"
                )
                sent = (
                    "the emails held until the drain's end"
                    if kind == "held"
                    else f"{r['resolutions_per_s_with_emails']}/s until the emails are sent"
                )
                print(
                    f"   {kind} #{i} x{r['n']}: {r['resolutions_per_s']} resolutions/s ({sent}), {extra}, "
                    f"CPU {r['cpu_busy_fraction']:.0%}; the email sender ran {r['sender_runs']} times, "
                    f"{r['emails_per_sender_run']} emails each"
                )
        lat = b["simulate_latency"]
        print(
            f"   simulate x{s['games']} games: {s['games_per_minute']} games/minute, "
            f"{round(s['resolutions'] / s['seconds'], 1)} resolutions/s; last order COMMIT -> resolution COMMIT "
            f"median {fmt(lat.get('last_order_commit_to_resolution_commit_ms', {}).get('median'))} ms, p99 "
            f"{fmt(lat.get('last_order_commit_to_resolution_commit_ms', {}).get('p99'))} ms"
        )
        ip = b.get("in_process")
        if ip:
            print(
                f"   in-process, one turn step at a time (median of {ip['timed']}; "
                f"{ip['emails_per_resolution']:g} emails per resolution):"
            )
            for k, v in ip["median_ms"].items():
                print(f"      {k:24s} {v:7.2f} ms  {ip['sql_count'][k]:3d} SQL statements")
    if c:
        ld, v = c["load"], c["verify"]
        errors = sum(ld[k] for k in ("err_connect", "err_read", "err_write", "err_status", "err_timeout"))
        print(f"\nC. order POST, always Port of Piraeus: {c['gunicorn_cmd']}")
        print(f"   {ld['wrk_cmd']}")
        print(
            f"   {ld['requests_per_s']} requests/s, p50 {ld['lat_p50_us'] / 1000:.1f} ms, "
            f"p99 {ld['lat_p99_us'] / 1000:.1f} ms, errors {errors} (status {ld['err_status']}), "
            f"CPU {ld['cpu_busy_fraction']:.0%}"
        )
        print(
            f"   revisions stored {v['revisions_stored']} for {ld['requests']} requests answered "
            f"(in-flight ones at the end may add up to {ld['wrk_cmd'].split(' -c ')[1].split()[0]}); "
            f"SQL per POST {c['setup']['order_post_sql_count']}"
        )
        print(
            f"   in-process (test client, no HTTP, one at a time): "
            f"{c['setup']['order_post_in_process_ms_median']} ms per order POST (median)"
        )
        if c.get("api_load"):
            al = c["api_load"]
            print(f"   the API's order PUT (games/api/): {al['wrk_cmd']}")
            print(
                f"   {al['requests_per_s']} requests/s, p50 {al['lat_p50_us'] / 1000:.1f} ms, "
                f"p99 {al['lat_p99_us'] / 1000:.1f} ms, errors status {al['err_status']}; revisions stored "
                f"{v.get('api_revisions_stored')} for {al['requests']} requests; SQL per PUT "
                f"{c['setup']['api_put_sql_count']}; in-process {c['setup']['api_put_in_process_ms_median']} ms"
            )
    rows = out["headline"]
    if rows:
        print(f"\n{'figure':52s} {'ours':>10s} {'floor':>10s} {'ratio':>8s}  aim")
        for name, r in rows.items():
            print(f"{name:52s} {fmt(r['ours']):>10s} {fmt(r['floor']):>10s} {fmt(r['ratio']):>8s}  {r['aim']}")
    load = ", ".join(f"{x:.1f}" for x in out["loadavg_at_start"])
    print(
        f"\nload average before the run: {load} (on {os.cpu_count()} CPUs; the run assumes an otherwise idle machine)"
    )
    print(f"code measured: {out['versions']['git']}")
    print(f"wall time {out['wall_s']:.0f} s; details in {RESULTS / 'summary.json'} and {RUN_DIR}/")


def versions() -> dict[str, str]:
    v = {"python": platform.python_version()}
    for pkg in ("Django", "celery", "psycopg", "gunicorn", "redis"):
        v[pkg] = metadata.version(pkg)
    with psycopg.connect(f"{PG} dbname=postgres") as conn:
        row = conn.execute("SHOW server_version").fetchone()
        v["postgresql"] = str(row[0]) if row else "?"
    v["redis-server"] = str(redis.Redis.from_url(REDIS_URL).info("server")["redis_version"])
    # The code measured: the commit, and whether files outside bench/ differed from it.
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    changed = [ln for ln in dirty.splitlines() if not ln[3:].startswith("bench/")]
    v["git"] = head.stdout.strip() + (f" + {len(changed)} changed files" if changed else "")
    cpu = [ln for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("model name")]
    v["cpu"] = f"{cpu[0].split(':', 1)[1].strip()} x{len(cpu)}" if cpu else "?"
    return v


def main() -> None:
    args = parse_args()
    started = time.monotonic()
    only = set(args.only or ["A", "B", "C"])
    reused = reused_floor(args.floor_from) if args.floor_from else None  # read before summary.json is rewritten
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    for stale in RUN_DIR.glob("*"):
        stale.unlink()
    check_services()
    has_wrk = "C" in only and ensure_wrk()
    if only & {"A", "B", "C"}:
        print(f"== fresh database {args.database}, Redis {REDIS_URL} flushed, migrations", flush=True)
        fresh_database(args.database)
        flush_redis()
        run_py(["manage.py", "migrate", "-v", "0"], base_env(args.database), "migrate")
    # Other work on the machine skews every figure: the load average says whether the run had it to itself.
    out: dict[str, Any] = {
        "params": vars(args),
        "started_at": now_iso(),
        "versions": versions(),
        "loadavg_at_start": os.getloadavg(),
    }
    if "A" in only:
        out["A"] = measure_a(args)
    if "B" in only:
        out["B"] = measure_b(args)
    if "C" in only:
        if has_wrk:
            out["C"] = measure_c(args)
        else:
            print("== C skipped: wrk is not installed and apt-get could not install it", flush=True)
    save(out, started)  # our figures are kept even if the floor fails
    if reused:
        print(f"== floor: figures reused from {args.floor_from}, measured {floor_age(reused)}", flush=True)
        out["floor"] = reused
    elif args.floor:
        out["floor"] = run_floor(args)
    out["headline"] = headline(out)
    save(out, started)
    print_summary(out)


def save(out: dict[str, Any], started: float) -> None:
    out["wall_s"] = round(time.monotonic() - started, 1)
    out["loadavg_at_end"] = os.getloadavg()
    (RESULTS / "summary.json").write_text(json.dumps(out, indent=1, default=str))


def run_floor(args: argparse.Namespace) -> dict[str, Any]:
    """The floor's run.sh, retried as asked: a failed floor leaves our figures without ratios, not lost."""
    error = ""
    for attempt in range(1 + max(0, args.floor_retries)):
        print(
            f"== floor: {args.floor_dir}/run.sh in {floor.CACHE} (PHASES={args.floor_phases}, "
            f"BURSTS={args.floor_bursts}, WRK_SECONDS={args.wrk_seconds})" + (" again" if attempt else ""),
            flush=True,
        )
        try:
            results, wall = floor.run(Path(args.floor_dir), args.floor_phases, args.floor_bursts, args.wrk_seconds)
        except floor.FloorFailed as failure:
            print(f"  floor failed: {failure}", flush=True)
            error = str(failure)
            continue
        return {"wall_s": round(wall, 1), "measured_at": now_iso(), "figures": floor.figures(results)}
    return {"error": error, "figures": {}}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def reused_floor(path: str) -> dict[str, Any]:
    """The floor of an earlier run's summary.json (a floor run once, then one run per engine). Its ratios
    are only fair if the machine was as idle then as now: floor_age says how long ago that was."""
    summary = Path(path)
    try:
        fl = json.loads(summary.read_text())["floor"]
    except (OSError, ValueError, KeyError) as error:
        raise SystemExit(f"--floor-from {path}: no floor figures there ({error!r})") from None
    if not fl.get("figures"):
        raise SystemExit(f"--floor-from {path}: that run's floor has no figures ({fl.get('error', 'not run')})")
    return {**fl, "reused_from": path}


def floor_age(fl: dict[str, Any]) -> str:
    if not fl.get("measured_at"):  # a summary written before run.py recorded the time
        return "at an unknown time"
    minutes = (datetime.now(UTC) - datetime.fromisoformat(fl["measured_at"])).total_seconds() / 60
    warning = " (more than an hour ago: run the floor again for fair ratios)" if minutes > 60 else ""
    return f"at {fl['measured_at']}, {minutes:.0f} min ago{warning}"


if __name__ == "__main__":
    procs.run_main(main)
