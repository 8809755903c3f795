"""Who calls: a bearer token (a player's or a bot's), or this browser's session (the pages' own: an account or
the seats whose links it opened). Either way the caller acts for exactly the seats its player holds now, as
links and sessions do; a token whose player lost a seat no longer reaches it.

CSRF: a session call that changes something needs Django's CSRF token (X-CSRFToken header), as the pages'
forms do; a token call does not (a bearer token is not sent by a browser on its own)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError
from ninja.security import APIKeyCookie, HttpBearer

from games.api import tokens
from games.api.models import Token
from games.api.problems import Problem
from games.incoming import sessions
from games.incoming.middleware import browser_language, supported
from games.models import Player, Seat, unique_row, with_open_phase
from games.play import order_sql


@dataclass
class Caller:
    request: HttpRequest
    account: Player | None  # a session's player; None for a token (see `player`) or a session of seat links only
    token: Token | None = None
    _seats: dict[int, Seat | None] = field(default_factory=dict)

    @property
    def player(self) -> Player | None:
        """The player the caller acts for (None: a session that holds only seat links). A token's player is read
        when first asked for: the token's one statement does not join it, and most calls need only its id."""
        return self.token.player if self.token is not None else self.account

    @property
    def player_id(self) -> int | None:
        if self.token is not None:
            return self.token.player_id
        return self.account.pk if self.account is not None else None

    @property
    def can_play(self) -> bool:
        return self.token is None or self.token.can_play

    def seat(self, game_id: int) -> Seat | None:
        """The seat this caller acts for at the table (with its game and player), or None. Read with the game's open
        phase (games.models.with_open_phase): most calls about a game are about its turn."""
        if game_id not in self._seats:
            if self.token is not None:
                # On PostgreSQL written by hand (games/play/order_sql.py): the costliest read of an order PUT.
                found = order_sql.seats_with_turn(game_id, [], self.token.player_id)
                if found is None:
                    rows = Seat.objects.filter(game_id=game_id, player_id=self.token.player_id).select_related("player")
                    self._seats[game_id] = unique_row(with_open_phase(rows))
                else:
                    self._seats[game_id] = found[0] if found else None
            else:
                self._seats[game_id] = sessions.seat_of(self.request, game_id, with_turn=True)
        return self._seats[game_id]

    def forget(self, game_id: int) -> None:
        """The caller's seat may have changed hands (they conceded it): read it again when next asked."""
        self._seats.pop(game_id, None)

    def seats(self) -> list[Seat]:
        """Every seat the caller acts for, newest game first."""
        if self.player_id is None:
            return sessions.granted_seats(self.request)
        rows = Seat.objects.filter(player_id=self.player_id).select_related("game", "player")
        return list(rows.order_by("-game_id"))

    def must_play(self) -> None:
        if not self.can_play:
            raise Problem(403, "read-only-token", _("This token is read only: make a play token on My games to play."))


class TokenAuth(HttpBearer):
    """Authorization: Bearer pbem_..."""

    def authenticate(self, request: HttpRequest, token: str) -> Caller | None:
        try:
            found = tokens.authenticate(token)
        except tokens.RateLimited as limited:
            raise Problem(
                429,
                "rate-limited",
                _("This token made more than %(PBEM_API_RATE)s calls a minute: wait %(retry_after)s s before the next.")
                % {"PBEM_API_RATE": settings.PBEM_API_RATE, "retry_after": limited.retry_after},
                headers={"Retry-After": str(limited.retry_after)},
            ) from None
        if found is None:
            return None
        answer_in(request, found.owner_language)
        return Caller(request, None, found)


def answer_in(request: HttpRequest, owner_language: str | None) -> None:
    """A token's call is answered in the language its request asks for explicitly (Accept-Language naming one we
    speak, as the middleware has activated it), else in the token's player's (My games), else in English
    (docs/api.md, "Words"). The player's language came with the token's own statement: no query here."""
    if browser_language(request) is not None:
        return
    language = supported(owner_language) or settings.LANGUAGE_CODE
    translation.activate(language)
    request.LANGUAGE_CODE = language


class SessionAuth(APIKeyCookie):
    """The pages' session cookie; CSRF is checked on unsafe methods (csrf=True, django-ninja's default)."""

    param_name = settings.SESSION_COOKIE_NAME

    def _get_key(self, request: HttpRequest) -> str | None:
        """No session to check, no CSRF to check: a call with no session cookie, or one that sent a bearer token
        (which TokenAuth did not know), is unauthenticated (401), never a CSRF refusal (403)."""
        if not request.COOKIES.get(self.param_name) or "authorization" in request.headers:
            return None
        return super()._get_key(request)

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        player = sessions.account_player(request)
        if player is not None:
            return Caller(request, player)
        return Caller(request, None) if sessions.granted_seats(request) else None


AUTH = [TokenAuth(), SessionAuth()]


def optional_caller(request: HttpRequest) -> Caller | None:
    """The caller of a public endpoint, if it names one (a token, a session); a token it does not know is a 401
    there too, as everywhere."""
    for method in AUTH:
        found = method(request)
        if isinstance(found, Caller):
            return found
    if "authorization" in request.headers:
        raise AuthenticationError()
    return None
