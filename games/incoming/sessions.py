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

import logging
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone

from games.incoming.middleware import SESSION_TIME_ZONE
from games.models import Player, Seat, unique_row
from games.outgoing.dispatch import SEND_SIGN_IN_LINK, after_commit
from games.outgoing.links import LinkError, read_sign_in_token

if TYPE_CHECKING:
    from games.leagues.models import Membership

log = logging.getLogger(__name__)

SESSION_SEATS = "pbem_seats"
SESSION_MEMBERS = "pbem_members"
SESSION_ACCOUNT = "pbem_account"
MAX_GRANTS = 30  # a session is a cookie's worth of rows: keep the latest links opened
# Sign-in emails per address: up to SIGN_IN_BURST at once, then one per SIGN_IN_EVERY (6 a day at most),
# so the form cannot be used to flood someone's inbox.
SIGN_IN_BURST = 3
SIGN_IN_EVERY = timedelta(hours=4)

Entry = dict[str, Any]


def _entries(request: HttpRequest, key: str) -> list[Entry]:
    return list(request.session.get(key, []))


def _live(entry: Entry, player: Player | None, now: float) -> bool:
    return player is not None and player.pk == entry["p"] and player.session_epoch == entry["v"] and entry["x"] > now


def _expiry(until: datetime | None = None) -> float:
    latest = time.time() + settings.SESSION_COOKIE_AGE
    return min(latest, until.timestamp()) if until else latest


def _enter(request: HttpRequest, player: Player) -> None:
    """Before this browser speaks for a player it did not speak for: a new session key (no fixation)."""
    present = {e["p"] for key in (SESSION_SEATS, SESSION_MEMBERS) for e in _entries(request, key)}
    account = request.session.get(SESSION_ACCOUNT)
    if player.pk not in present and (not account or account["p"] != player.pk):
        request.session.cycle_key()
    request.session[SESSION_TIME_ZONE] = player.time_zone


def _add(request: HttpRequest, key: str, entry: Entry, same: str) -> None:
    now = time.time()
    kept = [e for e in _entries(request, key) if e[same] != entry[same] and e["x"] > now]
    request.session[key] = [entry, *kept][:MAX_GRANTS]  # the latest opened first: it wins on a shared browser


# --- Seats and memberships --------------------------------------------------------------------------

R = TypeVar("R", Seat, "Membership")


def _grant_live(grant: Entry, row: Seat | Membership | None, now: float) -> bool:
    # A seat grant also holds the seat's link key (a membership has none): a replaced player's grants die
    # with their links.
    return row is not None and grant.get("k") == getattr(row, "link_key", None) and _live(grant, row.player, now)


def _choose(request: HttpRequest, grants: list[Entry], id_key: str, rows: QuerySet[R]) -> R | None:
    """The row of `rows` this browser acts for: the latest of `grants` that is still live, else the
    account's own row. One query (with the row's player), none without a grant or an account."""
    account = request.session.get(SESSION_ACCOUNT)
    if not grants and not account:
        return None
    match = Q(pk__in=[g[id_key] for g in grants])
    if account:
        match |= Q(player_id=account["p"])
    found = {row.pk: row for row in rows.filter(match).select_related("player").order_by()}
    now = time.time()
    for grant in grants:
        row = found.get(grant[id_key])
        if _grant_live(grant, row, now):
            return row
    return next((r for r in found.values() if account and _live(account, r.player, now)), None)


def grant_seat(request: HttpRequest, seat: Seat, until: datetime) -> None:
    """The seat link of `seat` was opened: this browser may act for that seat until `until` (the link's
    own expiry), not for the player's other seats."""
    assert seat.player is not None
    _enter(request, seat.player)
    entry = {"s": seat.pk, "g": seat.game_id, "k": seat.link_key, "p": seat.player_id, "v": seat.player.session_epoch}
    _add(request, SESSION_SEATS, {**entry, "x": _expiry(until)}, same="s")


def seat_of(request: HttpRequest, game_id: int) -> Seat | None:
    """The seat this browser acts for at this table (with its game and player), or None: the latest seat
    link opened for the table, else the signed-in account's seat."""
    grants = [g for g in _entries(request, SESSION_SEATS) if g["g"] == game_id]
    return _choose(request, grants, "s", Seat.objects.filter(game_id=game_id).select_related("game"))


def granted_seats(request: HttpRequest) -> list[Seat]:
    """The seats of this browser's live seat grants, latest first (/me/ without an account)."""
    grants = _entries(request, SESSION_SEATS)
    if not grants:
        return []
    found = Seat.objects.filter(pk__in=[g["s"] for g in grants]).select_related("game", "player")
    by_pk = {seat.pk: seat for seat in found}
    now = time.time()
    return [by_pk[g["s"]] for g in grants if _grant_live(g, by_pk.get(g["s"]), now)]


def grant_membership(request: HttpRequest, membership: Membership) -> None:
    """A league settings link was opened: this browser may use that membership's settings page only."""
    _enter(request, membership.player)
    entry = {"m": membership.pk, "p": membership.player_id, "v": membership.player.session_epoch}
    _add(request, SESSION_MEMBERS, {**entry, "x": _expiry()}, same="m")


def membership_of(request: HttpRequest, memberships: QuerySet[Membership]) -> Membership | None:
    """The membership of `memberships` (one league's) this browser may act for, with its player."""
    return _choose(request, _entries(request, SESSION_MEMBERS), "m", memberships)


# --- Accounts --------------------------------------------------------------------------------------


def sign_in(request: HttpRequest, player: Player) -> None:
    """An account session for `player`: this browser now speaks for them in all their games. Entries of
    other people on a shared browser go, so the account's own seats show."""
    _enter(request, player)
    for key in (SESSION_SEATS, SESSION_MEMBERS):
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


def email_sign_in_link(address: str) -> None:
    """Email a sign-in link to `address` if it is a player's, within the address's quota. Returns nothing
    and the page says the same either way: the form must not tell who plays here."""
    now = timezone.now()
    with transaction.atomic():
        player = unique_row(Player.objects.select_for_update().filter(email=address.strip().lower()))
        if player is None:
            return
        if not take_email_quota(player, now):
            log.info("sign-in link for player %s not sent: over the quota", player.pk)
            return
        player.sign_in_sent_at = now
        player.save(update_fields=["sign_in_quota_at", "sign_in_sent_at"])
        after_commit(SEND_SIGN_IN_LINK, player.pk)


def take_email_quota(player: Player, now: datetime) -> bool:
    """Count one more email a person asked us to send for `player` (a sign-in link, an address confirmation),
    if the quota allows it; the caller saves `sign_in_quota_at`. A generic cell rate: the quota time runs
    SIGN_IN_EVERY ahead per email, and no email goes out while it is more than the burst ahead of now."""
    quota = max(player.sign_in_quota_at or now, now)
    if quota - now > (SIGN_IN_BURST - 1) * SIGN_IN_EVERY:
        return False
    player.sign_in_quota_at = quota + SIGN_IN_EVERY
    return True


USED = "This sign-in link has already been used, or a newer one was sent. Use the latest, or ask My games again."


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
