from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from games import extensions

SESSION_TIME_ZONE = "pbem_tz"
ADMIN_PATH = "/admin/"  # where pbem/urls.py mounts the admin


class PlayerTimeZoneMiddleware:
    """Show times in the signed-in player's zone. The zone is kept in the session (set at sign-in and
    when the player saves settings), so this costs no query. The admin's pages speak one zone for an
    organiser instead, their leagues' (games.extensions.staff_time_zone; the server's otherwise), which each
    page names (templates/admin/base_site.html)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(ADMIN_PATH):
            user = getattr(request, "user", None)
            name = extensions.staff_time_zone(user) if user is not None and user.is_staff else None
        else:
            name = request.session.get(SESSION_TIME_ZONE)
        try:
            timezone.activate(ZoneInfo(name)) if name else timezone.deactivate()
        except (ZoneInfoNotFoundError, ValueError):
            timezone.deactivate()
        return self.get_response(request)
