"""Languages in a real browser (tests/support/browser.py), at 390 px and 1280 px (issue 40): a stranger whose
browser asks for German reads My games in German and switches it to French with the switcher's button; a player
signs in, chooses Deutsch on My games and presses Save, and their pages, game page included, are then German
whatever their browser asks for. Each page fits its width, every control is a thumb's size, and axe finds no
violation of any impact (its `html-has-lang` and `valid-lang` rules read `<html lang>`). Skips without Chromium
unless PBEM_REQUIRE_SERVICES=1. Every page (each game's at its start, after a resolution and at its end, earlier
turns, guides, My games, the lobby, a vote with table talk, a league, the organisers' admin) and every email kind,
walked in German and in French for any English sentence of the catalogues: tests/test_pseudo_locale.py."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from games.models import Player
from tests.support.browser import DESKTOP, EVERY_IMPACT, PHONE, WIDTH_NAMES, Findings, check, link_in, new_context

pytestmark = pytest.mark.django_db(transaction=True)


def lang(page: Any) -> str:
    return str(page.locator("html").get_attribute("lang"))


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
def test_a_stranger_reads_the_browsers_language_and_switches_it(chromium, live_server, width):
    findings = Findings()
    context = new_context(chromium, width, locale="de-DE")
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("games-mine"))
        assert lang(page) == "de"
        assert page.get_by_role("heading", name="Anmelden oder Konto anlegen").is_visible()
        check(page, "My games in German", findings, impacts=EVERY_IMPACT)
        page.get_by_role("button", name="Français").click()
        page.wait_for_url(f"**{reverse('games-mine')}")
        assert lang(page) == "fr"
        assert page.get_by_role("heading", name="Se connecter ou créer un compte").is_visible()
        assert page.get_by_role("button", name="Français").get_attribute("aria-pressed") == "true"
        check(page, "My games in French", findings, impacts=EVERY_IMPACT)
        page.goto(live_server.url + reverse("games-home"))
        assert lang(page) == "fr"  # the choice holds on every page, over the browser's German
    finally:
        context.close()
    findings.assert_none()


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
def test_a_player_chooses_german_on_my_games(chromium, live_server, make_game, width):
    game = make_game(humans=3)
    findings = Findings()
    context = new_context(chromium, width, locale="en-GB")
    page = context.new_page()
    server = live_server.url
    try:
        page.goto(server + reverse("games-mine"))
        page.get_by_label("Your address").fill("player1@example.com")
        page.get_by_role("button", name="Email me a sign-in link").click()
        page.goto(server + link_in("player1@example.com", r"/me/sign-in/\S+"))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"**{reverse('games-mine')}")
        assert Player.objects.get(email="player1@example.com").language == "en"  # the browser's, at first
        settings = page.locator("form", has=page.get_by_role("radio", name="Deutsch"))
        settings.get_by_role("radio", name="Deutsch").check()
        settings.get_by_role("button", name="Save").click()
        page.wait_for_url(f"**{reverse('games-mine')}")
        assert lang(page) == "de" and page.get_by_text("Einstellungen gespeichert.").is_visible()
        assert page.get_by_role("radio", name="Deutsch").is_checked()
        check(page, "My games, signed in, in German", findings, impacts=EVERY_IMPACT)
        assert Player.objects.get(email="player1@example.com").language == "de"
        page.goto(server + reverse("games-game", args=[game.pk]))
        assert lang(page) == "de"
        assert page.get_by_role("button", name="Français").count() == 0  # signed in: My games chooses
    finally:
        context.close()
    findings.assert_none()
