"""Issue 15 in a real browser: for each game, a player at a table with bots opens the link in their turn
email, plays two turns through the page's order builders and choices (confirming the read-back where
the turn is theirs alone) at 390 px and at 1280 px, and every page on the way (the game page, the
review page) has no horizontal scroll and no serious or critical axe-core violation; the turn email,
rendered in the same browser, has no horizontal scroll either.

Skips without Chromium at /usr/bin/chromium, unless PBEM_REQUIRE_SERVICES=1 (CI). With PBEM_SCREENSHOTS
set to a folder (`make screenshots`), it also writes a picture of each game's page and turn email at both
widths there."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.core import mail

from games import engines
from games.models import Game, Order
from tests.support.browser import (  # noqa: F401
    CHROMIUM,
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    WIDTH_NAMES,
    Findings,
    UnfitEmail,
    check,
    new_context,
    picture,
    started_chromium,
    watch_console,
)
from tests.support.browser_player import play_turn
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

TURNS = 2
HUMAN = "player1@example.com"


def turn_email(game: Game) -> Any:
    """The newest email to the player that carries a link to their seat."""
    mine = [m for m in mail.outbox if m.to == [HUMAN] and "/l/" in str(m.body)]
    assert mine, f"no turn email to {HUMAN} (game {game.pk}: {[m.subject for m in mail.outbox]})"
    return mine[-1]


def email_link(message: Any) -> str:
    """The seat link's path (the email names the configured SITE_URL, not the live server)."""
    found = re.search(r"https://pbem\.example(/l/[^\s\"<]+)", str(message.body))
    assert found, message.body
    return found.group(1)


def html_of(message: Any) -> str:
    return next(content for content, kind in message.alternatives if kind == "text/html")


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
@pytest.mark.parametrize("slug", [engine.slug for engine in engines.all_engines()])
def test_a_player_plays_two_turns_from_the_email_link(chromium, live_server, make_game, slug, width):
    engine = engines.get_engine(slug)
    game = make_game(humans=1, bots=engine.min_players - 1, engine=slug)
    findings, email_findings = Findings(), Findings()
    looking_at = [""]
    context = new_context(chromium, width)
    context.set_default_timeout(15_000)
    page = context.new_page()
    watch_console(page, looking_at, findings)

    def look(what: str, sent: bool = True) -> None:
        looking_at[0] = f"{slug}: {what}"
        check(page, looking_at[0], findings, sent=sent)

    def filled_in(turn: int) -> None:
        look(f"the order form of turn {turn}, filled in", sent=False)
        if turn == TURNS:
            picture(page, slug, width, "page")
            if SCREENSHOTS and width == PHONE:  # the board alone, as a phone shows it (the README's pictures)
                page.locator(".board").screenshot(path=str(Path(SCREENSHOTS) / f"{slug}-phone-board.png"))

    emails: list[Any] = []
    try:
        for turn in range(1, TURNS + 1):
            message = turn_email(game)
            assert all(message is not earlier for earlier in emails), f"turn {turn}: no new turn email"
            emails.append(message)
            email_page = context.new_page()
            email_page.set_content(html_of(message))
            check(email_page, f"{slug}: turn {turn} email", email_findings, accessibility=False)
            if turn == TURNS:
                picture(email_page, slug, width, "email")
            email_page.close()

            page.goto(live_server.url + email_link(message))
            look(f"turn {turn} game page ({open_phase(game).name})")
            play_turn(page, look, partial(filled_in, turn))
            look(f"the game page after turn {turn}")
    finally:
        context.close()

    played = Order.objects.filter(seat__game=game, seat__number=0, is_default=False).count()
    assert played == TURNS, f"{played} orders stored through the page, {TURNS} expected"
    findings.assert_none()
    email_findings.assert_none(UnfitEmail)


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
def test_the_checks_see_a_page_that_scrolls_sideways_and_text_too_faint_to_read(chromium, width):
    """The checks above can fail: a fixed 1400 px table and grey-on-white text are found, a page that fits
    and reads well is not."""
    context = new_context(chromium, width)
    page = context.new_page()
    head = '<!doctype html><html lang="en"><head><title>t</title></head><body style="margin:0"><main>'
    try:
        unfit, fit = Findings(), Findings()
        page.set_content(
            head + '<table style="width:1400px"><tr><td>wide</td></tr></table>'
            '<p style="color:#ccc;background:#fff">faint</p></main></body></html>'
        )
        check(page, "unfit", unfit)
        page.set_content(head + '<p style="color:#222;background:#fff">plain</p></main></body></html>')
        check(page, "fit", fit)
    finally:
        context.close()
    assert unfit.problems[0] == f"unfit at {width} px: {1400 - width} px wider than the window (scrolls sideways)"
    assert [p.split(" — ")[0] for p in unfit.problems[1:]] == [
        f"unfit at {width} px: axe color-contrast (serious, 1×): Elements must meet minimum color contrast ratio "
        "thresholds"
    ]
    assert fit.problems == []
