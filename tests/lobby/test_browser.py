"""Players start their own games, in a real browser at 390 px (tests/support/browser.py), each person from a fresh page
of their own, reading their links out of the emails the server really sent (the outbox):

- a player signs in, proposes a game of Piraeus inviting two addresses; both accept from their invitation
  emails; the ready check starts the game, and every seat the first turn asks plays it from its turn email,
  which resolves it;
- the same player proposes a second game, of four seats, one a bot whose level they type on the form's line for
  each bot seat's level; one invitee declines from the email's decline link, the other
  never answers; at the start time the table page shows it cancelled (the ready check runs when the page is
  read, as `make run` has no beat), and the one still invited is told.

Every page fits 390 px, its controls are a thumb's height, and axe-core finds no violation of any impact.
The helpers (signed_in, propose, accept_from_email, play_the_turn) are for other walks of the lobby too (a
game that ends by a draw vote, games/votes). Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from games.lobby.models import Invitation, Table
from games.models import Phase
from games.play import turns
from tests.support.browser import EVERY_IMPACT, PHONE, Findings, check, new_context, picture
from tests.support.browser_player import play_turn

pytestmark = pytest.mark.django_db(transaction=True)

SITE = "https://pbem.example"


class Walk:
    """One person's fresh browser at 390 px, and the checks of every page it shows."""

    def __init__(self, browser: Any, server: str, who: str, findings: Findings) -> None:
        self.context = new_context(browser, PHONE)
        self.context.set_default_timeout(15_000)
        self.page = self.context.new_page()
        self.server, self.who, self.findings = server, who, findings

    def look(self, what: str, sent: bool = True) -> None:
        check(self.page, f"{self.who}: {what}", self.findings, impacts=EVERY_IMPACT, sent=sent)
        picture(self.page, "lobby", PHONE, re.sub(r"[^a-z]+", "-", f"{self.who} {what}".lower()).strip("-"))

    def goto(self, path: str, what: str) -> None:
        self.page.goto(self.server + path)
        self.look(what)

    def press(self, name: str) -> None:
        with self.page.expect_navigation():
            self.page.get_by_role("button", name=name, exact=True).click()

    def messages(self) -> list[str]:
        return [text.strip() for text in self.page.locator("ul.messages li").all_inner_texts()]

    def close(self) -> None:
        self.context.close()


def link_in(address: str, pattern: str, subject_has: str = "") -> str:
    """The path of the newest link matching `pattern` in an email to `address` (the emails name SITE_URL)."""
    for message in reversed(mail.outbox):
        if message.to == [address] and subject_has in message.subject:
            found = re.search(rf"{SITE}({pattern})", str(message.body))
            if found:
                return found.group(1)
    raise AssertionError(f"no {pattern} link to {address}: {[(m.to, m.subject) for m in mail.outbox]}")


def signed_in(walk: Walk, address: str) -> None:
    """Sign in the way a player does: My games emails a sign-in link, its page has the button."""
    walk.goto(reverse("games-mine"), "My games, signed out")
    walk.page.get_by_label("Your address").fill(address)
    walk.press("Email me a sign-in link")
    walk.goto(link_in(address, r"/me/sign-in/\S+/"), "the sign-in link's page")
    walk.press("Sign in")
    walk.look("My games, signed in")


def propose(walk: Walk, game: str, name: str, invite: list[str], size: int, bot_levels: str = "") -> Table:
    """From My games: Start a game, choose `game`, fill the form, propose the table (with a bot seat for each of
    `bot_levels`' comma-separated levels, typed on the form's line for them)."""
    walk.page.get_by_role("link", name="Start a game", exact=True).click()
    walk.page.wait_for_load_state()
    walk.look("choosing a game")
    walk.page.get_by_role("link", name=game, exact=True).click()
    walk.page.wait_for_load_state()
    walk.look(f"the {game} table form")
    walk.page.get_by_label("Seats at the table, yours included").fill(str(size))
    if walk.page.get_by_role("button", name="Next").count():  # a value per seat: the table's size first
        walk.press("Next")
        walk.look(f"the {game} table form for {size} seats")
        assert walk.page.locator("select[name^=seat_option_]").count() == size  # one drop-down per seat
    walk.page.get_by_label("Your name, as the other players see it").fill(name)
    walk.page.get_by_label("Invite by email (optional)").fill("\n".join(invite))
    if bot_levels:
        walk.page.get_by_label("Bot seats").fill(str(len(bot_levels.split(","))))
        walk.page.get_by_label("Or a level for each bot seat").fill(bot_levels)
    walk.look(f"the {game} table form, filled in", sent=False)
    before = set(Table.objects.values_list("pk", flat=True))
    walk.press("Propose the table")
    walk.look("the table's page, just proposed")
    (table,) = Table.objects.exclude(pk__in=before)
    assert walk.page.url.endswith(reverse("lobby-table", args=[table.key]))
    return table


