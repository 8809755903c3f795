"""Celery tasks: thin wake-up calls into the service layer. Each re-reads the database under a lock, so
running one twice (a redelivery after a worker died, a sweep racing the last order) changes nothing."""

from __future__ import annotations

from celery import shared_task

from games import emails, turns


@shared_task(name="games.tasks.resolve_phase")
def resolve_phase_task(phase_id: int, use_defaults: bool = False) -> bool:
    return turns.resolve_phase(phase_id, use_defaults=use_defaults)


@shared_task(name="games.tasks.play_bots")
def play_bots_task(phase_id: int) -> int:
    return turns.play_bots(phase_id)


@shared_task(name="games.tasks.send_emails")
def send_emails_task(game_id: int) -> int:
    return emails.send_pending(game_id)


@shared_task(name="games.tasks.send_sign_in_link")
def send_sign_in_link_task(player_id: int) -> bool:
    return emails.send_sign_in_link(player_id)


@shared_task(name="games.tasks.sweep_deadlines")
def sweep_deadlines() -> dict[str, int]:
    result = turns.sweep_deadlines()
    resent = emails.retry_failed() + emails.send_stragglers()
    return {
        "overdue": len(result.overdue),
        "reminded": result.reminded,
        "complete": len(result.complete),
        "bots": len(result.bots),
        "resent": resent,
    }
