"""Wake a task once the current transaction commits: through the broker, or inline without one.

A task is only a wake-up call; the database row is the truth. Enqueuing after commit means a worker never
looks for a row that is not there yet. A wake-up call that cannot be published (the broker is down or
hangs) is logged and dropped: what it was for is already committed, and the sweep finds it by its row
(games/play/sweep.py), so the player who just stored an order is not shown an error.

Enqueueing goes one way. The service layer names the task it wakes (a TaskName declared here, or by a
league module for its own tasks) and never imports a tasks module; a tasks module imports the services and
binds each name to a Celery task (`@shared_task(name=...)`). Each app's AppConfig.ready() imports its tasks
module, so every declared name is bound before a request or a worker runs (tests/outgoing/test_dispatch.py).

Each task goes to one of four queues (Queue), so that workers can be given the work they are sized for:
resolutions, the bots' decisions, email, the sweeps. The tasks module that binds a name says its queue
(`routed`), and `route` (Celery's router, set in pbem/celery.py) sends it there. A worker started without -Q
consumes all four (pbem/celery.py declares them); README, "Running it for real".

Inline mode (no broker) queues the calls and drains them in a loop instead of nesting them: in a game of
bots every resolution opens a phase whose bots submit, which resolves the next phase, and nesting those
would grow the stack with the length of the game. The queue is per thread, like a database connection.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from enum import StrEnum
from typing import NewType

from celery import Task, current_app
from django.conf import settings
from django.db import transaction
from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)

TaskName = NewType("TaskName", str)
# A task's arguments are row ids, flags and the sweep's time (ISO 8601), never an order's content: they are
# logged when a publish fails.
TaskArg = int | bool | str | list[int]

DECLARED: set[TaskName] = set()


class Queue(StrEnum):
    """The broker queues. A resolution never waits behind a phase's emails, nor either behind a sweep."""

    RESOLVE = "resolve"  # resolutions (last order in, deadline passed): short, latency-bound
    BOTS = "bots"  # the bots' orders: a strong bot searches for seconds a decision, so it never holds up the others
    EMAIL = "email"  # rendering and handing mail to the provider: several times a resolution's cost, and I/O
    SWEEP = "sweep"  # the beat's periodic finders: one at a time is enough


QUEUE_OF: dict[str, Queue] = {}


def routed(name: str, queue: Queue) -> str:
    """Send the task bound to `name` to `queue`; returns the name, for the binding `@shared_task(name=...)`."""
    QUEUE_OF[name] = queue
    return name


def route(
    name: str, args: object, kwargs: object, options: object, task: object = None, **kw: object
) -> dict[str, str]:
    """Celery's router (task_routes): a task's queue as its tasks module gave it, else the resolutions' queue."""
    return {"queue": QUEUE_OF.get(name, Queue.RESOLVE).value}


def task_name(name: str) -> TaskName:
    """Declare the name of a task the service layer wakes; a tasks module binds it to a Celery task."""
    declared = TaskName(name)
    DECLARED.add(declared)
    return declared


# The core's wake-up calls (bound in games/play/tasks.py).
RESOLVE_PHASE = task_name("games.tasks.resolve_phase")
PLAY_BOTS = task_name("games.tasks.play_bots")
# The game emails' sender, woken once for whatever is pending (games/outgoing/wakes.py). SEND_EMAILS, one game's emails,
# is still bound for the calls a server before that published.
SEND_DUE = task_name("games.tasks.send_due_emails")
SEND_EMAILS = task_name("games.tasks.send_emails")
SEND_SIGN_IN_LINK = task_name("games.tasks.send_sign_in_link")
# A stranger's sign-up link: its one argument is the address (there is no row to name until the link is used).
SEND_SIGN_UP_LINK = task_name("games.tasks.send_sign_up_link")
# Receipts and notices answering inbound mail (games/outgoing/receipts.py).
SEND_RECEIPTS = task_name("games.tasks.send_receipts")
SEND_ADDRESS_CONFIRMATION = task_name("games.tasks.send_address_confirmation")
# What the sweep (games/play/sweep.py) finds due: a batch of overdue phases, a batch of phases due a reminder.
# RESOLVE_OVERDUE, one overdue phase, is still bound for the calls a server before the batches published.
RESOLVE_OVERDUE_PHASES = task_name("games.tasks.resolve_overdue_phases")
RESOLVE_OVERDUE = task_name("games.tasks.resolve_overdue")
SEND_REMINDERS = task_name("games.tasks.send_reminders")


def bound_task(name: TaskName) -> Task:
    try:
        return current_app.tasks[name]
    except KeyError:
        raise LookupError(f"no Celery task is bound to {name!r}: is its tasks module imported in ready()?") from None


class _InlineQueue(threading.local):
    def __init__(self) -> None:
        self.calls: deque[tuple[TaskName, tuple[TaskArg, ...]]] = deque()
        self.draining = False


_inline = _InlineQueue()


def after_commit(name: TaskName, *args: TaskArg) -> None:
    transaction.on_commit(lambda: publish(name, *args))


def inline() -> bool:
    """No broker: calls run in this process, right after the commit that made them."""
    return bool(settings.CELERY_TASK_ALWAYS_EAGER)


def queued_inline(name: TaskName, *args: TaskArg) -> bool:
    """Without a broker: whether this call is queued already, in this thread's loop of inline calls."""
    return (name, args) in _inline.calls


def publish(name: TaskName, *args: TaskArg, countdown: float = 0) -> bool:
    """The call, now, to start after `countdown` seconds (inline without a broker: at once); False if the broker
    could not take it."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        task = bound_task(name)
        try:
            task.apply_async(args, countdown=countdown) if countdown else task.apply_async(args)
        except (OperationalError, OSError) as error:
            # The publish gives up quickly (the broker's timeouts and retry policy in settings), so a request
            # is not held for long.
            log.warning("could not enqueue %s%r, the sweep will pick it up: %s", name, args, error)
            return False
        return True
    _inline.calls.append((name, args))
    if _inline.draining:
        return True
    _inline.draining = True
    try:
        while _inline.calls:
            queued, queued_args = _inline.calls.popleft()
            bound_task(queued).apply(args=queued_args, throw=True)
    finally:
        _inline.draining = False
        _inline.calls.clear()
    return True
