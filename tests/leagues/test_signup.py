"""Signing up through a league's invite link: a confirmation email, and nothing stored until the address is
confirmed; bad, forged or expired links change nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail, signing
from django.urls import reverse

from games.leagues import services
from games.leagues.models import League, Membership
from games.models import Player
from tests.support.leagues import make_league
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)


def join_url(league: League, key: str | None = None) -> str:
    return reverse("leagues-join", args=[league.slug, key or league.invite_key])


def sign_up(client, league: League, email: str = "new@example.com", **fields: object) -> str:
    """POST the invite form; returns the confirmation link from the email it sends."""
    data = {"email": email, "name": "Newcomer", "time_zone": "America/New_York", **fields}
    response = client.post(join_url(league), data)
    assert response.status_code == 200, response.content.decode()
    message = mail.outbox[-1]
    assert message.to == [email] and "confirm" in headline(message).lower()
    link = re.search(r"https://pbem\.example(/leagues/confirm/\S+/)", str(message.body))
    assert link is not None, message.body
    return link.group(1)


def test_the_invite_link_emails_a_confirmation_and_stores_nothing_until_it_is_confirmed(client):
    league = make_league(players=0)
    assert client.get(join_url(league)).status_code == 200
    link = sign_up(client, league)
    assert not Player.objects.filter(email="new@example.com").exists()
    assert client.get(link).status_code == 200  # a mail scanner opening the link confirms nothing
    assert not Membership.objects.exists()

    response = client.post(link)
    assert response.status_code == 302 and response["Location"] == reverse("leagues-member", args=[league.slug])
    membership = Membership.objects.select_related("player").get(league=league)
    assert membership.status == Membership.Status.ACTIVE
    assert membership.player.email == "new@example.com" and membership.player.time_zone == "America/New_York"
    assert client.get(reverse("leagues-member", args=[league.slug])).status_code == 200  # signed in


def test_confirming_twice_keeps_one_membership(client):
    league = make_league(players=0)
    link = sign_up(client, league)
    client.post(link)
    client.post(link)
    assert Membership.objects.filter(league=league).count() == 1


def test_a_standby_sign_up_joins_the_standby_list_even_when_sign_ups_are_closed(client):
    league = make_league(players=0)
    services.close_signups(league)
    refused = client.post(join_url(league), {"email": "late@example.com", "time_zone": "UTC"})
    assert refused.status_code == 400 and "closed" in refused.content.decode()
    assert not mail.outbox
    link = sign_up(client, league, email="late@example.com", standby="on")
    client.post(link)
    assert Membership.objects.get(player__email="late@example.com").status == Membership.Status.STANDBY


def test_a_wrong_invite_key_is_refused(client):
    league = make_league(players=0)
    response = client.get(join_url(league, "guessed-key"))
    assert response.status_code == 403 and "not valid" in response.content.decode()
    response = client.post(join_url(league, "guessed-key"), {"email": "x@example.com", "time_zone": "UTC"})
    assert response.status_code == 403
    assert not mail.outbox


def test_a_forged_or_altered_confirmation_link_changes_nothing(client):
    league = make_league(players=0)
    link = sign_up(client, league)
    token = link.rstrip("/").rsplit("/", 1)[1]
    forged = [
        token[:-2] + ("AA" if not token.endswith("AA") else "BB"),  # signature altered
        signing.dumps({"l": league.pk, "e": "evil@example.com", "n": "", "z": "UTC", "s": False}, salt="other"),
        signing.dumps({"l": league.pk, "e": "evil@example.com"}, salt=services.SIGNUP_SALT)[:-1] + "x",
        "not-a-token",
    ]
    for bad in forged:
        response = client.post(reverse("leagues-confirm", args=[bad]))
        assert response.status_code == 400 and "not valid" in response.content.decode()
    assert not Membership.objects.exists() and not Player.objects.filter(email="evil@example.com").exists()


def test_a_confirmation_for_a_deleted_league_or_with_missing_fields_is_refused(client):
    league = make_league(players=0)
    incomplete = signing.dumps({"l": league.pk, "e": "x@example.com"}, salt=services.SIGNUP_SALT)
    gone = signing.dumps(
        {"l": league.pk + 99, "e": "x@example.com", "n": "", "z": "UTC", "s": False}, salt=services.SIGNUP_SALT
    )
    for token in (incomplete, gone):
        response = client.post(reverse("leagues-confirm", args=[token]))
        assert response.status_code == 400 and "not valid" in response.content.decode()
    assert not Membership.objects.exists() and not Player.objects.filter(email="x@example.com").exists()


def test_an_expired_confirmation_link_says_so_and_changes_nothing(client, monkeypatch):
    league = make_league(players=0)
    link = sign_up(client, league)
    monkeypatch.setattr(services, "SIGNUP_MAX_AGE", timedelta(seconds=-1))
    response = client.post(link)
    assert response.status_code == 400 and "expired" in response.content.decode()
    assert not Membership.objects.exists()


def test_sign_ups_closed_between_request_and_confirmation_are_refused(client):
    league = make_league(players=0)
    link = sign_up(client, league)
    services.close_signups(league)
    response = client.post(link)
    assert response.status_code == 400 and "closed" in response.content.decode()
    assert not Membership.objects.exists()


def test_an_address_already_in_the_league_cannot_sign_up_again(client):
    league = make_league(players=1)
    response = client.post(join_url(league), {"email": "P1@example.com", "time_zone": "UTC"})
    assert response.status_code == 400 and "already signed up" in response.content.decode()
    assert not mail.outbox
