"""The benchmark's Celery app: the project's own `pbem.celery.app`, unchanged, plus timing probes.

Started as `celery -A bench.probe worker ...` so the worker runs exactly the project's tasks and settings,
and additionally records, for every task it runs, one line in $BENCH_TIMING_FILE:

    task_name first_arg t_start t_commit t_end pid result

  t_start   time.time() in task_prerun (the task body is about to run)
  t_commit  time.time() right after the task's last COMMIT returned (0 if it committed nothing); for
            resolve_phase that is the resolution's transaction, for play_bots the last bot order's
  t_end     time.time() in task_postrun, after the on_commit hooks (the enqueues of the next tasks)

All clocks are CLOCK_REALTIME on one machine, so they compare directly with the client's time.time().
A task without arguments (the email sender, woken once for whatever is due) writes "-" as its first_arg.
The client reads the file as it grows, as the floor's client reads its own: the probe sends nothing to the
broker or anywhere else, so the worker does no work the floor's does not.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from celery.signals import task_postrun, task_prerun, worker_ready
from django.db.backends.base.base import BaseDatabaseWrapper

from pbem.celery import app

__all__ = ["app"]

_state: dict[str, Any] = {"t_start": 0.0, "t_commit": 0.0, "fd": None}
_original_commit = BaseDatabaseWrapper.commit


def _timed_commit(self: BaseDatabaseWrapper) -> None:
    # Django's Atomic.__exit__ calls connection.commit(), then runs the on_commit hooks: stamping here
    # is the worker-side twin of the floor's "time.time() right after COMMIT returned".
    _original_commit(self)
    _state["t_commit"] = time.time()


BaseDatabaseWrapper.commit = _timed_commit  # type: ignore[method-assign]


@task_prerun.connect
def _before(**_kwargs: Any) -> None:
    _state["t_commit"] = 0.0
    _state["t_start"] = time.time()


@task_postrun.connect
def _after(task: Any = None, args: Any = None, retval: Any = None, **_kwargs: Any) -> None:
    t_end = time.time()
    path = os.environ.get("BENCH_TIMING_FILE")
    if not path or task is None:
        return
    if _state["fd"] is None:
        _state["fd"] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    first = args[0] if args else "-"
    # One short O_APPEND write per line: atomic between the pool processes.
    line = f"{task.name} {first} {_state['t_start']:.6f} {_state['t_commit']:.6f} {t_end:.6f} {os.getpid()} {retval}\n"
    os.write(_state["fd"], line.encode())


@worker_ready.connect
def _ready(**_kwargs: Any) -> None:
    """The worker consumes: tell the benchmark through a file (no log parsing)."""
    path = os.environ.get("BENCH_READY_FILE")
    if path:
        Path(path).write_text(str(os.getpid()))
