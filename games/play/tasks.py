"""Celery tasks: thin wake-up calls into the service layer. Each re-reads the database under a lock, so
running one twice (a redelivery after a worker died, a sweep racing the last order) changes nothing.

The only place the core's wake-up names (games.outgoing.dispatch) are bound to tasks: the services wake a task by
its name and never import this module (GamesConfig.ready() does, so the names are bound in every process).
Each binding names the task's queue (dispatch.routed): where a task is bound is where its kind of work is known."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task

from games.outgoing import dispatch, emails, receipts
from games.outgoing.dispatch import Queue, routed
from games.play import addresses, bots, sweep, turns


@shared_task(name=routed(dispatch.RESOLVE_PHASE, Queue.RESOLVE))
def resolve_phase_task(phase_id: int, use_defaults: bool = False) -> bool:
    return turns.resolve_phase(phase_id, use_defaults=use_defaults)


@shared_task(name=routed(dispatch.PLAY_BOTS, Queue.BOTS))
def play_bots_task(phase_id: int) -> int:
    return bots.play_bots(phase_id)


@shared_task(name=routed(dispatch.SEND_DUE, Queue.EMAIL))
def send_due_emails_task() -> int:
    return emails.send_due()


@shared_task(name=routed(dispatch.SEND_EMAILS, Queue.EMAIL))
def send_emails_task(game_id: int) -> int:
    # Nothing publishes this name now; a call a server before the coalesced sender queued may still be
    # delivered after a deploy, so the name stays bound, and wakes the one sender like every new email.
    emails.wake_sender()
    return 0


@shared_task(name=routed(dispatch.SEND_SIGN_IN_LINK, Queue.EMAIL))
def send_sign_in_link_task(player_id: int) -> bool:
    return emails.send_sign_in_link(player_id)


@shared_task(name=routed(dispatch.SEND_SIGN_UP_LINK, Queue.EMAIL))
def send_sign_up_link_task(address: str, language: str = "") -> bool:
    return emails.send_sign_up_link(address, language)


@shared_task(name=routed(dispatch.SEND_RECEIPTS, Queue.EMAIL))
def send_receipts_task() -> int:
    return receipts.send_pending()


@shared_task(name=routed(dispatch.SEND_ADDRESS_CONFIRMATION, Queue.EMAIL))
def send_address_confirmation_task(player_id: int) -> bool:
    return addresses.send_confirmation(player_id)


@shared_task(name=routed(dispatch.RESOLVE_OVERDUE_PHASES, Queue.RESOLVE))
def resolve_overdue_phases_task(phase_ids: list[int], at: str) -> int:
    return sweep.resolve_overdue_phases(phase_ids, datetime.fromisoformat(at))


@shared_task(name=routed(dispatch.RESOLVE_OVERDUE, Queue.RESOLVE))
def resolve_overdue_task(phase_id: int, at: str) -> bool:
    # Nothing publishes this name now (the sweep sends batches); a call queued before that may still be delivered
    # after a deploy, so the name stays bound.
    return sweep.resolve_overdue(phase_id, datetime.fromisoformat(at))


@shared_task(name=routed(dispatch.SEND_REMINDERS, Queue.EMAIL))
def send_reminders_task(phase_ids: list[int], at: str) -> int:
    return sweep.send_reminders(phase_ids, datetime.fromisoformat(at))


@shared_task(name=routed("games.tasks.sweep_deadlines", Queue.SWEEP))
def sweep_deadlines() -> dict[str, int]:
    return sweep.run().counts()
