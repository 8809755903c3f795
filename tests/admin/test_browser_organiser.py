"""An organiser's routine jobs in a real browser (tests/support/browser.py), at 1280 px, as a member of the Organiser
group (not a superuser), from the admin's sign-in page on: the league's console, drawing a round, extending,
pausing, resuming and resolving a game (which asks first), replacing a seat, dropping a member, recording a
vacation, the games filtered by league and round, a round's page, closing a round that still runs (refused, with
why) and the public standings. Every job says what it did; no page scrolls sideways or has an axe violation of
any impact. Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse

from games.leagues.models import Membership, Round, Vacation
from games.models import Game, Phase, Seat
from tests.support.browser import DESKTOP, EVERY_IMPACT, Findings, horizontal_overflow, new_context, picture, violations
from tests.support.leagues import make_league, organiser_of

pytestmark = pytest.mark.django_db(transaction=True)


def look(page: Any, what: str, findings: Findings) -> None:
    """The page as it is now: it fits 1280 px and axe finds nothing, of any impact."""
    extra = horizontal_overflow(page)
    if extra > 0:
        findings.problems.append(f"{what}: {extra} px wider than the window")
    findings.problems.extend(f"{what}: axe {line}" for line in violations(page, EVERY_IMPACT))
    picture(page, "organiser", DESKTOP, re.sub(r"[^a-z]+", "-", what.lower()).strip("-"))


def messages_on(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("ul.messagelist li").all_inner_texts()]


def press(page: Any, row: Any, label: str) -> None:
    row.get_by_role("button", name=label, exact=True).click()
    page.wait_for_load_state()


def test_an_organiser_does_the_routine_jobs_in_a_browser(chromium, live_server):
    league = make_league(players=8, standby=1, time_zone="Europe/Paris")
    user = organiser_of(league)
    assert not user.is_superuser
    findings = Findings()
    context = new_context(chromium, DESKTOP)
    page = context.new_page()
    server = live_server.url
    try:
        page.goto(server + reverse("admin:login"))
        look(page, "the admin's sign-in page", findings)
        page.get_by_label("Username").fill("organiser")
        page.get_by_label("Password").fill("pw")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"**{reverse('admin:index')}")
        look(page, "the admin's home", findings)

        page.goto(server + reverse("admin:leagues_league_changelist"))
        look(page, "the leagues", findings)
        page.get_by_role("link", name="Console").click()
        page.wait_for_url(f"**{reverse('admin:leagues_league_console', args=[league.pk])}")
        look(page, "the console before a round", findings)
        press(page, page, "Draw the next round, starting now")
        assert messages_on(page)[0] == "Spring Cup season 1 round 1 drawn: 2 tables started.", messages_on(page)
        look(page, "the console of a round", findings)
        round_ = Round.objects.get()
        first, second = Game.objects.filter(league_table__round=round_).order_by("league_table__number")
        phase = Phase.objects.get(game=first, status=Phase.Status.OPEN)
        table = page.locator("table.console-tables tbody tr").first
        assert " CEST (in " in table.inner_text() or " CET (in " in table.inner_text()
        owing = [s.player.display_name for s in first.seats.select_related("player") if s.number in phase.owed_seats]
        assert all(name in table.inner_text() for name in owing)

        deadline = phase.deadline
        press(page, table, "Extend 24 hours…")
        look(page, "extend, asked first", findings)
        asked = page.inner_text("#content-main")
        assert phase.name in asked and "new deadline" in asked.lower()
        page.get_by_role("button", name="Yes, extend by 24 hours").click()
        page.wait_for_url(f"**{reverse('admin:leagues_league_console', args=[league.pk])}**")
        assert messages_on(page) == [f"Extended 1: {first}."]
        assert Phase.objects.get(pk=phase.pk).deadline == deadline + timedelta(hours=24)
        press(page, page.locator("table.console-tables tbody tr").first, "Pause")
        assert messages_on(page) == [f"Paused 1: {first}."]
        press(page, page.locator("table.console-tables tbody tr").first, "Resume")
        assert messages_on(page) == [f"Resumed 1: {first}."]
        press(page, page.locator("table.console-tables tbody tr").first, "Resolve now…")
        look(page, "resolve now, asked first", findings)
        assert all(name in page.inner_text("#content-main") for name in owing)
        page.get_by_role("button", name="Yes, resolve now").click()
        page.wait_for_url(f"**{reverse('admin:leagues_league_console', args=[league.pk])}**")
        assert messages_on(page) == [f"Resolved 1: {first}."]
        assert Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED

        page.locator("table.console-tables tbody tr").first.get_by_role("link", name=str(first)).click()
        page.wait_for_url(f"**{reverse('admin:games_game_change', args=[first.pk])}")
        look(page, "a game's page", findings)
        deadline = page.inner_text(".field-deadline")  # in the league's zone, named
        assert " CET" in deadline or " CEST" in deadline, deadline
        page.go_back()
        page.wait_for_url(f"**{reverse('admin:leagues_league_console', args=[league.pk])}")
        page.locator("table.console-tables tbody tr").first.get_by_role("link", name="replace").first.click()
        page.wait_for_url("**/admin/games/seat/*/change/")
        look(page, "a seat's page", findings)
        seat = Seat.objects.select_related("player").get(game=first, number=0)
        page.get_by_label("New email").fill("newcomer@example.com")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_load_state()
        said = f"Seat 1 of {first}: {seat.player.display_name} → "
        assert any(m.startswith(said) and "(newcomer@example.com)" in m for m in messages_on(page)), messages_on(page)
        look(page, "the seats after a replacement", findings)

        page.goto(server + reverse("admin:leagues_membership_changelist"))
        look(page, "the members", findings)
        leaving = Membership.objects.select_related("player").get(
            league=league, player=second.seats.get(number=1).player
        )
        page.locator(f"input[name=_selected_action][value='{leaving.pk}']").check()
        page.get_by_label("Action:").select_option("drop")
        page.get_by_role("button", name="Go").click()
        page.wait_for_load_state()
        assert messages_on(page) == [
            f"{leaving.player.display_name} dropped; 1 seat in running games offered to the standby list."
        ]

        page.goto(server + reverse("admin:leagues_league_console", args=[league.pk]))
        page.get_by_role("link", name="Record a vacation").click()
        page.wait_for_url(f"**{reverse('admin:leagues_vacation_add')}?league={league.pk}")
        look(page, "recording a vacation", findings)
        away = Membership.objects.select_related("player").get(league=league, player=second.seats.get(number=2).player)
        page.get_by_label("Member").select_option(str(away.pk))
        page.get_by_label("Days").fill("2")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_load_state()
        assert any(f"{away.player.display_name} is away 2 days from today" in m for m in messages_on(page))
        assert Vacation.objects.filter(membership=away, days=2).exists()
        look(page, "the vacations", findings)

        page.goto(server + reverse("admin:games_game_changelist"))
        page.get_by_role("link", name="Spring Cup S1 R1", exact=True).click()
        page.wait_for_url("**/admin/games/game/?round=*")
        look(page, "the games of a round", findings)
        assert page.locator("#result_list tbody tr").count() == 2

        page.goto(server + reverse("admin:leagues_round_change", args=[round_.pk]))
        look(page, "a round's page", findings)
        page.goto(server + reverse("admin:leagues_league_console", args=[league.pk]))
        press(page, page, "Close the round")
        assert messages_on(page) == [f"{round_} still has 2 games running: {first}, {second}."]
        look(page, "the console after a refused close", findings)
        page.get_by_role("link", name="The public page").click()
        page.wait_for_url(f"**{reverse('leagues-league', args=[league.slug])}")
        look(page, "the public standings", findings)
    finally:
        context.close()
    findings.assert_none()
