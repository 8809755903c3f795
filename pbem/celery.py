"""The Celery app, configured from Django settings (CELERY_* names), and its queues.

The four queues (games.outgoing.dispatch.Queue) are declared here, so a worker started without -Q consumes all of
them and `-Q resolve`, `-Q email`, `-Q sweep` (or any list of them) picks its share. Each queue has its own
direct exchange of the same name, as Celery makes for a queue it was not told of, so a task reaches only its
queue on RabbitMQ too. Where a task goes is said where it is bound (games/play/tasks.py, games/leagues/tasks.py)
and read by games.outgoing.dispatch.route; a task bound without one goes to the resolutions' queue."""

from __future__ import annotations

import os
from typing import Any

import kombu
from celery import Celery

from games.outgoing.dispatch import Queue, route

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")

app = Celery("pbem")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = [
    kombu.Queue(queue.value, kombu.Exchange(queue.value), routing_key=queue.value) for queue in Queue
]
app.conf.task_default_queue = Queue.RESOLVE.value
app.conf.task_routes = (route,)
app.autodiscover_tasks()


def closed_connection_is_a_connection_error() -> None:
    """Patch kombu's Redis transport (5.7.0, the latest release) so a worker survives a broker outage under load.

    When the broker's connection drops while a task is delivered and not yet acknowledged (acks_late: a prefork
    worker resolving), Celery's consumer closes its connection; the channel's close gives the unacknowledged
    task back to Redis through a new client, built from connection parameters read off a connection kombu has
    already let go (`self.connection.client` is None). The AttributeError that follows is no connection error,
    so nothing catches it: "Unrecoverable error: AttributeError('NoneType' object has no attribute
    'hostname')", and the worker process exits (tests/play/test_broker_outage.py reproduces it every time).

    Here that case raises redis's ConnectionError instead, which kombu's close already ignores and Celery's
    consumer answers by reconnecting, however long the broker is down. The task given back is not lost: its
    worker finishes it (its acknowledgement fails, which is logged), Redis hands it out again after the
    visibility timeout, and running a task twice changes nothing (its row is re-read under a lock)."""
    import redis  # noqa: PLC0415  (only the patch needs it)
    from kombu.transport import redis as transport  # noqa: PLC0415

    channel: Any = transport.Channel  # kombu's stubs do not list its private methods
    original = channel._connparams
    if getattr(original, "patched", False):
        return

    def connparams(self: Any, asynchronous: bool = False) -> Any:
        if self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection was closed")
        return original(self, asynchronous)

    connparams.patched = True  # type: ignore[attr-defined]
    channel._connparams = connparams


closed_connection_is_a_connection_error()
