from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware
from django.utils import timezone, translation
from django.utils.translation.trans_real import parse_accept_lang_header

from games import extensions

SESSION_TIME_ZONE = "pbem_tz"
# The language the player chose (Player.language), kept in the session beside the zone and for the same reason.
SESSION_LANGUAGE = "pbem_lang"
SESSION_ACCOUNT = "pbem_account"  # a signed-in account's entry (games/incoming/sessions.py)
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


class PlayerLanguageMiddleware(LocaleMiddleware):
    """The page's language: a signed-in player's own choice (My games); otherwise the language chosen with
    the switcher (Django's set_language cookie), else that of the player whose seat link this browser opened,
    else the browser's Accept-Language, else English. Django's LocaleMiddleware does the rest (Content-Language,
    Vary: Accept-Language). No query: the choice is in the session, written at sign-in and when it changes."""

    def process_request(self, request: HttpRequest) -> None:
        translation.activate(page_language(request))
        request.LANGUAGE_CODE = translation.get_language()


def page_language(request: HttpRequest) -> str:
    session = getattr(request, "session", None)
    chosen = supported(session.get(SESSION_LANGUAGE)) if session is not None else None
    if chosen and session is not None and session.get(SESSION_ACCOUNT):
        return chosen
    if chosen and settings.LANGUAGE_COOKIE_NAME not in request.COOKIES:
        return chosen
    return translation.get_language_from_request(request)


def supported(code: str | None) -> str | None:
    """`code` as one of settings.LANGUAGES, or None (blank, or a language this site does not speak)."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def browser_language(request: HttpRequest) -> str | None:
    """The language this browser asked for, by the switcher or by Accept-Language, if it asked for one we speak;
    None when it named none (a player's language is then left unchosen, not set to the default)."""
    asked = [request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")]
    asked += [code for code, _ in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", ""))]
    return next((found for code in asked if code != "*" and (found := supported(code))), None)
