"""Run a task once the current transaction commits: through the broker, or inline without one.

A task is only a wake-up call; the database row is the truth. Enqueuing after commit means a worker never
looks for a row that is not there yet. A wake-up call that cannot be published (the broker is down or
hangs) is logged and dropped: what it was for is already committed, and the sweep finds it by its row
(games.turns.sweep_deadlines), so the player who just stored an order is not shown an error.

Inline mode (no broker) queues the calls and drains them in a loop instead of nesting them: in a game of
bots every resolution opens a phase whose bots submit, which resolves the next phase, and nesting those
would grow the stack with the length of the game. The queue is per thread, like a database connection.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from celery import Task
from django.conf import settings
from django.db import transaction
from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)


class _InlineQueue(threading.local):
    def __init__(self) -> None:
        self.calls: deque[tuple[Task, tuple[Any, ...]]] = deque()
        self.draining = False


_inline = _InlineQueue()


def after_commit(task: Task, *args: Any) -> None:
    transaction.on_commit(lambda: _send(task, args))


def _send(task: Task, args: tuple[Any, ...]) -> None:
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        try:
            task.delay(*args)
        except (OperationalError, OSError) as error:
            # The arguments are row ids, never an order's content. The publish gives up quickly (the
            # broker's timeouts and retry policy in settings), so a request is not held for long.
            log.warning("could not enqueue %s%r, the sweep will pick it up: %s", task.name, args, error)
        return
    _inline.calls.append((task, args))
    if _inline.draining:
        return
    _inline.draining = True
    try:
        while _inline.calls:
            queued, queued_args = _inline.calls.popleft()
            queued.apply(args=queued_args, throw=True)
    finally:
        _inline.draining = False
        _inline.calls.clear()