def accept_from_email(browser: Any, server: str, address: str, name: str, findings: Findings) -> tuple[list[str], str]:
    """The invitee opens the invitation email's join link in a fresh browser and accepts: the page's messages,
    and the page they land on, in words."""
    walk = Walk(browser, server, name, findings)
    try:
        walk.goto(link_in(address, r"/lobby/i/\S+/", "invites you"), "the invitation's table page")
        walk.page.get_by_label("Your name, as the other players see it").fill(name)
        walk.press("Accept")
        walk.look("the page after Accept")
        return walk.messages(), walk.page.locator("main").inner_text()
    finally:
        walk.close()


def play_the_turn(browser: Any, server: str, table: Table, findings: Findings) -> Phase:
    """Every seat the game's open phase asks plays it from its turn email, each in a fresh browser. The phase."""
    table.refresh_from_db()
    assert table.game is not None
    phase = turns.current_phase(table.game)
    assert phase is not None
    for seat in table.game.seats.select_related("player").order_by("number"):
        if seat.is_bot or seat.player is None or phase.prompt_for(seat.number) is None:
            continue
        walk = Walk(browser, server, f"seat {seat.number + 1}", findings)
        try:
            walk.goto(link_in(seat.player.email, r"/l/[^\s\"<]+"), "the turn email's game page")
            play_turn(walk.page, walk.look, lambda: None)
            walk.look("the game page after the order")
        finally:
            walk.close()
    phase.refresh_from_db()
    return phase


def test_a_player_starts_a_game_with_two_invitees_who_accept_and_a_second_is_cancelled(chromium, live_server):
    turns.player_for("hana@example.com")
    server, findings = live_server.url, Findings()
    host = Walk(chromium, server, "the host", findings)
    try:
        signed_in(host, "hana@example.com")
        table = propose(host, "Port of Piraeus", "Hana", ["ann@example.com", "bo@example.com"], size=3)
        assert "seat" in host.page.locator("main").inner_text()
        said, shown = accept_from_email(chromium, server, "ann@example.com", "Ann", findings)
        assert said == ["You accepted: the game starts when every seat is taken, or at the start time."]
        said, shown = accept_from_email(chromium, server, "bo@example.com", "Bo", findings)
        assert said[0].startswith("You accepted, and every seat is taken: the game has started.")
        # The last Accept started the game: that tap lands Bo in their seat, not watching it.
        assert "You are watching" not in shown and "You are " in shown, shown
        table.refresh_from_db()
        assert table.status == Table.Status.STARTED and table.game is not None
        assert sorted(s.player.name for s in table.game.seats.select_related("player")) == ["Ann", "Bo", "Hana"]
        first = play_the_turn(chromium, server, table, findings)
        assert first.status == Phase.Status.RESOLVED, "every order of the first turn was in: it resolved"

        host.goto(reverse("games-mine"), "My games with a game started")
        # The second table has a bot seat too, its level typed on the form's line (at 390 px, as every page).
        second = propose(host, "Port of Piraeus", "Hana", ["cy@example.com", "di@example.com"], 4, bot_levels="easy")
        assert list(second.seats.filter(state="bot").values_list("bot_level", flat=True)) == ["easy"]
        decline = Walk(chromium, server, "Cy", findings)
        try:
            decline.goto(link_in("cy@example.com", r"/lobby/decline/\S+/", "invites you"), "the decline page")
            decline.press("Decline")
            decline.look("the invitation declined")
        finally:
            decline.close()
        assert Invitation.objects.get(address="cy@example.com").answer == Invitation.Answer.DECLINED
        with time_machine.travel(timezone.now() + timedelta(days=3, hours=1), tick=True):
            host.goto(reverse("lobby-table", args=[second.key]), "the second table after its start time")
            shown = host.page.locator("main").inner_text()
            assert "This table was cancelled." in shown and "Open:" not in shown and "Invited" not in shown
        second.refresh_from_db()
        assert second.status == Table.Status.CANCELLED and second.game is None
        told = [m for m in mail.outbox if m.to == ["di@example.com"] and "will not start" in m.subject]
        assert len(told) == 1 and "Nobody else accepted by the start time." in str(told[0].body)
    finally:
        host.close()
    findings.assert_none()
