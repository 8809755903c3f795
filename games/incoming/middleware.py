from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

SESSION_TIME_ZONE = "pbem_tz"


class PlayerTimeZoneMiddleware:
    """Show times in the signed-in player's zone. The zone is kept in the session (set at sign-in and
    when the player saves settings), so this costs no query."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        name = request.session.get(SESSION_TIME_ZONE)
        try:
            timezone.activate(ZoneInfo(name)) if name else timezone.deactivate()
        except (ZoneInfoNotFoundError, ValueError):
            timezone.deactivate()
        return self.get_response(request)
