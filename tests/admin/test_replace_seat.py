"""Replacing a seat's player names whom it replaces (issue 38 item 2): the seat's page carries who held the seat
when it was shown, and saving it gives the seat away only if they still hold it. Two organisers replacing one
seat at once (two real requests on PostgreSQL, each on its own connection) give it once; a page shown before
the seat changed hands changes nothing and says so. As the Organiser role, through the admin's seat page."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import OutboundEmail, Seat
from tests.support.leagues import first_game, make_league, organiser_of, started_round
from tests.support.organisers import replace_seat, said, said_on
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def shown_form(client: Client, seat: Seat) -> dict[str, str]:
    """The seat page's hidden fields, as it showed them."""
    page = client.get(reverse("admin:games_seat_change", args=[seat.pk])).content.decode()
    return {k: unescape(v) for k, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


def test_two_organisers_replacing_one_seat_at_once_give_it_once(postgres):
    league = make_league(players=4)
    game = first_game(started_round(league))
    ann, bob = signed_in(organiser_of(league)), signed_in(organiser_of(league, username="second"))
    for attempt in range(3):  # several, so the interleavings vary
        seat = Seat.objects.select_related("player").get(game=game, number=attempt)
        url = reverse("admin:games_seat_change", args=[seat.pk])
        forms = [shown_form(ann, seat), shown_form(bob, seat)]  # both opened the page
        newcomers = [f"ann{attempt}@example.com", f"bob{attempt}@example.com"]
        calls = [
            lambda c=c, f=f, e=e, u=url: c.post(u, {**f, "new_email": e}, follow=True)
            for c, f, e in zip((ann, bob), forms, newcomers, strict=True)
        ]
        pages = run_together(*calls)
        assert all(not isinstance(p, Exception) and p.status_code == 200 for p in pages), pages
        seat.refresh_from_db()
        assert seat.player is not None and seat.player.email in newcomers
        lines = [line for page in pages for line in said_on(page)]
        refused = [line for line in lines if "changed hands after this page was shown" in line]
        assert len(refused) == 1, (attempt, lines)
        assert f"({seat.player.display_name} holds it now)" in refused[0]
        loser = next(email for email in newcomers if email != seat.player.email)
        assert not OutboundEmail.objects.filter(to=loser).exists()  # never sent the seat's turn


def test_a_seat_page_shown_before_the_seat_changed_hands_changes_nothing(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    seat = Seat.objects.get(game=game, number=1)
    stale = shown_form(client, seat)
    assert stale["holder"] == str(seat.player_id)
    assert replace_seat(client, seat, follow=True, new_email="first@example.com").status_code == 200
    page = client.post(
        reverse("admin:games_seat_change", args=[seat.pk]), {**stale, "new_email": "second@example.com"}, follow=True
    )
    seat.refresh_from_db()
    assert said(page) == [
        f"Seat 2 changed hands after this page was shown ({seat.player.display_name} holds it now): nothing was "
        "changed; look at the seat again"
    ]
    assert seat.player is not None and seat.player.email == "first@example.com"
    # A form without the holder it was shown is not saved either.
    missing = {k: v for k, v in stale.items() if k != "holder"}
    page = client.post(
        reverse("admin:games_seat_change", args=[seat.pk]), {**missing, "new_email": "third@example.com"}
    )
    assert page.status_code == 200 and "This field is required" in page.content.decode()
    seat.refresh_from_db()
    assert seat.player.email == "first@example.com"
