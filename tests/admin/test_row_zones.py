"""An organiser whose leagues keep different time zones (issue 38 item 6) reads each league's times in that
league's zone: on the admin's lists each row's times are in its own league's zone, named in the cell, and the
page says so; a row's own page, its form and the console speak its league's zone; the questions Extend and
Resolve now ask show each game's deadline in its league's zone. As the Organiser role (staff, not superuser)
with a league in Paris and one in New York."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse

from games.leagues.models import League, Round
from games.models import Game
from tests.support.leagues import first_game, make_league, open_phase_of, organiser_of, started_round
from tests.support.organisers import act

pytestmark = pytest.mark.django_db(transaction=True)

PARIS, NEW_YORK = "Europe/Paris", "America/New_York"


def local(moment: datetime, zone: str) -> str:
    """A time as the admin writes it in `zone`, the zone's abbreviation with it."""
    there = moment.astimezone(ZoneInfo(zone))
    return f"{there:%a %d %b %Y %H:%M} {there.tzname()}"


def row_of(page: str, name: str) -> str:
    """The list row (or question's row) that names `name`."""
    rows = [row for row in re.split(r"<tr[ >]", page) if name in row]
    assert len(rows) == 1, (name, len(rows))
    return rows[0]


@pytest.fixture
def two_zones(client: Client) -> tuple[Client, Game, Game]:
    """An organiser of a league in Paris and one in New York (which the pages speak: one league each, and New York
    sorts first), a round running in each."""
    paris = make_league(players=4, time_zone=PARIS)
    new_york = make_league(players=4, time_zone=NEW_YORK, name="Autumn Cup", slug="autumn")
    ours, theirs = first_game(started_round(paris)), first_game(started_round(new_york))
    client.force_login(organiser_of(paris, new_york))
    return client, ours, theirs


def zone_of_game(game: Game) -> str:
    return League.objects.get(seasons__rounds__tables__game=game).time_zone


def test_each_rows_times_are_in_its_leagues_zone_named_on_the_lists(two_zones: Any) -> None:
    client, paris, new_york = two_zones
    for url in (reverse("admin:games_game_changelist"), reverse("admin:games_phase_changelist")):
        page = client.get(url).content.decode()
        assert "Times are in each row&#x27;s league&#x27;s zone, named with each time" in page or (
            "Times are in each row's league's zone, named with each time" in page
        ), url
        for game in (paris, new_york):
            deadline = open_phase_of(game).deadline
            row = row_of(page, str(game))
            assert local(deadline, zone_of_game(game)) in row, (url, game)
            assert f'title="{zone_of_game(game)}"' in row or url.endswith("/game/"), (url, game)
    # The two deadlines are not written in one zone: Paris' in CET/CEST, New York's in EST/EDT.
    page = client.get(reverse("admin:games_game_changelist")).content.decode()
    assert re.search(r" CES?T", row_of(page, str(paris))) and re.search(r" E[SD]T", row_of(page, str(new_york)))
    rounds = client.get(reverse("admin:leagues_round_changelist")).content.decode()
    for round_ in Round.objects.select_related("season__league"):
        assert local(round_.starts_at, round_.season.league.time_zone) in row_of(rounds, str(round_))


def test_a_rows_own_page_and_the_console_speak_its_leagues_zone(two_zones: Any) -> None:
    client, paris, new_york = two_zones
    for game in (paris, new_york):
        zone = zone_of_game(game)
        page = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
        assert f"Times are in {zone}" in page and local(open_phase_of(game).deadline, zone) in page
        league = League.objects.get(time_zone=zone)
        console = client.get(reverse("admin:leagues_league_console", args=[league.pk])).content.decode()
        assert f"Times are in {zone}" in console and f"Deadlines in the league's time zone, {zone}" in console


def test_a_rounds_start_is_read_in_its_leagues_zone_whatever_the_others(two_zones: Any) -> None:
    client, _, _ = two_zones
    paris = League.objects.get(time_zone=PARIS)
    Round.objects.filter(season__league=paris).update(status=Round.Status.FINISHED)  # so the next may be drawn
    act(client, "league", "draw_round_tomorrow", paris)
    round_ = Round.objects.get(season__league=paris, status=Round.Status.SCHEDULED)
    url = reverse("admin:leagues_round_change", args=[round_.pk])
    page = client.get(url).content.decode()
    assert f"In {PARIS}, as every time on these pages." in page
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    assert client.post(url, {**form, "starts_at": "2030-01-02T20:30"}).status_code == 302
    round_.refresh_from_db()
    assert round_.starts_at == datetime(2030, 1, 2, 19, 30, tzinfo=UTC)  # 20:30 in Paris, not in New York


def test_the_questions_show_each_games_deadline_in_its_leagues_zone(two_zones: Any) -> None:
    client, paris, new_york = two_zones
    for action in ("extend_24h", "resolve_now"):
        page = act(client, "game", action, paris, new_york, app="games").content.decode()
        for game in (paris, new_york):
            assert local(open_phase_of(game).deadline, zone_of_game(game)) in row_of(page, str(game)), (action, game)
