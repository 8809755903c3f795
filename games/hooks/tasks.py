"""The webhooks' sender as a Celery task, on the email queue (a resolution never waits behind it). Bound here
only; HooksConfig.ready() imports this module."""

from __future__ import annotations

from celery import shared_task

from games.hooks import deliver
from games.hooks.notices import SEND_HOOKS
from games.outgoing.dispatch import Queue, routed


@shared_task(name=routed(SEND_HOOKS, Queue.EMAIL))
def send_due() -> int:
    return deliver.send_due()
