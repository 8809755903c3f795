"""Who this browser speaks for. Three kinds of entries, each bound to the player's session epoch (so "sign
out everywhere" ends them all) and carrying its own expiry:

- a seat grant, from a seat link: that seat only, while the link would still work and while the seat's
  link key is unchanged (a replacement kills it);
- a membership grant, from a league settings link: that membership's settings page only;
- an account, from the sign-in link /me/ emails to the player's own address: all their games, their
  settings and their league pages.

No entry outlives SESSION_COOKIE_AGE from when it was opened. The checks read only the row the page reads
anyway (the seat or membership with its player), so they cost no query of their own.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy

from games.incoming.middleware import SESSION_ACCOUNT, SESSION_LANGUAGE, SESSION_TIME_ZONE, browser_language
from games.models import Player, Seat, unique_row, with_open_phase
from games.outgoing import mailpolicy
from games.outgoing.dispatch import SEND_SIGN_IN_LINK, after_commit
from games.outgoing.links import LinkError, read_sign_in_token
from games.play import order_sql

log = logging.getLogger(__name__)

SESSION_SEATS = "pbem_seats"
# Where grants are kept: the seats', and each plug-in's own (`grant_key`).
GRANT_KEYS = {SESSION_SEATS}
MAX_GRANTS = 30  # a session is a cookie's worth of rows: keep the latest links opened

Entry = dict[str, Any]


def _entries(request: HttpRequest, key: str) -> list[Entry]:
    return list(request.session.get(key, []))


def _live(entry: Entry, player: Player | None, now: float) -> bool:
    return player is not None and player.pk == entry["p"] and player.session_epoch == entry["v"] and entry["x"] > now


def _expiry(until: datetime | None = None) -> float:
    latest = time.time() + settings.SESSION_COOKIE_AGE
    return min(latest, until.timestamp()) if until else latest


def _enter(request: HttpRequest, player: Player, key: str = SESSION_SEATS) -> None:
    """Before this browser speaks for a player it did not speak for: a new session key (no fixation)."""
    present = {e["p"] for k in {SESSION_SEATS, key} for e in _entries(request, k)}
    account = request.session.get(SESSION_ACCOUNT)
    if player.pk not in present and (not account or account["p"] != player.pk):
        request.session.cycle_key()
    request.session[SESSION_TIME_ZONE] = player.time_zone
    if not player.language and (asked := browser_language(request)):
        # Not chosen yet: the language this browser asks for, until the player chooses on My games. Only if still
        # unchosen (a choice made meanwhile in another browser stays).
        Player.objects.filter(pk=player.pk, language="").update(language=asked)
        player.language = asked
    request.session[SESSION_LANGUAGE] = player.language


def _add(request: HttpRequest, key: str, entry: Entry, same: str) -> None:
    now = time.time()
    kept = [e for e in _entries(request, key) if e[same] != entry[same] and e["x"] > now]
    request.session[key] = [entry, *kept][:MAX_GRANTS]  # the latest opened first: it wins on a shared browser


# --- Seats, and the rows of a plug-in's links ------------------------------------------------------

R = TypeVar("R", bound=models.Model)


def _grant_live(grant: Entry, row: Any, now: float) -> bool:
    # A seat grant also holds the seat's link key (a league membership has none): a replaced player's grants
    # die with their links.
    return row is not None and grant.get("k") == getattr(row, "link_key", None) and _live(grant, row.player, now)


def _choose(
    request: HttpRequest,
    grants: list[Entry],
    id_key: str,
    rows: QuerySet[R],
    read: Callable[[list[int], int | None], list[R] | None] | None = None,
) -> R | None:
    """The row of `rows` this browser acts for: the latest of `grants` that is still live, else the
    account's own row. One query (with the row's player), none without a grant or an account. `read(ids,
    player id)`, if given, reads those rows of `rows` with their player instead of the ORM (None: it cannot)."""
    account = request.session.get(SESSION_ACCOUNT)
    if not grants and not account:
        return None
    ids, player_id = [g[id_key] for g in grants], (account["p"] if account else None)
    read_rows = read(ids, player_id) if read is not None else None
    if read_rows is None:
        match = Q(pk__in=ids)
        if account:
            match |= Q(player_id=player_id)
        read_rows = list(rows.filter(match).select_related("player").order_by())
    found = {row.pk: row for row in read_rows}
    now = time.time()
    for grant in grants:
        row = found.get(grant[id_key])
        if _grant_live(grant, row, now):
            return row
    return next((r for r in found.values() if account and _live(account, getattr(r, "player", None), now)), None)


def grant_seat(request: HttpRequest, seat: Seat, until: datetime) -> None:
    """The seat link of `seat` was opened: this browser may act for that seat until `until` (the link's
    own expiry), not for the player's other seats."""
    assert seat.player is not None
    _enter(request, seat.player)
    entry = {"s": seat.pk, "g": seat.game_id, "k": seat.link_key, "p": seat.player_id, "v": seat.player.session_epoch}
    _add(request, SESSION_SEATS, {**entry, "x": _expiry(until)}, same="s")


