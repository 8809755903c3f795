"""A player adds a webhook the way they would, in Chromium at 390 px from a fresh page: My games, a sign-in link
by email, the Webhooks card; a refused address first (its message, nothing stored), then a signed JSON hook
whose secret the page shows once; a test notice through the outbox to a real receiver, which checks the
signature with that secret; then the hook deleted. Every page fits the phone and passes axe (any impact)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from games.hooks.models import Hook
from tests.support import hooks_receiver
from tests.support.browser import EVERY_IMPACT, PHONE, Findings, check, link_in, new_context, picture, watch_console
from tests.support.hooks_receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings: Any, tmp_path: Path) -> Iterator[Receiver]:
    for found, ca_file in hooks_receiver.serve(tmp_path):
        hooks_receiver.point_hooks_at(settings, ca_file)
        yield found


def test_a_player_adds_tests_and_deletes_a_signed_webhook_on_a_phone(chromium, live_server, make_game, receiver):
    game = make_game(humans=3)
    email = game.seats.select_related("player").get(number=0).player.email
    findings, looking_at = Findings(), [""]
    context = new_context(chromium, PHONE)
    page = context.new_page()
    watch_console(page, looking_at, findings)
    server = live_server.url

    def look(what: str) -> None:
        looking_at[0] = f"{what} at {PHONE} px"
        check(page, what, findings, impacts=EVERY_IMPACT)
        picture(page, "hooks", PHONE, what.replace(" ", "-"))

    try:
        page.goto(server + reverse("games-mine"))
        page.get_by_label("Your address").fill(email)
        page.get_by_role("button", name="Email me a sign-in link").click()
        page.goto(server + link_in(email, r"/me/sign-in/\S+"))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"**{reverse('games-mine')}")
        card = page.locator("#webhooks")
        assert card.get_by_role("heading", name="Webhooks").is_visible()
        look("my games with the webhooks card")
        # A private address: refused with its reason, nothing stored.
        hooks_receiver.ANSWERS["chat.example.com"] = ["10.0.0.9"]
        card.get_by_label("Name (for you)").fill("Phone alerts")
        card.get_by_label("JSON, signed").check()
        card.get_by_label("Webhook address").fill("https://chat.example.com/hook")
        card.get_by_label("my turn").check()
        card.get_by_label("a reminder").uncheck()
        card.get_by_role("button", name="Add webhook").click()
        page.wait_for_load_state()
        assert "private network" in page.locator(".error-summary").inner_text()
        assert not Hook.objects.exists()
        look("a refused webhook address")
        # The same form, corrected (the page kept what was typed but the address).
        form = page.locator("#webhooks")
        form.get_by_label("Webhook address").fill(receiver.url("/pbem"))
        form.get_by_label("results").check()
        form.get_by_label("a table-talk message").check()
        form.get_by_role("button", name="Add webhook").click()
        page.wait_for_url(f"**{reverse('games-mine')}*")
        secret = page.locator("#new-secret code").inner_text()
        assert secret.startswith("whsec_")
        look("a new webhook with its secret")
        hook = Hook.objects.get()
        assert (hook.name, hook.kind, sorted(hook.notices)) == ("Phone alerts", "json", ["result", "talk", "turn"])
        page.reload()
        assert page.locator("#new-secret").count() == 0 and secret not in page.content()
        # A test notice: the receiver gets it, signed with the secret the page showed.
        page.locator("#webhooks").get_by_role("button", name="Send a test").click()
        page.wait_for_load_state()
        assert "A test notice is on its way to Phone alerts" in page.content()
        (item,) = receiver.received
        key = base64.b64decode(secret.removeprefix("whsec_"))
        signed = f"{item.headers['webhook-id']}.{item.headers['webhook-timestamp']}.".encode() + item.body
        assert (
            item.headers["webhook-signature"]
            == "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        )
        look("my games after a test notice")
        page.locator("#webhooks").get_by_role("button", name="Delete Phone alerts").click()
        page.wait_for_load_state()
        assert not Hook.objects.exists() and "Webhook Phone alerts deleted." in page.content()
    finally:
        context.close()
    findings.assert_none()
