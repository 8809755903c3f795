"""The floor: ../shared/floor/run.sh (a bare Django + Celery turn server) run in a writable copy, and the
few figures of its results/*.json that ours are quoted against (shapes as in its report.py)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.procs import RUN_DIR

# Outside the repository: its .venv and scripts must not be seen by the project's ruff/mypy/pytest.
CACHE = Path(tempfile.gettempdir()) / "pbem-bench-floor"


class FloorFailed(RuntimeError):
    """run.sh exited non-zero (its results are incomplete)."""


def refresh_copy(source: Path) -> Path:
    """Copy the floor's files over the cached copy, keeping the cached .venv (building it takes a while)."""
    if not (source / "run.sh").exists():
        raise SystemExit(f"no floor at {source} (run.sh missing); pass --floor-dir or --no-floor")
    CACHE.mkdir(parents=True, exist_ok=True)
    for path in source.rglob("*"):
        rel = path.relative_to(source)
        if rel.parts[0] in (".venv", "results") or "__pycache__" in rel.parts or path.is_dir():
            continue
        dest = CACHE / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.unlink(missing_ok=True)
        shutil.copyfile(path, dest)  # contents only: the source is read-only, the copy must not be
    shutil.rmtree(CACHE / "results", ignore_errors=True)
    return CACHE


def run(source: Path, phases: int, bursts: int, wrk_seconds: int) -> tuple[dict[str, Any], float]:
    """Run the floor's run.sh to the end; stream its section headers; return its results and the wall time."""
    where = refresh_copy(source)
    env = {**os.environ, "PHASES": str(phases), "BURSTS": str(bursts), "WRK_SECONDS": str(wrk_seconds)}
    log_path = RUN_DIR / "floor.log"
    started = time.monotonic()
    with open(log_path, "a") as log:  # a retry appends: the failed attempt stays readable
        proc = subprocess.Popen(
            ["bash", "run.sh"],
            cwd=where,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                if line.startswith(("==", "[")) or "rror" in line:
                    print(f"  floor | {line.rstrip()}", flush=True)
            proc.wait()
        finally:
            if proc.poll() is None:  # interrupted: run.sh's Python scripts stop their own workers on SIGTERM
                proc.terminate()
                proc.wait(60)
    if proc.returncode != 0:
        raise FloorFailed(f"floor run.sh failed ({proc.returncode}); see {log_path}")
    results = {name: json.loads((where / "results" / f"{name}.json").read_text()) for name in ("resolve", "http")}
    return results, time.monotonic() - started


def figures(results: dict[str, Any]) -> dict[str, Any]:
    """The floor's figures that ours are compared with: same worker shape (1 worker, prefork -c 2, DB
    connection kept), same HTTP case (2 sync gunicorn workers, CONN_MAX_AGE=600, 16 connections)."""
    res, http = results["resolve"], results["http"]
    seq = res["seq_prefork_c1_reuse"]

    def median_rate(label: str) -> float | None:
        block = res.get(label)
        return statistics.median(r["resolutions_per_s"] for r in block["runs"]) if block else None

    post = http["persistent_db_conn"]["cases"]["order_post_c16"]
    return {
        **email_floor(res),
        "sequential_latency_ms_median": seq["commit_to_worker_commit_ms"]["median"],
        "sequential_latency_ms_p99": seq["commit_to_worker_commit_ms"]["p99"],
        "sequential_worker": seq["worker_cmd"],
        "sequential_delivery_ms_median": seq["breakdown_median_ms"]["delivery (t0->task body starts)"],
        "sequential_task_body_ms_median": seq["breakdown_median_ms"]["task body total (start->post-commit)"],
        "drain_resolutions_per_s": median_rate("queued_1proc_c2_reuse"),
        "streamed_resolutions_per_s": median_rate("streamed_1proc_c2_reuse"),
        "streamed_latency_ms_median": statistics.median(
            r["commit_to_worker_commit_ms"]["median"] for r in res["streamed_1proc_c2_reuse"]["runs"]
        ),
        "task_sql_count": seq["task_sql_count"],
        "order_post_rps_c16": post["requests_per_s"],
        "order_post_p50_ms": post["lat_p50_us"] / 1000,
        "order_post_p99_ms": post["lat_p99_us"] / 1000,
        "order_post_sql_count": http["order_post_sql_count"],
        "hello_get_rps_c16": http["persistent_db_conn"]["cases"]["hello_get_c16"]["requests_per_s"],
    }


def email_floor(res: dict[str, Any]) -> dict[str, Any]:
    """The floor's measurement 3 (its drain with each resolution's emails, alternated on the same worker with a
    drain without them), reduced as its report.py does: what a resolution alone and each email add to the drain,
    so that the email-inclusive floor can be recomputed for our emails per resolution (`email_floor_rate`). Empty
    when the floor ran without it (EMAIL=0, or an older summary)."""
    block, same = res.get("queued_1proc_c2_reuse_with_email"), res.get("queued_1proc_c2_reuse_email_worker")
    if not block or not same:
        return {}
    alone = statistics.median(r["resolutions_per_s"] for r in same["runs"])
    with_emails = statistics.median(r["resolutions_per_s_with_email"] for r in block["runs"])
    emails = statistics.median(r["emails_per_resolution"] for r in block["runs"])
    return {
        "drain_with_emails_resolutions_per_s": with_emails,
        "drain_with_emails_emails_per_resolution": emails,
        "drain_alone_ms": 1000 / alone,
        "drain_ms_per_email": (1000 / with_emails - 1000 / alone) / emails,
    }


def email_floor_rate(figures: dict[str, Any], emails: float) -> float | None:
    """The floor's drain including the emails, recomputed for `emails` per resolution (its report's formula)."""
    if "drain_alone_ms" not in figures:
        return None
    return 1000 / (figures["drain_alone_ms"] + emails * figures["drain_ms_per_email"])
