"""The deadline sweep and the league sweep on databases of 10,000 and 100,000 open games (bench/scaledb.py).

    .venv/bin/python bench/scale.py [--games 10000 100000] [--broker redis://127.0.0.1:6379/13] [--repeat 3]
    (or `make bench-scale`)

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis. Builds (or reuses) pbem_scale_10k and
pbem_scale_100k, and for each copies it to `pbem_scale_run` (dropped at the end), since a sweep changes
rows. It uses and flushes the broker's database (default Redis db 13): the tasks the sweep enqueues are
counted there, never run. Prints the figures and writes bench/results/scale.json; asserts no timing.

For each size, in processes of their own (Django on the copy, production settings):
- find due work: the sweep's own reads of each kind of due work, batch after batch as it takes them, in a
  transaction rolled back after (`find_due_work`): the reads' time, run `--repeat` times, median; and the
  same reads in the sweep below, each batch committed before the next (`claim_reads`);
- EXPLAIN: both sweeps run once inside a transaction that is rolled back, and the game emails' sender on a
  batch of emails put back to pending; each kind of statement is EXPLAINed (ANALYZE, BUFFERS) just before it
  first runs; a sequential scan of games, phases, orders, seats or the outbox is flagged;
- the sweeps: the two beat tasks (games.tasks.sweep_deadlines, leagues.tasks.sweep) called as the worker
  would, committing and enqueueing to the broker: wall time, statements, tasks enqueued, and the process's
  peak RSS (getrusage ru_maxrss) against its size before the sweep.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make the project importable

from bench import scaledb  # noqa: E402

RUN_DB = f"{scaledb.PREFIX}_run"
# Never to be read whole by a sweep (nor the outbox by the email sender).
WATCHED = {"games_game", "games_phase", "games_order", "games_seat", "games_outboundemail"}


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", nargs="?", default="run", choices=["run", "probe", "sweep"])
    ap.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--broker", default=os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/13")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the find-due-work queries")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the databases even if they hold the shape")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results" / "scale.json", help="the JSON written")
    return ap.parse_args()


# --- In the measuring processes (Django set up on the copy) -----------------------------------------------


def find_due_work() -> dict[str, Any]:
    """The sweep's own finds (games/play/sweep.py), as the sweep makes them, each returning the rows found and
    the time spent in its statements. Overdue phases and reminders: the range after the watermark, here from
    no watermark (a first sweep: everything due), read from the index alone (`sweep.read_range`). Complete
    phases and bots: models.claim reads a batch of CLAIM_BATCH ids in its index's order, marks it (which takes
    it out of what is due) and reads the next, until a batch comes back short (on PostgreSQL a batch's read and
    its mark are one statement, models.queries.take, so the time includes the marks). Each in a transaction
    rolled back after, so every run finds the same."""
    from django.db import connection, transaction
    from django.utils import timezone

    from games.models import claim
    from games.play import sweep

    def finder(kind: str) -> Any:
        def read() -> tuple[int, float]:
            now = timezone.now()
            reads: list[float] = []

            def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
                start = time.perf_counter()
                try:
                    return execute(sql, params, many, context)
                finally:
                    if '"games_phase"' in sql:  # the range's reads, or a claim's read and mark
                        reads.append((time.perf_counter() - start) * 1000)

            with transaction.atomic(), connection.execute_wrapper(timed):
                if kind in sweep.WATERMARKED:  # a server-side cursor's fetches pass no wrapper: the call, timed
                    start = time.perf_counter()
                    rows = sweep.read_range(sweep.newly_due(now, None)[kind], sweep.WATERMARKED[kind][0])
                    reads = [(time.perf_counter() - start) * 1000]
                else:
                    rows = claim(sweep.due(now)[kind], mark=sweep.marks(now)[kind], enqueue=lambda ids: None)
                transaction.set_rollback(True)
            return len(rows), sum(reads)

        return read

    return {kind: finder(kind) for kind in ("overdue", "complete", "bots", "reminders")}


def run_sweeps() -> dict[str, Any]:
    """The two beat tasks, called in this process as a worker would run them; then the deadline sweep again,
    right after, when what was due is taken: only its finders' statements, the same at any size."""
    from games.leagues.tasks import sweep_leagues
    from games.play.tasks import sweep_deadlines

    return {"deadline sweep": sweep_deadlines, "league sweep": sweep_leagues, "deadline sweep again": sweep_deadlines}


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def probe(repeat: int) -> dict[str, Any]:
    import django

    django.setup()
    from django.db import transaction

    from bench.sqlprobe import Statements
    from games.models import OutboundEmail
    from games.outgoing import emails

    found: dict[str, Any] = {}
    for label, finder in find_due_work().items():
        times, rows = [], 0
        for _ in range(repeat + 1):  # the first run warms the cache and is not counted
            rows, ms = finder()
            times.append(ms)
        median = round(statistics.median(times[1:]), 1)
        found[label] = {"rows": rows, "median_ms": median, "min_ms": round(min(times[1:]), 1)}
    statements: dict[str, Any] = {}
    with transaction.atomic():
        for label, task in run_sweeps().items():
            with Statements(explain=True) as log:
                task()
            statements[label] = log.described(WATCHED)
        # The game emails' sender on a backlog of a batch of emails (the newest sent ones, put back): its
        # claim and its reads of what they share, beside every game's history of sent emails.
        backlog = list(OutboundEmail.objects.order_by("-id").values_list("id", flat=True)[: emails.SEND_BATCH])
        OutboundEmail.objects.filter(pk__in=backlog).update(status=OutboundEmail.Status.PENDING)
        with Statements(explain=True) as log:
            sent = emails.send_due()
        statements[f"email sender ({sent} emails)"] = log.described(WATCHED)
        transaction.set_rollback(True)
    return {"find": found, "statements": statements}


