"""What a load balancer or a monitor asks: is this server able to play turns, and is any table stuck?

`/healthz` answers 200 with the figures below, or 503 when the database or the broker cannot be reached
or a figure is past its limit (PBEM_HEALTH_* settings). Each figure is one query through a partial index,
and the answer names no game, player or order, so it needs no sign-in and can be polled every few seconds.
Superusers see the same figures on the admin's index page.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

# The project's Celery app (pbem/celery.py, loaded with Django): the core imports nothing of pbem.
from celery import current_app as celery_app
from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from kombu.exceptions import OperationalError

from games.models import Game, Phase
from games.outgoing import emails


@dataclass(frozen=True)
class Health:
    database: str  # "ok" or "unreachable"
    broker: str  # "ok", "unreachable", or "inline" (no broker: tasks run in the web process)
    # Seconds since the oldest open phase of a running game got its last owed order, still unresolved.
    oldest_complete_phase_seconds: int | None
    # Seconds since the oldest email still owed (pending, being sent, or failed with attempts left) was due.
    oldest_unsent_email_seconds: int | None
    limits: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def broker_state() -> str:
    if not settings.CELERY_BROKER_URL:
        return "inline"
    try:
        # A new connection, bounded by the broker's timeouts (settings); Redis answers a PING on connect.
        with celery_app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=0)
    except (OperationalError, OSError):
        return "unreachable"
    return "ok"


def age(since: datetime | None, now: datetime) -> int | None:
    return None if since is None else max(0, int((now - since).total_seconds()))


def check() -> Health:
    now = timezone.now()
    limits = {
        "complete_phase_seconds": settings.PBEM_HEALTH_COMPLETE_PHASE_SECONDS,
        "unsent_email_seconds": settings.PBEM_HEALTH_UNSENT_EMAIL_SECONDS,
    }
    problems: list[str] = []
    phase_age = email_age = None
    database = "ok"
    try:
        complete = Phase.objects.filter(status=Phase.Status.OPEN, complete_at__isnull=False)
        oldest_complete = (
            complete.filter(game__status=Game.Status.ACTIVE)
            .order_by("complete_at")
            .values_list("complete_at", flat=True)
            .first()
        )
        oldest_unsent = emails.unsent().order_by("created_at").values_list("created_at", flat=True).first()
        phase_age, email_age = age(oldest_complete, now), age(oldest_unsent, now)
    except DatabaseError:
        database = "unreachable"
        problems.append("the database cannot be reached")
    broker = broker_state()
    if broker == "unreachable":
        problems.append("the broker cannot be reached")
    if phase_age is not None and phase_age > limits["complete_phase_seconds"]:
        problems.append("a phase with every order in has waited too long for its resolution")
    if email_age is not None and email_age > limits["unsent_email_seconds"]:
        problems.append("an email has waited too long to be sent")
    return Health(database, broker, phase_age, email_age, limits, problems)


@never_cache
@require_http_methods(["GET", "HEAD"])
def healthz(request: HttpRequest) -> JsonResponse:
    health = check()
    return JsonResponse({"ok": health.ok, **asdict(health)}, status=200 if health.ok else 503)
