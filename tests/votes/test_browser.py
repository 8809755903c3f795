"""Issue 32, item 8 (its third game): a three-player game ends by a draw vote, in a real browser at 390 px. Each
player opens their own page from an email (the turn email, or the vote's email), the first proposes a draw,
the others vote yes, and the draw shows on every page and in every game-over email. Every page on the way has
no horizontal scroll, no control below a thumb's height and no serious or critical axe-core violation; the
vote's and the game-over emails, rendered in the same browser, do not scroll sideways either.

Skips without Chromium at /usr/bin/chromium, unless PBEM_REQUIRE_SERVICES=1 (CI). With PBEM_SCREENSHOTS set to
a folder (`make screenshots`), it writes a picture of each page it checks there."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core import mail

from games.models import Game
from games.votes.models import Proposal
from tests.support.browser import (
    CHROMIUM,
    PHONE,
    Findings,
    UnfitEmail,
    check,
    new_context,
    started_chromium,
    watch_console,
)
from tests.support.services import missing_service

pytestmark = pytest.mark.django_db(transaction=True)
SCREENSHOTS = os.environ.get("PBEM_SCREENSHOTS", "")
PLAYERS = [f"player{n}@example.com" for n in (1, 2, 3)]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        missing_service(f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    with started_chromium() as browser:
        yield browser


def latest_to(address: str, says: str) -> Any:
    found = [m for m in mail.outbox if m.to == [address] and says in str(m.body)]
    assert found, f"no email to {address} saying {says!r}: {[m.subject for m in mail.outbox if m.to == [address]]}"
    return found[-1]


def link_in(message: Any) -> str:
    found = re.search(r"https://pbem\.example(/l/[^\s\"<]+)", str(message.body))
    assert found, message.body
    return found.group(1)


def html_of(message: Any) -> str:
    return next(content for content, kind in message.alternatives if kind == "text/html")


def test_a_three_player_game_ends_by_a_draw_vote_at_390_px(chromium, live_server, make_game):
    game = make_game(humans=3, engine="piraeus")
    findings, email_findings = Findings(), Findings()
    looking_at = [""]
    contexts = [new_context(chromium, PHONE) for _ in PLAYERS]
    pages = []
    for context in contexts:
        context.set_default_timeout(15_000)
        page = context.new_page()
        watch_console(page, looking_at, findings)
        pages.append(page)

    def look(page: Any, what: str) -> None:
        looking_at[0] = what
        check(page, what, findings)
        if SCREENSHOTS:
            Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^a-z0-9]+", "-", what.lower()).strip("-")
            page.screenshot(path=str(Path(SCREENSHOTS) / f"votes-phone-{name}.png"), full_page=True)

    def read_email(message: Any, what: str) -> None:
        email_page = contexts[0].new_page()
        email_page.set_content(html_of(message))
        check(email_page, what, email_findings, accessibility=False)
        email_page.close()

    try:
        # The first player opens their turn email's link, looks at conceding (and keeps their seat), proposes.
        first = pages[0]
        first.goto(live_server.url + link_in(latest_to(PLAYERS[0], "/l/")))
        look(first, "the game page before any vote")
        first.get_by_text("Concede: leave this game").click()
        look(first, "the game page with the concede form open")
        with first.expect_navigation():
            first.get_by_role("button", name="Propose a draw").click()
        assert "You proposed a draw." in first.locator("#votes").inner_text()
        assert "Proposed: every other player is asked to vote" in first.locator(".messages").inner_text()
        look(first, "the proposer's page")

        # Each other player opens the vote's email and votes yes from their own page.
        for n in (1, 2):
            asked = latest_to(PLAYERS[n], "proposes a draw")
            read_email(asked, f"the vote email to player {n + 1}")
            assert "Player 1" not in str(asked.body).replace("Player 1,", "")  # who proposed is secret
            page = pages[n]
            page.goto(live_server.url + link_in(asked))
            panel = page.locator("#votes").inner_text()
            assert "A player proposes a draw." in panel and "You proposed" not in panel
            look(page, f"player {n + 1}'s page with the vote open")
            with page.expect_navigation():
                page.get_by_role("button", name="Vote yes").click()
            look(page, f"player {n + 1}'s page after voting")

        # The last yes ended the game: every page shows the shared win.
        assert "Every player agreed: the game ended in a draw." in pages[2].locator(".messages").inner_text()
        for n, page in enumerate(pages):
            page.reload()
            scores = page.locator(".card", has_text="Final scores").inner_text()
            assert scores.count("draw agreed") == 3, scores
            assert "A draw: agreed" in page.locator("#votes").inner_text()
            look(page, f"player {n + 1}'s page after the draw")
        for n, address in enumerate(PLAYERS):
            over = latest_to(address, "The game is over")
            assert "agreed to a draw: Player 1, Player 2 and Player 3 share the win" in str(over.body)
            read_email(over, f"the game-over email to player {n + 1}")
    finally:
        for context in contexts:
            context.close()

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and [row["rank"] for row in game.result] == [1, 1, 1]
    assert Proposal.objects.get().status == Proposal.Status.PASSED
    findings.assert_none()
    email_findings.assert_none(UnfitEmail)