def claim_reads(log: Any) -> dict[str, dict[str, float]]:
    """The time a sweep spent reading each kind of due work (the watermark's range reads, and the claims' locking
    reads with their marks: every statement comparing the kind's due time), and how many such statements: the
    finds as the sweep makes them for real, where `find_due_work` reads them in one transaction rolled back
    after."""
    from games.play import sweep

    reads: dict[str, dict[str, float]] = {}
    for kind, due in sweep.due(datetime.now(UTC)).items():
        column = str(due.query.order_by[0])
        taken = [k for k in log.kinds.values() if f'"games_phase"."{column}" <' in k.sql]
        ranges = RANGE_READS.pop(column, [])  # the watermark's range: its cursor's fetches pass no wrapper
        declared = sum(k.seconds for k in taken if "FOR NO KEY UPDATE" not in k.sql)
        reads[kind] = {
            "ms": round((sum(k.seconds for k in taken) - declared + sum(ranges)) * 1000, 1),
            "batches": sum(k.calls for k in taken),
        }
    return reads


RANGE_READS: dict[str, list[float]] = {}  # seconds of each sweep.read_range call, by its due time's column


def time_range_reads(sweep: Any) -> None:
    """Time sweep.read_range whole (the watermark's range reads, through a server-side cursor)."""
    read_range = sweep.read_range

    def timed(due: Any, column: str) -> list[int]:
        start = time.perf_counter()
        try:
            return list(read_range(due, column))
        finally:
            RANGE_READS.setdefault(column, []).append(time.perf_counter() - start)

    sweep.read_range = timed


