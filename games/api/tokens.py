"""Players' API tokens: made (shown once, stored as a digest), found by their bearer, rate limited, revoked.

A token is "pbem_" and 32 random bytes (URL-safe base64). Its SHA-256 is what the table keeps; the lookup is by
that digest, so a token is found in one indexed read and no comparison of secrets runs in Python.

Rate limit: a generic cell rate per token, kept in the token's own row (`allowed_at`, the theoretical arrival
time): PBEM_API_RATE calls a minute, in bursts of up to PBEM_API_BURST. A call is one conditional UPDATE that
also records `last_used_at`; when it updates nothing the caller is told how many seconds to wait.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from games.api.models import Token
from games.models import Player, unique_row

PREFIX = "pbem_"
MAX_TOKENS = 20  # live tokens per player: enough for every device and bot, few enough to review at a glance
NAME_LENGTH = 60


class TokenRefused(ValueError):
    """A token that was not made; the message is for the player."""


class RateLimited(Exception):
    def __init__(self, retry_after: int) -> None:
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Made:
    token: Token
    secret: str  # shown once to its owner, never stored


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def interval() -> timedelta:
    return timedelta(seconds=60 / settings.PBEM_API_RATE)


def make(player: Player, name: str, scope: str) -> Made:
    """A new token for `player`. TokenRefused for a blank or long name, an unknown scope, or too many tokens."""
    name = " ".join(name.split())
    if not name:
        raise TokenRefused("Give the token a name, so you can tell it apart later (a phone, a bot).")
    if len(name) > NAME_LENGTH:
        raise TokenRefused(f"A token's name can be at most {NAME_LENGTH} characters.")
    if scope not in Token.Scope.values:
        raise TokenRefused("A token is either read only or play.")
    if Token.objects.filter(player=player, revoked_at__isnull=True).count() >= MAX_TOKENS:
        raise TokenRefused(f"You have {MAX_TOKENS} tokens already: revoke one you no longer use first.")
    secret = PREFIX + secrets.token_urlsafe(32)
    token = Token.objects.create(player=player, name=name, scope=scope, digest=digest(secret), hint=secret[:10])
    return Made(token=token, secret=secret)


def revoke(player: Player, token_id: int) -> bool:
    """Revoke one of `player`'s tokens; False if they have no such live token."""
    return bool(
        Token.objects.filter(pk=token_id, player=player, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


def live(player: Player) -> list[Token]:
    return list(Token.objects.filter(player=player, revoked_at__isnull=True))


def authenticate(secret: str, now: datetime | None = None) -> Token | None:
    """The live token `secret` is, with its player, counted against its rate limit; None if there is none.
    RateLimited when the token is over its rate. Two statements: the read and the conditional update."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    token = unique_row(Token.objects.select_related("player").filter(digest=digest(secret), revoked_at__isnull=True))
    if token is None:
        return None
    now = now or timezone.now()
    step = interval()
    tolerance = step * (settings.PBEM_API_BURST - 1)
    taken = Token.objects.filter(pk=token.pk, allowed_at__lte=now + tolerance).update(
        allowed_at=Greatest(F("allowed_at"), now) + step, last_used_at=now
    )
    if not taken:
        wait = (token.allowed_at - tolerance - now).total_seconds()
        raise RateLimited(max(1, math.ceil(wait)))
    return token
