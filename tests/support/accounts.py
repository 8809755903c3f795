"""Signing in as a player: by an emailed sign-in link, or by a seat's signed link."""

from __future__ import annotations

import re
from typing import Any

from django.core import mail
from django.urls import reverse

from games.outgoing.links import make_token
from tests.support.phases import open_phase


def emailed_sign_in_link(client: Any, address: str = "player1@example.com") -> str:
    """Ask My games to email a sign-in link to `address`; the link's path."""
    before = len(mail.outbox)
    client.post(reverse("games-mine"), {"email": address})
    assert len(mail.outbox) == before + 1, "no sign-in email"
    found = re.search(r"https://pbem\.example(/me/sign-in/\S+/)", str(mail.outbox[-1].body))
    assert found is not None, mail.outbox[-1].body
    return found.group(1)


def sign_in_by_email(client: Any, address: str = "player1@example.com") -> Any:
    """Sign `client` in to the account of `address` the way a player does: by the emailed link."""
    assert client.post(emailed_sign_in_link(client, address)).status_code == 302
    return client


def signed_in(client, game, seat_number: int):
    response = client.get(link(game, seat_number))
    assert response.status_code == 302
    return client


def link(game, seat_number: int) -> str:
    seat = game.seats.get(number=seat_number)
    return reverse("games-link", args=[make_token(seat, open_phase(game))])
