"""The lobby's tasks: wake-up calls into its services, each safe to run twice. LobbyConfig.ready() imports
this module, so the names games/lobby/emails.py wakes are bound in every process."""

from __future__ import annotations

from celery import shared_task

from games.lobby import emails, ready
from games.outgoing.dispatch import Queue, routed


@shared_task(name=routed(emails.SEND_LOBBY_EMAILS, Queue.EMAIL))
def send_lobby_emails_task() -> int:
    return emails.send_pending()


@shared_task(name=routed("lobby.tasks.sweep", Queue.SWEEP))
def sweep_lobby() -> dict[str, int]:
    """The ready check of tables whose start time has come (beat, every sweep period)."""
    return {"settled": ready.settle_due(), "sent": emails.send_pending()}