def phase_updates(connection: Any) -> tuple[int, int]:
    """The phases' rows updated so far and how many of those were HOT (rewritten on their page, no index
    entry written), this backend's own counts flushed first."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games_phase'")
        upd, hot = cursor.fetchone()
    return upd, hot


# A minute of a server in its steady state: the builder spreads 87 % of the open games' reminders evenly over
# the 30.45 hours that start 5.55 hours after its clock (bench/scaledb.py), about 476 a minute at a million
# games (a million games of 48-hour phases have about 350 deadlines and 350 reminders a minute).
STEADY_AT = timedelta(hours=6)


def realistic_minute(queue: Any, publishing: list[float]) -> dict[str, Any]:
    """The deadline sweep of one minute in the steady state, at the builder's clock + STEADY_AT: the minute before
    was swept (the watermarks at its end, that sweep settled) and its work done (every phase due by then left as
    its task leaves it: reminded, or resolved), so the sweep reads the last minute's range and the retry's
    empty range behind it. The work-done state is written first, outside the measurement, and vacuumed, as
    autovacuum would have. Its statements are EXPLAINed in a transaction rolled back, then it runs for real."""
    from django.db import connection, transaction

    from bench.sqlprobe import Statements
    from games.models import SweepMark
    from games.play import sweep

    with connection.cursor() as cursor:
        cursor.execute("SELECT clock FROM bench_scale_shape")
        at = cursor.fetchone()[0] + STEADY_AT
        before = at - timedelta(minutes=1)
        start = time.perf_counter()
        cursor.execute(
            "UPDATE games_phase SET reminded = true, remind_at = NULL WHERE status = 'open' AND remind_at <= %s",
            [before],
        )
        reminded = cursor.rowcount
        cursor.execute(
            "UPDATE games_phase SET status = 'resolved', resolved_at = deadline "
            "WHERE status = 'open' AND NOT paused AND deadline <= %s",
            [before],
        )
        resolved = cursor.rowcount
        cursor.execute("VACUUM ANALYZE games_phase")
    settled = [[before.isoformat(), before.isoformat()]]
    SweepMark.objects.all().delete()
    SweepMark.objects.bulk_create(SweepMark(kind=k, upto=before, settled=settled) for k in sweep.WATERMARKED)
    result: dict[str, Any] = {
        "at": at.isoformat(),
        "work done before it": {"reminded": reminded, "resolved": resolved},
        "setup_s": round(time.perf_counter() - start, 1),
    }
    with transaction.atomic(), Statements(explain=True) as explained:
        sweep.run(now=at)
        transaction.set_rollback(True)
    result["statements explained"] = explained.described(WATCHED)
    queue.flushdb()
    publishing.clear()
    with Statements() as log:
        start = time.perf_counter()
        found = sweep.run(now=at)
        seconds = time.perf_counter() - start
    result["sql_ms"] = round(sum(k.seconds for k in log.kinds.values()) * 1000, 1)
    result["publish_ms"] = round(sum(publishing) * 1000, 1)
    result.update(
        seconds=round(seconds, 3),
        statements=log.count,
        enqueued=sum(queue.llen(key) for key in queue.scan_iter() if queue.type(key) == b"list"),
        returned=found.counts(),
        claim_reads=claim_reads(log),
    )
    queue.flushdb()
    return result


def time_publishes(dispatch: Any) -> list[float]:
    """Time every task the sweeps publish (dispatch.publish, which after_commit calls): the list it returns gets
    each publish's seconds."""
    seconds: list[float] = []
    publish = dispatch.publish

    def timed(*args: Any, **kwargs: Any) -> bool:
        start = time.perf_counter()
        try:
            return bool(publish(*args, **kwargs))
        finally:
            seconds.append(time.perf_counter() - start)

    dispatch.publish = timed
    return seconds


def sweep(broker: str) -> dict[str, Any]:
    import django
    import redis

    django.setup()
    from django.db import connection

    from bench.sqlprobe import Statements
    from games.outgoing import dispatch
    from games.play import sweep as sweeps

    queue = redis.Redis.from_url(broker)
    queue.flushdb()
    connection.ensure_connection()
    publishing = time_publishes(dispatch)
    time_range_reads(sweeps)
    tasks = run_sweeps()
    before = rss_mb()
    result: dict[str, Any] = {"rss_before_mb": round(before, 1)}
    for label, task in tasks.items():
        updates = phase_updates(connection)
        publishing.clear()
        with Statements() as log:
            start = time.perf_counter()
            returned = task()
            seconds = time.perf_counter() - start
        done = phase_updates(connection)
        result.setdefault("time in", {})[label] = {
            "sql_ms": round(sum(k.seconds for k in log.kinds.values()) * 1000, 1),
            "publish_ms": round(sum(publishing) * 1000, 1),
        }
        result.setdefault("phase updates", {})[label] = [done[0] - updates[0], done[1] - updates[1]]
        enqueued = sum(queue.llen(key) for key in queue.scan_iter() if queue.type(key) == b"list")
        queue.flushdb()
        result[label] = {"seconds": round(seconds, 3), "statements": log.count, "enqueued": enqueued}
        result[label]["returned"] = returned
        result[label]["claim_reads"] = claim_reads(log)
    result["realistic minute"] = realistic_minute(queue, publishing)
    result["rss_peak_mb"] = round(rss_mb(), 1)
    return result


# --- The driver ---------------------------------------------------------------------------------------------


