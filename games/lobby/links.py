"""The invitation's links and what opening one grants this browser.

An invitation email carries one signed token in two links: the join link (/lobby/i/<token>/) and the
one-click decline (/lobby/decline/<token>/, also its RFC 8058 List-Unsubscribe). The token names the
invitation and its key, so it works for that invitation only and only while it waits for an answer.

Opening the join link signs the browser in for that seat only (a grant in the session, like a turn link's
seat grant in games/incoming/sessions.py): it may accept or decline that invitation, nothing else of the invitee's.
The grant is bound to the player's session epoch ("sign out everywhere" ends it) and lasts until the
table's start time.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from games.incoming.middleware import SESSION_TIME_ZONE
from games.lobby.models import Invitation, Table
from games.models import Player, unique_row
from games.outgoing import signed

SALT = "pbem.lobby-invitation"
SESSION_INVITATIONS = "pbem_lobby"
# Longer than any table waits (a start time is at most 30 days ahead, games/lobby/forms.py).
TOKEN_DAYS = 45
MAX_GRANTS = 30


class LinkError(Exception):
    """A join or decline link that is forged, expired, or no longer waiting. The message is for its reader."""


def token(invitation: Invitation) -> str:
    return signed.dumps({"i": invitation.pk, "k": invitation.key}, salt=SALT)


def join_url(invitation: Invitation) -> str:
    return settings.SITE_URL + reverse("lobby-join-link", args=[token(invitation)])


def decline_url(invitation: Invitation) -> str:
    return settings.SITE_URL + reverse("lobby-decline", args=[token(invitation)])


def read(value: str) -> Invitation:
    """The invitation a link is for, whatever its answer so far (the caller says what it can still do)."""
    try:
        payload = signed.loads(value, salt=SALT, max_age=timedelta(days=TOKEN_DAYS))
        invitation_id, key = int(payload["i"]), str(payload["k"])
    except signing.SignatureExpired:
        raise LinkError(_("This invitation link has expired.")) from None
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkError(_("This invitation link is not valid. Please use the link in your invitation email.")) from None
    invitation = unique_row(Invitation.objects.select_related("table", "player", "inviter").filter(pk=invitation_id))
    if invitation is None or invitation.key != key:
        raise LinkError(_("This invitation no longer exists."))
    return invitation


def grant(request: HttpRequest, invitation: Invitation) -> None:
    """The join link was opened: this browser may answer that invitation (not act for the invitee otherwise)."""
    player = invitation.player
    entries = [e for e in request.session.get(SESSION_INVITATIONS, []) if e["i"] != invitation.pk]
    present = {e["p"] for e in entries} | {
        e["p"] for key in ("pbem_seats", "pbem_members") for e in request.session.get(key, [])
    }
    account = request.session.get("pbem_account")
    if player is None or player.pk not in present and (not account or account["p"] != player.pk):
        request.session.cycle_key()  # this browser now speaks for someone new: a new session key (no fixation)
    until = min(invitation.table.start_by.timestamp(), time.time() + settings.SESSION_COOKIE_AGE)
    # An address that is nobody's yet has no epoch: the grant holds the invitation's key only.
    entry = {"i": invitation.pk, "k": invitation.key, "p": player.pk if player else None, "x": until}
    entry["v"] = player.session_epoch if player else None
    request.session[SESSION_INVITATIONS] = [entry, *entries][:MAX_GRANTS]
    request.session.setdefault(SESSION_TIME_ZONE, player.time_zone if player else invitation.table.time_zone)


def granted(request: HttpRequest, table: Table) -> Invitation | None:
    """The pending invitation of `table` this browser may answer through a join link it opened, or None."""
    now = time.time()
    entries: list[dict[str, Any]] = [e for e in request.session.get(SESSION_INVITATIONS, []) if e["x"] > now]
    if not entries:
        return None
    found = Invitation.objects.filter(
        pk__in=[e["i"] for e in entries], table=table, answer=Invitation.Answer.PENDING
    ).select_related("player")
    by_pk = {invitation.pk: invitation for invitation in found}
    for entry in entries:
        invitation = by_pk.get(entry["i"])
        if invitation is not None and invitation.key == entry["k"] and live(entry, invitation.player):
            return invitation
    return None


def live(entry: dict[str, Any], player: Player | None) -> bool:
    """A grant opened for a newcomer stays live; one of a player ends with their sessions (sign out everywhere)."""
    if player is None:
        return entry["p"] is None
    return player.pk == entry["p"] and player.session_epoch == entry["v"]