def seat_of(request: HttpRequest, game_id: int, *, with_turn: bool = False) -> Seat | None:
    """The seat this browser acts for at this table (with its game and player), or None: the latest seat
    link opened for the table, else the signed-in account's seat. `with_turn`: with the game's open phase in
    the same statement (games.models.with_open_phase), for a view about the turn."""
    grants = [g for g in _entries(request, SESSION_SEATS) if g["g"] == game_id]
    seats = Seat.objects.filter(game_id=game_id)
    if with_turn:  # on PostgreSQL written by hand (games/play/order_sql.py): the order POST's costliest read
        read = functools.partial(order_sql.seats_with_turn, game_id)
        return _choose(request, grants, "s", with_open_phase(seats), read)
    return _choose(request, grants, "s", seats.select_related("game"))


def granted_seats(request: HttpRequest) -> list[Seat]:
    """The seats of this browser's live seat grants, latest first (/me/ without an account)."""
    grants = _entries(request, SESSION_SEATS)
    if not grants:
        return []
    found = Seat.objects.filter(pk__in=[g["s"] for g in grants]).select_related("game", "player")
    by_pk = {seat.pk: seat for seat in found}
    now = time.time()
    return [by_pk[g["s"]] for g in grants if _grant_live(g, by_pk.get(g["s"]), now)]


def grant_key(key: str) -> str:
    """A plug-in's session key for the grants of its links (declared where its views are, so before any
    request): signing in keeps only the signed-in player's grants under it, as under the seats'."""
    GRANT_KEYS.add(key)
    return key


def grant_row(request: HttpRequest, key: str, row: Any) -> None:
    """A plug-in's link to one of a player's rows was opened (a league settings link, for a membership): this
    browser may act for that row only. `key` is the plug-in's own session key; `row` has a `player`."""
    _enter(request, row.player, key)
    entry = {"m": row.pk, "p": row.player_id, "v": row.player.session_epoch}
    _add(request, key, {**entry, "x": _expiry()}, same="m")


def row_of(request: HttpRequest, key: str, rows: QuerySet[R]) -> R | None:
    """The row of `rows` this browser may act for through `grant_row` under `key` (else the signed-in
    account's own row), with its player."""
    return _choose(request, _entries(request, key), "m", rows)


# --- Accounts --------------------------------------------------------------------------------------


def sign_in(request: HttpRequest, player: Player) -> None:
    """An account session for `player`: this browser now speaks for them in all their games. Entries of
    other people on a shared browser go, so the account's own seats show."""
    _enter(request, player)
    for key in GRANT_KEYS:
        request.session[key] = [e for e in _entries(request, key) if e["p"] == player.pk]
    request.session[SESSION_ACCOUNT] = {"p": player.pk, "v": player.session_epoch, "x": _expiry()}


def account_player(request: HttpRequest) -> Player | None:
    """The signed-in account's player, or None (a stale account is dropped from the session)."""
    account = request.session.get(SESSION_ACCOUNT)
    if not account:
        return None
    player = unique_row(Player.objects.filter(pk=account["p"]))
    if not _live(account, player, time.time()):
        del request.session[SESSION_ACCOUNT]
        return None
    return player


def sign_out_everywhere(request: HttpRequest, player: Player) -> None:
    """End every session of `player`, in every browser: accounts and the grants their links opened."""
    Player.objects.filter(pk=player.pk).update(session_epoch=F("session_epoch") + 1)
    log.info("player %s signed out everywhere", player.pk)
    request.session.flush()


# --- Sign-in links ---------------------------------------------------------------------------------


def email_sign_in_link(address: str, language: str | None = None) -> None:
    """Email a sign-in link to `address` if it is a player's, within the address's quota. Returns nothing
    and the page says the same either way: the form must not tell who plays here. `language`: the one the asking
    browser named, which becomes the player's if they have not chosen one (the email is in it)."""
    now = timezone.now()
    with transaction.atomic():
        player = unique_row(Player.objects.select_for_update().filter(email=address.strip().lower()))
        if player is None:
            return
        if not mailpolicy.take_email_quota(player, now):
            log.info("sign-in link for player %s not sent: over the quota", player.pk)
            return
        player.sign_in_sent_at = now
        if not player.language and language:
            player.language = language
        player.save(update_fields=["sign_in_quota_at", "sign_in_sent_at", "language"])
        after_commit(SEND_SIGN_IN_LINK, player.pk)


USED = gettext_lazy(
    "This sign-in link has already been used, or a newer one was sent. Use the latest, or ask My games again."
)


def sign_in_link_player(token: str) -> Player:
    """The player a sign-in link is for, if it is genuine, fresh and unused. Changes nothing (GET)."""
    link = read_sign_in_token(token)
    player = unique_row(Player.objects.filter(pk=link.player_id))
    if player is None or player.sign_in_sent_at != link.sent_at or player.session_epoch != link.epoch:
        raise LinkError(USED)
    return player


def redeem_sign_in_link(request: HttpRequest, token: str) -> Player:
    """Sign this browser in with the link, which then stops working (of two uses at once, one wins)."""
    player = sign_in_link_player(token)
    link = read_sign_in_token(token)
    used = Player.objects.filter(pk=player.pk, sign_in_sent_at=link.sent_at, session_epoch=link.epoch)
    if not used.update(sign_in_sent_at=None):
        raise LinkError(USED)
    sign_in(request, player)
    log.info("player %s signed in by email link", player.pk)
    return player
