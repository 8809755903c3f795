"""The votes' tasks: the sender woken after a vote's emails commit, the re-count after a seat changed hands,
and the beat's sweep of votes past their deadline. Bound here only; VotesConfig.ready() imports this module."""

from __future__ import annotations

from celery import shared_task

from games.outgoing.dispatch import Queue, routed
from games.votes import mail, services


@shared_task(name=routed(mail.SEND_VOTE_EMAILS, Queue.EMAIL))
def send_emails() -> int:
    return mail.send_pending()


@shared_task(name=routed(services.SETTLE_VOTE, Queue.RESOLVE))
def settle(game_id: int) -> bool:
    return services.settle(game_id) is not None


@shared_task(name=routed("votes.tasks.sweep", Queue.SWEEP))
def sweep() -> int:
    return services.close_due()
