"""What keeps the invitation form from being a spam relay, and the lobby's refusal.

- Only a signed-in player (an account session, not a turn link) can create a table or invite (views).
- A player sends at most PBEM_LOBBY_INVITES_PER_DAY invitations in any 24 hours; an address receives at most
  PBEM_LOBBY_INVITES_PER_ADDRESS in any 24 hours, from everyone together (so several accounts cannot flood
  one inbox); a player has at most PBEM_LOBBY_OPEN_TABLES tables waiting at once.
- An address that declined a player's invitation, bounced or complained is not invited by that player
  again; an address that asked for no invitations at all (a checkbox on the decline page) gets none from
  anyone; an address whose mail bounces or was marked as spam (games/incoming/mail/bounces.py) gets none either.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import dateformat
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.lobby.models import Block, Invitation, Table
from games.models import Player
from games.outgoing import messages

DAY = timedelta(hours=24)
# What an invitation quotes of its sender (their name, the table's name) goes to addresses that did not ask for
# it: no web or email address in it, or the form would carry a spammer's link to anyone.
LINK_LIKE = re.compile(r"://|www\.|@|\.(?:[^\W\d_]{2,})(?:/|\b)", re.IGNORECASE)  # any script's letters: .рф
# A domain's dots as IDNA reads them (RFC 3490 3.1: the ideographic, fullwidth and halfwidth full stops separate
# labels too, so `evil。example。com` is a link in a mail client); NFKC folds the other wide forms (＠, ｗｗｗ).
FULL_STOPS = str.maketrans(dict.fromkeys("\u3002\uff0e\uff61", "."))


class LobbyError(ValueError):
    """Something the lobby refused, having changed nothing. The message is for the person who asked."""


class AddressBusy(LobbyError):
    """An address had the most invitations it may get today: try again tomorrow (it is no one's choice)."""


def per_day() -> int:
    return int(getattr(settings, "PBEM_LOBBY_INVITES_PER_DAY", 20))


def per_address() -> int:
    return int(getattr(settings, "PBEM_LOBBY_INVITES_PER_ADDRESS", 3))


def open_tables() -> int:
    return int(getattr(settings, "PBEM_LOBBY_OPEN_TABLES", 5))


def check_inviter_quota(inviter: Player, count: int, now: datetime) -> None:
    """LobbyError unless `inviter` may send `count` more invitations now."""
    sent = list(
        Invitation.objects.filter(inviter=inviter, sent_at__gt=now - DAY)
        .order_by("sent_at")
        .values_list("sent_at", flat=True)
    )
    cap = per_day()
    if len(sent) + count <= cap:
        return
    if count > cap:
        raise LobbyError(
            _("A player may send at most %(cap)s invitations a day: invite fewer addresses.") % {"cap": cap}
        )
    # The moment enough of the last day's invitations have aged out for `count` more.
    free_at = sent[len(sent) + count - cap - 1] + DAY
    local = free_at.astimezone(messages.zone_of(inviter.time_zone))
    raise LobbyError(
        ngettext(
            "You have sent %(sent)d invitations in the last 24 hours, and a player may send %(cap)d a day: "
            "you can send this one from %(when)s (%(zone)s). Nothing was sent.",
            "You have sent %(sent)d invitations in the last 24 hours, and a player may send %(cap)d a day: "
            "you can send these %(count)d from %(when)s (%(zone)s). Nothing was sent.",
            count,
        )
        % {
            "sent": len(sent),
            "cap": cap,
            "count": count,
            "when": dateformat.format(local, "D d M, H:i"),
            "zone": inviter.time_zone,
        }
    )


def check_address(inviter: Player, address: str, now: datetime) -> None:
    """LobbyError unless `inviter` may invite `address` (see the module's docstring)."""
    blocks = Block.objects.filter(Q(inviter=inviter) | Q(inviter__isnull=True), address=address)
    reasons = set(blocks.values_list("reason", flat=True))
    if Block.Reason.NO_INVITATIONS in reasons:
        raise LobbyError(_("%(address)s asked not to be sent invitations. Nothing was sent.") % {"address": address})
    if Block.Reason.DECLINED in reasons:
        raise LobbyError(
            _("%(address)s declined an invitation of yours, so you cannot invite it again. Nothing was sent.")
            % {"address": address}
        )
    if reasons:
        raise LobbyError(
            _("Our invitation to %(address)s bounced or was marked as spam: you cannot invite it again.")
            % {"address": address}
        )
    player = Player.objects.filter(email=address).first()
    if player is not None and player.mail_problem:
        raise LobbyError(
            _("We cannot send email to %(address)s (it bounced, or our mail was marked as spam).")
            % {"address": address}
        )
    received = Invitation.objects.filter(address=address, sent_at__gt=now - DAY).count()
    if received >= per_address():
        raise AddressBusy(
            _(
                "%(address)s has been sent %(received)s invitations in the last 24 hours, the most an address may "
                "get: try again tomorrow. Nothing was sent."
            )
            % {"address": address, "received": received}
        )


def check_quotable(text: str, what: str) -> None:
    """LobbyError if `text` (a name an invitation quotes) holds something like a web or email address."""
    if LINK_LIKE.search(unicodedata.normalize("NFKC", text).translate(FULL_STOPS)):
        raise LobbyError(
            _("%(what)s may not hold a web or email address: invitations quote it. Nothing was sent.") % {"what": what}
        )


def check_open_tables(creator: Player) -> None:
    waiting = Table.objects.filter(creator=creator, status=Table.Status.OPEN).count()
    if waiting >= open_tables():
        raise LobbyError(
            _("You have %(waiting)s tables waiting for players, the most a player may have: start or cancel one first.")
            % {"waiting": waiting}
        )
