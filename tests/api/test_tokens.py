"""API tokens on My games, the way a player makes and revokes them: in a real browser at 390 px from a fresh page
(signed in by the emailed link), the token shown once and stored as a digest, its last use shown, revoked from
the same card; a browser holding only a seat link has no such card and cannot make one."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from games.api.models import Token
from tests.support.accounts import sign_in_by_email, signed_in
from tests.support.api import Api
from tests.support.browser import PHONE, Findings, check, new_context, watch_console

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_makes_uses_and_revokes_a_token_on_a_phone(chromium: Any, live_server: Any, make_game: Any) -> None:
    game = make_game(humans=3)
    findings, looking_at = Findings(), [""]
    context = new_context(chromium, PHONE)
    page = context.new_page()
    watch_console(page, looking_at, findings)
    try:
        page.goto(live_server.url + reverse("games-mine"))
        page.get_by_label("Your address").fill("player1@example.com")
        page.get_by_role("button", name="Email me a sign-in link").click()
        link = re.search(r"https://pbem\.example(/me/sign-in/\S+/)", str(mail.outbox[-1].body))
        assert link is not None
        page.goto(live_server.url + link.group(1))
        page.get_by_role("button", name="Sign in").click()
        looking_at[0] = "My games with the tokens card"
        check(page, looking_at[0], findings)
        assert "You have no token." in page.content()
        page.get_by_label("Token name").fill("my phone")
        page.get_by_label("play (orders and table talk)").check()
        page.get_by_role("button", name="Make the token").click()
        looking_at[0] = "the new token"
        check(page, looking_at[0], findings)
        secret = page.get_by_label("Token").input_value()
        assert secret.startswith("pbem_") and not Token.objects.filter(digest=secret).exists()
        api = Api(secret)
        assert api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}}).status_code == 200
        page.get_by_role("link", name="Back to My games").click()
        card = page.locator("#api-tokens").inner_text()
        assert "my phone" in card and "never" not in card and secret not in page.content(), "shown once only"
        page.get_by_role("button", name="Revoke my phone").click()
        assert "The token is revoked" in page.content() and "You have no token." in page.content()
        assert api.get("/me").status_code == 401
    finally:
        context.close()
    findings.assert_none()


def test_a_seat_link_alone_makes_no_token(make_game: Any) -> None:
    game = make_game(humans=3)
    browser = signed_in(Client(), game, 0)
    assert b"API tokens" not in browser.get(reverse("games-mine")).content
    refused = browser.post(reverse("api-token-create"), {"token-name": "sneaky", "token-scope": "play"}, follow=True)
    assert b"Only a signed-in player can manage API tokens" in refused.content
    assert not Token.objects.exists()


def test_a_token_needs_a_name_and_a_known_scope(client: Client, make_game: Any) -> None:
    make_game(humans=3)
    sign_in_by_email(client)
    blank = client.post(reverse("api-token-create"), {"token-name": "  ", "token-scope": "play"}, follow=True)
    assert b"No token was made" in blank.content
    odd = client.post(reverse("api-token-create"), {"token-name": "x", "token-scope": "admin"}, follow=True)
    assert b"No token was made" in odd.content and not Token.objects.exists()
    made = client.post(reverse("api-token-create"), {"token-name": "bot", "token-scope": "read"})
    assert made.status_code == 200 and "no-store" in made["Cache-Control"] and Token.objects.count() == 1
    other = Token.objects.get()
    assert client.post(reverse("api-token-revoke", args=[other.pk + 99]), follow=True).status_code == 200
    assert Token.objects.get().revoked_at is None
