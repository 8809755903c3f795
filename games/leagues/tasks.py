"""League tasks: wake-up calls into the league services, each safe to run twice. The league's wake-up
names (emails.SEND_LEAGUE_EMAILS) are bound here only; LeaguesConfig.ready() imports this module."""

from __future__ import annotations

from celery import shared_task

from games.leagues import emails, services, substitutes
from games.outgoing.dispatch import Queue, routed


@shared_task(name=routed("leagues.tasks.sweep", Queue.SWEEP))
def sweep_leagues() -> dict[str, int]:
    """Start rounds whose time has come, give unclaimed seats to bots, close finished rounds."""
    return {
        "started": services.start_due_rounds(),
        "bots": substitutes.expire_offers(),
        "finished": services.finish_rounds(),
        "sent": emails.send_pending(),
    }


@shared_task(name=routed(services.FINISH_ROUND, Queue.SWEEP))
def finish_round_task(round_id: int) -> bool:
    """A game of the round ended: close the round if it was the last one (with tasks inline too)."""
    return services.finish_round(round_id)


@shared_task(name=routed(emails.SEND_LEAGUE_EMAILS, Queue.EMAIL))
def send_league_emails_task() -> int:
    return emails.send_pending()


@shared_task(name=routed("leagues.tasks.send_digests", Queue.EMAIL))
def send_digests_task() -> int:
    return emails.send_digests()
