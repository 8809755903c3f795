"""Signed links: per seat and per phase, valid until the phase's deadline (plus a grace period); the
short-lived sign-in link that /me/ emails to a player's own address; and the unsubscribe link and address
that news emails carry.

A seat link's payload carries the seat's link key, so replacing a seat's player (which changes the key)
makes every link sent before stop working. Expiry is checked against the phase's *current* deadline, so an
organiser extending a deadline extends the links too. A seat link opens that seat only (games/incoming/sessions.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _

from games.models import Game, Phase, Player, Seat, unique_row
from games.outgoing import signed

SALT = "pbem.seat-link"
SIGN_IN_SALT = "pbem.sign-in"
SIGN_IN_MINUTES = 30  # long enough to open the email, short enough that a forwarded one is soon dead


class LinkError(Exception):
    """A link that is forged, for a seat that changed hands, or expired. The message is for the player."""


@dataclass(frozen=True)
class LinkTarget:
    seat: Seat
    phase: Phase
    expires_at: datetime  # what a session opened by this link may last (games/incoming/sessions.py)


def make_token(seat: Seat, phase: Phase) -> str:
    payload = {"g": seat.game_id, "s": seat.number, "p": phase.number, "k": seat.link_key}
    return signed.dumps(payload, salt=SALT, compress=True)


def seat_url(seat: Seat, phase: Phase) -> str:
    return settings.SITE_URL + reverse("games-link", args=[make_token(seat, phase)])


def link_expiry(phase: Phase, game: Game, now: datetime) -> datetime:
    """When the links of `phase` stop working: its deadline plus the grace, whether the phase is open or
    resolved. A paused game's open phase is not running down its deadline (resuming gives the paused time
    back), so its links keep working through the pause: for them the grace counts from now."""
    grace = timedelta(hours=settings.PBEM_LINK_GRACE_HOURS)
    if phase.status == Phase.Status.OPEN and game.status == Game.Status.PAUSED:
        return max(phase.deadline, now) + grace
    return phase.deadline + grace


def read_token(token: str) -> LinkTarget:
    try:
        payload = signed.loads(token, salt=SALT)
        game_id, seat_number, phase_number, key = payload["g"], payload["s"], payload["p"], payload["k"]
    except (signing.BadSignature, KeyError, TypeError):
        raise LinkError(_("This link is not valid. Please use the latest link from your email.")) from None
    seat = unique_row(Seat.objects.select_related("game", "player").filter(game_id=game_id, number=seat_number))
    phase = unique_row(Phase.objects.filter(game_id=game_id, number=phase_number))
    if seat is None or phase is None or seat.link_key != key:
        raise LinkError(_("This link no longer works: the seat has changed hands or the game is gone."))
    now = timezone.now()
    expires_at = link_expiry(phase, seat.game, now)
    if now > expires_at:
        raise LinkError(
            _(
                "This link has expired: links work until %(hours)s hours after their turn's deadline. Your latest "
                "turn email has a fresh one, or My games can email you a sign-in link."
            )
            % {"hours": settings.PBEM_LINK_GRACE_HOURS}
        )
    return LinkTarget(seat=seat, phase=phase, expires_at=expires_at)


# --- Sign-in links: all of a player's games, from an email to their own address ------------------------


@dataclass(frozen=True)
class SignIn:
    player_id: int
    sent_at: datetime  # the player's sign_in_sent_at when the link was made: using it clears that field
    epoch: int


def sign_in_url(player: Player) -> str:
    assert player.sign_in_sent_at is not None, "the throttle stamps the player before a link is made"
    payload = {"p": player.pk, "t": player.sign_in_sent_at.isoformat(), "v": player.session_epoch}
    return settings.SITE_URL + reverse("games-sign-in", args=[signed.dumps(payload, salt=SIGN_IN_SALT)])


def read_sign_in_token(token: str) -> SignIn:
    try:
        payload = signed.loads(token, salt=SIGN_IN_SALT, max_age=timedelta(minutes=SIGN_IN_MINUTES))
        return SignIn(player_id=int(payload["p"]), sent_at=datetime.fromisoformat(payload["t"]), epoch=payload["v"])
    except signing.SignatureExpired:
        raise LinkError(
            _("This sign-in link has expired (they work for %(minutes)s minutes). Ask My games for a new one.")
            % {"minutes": SIGN_IN_MINUTES}
        ) from None
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkError(_("This sign-in link is not valid. Please use the latest one from your email.")) from None


# --- Sign-up links: an address that is nobody's yet, from the same form -----------------------------------

SIGN_UP_SALT = "pbem.sign-up"


def sign_up_url(address: str) -> str:
    """A link that makes an account for `address` when used: nothing is stored before (games/incoming/signup.py)."""
    return settings.SITE_URL + reverse("games-sign-up", args=[signed.dumps({"e": address}, salt=SIGN_UP_SALT)])


def read_sign_up_token(token: str) -> str:
    """The address a sign-up link is for, if it is genuine and fresh."""
    try:
        payload = signed.loads(token, salt=SIGN_UP_SALT, max_age=timedelta(minutes=SIGN_IN_MINUTES))
        return str(payload["e"])
    except signing.SignatureExpired:
        raise LinkError(
            _("This link has expired (it works for %(minutes)s minutes). Ask My games for a new one.")
            % {"minutes": SIGN_IN_MINUTES}
        ) from None
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkError(_("This link is not valid. Please use the latest one from your email.")) from None


# --- Unsubscribe links: one click for the least mail (games/outgoing/mailpolicy.py) ------------------------------

UNSUBSCRIBE_SALT = "pbem.unsubscribe"
UNSUBSCRIBE_LOCAL = re.compile(r"\+u([0-9]{1,18})-([0-9a-f]{16})$")


def unsubscribe_token(player: Player) -> str:
    """Signed, with no expiry: an unsubscribe link must keep working in old mail (RFC 8058), and all it can
    do is lower the player's mail to what still lets them play."""
    return signed.dumps(player.pk, salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(player: Player) -> str:
    return settings.SITE_URL + reverse("games-unsubscribe", args=[unsubscribe_token(player)])


def read_unsubscribe_token(token: str) -> Player:
    try:
        player_id = int(signed.loads(token, salt=UNSUBSCRIBE_SALT))
    except (signing.BadSignature, TypeError, ValueError):
        raise LinkError(_("This unsubscribe link is not valid. Please use the one from your latest email.")) from None
    player = unique_row(Player.objects.filter(pk=player_id))
    if player is None:
        raise LinkError(_("This unsubscribe link no longer works: its player is gone."))
    return player


def _mailto_signature(player_id: int) -> str:
    return salted_hmac(UNSUBSCRIBE_SALT, str(player_id)).hexdigest()[:16]


def unsubscribe_mailto(player: Player) -> str:
    """The address a mail client writes to when its reader unsubscribes (PBEM_REPLY_ADDRESS must be set):
    turns+u<player id>-<signature>@ the reply domain, read back by `mailto_player`."""
    local, _, domain = settings.PBEM_REPLY_ADDRESS.partition("@")
    return f"{local}+u{player.pk}-{_mailto_signature(player.pk)}@{domain}"


def mailto_player(recipients: list[str]) -> Player | None:
    """The player whose unsubscribe address is one of `recipients` (at the reply domain, in any case; the
    local part as generated or lowercased, as for reply addresses), or None."""
    reply_domain = settings.PBEM_REPLY_ADDRESS.rpartition("@")[2].lower()
    for address in recipients:
        local, _, domain = address.rpartition("@")
        match = UNSUBSCRIBE_LOCAL.search(local)
        if not reply_domain or domain.lower() != reply_domain or match is None:
            continue
        if constant_time_compare(match.group(2), _mailto_signature(int(match.group(1)))):
            return unique_row(Player.objects.filter(pk=match.group(1)))
    return None
