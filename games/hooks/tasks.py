"""The webhooks' sender as a Celery task, on the email queue (a resolution never waits behind it). Bound here
only; HooksConfig.ready() imports this module."""

from __future__ import annotations

from celery import shared_task

from games.hooks import deliver, mail
from games.hooks.notices import SEND_HOOKS
from games.outgoing.dispatch import Queue, routed


@shared_task(name=routed(SEND_HOOKS, Queue.EMAIL))
def send_due() -> int:
    return deliver.send_due()


@shared_task(name=routed(mail.SEND_HOOK_EMAILS, Queue.EMAIL))
def send_emails() -> int:
    return mail.send_pending()
