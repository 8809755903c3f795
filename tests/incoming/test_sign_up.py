"""Strangers sign up (issue 38): My games' form answers every address the same way; an address that is nobody's
gets a link that makes its account when its button is pressed, and no account exists before; the links are
limited per address and per client address; two presses at once make one account; the lobby says how."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.incoming import sessions
from games.lobby.models import TableSeat
from games.models import Player
from games.play import turns
from tests.support.browser import EVERY_IMPACT, PHONE, Findings, check, new_context
from tests.support.lobby import creator, propose
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)

STRANGER = "newcomer@example.com"


@pytest.fixture(autouse=True)
def fresh_limits(settings):
    """The limits' counts live in the database's cache table, which outlives a test: each test starts at 0."""
    cache.clear()
    settings.PBEM_SIGN_UPS_PER_ADDRESS = 2
    settings.PBEM_SIGN_UPS_PER_CLIENT = 4


def ask(address: str, client_address: str = "192.0.2.1") -> tuple[int, tuple[str, ...]]:
    """A fresh browser asks My games for a link: what the page answers."""
    page = Client(REMOTE_ADDR=client_address).post(reverse("games-mine"), {"email": address}, follow=True)
    return page.status_code, tuple(str(m) for m in page.context["messages"])


def sign_up_links(address: str) -> list[str]:
    found = [
        re.search(r"https://pbem\.example(/me/sign-up/\S+/)", str(m.body)) for m in mail.outbox if m.to == [address]
    ]
    return [match.group(1) for match in found if match]


def test_any_address_gets_the_same_answer_and_a_stranger_a_link_that_makes_the_account_once(client):
    turns.player_for("ann@example.com", "Ann")
    answers = {ask(address) for address in ("ann@example.com", STRANGER, "NEWCOMER@example.com ")}
    assert len(answers) == 1  # the page does not tell who plays here
    assert [m.tags for m in mail.outbox] == [["sign-in"], ["sign-up"], ["sign-up"]]
    assert not Player.objects.filter(email=STRANGER).exists()  # nothing stored for the stranger yet
    link = sign_up_links(STRANGER)[-1]
    shown = client.get(link)  # a mail scanner following it makes nothing
    assert shown.status_code == 200 and STRANGER in shown.content.decode()
    assert not Player.objects.filter(email=STRANGER).exists()
    made = client.post(link, {"name": "Nova"}, follow=True)
    player = Player.objects.get(email=STRANGER)
    assert player.name == "Nova" and made.context["player"] == player  # signed in, on My games
    assert "Welcome: your account is made" in made.content.decode()
    assert client.session[sessions.SESSION_ACCOUNT]["p"] == player.pk
    for used in (link, sign_up_links(STRANGER)[0]):  # both links of the address are spent now
        again = Client().post(used, {"name": "Thief"})
        assert again.status_code == 403 and "used already" in again.content.decode()
    assert Player.objects.get(email=STRANGER).name == "Nova"


def test_a_forged_or_expired_sign_up_link_makes_nothing():
    ask(STRANGER)
    link = sign_up_links(STRANGER)[0]
    assert Client().post(link[:-4] + "xx/").status_code == 403
    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        expired = Client().post(link)
    assert expired.status_code == 403 and "expired" in expired.content.decode()
    assert not Player.objects.filter(email=STRANGER).exists()


def test_sign_up_links_are_limited_per_address_and_per_client_address():
    for _ in range(5):
        ask(STRANGER)
    assert len(sign_up_links(STRANGER)) == 2  # per address
    for i in range(5):
        ask(f"s{i}@example.com", client_address="198.51.100.7")
    sent = [m.to[0] for m in mail.outbox if m.to[0].startswith("s") and m.to[0][1].isdigit()]
    assert sent == ["s0@example.com", "s1@example.com", "s2@example.com", "s3@example.com"]  # per client
    ask("s4@example.com", client_address="203.0.113.9")  # another client is not held up
    assert mail.outbox[-1].to == ["s4@example.com"]
    assert not Player.objects.filter(email__startswith="s").exists()


def test_two_presses_of_the_link_at_once_make_one_account():
    ask(STRANGER)
    link = sign_up_links(STRANGER)[0]
    answers = run_together(*(lambda: Client().post(link, {"name": "Nova"}).status_code for _ in range(2)))
    assert sorted(answers) == [302, 403], answers
    assert Player.objects.filter(email=STRANGER).count() == 1


def test_the_lobby_tells_a_stranger_how_to_join(client):
    table = propose(creator(), [])
    for path in (reverse("lobby-open"), reverse("lobby-table", args=[table.key])):
        page = client.get(path).content.decode()
        assert "if you have no account yet, makes one" in page or "no account yet? the link we email makes one" in page


def test_a_stranger_signs_up_from_a_fresh_page_and_takes_an_open_seat(chromium, live_server):
    table = propose(creator(), [], size=3)
    findings = Findings()
    context = new_context(chromium, PHONE)
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("lobby-table", args=[table.key]))
        check(page, "an open table, signed out", findings, impacts=EVERY_IMPACT)
        page.get_by_role("link", name="My games").last.click()
        page.wait_for_load_state()
        page.get_by_label("Your address").fill(STRANGER)
        page.get_by_role("button", name="Email me a sign-in link").click()
        page.wait_for_load_state()
        check(page, "My games, link asked for", findings, impacts=EVERY_IMPACT)
        page.goto(live_server.url + sign_up_links(STRANGER)[0])
        check(page, "the sign-up link's page", findings, impacts=EVERY_IMPACT)
        page.get_by_label("Your name (optional)").fill("Nova")
        page.get_by_role("button", name="Make my account").click()
        page.wait_for_load_state()
        assert "Welcome: your account is made" in page.inner_text("main")
        check(page, "My games, just signed up", findings, impacts=EVERY_IMPACT)
        page.goto(live_server.url + reverse("lobby-table", args=[table.key]))
        page.get_by_role("button", name="Take an open seat").click()
        page.wait_for_load_state()
        check(page, "the table, seated", findings, impacts=EVERY_IMPACT)
    finally:
        context.close()
    findings.assert_none()
    assert TableSeat.objects.filter(table=table, player__email=STRANGER).exists()