def child(step: str, database: str, *extra: str, broker: str = "") -> dict[str, Any]:
    env = scaledb.django_env(database)
    if broker:
        env["CELERY_BROKER_URL"] = broker
    out = subprocess.run(
        [sys.executable, str(Path(__file__)), step, *extra], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"bench/scale.py {step} failed:\n{out.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def measure(games: int, args: argparse.Namespace) -> dict[str, Any]:
    db = scaledb.ensure(games, rebuild=args.rebuild)
    start = time.perf_counter()
    scaledb.clone(db, RUN_DB)
    figures: dict[str, Any] = {
        "games": games,
        "database": db.name,
        "build_s": db.build_s,
        "counts": db.counts,
        "clone_s": round(time.perf_counter() - start, 1),
    }
    try:
        figures.update(child("probe", RUN_DB, "--repeat", str(args.repeat)))
        figures["sweep"] = child("sweep", RUN_DB, "--broker", args.broker, broker=args.broker)
    finally:
        scaledb.drop(RUN_DB)
    return figures


def report(runs: list[dict[str, Any]], load: tuple[float, ...]) -> None:
    from bench.sqlprobe import print_described

    print(f"\nSweep figures (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} when the run started)")
    width = 16
    print(f"{'':<44}" + "".join(f"{r['games']:>{width},}" for r in runs) + "  (open games)")

    def row(label: str, values: list[Any]) -> None:
        print(f"{label:<44}" + "".join(f"{v:>{width}}" for v in values))

    row("database built (s; - reused)", [r["build_s"] if r["build_s"] is not None else "-" for r in runs])
    row("database size (GB)", [round(r["counts"]["bytes"] / 1e9, 2) for r in runs])
    row("  per open game, all in (KB)", [round(r["counts"]["bytes"] / r["games"] / 1e3, 1) for r in runs])
    print("The stress minute: everything the builder made due at once (1 % overdue, 5 % due a reminder)")
    for label in runs[0]["find"]:
        row(f"find {label} (ms, median)", [r["find"][label]["median_ms"] for r in runs])
        row("  found", [r["find"][label]["rows"] for r in runs])
        reads = [r["sweep"]["deadline sweep"]["claim_reads"][label] for r in runs]
        row("  in the sweep itself (ms; batches)", [f"{read['ms']}; {read['batches']}" for read in reads])
    for label in ("deadline sweep", "league sweep", "deadline sweep again"):
        row(f"{label}, whole (s)", [r["sweep"][label]["seconds"] for r in runs])
        row(
            "  in SQL; publishing tasks (ms)",
            [f"{r['sweep']['time in'][label]['sql_ms']}; {r['sweep']['time in'][label]['publish_ms']}" for r in runs],
        )
        row("  statements", [r["sweep"][label]["statements"] for r in runs])
        row("  tasks enqueued", [r["sweep"][label]["enqueued"] for r in runs])
        if label in runs[0]["sweep"].get("phase updates", {}):
            updated = [r["sweep"]["phase updates"][label] for r in runs]
            row("  phases updated; of which HOT", [f"{all_}; {hot}" for all_, hot in updated])
        for key in runs[0]["sweep"][label]["returned"]:
            row(f"  returned {key}", [r["sweep"][label]["returned"][key] for r in runs])
    minute = [r["sweep"]["realistic minute"] for r in runs]
    print("A realistic minute: the steady state's last minute of due work, the minute before swept and done")
    row(
        "  work done before it (reminded; resolved)",
        [f"{m['work done before it']['reminded']}; {m['work done before it']['resolved']}" for m in minute],
    )
    for key in ("overdue", "reminders"):
        row(f"  found {key}", [m["returned"][key] for m in minute])
        row(
            "    its reads (ms; statements)",
            [f"{m['claim_reads'][key]['ms']}; {m['claim_reads'][key]['batches']}" for m in minute],
        )
    row("  deadline sweep, whole (s)", [m["seconds"] for m in minute])
    row("    in SQL; publishing tasks (ms)", [f"{m['sql_ms']}; {m['publish_ms']}" for m in minute])
    row("    statements", [m["statements"] for m in minute])
    row("    tasks enqueued", [m["enqueued"] for m in minute])
    row("sweep process peak RSS (MB)", [r["sweep"]["rss_peak_mb"] for r in runs])
    row("  of which before the sweep (MB)", [r["sweep"]["rss_before_mb"] for r in runs])
    for r in runs:
        print(f"\nEXPLAIN (ANALYZE, BUFFERS) at {r['games']:,} open games, by total time in the sweep:")
        for label, kinds in r["statements"].items():
            print(f"  {label}:")
            print_described(kinds, indent="    ")
        print("  the realistic minute's deadline sweep:")
        print_described(r["sweep"]["realistic minute"]["statements explained"], indent="    ")


def main() -> None:
    args = parse_args()
    if args.step == "probe":
        print(json.dumps(probe(args.repeat)))
        return
    if args.step == "sweep":
        print(json.dumps(sweep(args.broker)))
        return
    load = os.getloadavg()
    runs = [measure(games, args) for games in args.games]
    report(runs, load)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    summary = {"measured_at": datetime.now(UTC).isoformat(), "load": load, "runs": runs}
    args.results.write_text(json.dumps(summary, indent=2, default=str))


if __name__ == "__main__":
    main()
