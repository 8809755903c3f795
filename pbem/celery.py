"""The Celery app, configured from Django settings (CELERY_* names), and its queues.

The four queues (games.outgoing.dispatch.Queue) are declared here, so a worker started without -Q consumes all of
them and `-Q resolve`, `-Q email`, `-Q sweep` (or any list of them) picks its share. Each queue has its own
direct exchange of the same name, as Celery makes for a queue it was not told of, so a task reaches only its
queue on RabbitMQ too. Where a task goes is said where it is bound (games/play/tasks.py, games/leagues/tasks.py)
and read by games.outgoing.dispatch.route; a task bound without one goes to the resolutions' queue."""

from __future__ import annotations

import os

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
