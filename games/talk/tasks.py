"""Table talk's tasks: the wake-up after a message (SEND_TALK), the sweep of emails left waiting for their
batch window, and the daily digest. Bound here only, each with its queue; TalkConfig.ready() imports this
module."""

from __future__ import annotations

from celery import shared_task

from games.outgoing.dispatch import Queue, routed
from games.talk import mail
from games.talk.services import SEND_TALK


@shared_task(name=routed(SEND_TALK, Queue.EMAIL))
def send_talk(game_id: int) -> int:
    return mail.send_due(game_id)


@shared_task(name=routed("talk.tasks.sweep", Queue.SWEEP))
def sweep() -> int:
    return mail.sweep()


@shared_task(name=routed("talk.tasks.send_digests", Queue.EMAIL))
def send_digests() -> int:
    return mail.send_digests()
