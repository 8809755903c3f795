"""Vacations the organiser can give, and a draw that respects them (issue 28). An organiser records a member's
vacation in the admin, with the effect the member's own has; the draw gives no member a deadline inside their
vacation: away for up to the league's cap, their table's first deadline moves by their days away; away for
longer, they sit the round out; the draw says which. Every league email links to the member's settings."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues import services, substitutes, vacations
from games.leagues.models import League, LeagueEmail, Membership, Round, Table, Vacation
from tests.support.leagues import first_game, make_league, open_phase_of, organiser_of, started_round
from tests.support.organisers import act, said
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)
SETTINGS_LINK = re.compile(r"https://pbem\.example/leagues/spring/me/\?k=\S+")


def member(league: League, email: str) -> Membership:
    return Membership.objects.select_related("player", "league").get(league=league, player__email=email)


def test_an_organiser_records_a_vacation_which_moves_the_members_deadlines_and_tells_them(client):
    league = make_league(players=4, vacation_days=10, vacation_cap_days=7)
    game = first_game(started_round(league))
    away = member(league, "p2@example.com")
    before = open_phase_of(game).deadline
    client.force_login(organiser_of(league))
    form = client.get(reverse("admin:leagues_vacation_add")).content.decode()
    assert "P2" in form
    page = client.post(reverse("admin:leagues_vacation_add"), {"membership": away.pk, "days": 3}, follow=True)
    assert f"P2 is away 3 days from today. 1 game deadline moved: {game} to " in said(page)[0]
    assert open_phase_of(game).deadline == before + timedelta(days=3)
    notice = next(m for m in mail.outbox if m.to == ["p2@example.com"] and m.tags == ["vacation-confirmed"])
    assert "Your organiser recorded a vacation for you" in str(notice.body) and SETTINGS_LINK.search(str(notice.body))
    refused = client.post(reverse("admin:leagues_vacation_add"), {"membership": away.pk, "days": 8})
    assert refused.status_code == 200 and "Only 7 vacation days left this season, not 8." in refused.content.decode()
    assert Vacation.objects.count() == 1


def test_an_organiser_cannot_record_a_vacation_in_another_league(client):
    ours = make_league(players=4)
    theirs = League.objects.create(name="Autumn", slug="autumn", engine="piraeus")
    stranger = Membership.objects.create(league=theirs, player=member(ours, "p1@example.com").player)
    client.force_login(organiser_of(ours))
    page = client.post(reverse("admin:leagues_vacation_add"), {"membership": stranger.pk, "days": 2})
    assert page.status_code == 200 and "Select a valid choice" in page.content.decode()
    assert not Vacation.objects.exists()


def test_the_draw_moves_an_away_members_first_deadline_and_leaves_out_one_away_too_long(client):
    league = make_league(players=9, vacation_days=20, vacation_cap_days=7)
    vacations.declare(member(league, "p1@example.com"), 3)
    vacations.declare(member(league, "p2@example.com"), 12)  # longer than the cap
    client.force_login(organiser_of(league))
    page = act(client, "league", "draw_round_now", league)
    round_ = Round.objects.get()
    seated = [p for table in round_.tables.all() for p in table.players]
    p1, p2 = (member(league, f"p{n}@example.com").player_id for n in (1, 2))
    assert p1 in seated and p2 not in seated and len(seated) == 8
    mine = Table.objects.get(round=round_, players__contains=[p1])
    other = Table.objects.exclude(pk=mine.pk).get(round=round_)
    assert mine.vacation_added == timedelta(days=3) and other.vacation_added == timedelta(0)
    moved = open_phase_of(mine.game).deadline - open_phase_of(other.game).deadline
    assert abs(moved - timedelta(days=3)) < timedelta(seconds=5)  # created a moment apart
    lines = said(page)
    assert lines[0] == f"{round_} drawn: 2 tables started."
    assert "P2 is away 12 more days, longer than the league's vacation cap (7): not drawn this round." in lines
    assert any(
        line.startswith(f"Table {mine.number}: a player is away, so its first deadline moved 3 days") for line in lines
    )


def test_every_league_email_to_a_member_links_their_settings_and_its_subject_names_it():
    league = make_league(players=4, standby=1)
    services.request_signup(league, "new@example.com", "New", "UTC")
    confirm = next(m for m in mail.outbox if m.to == ["new@example.com"])
    assert confirm.subject == "[Spring Cup] Please confirm your sign-up"
    token = re.search(r"/leagues/confirm/(\S+)/", str(confirm.body))
    assert token is not None
    services.confirm_signup(token.group(1))
    welcome = next(m for m in mail.outbox if m.tags == ["signup-welcome"])
    assert welcome.subject == "[Spring Cup] You are signed up: welcome" and SETTINGS_LINK.search(str(welcome.body))
    game = first_game(started_round(league))
    substitutes.drop_member(member(league, game.seats.get(number=0).player.email))
    offer = next(m for m in mail.outbox if m.tags == ["substitute-offer"])
    assert offer.subject == f"[Spring Cup] A seat is free for you: {game.title}" and SETTINGS_LINK.search(
        str(offer.body)
    )
    started = next(m for m in mail.outbox if m.tags == ["round-started"])
    assert started.subject.startswith("[Spring Cup] Season 1, round 1 has started") and SETTINGS_LINK.search(
        str(started.body)
    )
    for row in LeagueEmail.objects.exclude(kind__in=["signup-confirm"]).exclude(player=None):
        assert SETTINGS_LINK.search(row.text), row.kind
    assert "Please confirm" in headline(confirm)
