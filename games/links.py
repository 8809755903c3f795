"""Signed links: per seat and per phase, valid until the phase's deadline (plus a grace period).

The payload carries the seat's link key, so replacing a seat's player (which changes the key) makes every
link sent before stop working. Expiry is checked against the phase's *current* deadline, so an organiser
extending a deadline extends the links too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from games.models import Phase, Seat, unique_row

SALT = "pbem.seat-link"


class LinkError(Exception):
    """A link that is forged, for a seat that changed hands, or expired. The message is for the player."""


@dataclass(frozen=True)
class LinkTarget:
    seat: Seat
    phase: Phase


def make_token(seat: Seat, phase: Phase) -> str:
    payload = {"g": seat.game_id, "s": seat.number, "p": phase.number, "k": seat.link_key}
    return signing.dumps(payload, salt=SALT, compress=True)


def seat_url(seat: Seat, phase: Phase) -> str:
    return settings.SITE_URL + reverse("games-link", args=[make_token(seat, phase)])


def read_token(token: str) -> LinkTarget:
    try:
        payload = signing.loads(token, salt=SALT)
        game_id, seat_number, phase_number, key = payload["g"], payload["s"], payload["p"], payload["k"]
    except (signing.BadSignature, KeyError, TypeError):
        raise LinkError("This link is not valid. Please use the latest link from your email.") from None
    seat = unique_row(Seat.objects.select_related("game", "player").filter(game_id=game_id, number=seat_number))
    phase = unique_row(Phase.objects.filter(game_id=game_id, number=phase_number))
    if seat is None or phase is None or seat.link_key != key:
        raise LinkError("This link no longer works: the seat has changed hands or the game is gone.")
    grace = timedelta(hours=settings.PBEM_LINK_GRACE_HOURS)
    if phase.status == Phase.Status.RESOLVED and timezone.now() > phase.deadline + grace:
        raise LinkError("This link has expired. Your latest turn email has a fresh one.")
    return LinkTarget(seat=seat, phase=phase)
