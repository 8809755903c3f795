"""The benchmark's own processes: started in their own process group, stopped by PID with bounded waits,
and a few small helpers (free ports, CPU ticks, percentiles) shared by the measurement scripts."""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where every script writes its figures and logs; BENCH_RESULTS names another folder (the smoke tests' own).
RESULTS = Path(os.environ.get("BENCH_RESULTS") or ROOT / "bench" / "results")
RUN_DIR = RESULTS / "run"  # logs, timing files, the generated wrk script
VENV_BIN = ROOT / ".venv" / "bin"

_started: list[subprocess.Popen[bytes]] = []


def start(cmd: Sequence[str], log_name: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start `cmd` from the repo root, output to results/run/<log_name>.log. A new session makes the process
    a group leader, so children it forks (prefork pool, gunicorn workers) can be found by group id."""
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    with open(RUN_DIR / f"{log_name}.log", "ab") as log:
        proc = subprocess.Popen(
            list(cmd), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    _started.append(proc)
    print(f"  started pid {proc.pid}: {' '.join(cmd)}", flush=True)
    return proc


def _group_members(pgid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def stop(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """SIGTERM the PID we started (warm shutdown for Celery and gunicorn); SIGKILL it, then any child left
    in its process group, if they outlive the timeout."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    deadline = time.monotonic() + 5
    while _group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in _group_members(proc.pid):
        print(f"  leftover pid {pid} in group {proc.pid}: SIGKILL", flush=True)
        os.kill(pid, signal.SIGKILL)
    if proc in _started:
        _started.remove(proc)
    print(f"  stopped pid {proc.pid} (exit {proc.returncode})", flush=True)


def stop_all() -> None:
    for proc in list(_started):
        stop(proc)


def run_main(main: Callable[[], None]) -> None:
    """Run a bench script's main, stopping every process it started at the end: on errors and SIGTERM too."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the finally below runs
    try:
        main()
    finally:
        stop_all()


def wait_until(ready: Callable[[], bool], proc: subprocess.Popen[bytes], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None:
            raise SystemExit(f"{what}: pid {proc.pid} exited with {proc.returncode}; see {RUN_DIR}")
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: not ready after {timeout:.0f} s; see {RUN_DIR}")
        time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs, from /proc/stat."""
    vals = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = vals[3] + vals[4]
    return sum(vals[:8]) - idle, sum(vals[:8])


def cpu_busy(before: tuple[int, int], after: tuple[int, int]) -> float:
    """Fraction of all cores busy between two cpu_ticks() readings (1.0 = every core saturated)."""
    busy, total = after[0] - before[0], after[1] - before[1]
    return round(busy / total, 3) if total else 0.0


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile, as the floor computes it, so p99s compare."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def dist(values_ms: Sequence[float]) -> dict[str, float]:
    if not values_ms:
        return {"n": 0}
    return {
        "n": len(values_ms),
        "median": round(statistics.median(values_ms), 3),
        "p90": round(percentile(values_ms, 90), 3),
        "p99": round(percentile(values_ms, 99), 3),
        "max": round(max(values_ms), 3),
        "min": round(min(values_ms), 3),
    }
