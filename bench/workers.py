"""Bot games through 1, 2 and 4 worker processes: resolutions per second per count.

    .venv/bin/python bench/workers.py [--counts 1 2 4] [--games 8] [--engine piraeus] [--broker URL]
    (or `make bench-workers`)

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and the broker (default Redis db 11; an amqp://
URL runs it on RabbitMQ). For each count it drops and recreates the database `pbem_bench_workers` (`--database`
names another), purges
the broker's queues, starts that many separate workers of one pool process each (`celery worker
--concurrency 1`, the default prefork pool as deployed, each its own node name, consuming every queue, as
separate machines would), and plays `--games` whole bot games with
`manage.py simulate` (every seat on autopilot, a watching player per seat, so each phase also renders and
sends its emails to anymail's test backend). Prints resolutions per second (simulate's resolutions over its
wall time, game creation included), games per minute, the median latency from a phase's last order to its
emails being written, and how busy the machine's cores were. Asserts nothing; writes
bench/results/workers.json. Every process it starts is stopped by PID at the end, on errors too.

On a machine with few cores the rate stops growing once the workers and PostgreSQL fill them: the table
says so when it sees it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make the project importable

from bench import procs  # noqa: E402
from bench.procs import RESULTS, RUN_DIR, VENV_BIN  # noqa: E402
from bench.run import BENCH_SECRET_KEY, fresh_database, run_py  # noqa: E402

FLAT = 1.5  # doubling the workers gains less than this factor (2 would be linear): the rate has flattened


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", type=int, nargs="+", default=[1, 2, 4], help="worker processes")
    ap.add_argument("--games", type=int, default=8, help="whole bot games per count")
    ap.add_argument("--engine", default="piraeus")
    ap.add_argument("--broker", default="redis://127.0.0.1:6379/11", help="redis:// or amqp:// (its queues purged)")
    ap.add_argument("--database", default="pbem_bench_workers", help="dropped and recreated for each count")
    return ap.parse_args()


def environment(broker: str, database: str) -> dict[str, str]:
    """Production settings, as bench/run.py's: persistent connections, DEBUG off, anymail's test backend."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
        CELERY_BROKER_URL=broker,
        DEBUG="0",
        SECRET_KEY=BENCH_SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        CONN_MAX_AGE="600",
        EMAIL_PROVIDER="test",
        PBEM_VAR_DIR=str(RESULTS / "var"),
        DJANGO_SETTINGS_MODULE="pbem.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    env.pop("BENCH_TIMING_FILE", None)
    return env


def start_workers(count: int, env: dict[str, str]) -> list[Any]:
    """`count` workers of one pool process each, started together, returned once all consume."""
    started = []
    for number in range(1, count + 1):
        ready = RUN_DIR / f"workers-{number}.ready"
        ready.unlink(missing_ok=True)
        cmd = [
            str(VENV_BIN / "celery"),
            "-A",
            "bench.probe",  # the project's app; its ready file says when the worker consumes
            "worker",
            # Prefork, as the README deploys it, not solo: on RabbitMQ a solo worker sits idle for up to
            # 10 s at a time with tasks waiting in its queue (Celery 5.7, py-amqp 5.4; see the README).
            "--pool=prefork",
            "--concurrency=1",
            "-n",
            f"bench{number}@%h",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        started.append((procs.start(cmd, f"workers-{count}-{number}", {**env, "BENCH_READY_FILE": str(ready)}), ready))
    for proc, ready in started:
        procs.wait_until(ready.exists, proc, "celery worker")
    return [proc for proc, _ in started]


def measure(count: int, args: argparse.Namespace) -> dict[str, Any]:
    env = environment(args.broker, args.database)
    fresh_database(args.database)
    run_py(["manage.py", "migrate", "-v", "0"], env, "workers-migrate")
    run_py(["-m", "celery", "-A", "pbem", "purge", "-f"], env, "workers-purge")
    workers = start_workers(count, env)
    try:
        load = os.getloadavg()
        before = procs.cpu_ticks()
        out = run_py(
            ["manage.py", "simulate", args.engine, "--players", "4", "--games", str(args.games), "--seed", "1"],
            env,
            f"workers-{count}-simulate",
        )
        busy = procs.cpu_busy(before, procs.cpu_ticks())
    finally:
        for worker in workers:
            procs.stop(worker)
    figures = json.loads(next(ln for ln in reversed(out.splitlines()) if ln.startswith("{")))
    return {
        "workers": count,
        "load_before": [round(x, 2) for x in load],
        "cpu_busy": busy,
        "resolutions": figures["resolutions"],
        "seconds": figures["seconds"],
        "resolutions_per_s": round(figures["resolutions"] / figures["seconds"], 1),
        "games_per_minute": figures["games_per_minute"],
        "latency_ms_median": figures["latency_ms_median"],
    }


def report(runs: list[dict[str, Any]], args: argparse.Namespace) -> None:
    broker = args.broker.split("://")[0]
    print(f"\n{args.games} whole {args.engine} games of 4 bot seats per count, broker {broker}, {os.cpu_count()} cores")
    print(
        f"{'workers':>8} {'res/s':>8} {'x 1 worker':>11} {'games/min':>10} {'latency ms':>11} {'cores busy':>11} load"
    )
    base = runs[0]["resolutions_per_s"]
    for run in runs:
        print(
            f"{run['workers']:>8} {run['resolutions_per_s']:>8} {run['resolutions_per_s'] / base:>11.2f} "
            f"{run['games_per_minute']:>10} {run['latency_ms_median']:>11} {run['cpu_busy']:>11.0%} "
            f"{' '.join(f'{x:.2f}' for x in run['load_before'])}"
        )
    for before, after in zip(runs, runs[1:], strict=False):
        gain = after["resolutions_per_s"] / before["resolutions_per_s"]
        if after["workers"] > before["workers"] and gain < FLAT:
            print(
                f"From {before['workers']} to {after['workers']} workers the rate grew {gain:.2f}x: it has flattened. "
                f"The {os.cpu_count()} cores are shared by the workers, PostgreSQL, the broker and the simulating "
                "process (and anything else running), so more processes than cores only queue for them."
            )


def main() -> None:
    args = parse_args()
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    runs = []
    for count in args.counts:
        print(f"== {count} worker process(es): {args.games} games of {args.engine}", flush=True)
        runs.append(measure(count, args))
    report(runs, args)
    summary = {"measured_at": datetime.now(UTC).isoformat(timespec="seconds"), "params": vars(args), "runs": runs}
    (RESULTS / "workers.json").write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    procs.run_main(main)
