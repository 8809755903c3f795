"""The pages a player and a league member use beside the game page, and table talk on it, in a real browser
(tests/support/browser.py), at 390 px and at 1280 px: the home page, My games (before and after a turn link, and
signed in, with the settings), the sign-in page, the one-click unsubscribe page, a league's page, its sign-up
page, a member's league settings, and a message written to the table and read by another player. None may
scroll sideways or have an axe-core violation of any impact (the game pages' flows,
tests/incoming/test_browser_games.py, allow the minor ones). Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from games.leagues import emails as league_emails
from games.leagues.models import Membership
from games.outgoing.links import make_token, unsubscribe_url
from games.talk.models import Report
from tests.support.browser import (
    DESKTOP,
    EVERY_IMPACT,
    PHONE,
    SITE,
    WIDTH_NAMES,
    Findings,
    check,
    link_in,
    new_context,
    picture,
    watch_console,
)
from tests.support.leagues import first_game, make_league, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def look(page: Any, url: str, what: str, looking_at: list[str], findings: Findings) -> None:
    page.goto(url)
    width = page.viewport_size["width"]
    looking_at[0] = f"{what} at {width} px"
    check(page, what, findings, impacts=EVERY_IMPACT)
    picture(page, "pages", width, re.sub(r"[^a-z]+", "-", what.lower()).strip("-"))  # with PBEM_SCREENSHOTS


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
def test_my_games_the_settings_and_the_league_pages_fit_and_pass_axe(chromium, live_server, width):
    league = make_league(players=4, notify=Membership.Notify.OWED)  # what a new player and member start with
    game = first_game(started_round(league))
    seat = game.seats.select_related("player").get(number=0)
    player = seat.player
    assert player is not None
    membership = Membership.objects.get(league=league, player=player)
    findings, looking_at = Findings(), [""]
    context = new_context(chromium, width)
    page = context.new_page()
    watch_console(page, looking_at, findings)
    server = live_server.url
    try:
        look(page, server + reverse("games-home"), "home", looking_at, findings)
        look(page, server + reverse("games-mine"), "My games, not signed in", looking_at, findings)
        page.goto(server + reverse("games-link", args=[make_token(seat, open_phase(game))]))
        look(page, server + reverse("games-mine"), "My games after a turn link", looking_at, findings)
        page.get_by_label("Your address").fill(player.email)
        page.get_by_role("button", name="Email me a sign-in link").click()
        look(page, server + link_in(player.email, r"/me/sign-in/\S+"), "the sign-in page", looking_at, findings)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"**{reverse('games-mine')}")
        look(page, page.url, "My games signed in, with the settings", looking_at, findings)
        assert page.get_by_role("heading", name="Settings").is_visible()  # the sign-in link did sign in
        look(page, unsubscribe_url(player).replace(SITE, server), "the unsubscribe page", looking_at, findings)
        look(page, server + reverse("leagues-league", args=[league.slug]), "the league's page", looking_at, findings)
        join = reverse("leagues-join", args=[league.slug, league.invite_key])
        look(page, server + join, "the league's sign-up page", looking_at, findings)
        page.goto(league_emails.settings_url(membership).replace(SITE, server))
        look(page, page.url, "the member's league settings", looking_at, findings)
    finally:
        context.close()
    findings.assert_none()


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
def test_table_talk_is_written_and_read_on_the_game_page(chromium, live_server, make_game, width):
    """Two players at one table, each in their own browser: the first writes to the table through the page's
    form, the second reads it, with its Report button. Both pages fit and pass axe, and the second player
    reports the message through the page."""
    game = make_game(humans=3)
    findings, looking_at = Findings(), [""]
    pages = []
    for number in (0, 1):
        context = new_context(chromium, width)
        page = context.new_page()
        watch_console(page, looking_at, findings)
        link = reverse("games-link", args=[make_token(game.seats.get(number=number), open_phase(game))])
        page.goto(live_server.url + link)
        pages.append(page)
    writer, reader = pages
    try:
        writer.get_by_label("Message").fill("Shall we both sell spices today?")
        writer.get_by_role("button", name="Send").click()
        looking_at[0] = f"the writer's table talk at {width} px"
        check(writer, "the writer's table talk", findings, impacts=EVERY_IMPACT)
        assert writer.locator("#talk").get_by_text("Shall we both sell spices today?").is_visible()
        reader.reload()
        looking_at[0] = f"the reader's table talk at {width} px"
        check(reader, "the reader's table talk", findings, impacts=EVERY_IMPACT)
        picture(reader, "pages", width, "table-talk")
        assert reader.locator("#talk").get_by_text("Shall we both sell spices today?").is_visible()
        reader.get_by_role("button", name="Report the message of").click()
        assert Report.objects.filter(message__text="Shall we both sell spices today?").count() == 1
    finally:
        for page in pages:
            page.context.close()
    findings.assert_none()


def test_the_development_outbox_opens_an_emails_game_link_in_a_new_tab(
    chromium, live_server, make_game, file_outbox, urls_loaded_with, settings
):
    """The README says the outbox's links work like real ones: the turn email's link, clicked in the frame that
    shows the email, opens the player's game page in a new tab (in the frame, the page would refuse framing)."""
    urls_loaded_with(debug=True)
    settings.SITE_URL = live_server.url
    game = make_game(humans=3)
    context = new_context(chromium, PHONE)
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("games-outbox"))
        page.locator("main a[href*='/outbox/']").first.click()
        with context.expect_page() as opened:
            page.frame_locator("iframe").get_by_role("link", name="Submit your sealed order").click()
        tab = opened.value
        tab.wait_for_load_state()
        assert tab.url.startswith(live_server.url + reverse("games-game", args=[game.pk])), tab.url
        assert tab.get_by_role("heading", level=1).inner_text().endswith(f"#{game.pk}")
    finally:
        context.close()
