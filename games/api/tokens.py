"""Players' API tokens: made (shown once, stored as a digest), found by their bearer, rate limited, revoked.

A token is "pbem_" and 32 random bytes (URL-safe base64). Its SHA-256 is what the table keeps; the lookup is by
that digest, so a token is found in one indexed read and no comparison of secrets runs in Python.

Rate limit: a generic cell rate per token, kept in the token's own row (`allowed_at`, the theoretical arrival
time): PBEM_API_RATE calls a minute, in bursts of up to PBEM_API_BURST. A call is one statement: an UPDATE of
the live token with that digest, conditional on its rate, that also records `last_used_at` and RETURNs the row,
so finding the token and counting the call cost one round trip. When it updates nothing (an unknown or revoked
token, or one over its rate) a second read tells which, and how many seconds to wait.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import F, QuerySet
from django.db.models.functions import Greatest
from django.db.models.sql import UpdateQuery
from django.utils import timezone
from django.utils.translation import gettext as _

from games.api.models import Token
from games.models import Player

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
    """A new token for `player`. TokenRefused for a blank or long name, one with control characters, an unknown
    scope, or too many tokens."""
    name = " ".join(name.split())
    if not name:
        raise TokenRefused(_("Give the token a name, so you can tell it apart later (a phone, a bot)."))
    if len(name) > NAME_LENGTH:
        raise TokenRefused(
            _("A token's name can be at most %(NAME_LENGTH)s characters.") % {"NAME_LENGTH": NAME_LENGTH}
        )
    if any(unicodedata.category(character) == "Cc" for character in name):  # NUL, which PostgreSQL refuses, and kin
        raise TokenRefused(_("A token's name is text to read: it cannot hold control characters."))
    if scope not in Token.Scope.values:
        raise TokenRefused(_("A token is either read only or play."))
    if Token.objects.filter(player=player, revoked_at__isnull=True).count() >= MAX_TOKENS:
        raise TokenRefused(
            _("You have %(MAX_TOKENS)s tokens already: revoke one you no longer use first.")
            % {"MAX_TOKENS": MAX_TOKENS}
        )
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
    """The live token `secret` is, counted against its rate limit; None if there is none. RateLimited when the
    token is over its rate. One statement for a token within its rate; its player is read when first used
    (the order calls need only its id)."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    now = now or timezone.now()
    step = interval()
    tolerance = step * (settings.PBEM_API_BURST - 1)
    hashed = digest(secret)
    live_one = Token.objects.filter(digest=hashed, revoked_at__isnull=True)
    if connections[live_one.db].vendor == "postgresql":
        counted = _counted(live_one.db, hashed, now, step, now + tolerance)
    else:
        counted = _update_returning(
            live_one.filter(allowed_at__lte=now + tolerance),
            allowed_at=Greatest(F("allowed_at"), now) + step,
            last_used_at=now,
        )
    if counted is not None:
        return counted
    allowed_at = live_one.values_list("allowed_at", flat=True).first()
    if allowed_at is None:
        return None
    raise RateLimited(max(1, math.ceil((allowed_at - tolerance - now).total_seconds())))


def _update_returning(rows: QuerySet[Token], **values: Any) -> Token | None:
    """`rows.update(**values)` that returns the (one) updated row as it is after the update, or None.

    Django's update() returns only a count; the ORM compiles the UPDATE (its expressions written for this
    database, as update() would) and RETURNING, which PostgreSQL and SQLite (3.35+) both take, reads the row back
    in the same statement. raw() builds the model with the fields' converters."""
    query = rows.query.chain(UpdateQuery)
    assert isinstance(query, UpdateQuery)  # chain(klass) made it one
    query.add_update_values(values)
    sql, params = query.get_compiler(rows.db).as_sql()
    quote = connections[rows.db].ops.quote_name
    columns = ", ".join(quote(field.column) for field in Token._meta.concrete_fields)
    returning = f"{columns}, {_owner_language(quote)} AS owner_language"
    return next(iter(Token.objects.db_manager(rows.db).raw(f"{sql} RETURNING {returning}", params)), None)


def _owner_language(quote: Any) -> str:
    """The token's player's language (Player.language, "" if unchosen) as a sub-select for the UPDATE's RETURNING:
    the API answers in it (games/api/auth.py) without a query of its own."""
    player, token = Player._meta, Token._meta
    owner = f"{quote(token.db_table)}.{quote(token.get_field('player').column)}"
    return (
        f"(SELECT {quote(player.get_field('language').column)} FROM {quote(player.db_table)} "  # noqa: S608
        f"WHERE {quote(player.pk.column)} = {owner})"
    )


_COUNT_SQL: list[str] = []


def _counted(db: str, hashed: str, now: datetime, step: timedelta, latest: datetime) -> Token | None:
    """authenticate's UPDATE ... RETURNING on PostgreSQL, written by hand: every API call runs it, and the ORM's
    building and compiling it per call cost more than PostgreSQL's running it (issue 31 item 6). The same
    statement as `_update_returning`'s; its text is built once per process, from the model's names."""
    connection = connections[db]
    if not _COUNT_SQL:
        quote = connection.ops.quote_name
        column = {field.attname: quote(field.column) for field in Token._meta.concrete_fields}
        allowed, used, revoked, hashed_column = (
            column[name] for name in ("allowed_at", "last_used_at", "revoked_at", "digest")
        )
        returning = ", ".join(column.values()) + ", " + _owner_language(quote)
        _COUNT_SQL.append(
            f"UPDATE {quote(Token._meta.db_table)} SET {allowed} = GREATEST({allowed}, %s) + %s, {used} = %s "  # noqa: S608
            f"WHERE {hashed_column} = %s AND {revoked} IS NULL AND {allowed} <= %s RETURNING {returning}"
        )
    with connection.cursor() as cursor:
        params: list[Any] = [now, step, now, hashed, latest]  # psycopg sends the timedelta as an interval
        cursor.execute(_COUNT_SQL[0], params)
        row = cursor.fetchone()
    if row is None:
        return None
    # Every column is a number, text or timestamp, which psycopg reads as the fields hold them: no converters.
    token = Token.from_db(db, [f.attname for f in Token._meta.concrete_fields], row[:-1])
    token.owner_language = row[-1] or ""
    return token
