"""Extend names what it extends (issue 38 item 2): the admin's and the console's Extend first show each game's
open phase, its deadline now and the new one, and Yes moves exactly that deadline, from exactly that value. Two
Yeses at once (two organisers, or one pressing twice) extend once; a Yes for a phase that has resolved since, or
whose deadline moved since, changes nothing and says why. Resume, which also moves the deadline, acts once too.
All as the Organiser role (staff, not superuser) through the real admin pages; the races are two real requests
at once on PostgreSQL, each on its own connection."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Game, OutboundEmail, Phase
from games.play import organise
from tests.support.leagues import first_game, make_league, open_phase_of, organiser_of, started_round, submit_for
from tests.support.organisers import act, answer, said, said_on
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)

PARIS = "Europe/Paris"
MOVED = "its deadline was moved meanwhile: nothing was changed; ask again to see the new one"


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def moved_emails(phase: Phase) -> int:
    return OutboundEmail.objects.filter(phase=phase, kind=OutboundEmail.Kind.DEADLINE_MOVED).count()


def test_extend_asks_first_naming_the_phase_its_deadline_and_the_new_one(client):
    league = make_league(players=4, time_zone=PARIS)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    phase = open_phase_of(game)
    asked = act(client, "game", "extend_24h", game, app="games")
    page = asked.content.decode()
    later = organise.Shown(phase.number, phase.deadline + timedelta(hours=24))
    for moment in (phase.deadline, later.deadline):
        local = moment.astimezone(ZoneInfo(PARIS))
        assert f"{local:%a %d %b %Y %H:%M} {local.tzname()}" in page, moment
    assert phase.name in page and "Yes, extend by 24 hours" in page
    assert f'name="phase_{game.pk}" value="{phase.number}"' in page
    assert Phase.objects.get(pk=phase.pk).deadline == phase.deadline  # asking changes nothing
    done = answer(client, asked)
    assert said(done) == [f"Extended 1: {game}."]
    assert Phase.objects.get(pk=phase.pk).deadline == later.deadline
    owing = len(organise.owing(game, phase))
    assert moved_emails(phase) == owing > 0
    # The same page's Yes again (a second press, a back button): the deadline is not the one it showed.
    again = answer(client, asked)
    assert said(again) == [f"Not extended (1): {game} ({MOVED})."]
    assert Phase.objects.get(pk=phase.pk).deadline == later.deadline and moved_emails(phase) == owing


def test_two_organisers_pressing_yes_at_once_extend_once(postgres):
    league = make_league(players=4)
    game = first_game(started_round(league))
    ann, bob = signed_in(organiser_of(league)), signed_in(organiser_of(league, username="second"))
    url = reverse("admin:games_game_changelist")
    for attempt in range(3):  # several, so the interleavings vary
        phase = open_phase_of(game)
        before, emails = phase.deadline, moved_emails(phase)
        form = {"action": "extend_24h", "_selected_action": [game.pk]}
        pages = [ann.post(url, form), bob.post(url, form)]  # each opened the question
        answers = run_together(*(lambda c=c, p=p: answer(c, p, url) for c, p in zip((ann, bob), pages, strict=True)))
        assert all(not isinstance(a, Exception) and a.status_code == 200 for a in answers), answers
        lines = sorted(line for a in answers for line in said_on(a))
        assert lines == [
            f"Extended 1: {game}.",
            f"Not extended (1): {game} ({MOVED}).",
        ], (attempt, lines)
        phase.refresh_from_db()
        assert phase.deadline == before + timedelta(hours=24)
        assert moved_emails(phase) - emails == len(organise.owing(game, phase))  # told once


def test_an_extend_confirmed_for_a_phase_that_resolved_since_changes_nothing(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    first = open_phase_of(game)
    asked = act(client, "game", "extend_72h", game, app="games")
    submit_for(game, first, range(4))  # everyone orders meanwhile: the next phase opens
    second = open_phase_of(game)
    assert second.number == first.number + 1
    done = answer(client, asked)
    assert said(done) == [
        f"Not extended (1): {game} (phase {first.number} is no longer open (it is now {second.name}): nothing was "
        "changed; ask again)."
    ]
    assert Phase.objects.get(pk=second.pk).deadline == second.deadline and moved_emails(second) == 0


def test_a_yes_without_the_phase_and_deadline_it_was_asked_about_changes_nothing(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    phase = open_phase_of(game)
    for forged in (
        {},
        {f"phase_{game.pk}": str(phase.number)},
        {f"phase_{game.pk}": str(phase.number), f"deadline_{game.pk}": "tomorrow"},
        {f"phase_{game.pk}": str(phase.number), f"deadline_{game.pk}": "2026-02-30T10:00:00+00:00"},
        {f"phase_{game.pk}": str(phase.number), f"deadline_{game.pk}": phase.deadline.replace(tzinfo=None).isoformat()},
        {f"phase_{game.pk}": "x", f"deadline_{game.pk}": phase.deadline.isoformat()},
    ):
        done = act(client, "game", "extend_24h", game, app="games", confirmed="yes", **forged)
        assert done.status_code == 200
        assert said(done) == [f"Not extended (1): {game} (it was not on the page you confirmed: ask again)."], forged
    assert Phase.objects.get(pk=phase.pk).deadline == phase.deadline and moved_emails(phase) == 0


def test_a_rounds_extend_asks_for_each_game_and_extends_each_once_from_the_console(client):
    league = make_league(players=8, time_zone=PARIS)
    round_ = started_round(league)
    games = list(Game.objects.filter(league_table__round=round_).order_by("pk"))
    assert len(games) == 2
    client.force_login(organiser_of(league))
    console = reverse("admin:leagues_league_console", args=[league.pk]) + f"?round={round_.pk}"
    assert "Extend every deadline by 24 hours…" in client.get(console).content.decode()
    before = {game.pk: open_phase_of(game).deadline for game in games}
    asked = act(client, "round", "extend_24h", round_, next=console)
    page = asked.content.decode()
    assert all(str(game) in page and f'name="deadline_{game.pk}"' in page for game in games)
    assert f'name="next" value="{console.replace("&", "&amp;")}"' in page or f'value="{console}"' in page
    done = answer(client, asked)
    assert done.redirect_chain[-1][0] == console  # back to the console, which says what was done
    assert said(done) == [f"Extended by 24 hours 2: {games[0]}; {games[1]}."]
    assert all(open_phase_of(game).deadline == before[game.pk] + timedelta(hours=24) for game in games)
    again = answer(client, asked)
    assert said(again)[0].startswith("Not extended by 24 hours (2): ")
    assert all(open_phase_of(game).deadline == before[game.pk] + timedelta(hours=24) for game in games)


def test_two_resumes_at_once_give_the_paused_time_back_once(postgres):
    league = make_league(players=4)
    game = first_game(started_round(league))
    ann, bob = signed_in(organiser_of(league)), signed_in(organiser_of(league, username="second"))
    url = reverse("admin:games_game_changelist")
    for attempt in range(3):
        phase = open_phase_of(game)
        assert organise.pause_game(game)
        Game.objects.filter(pk=game.pk).update(paused_at=timezone.now() - timedelta(days=10))
        resume = {"action": "resume", "_selected_action": [game.pk]}
        answers = run_together(*(lambda c=c, f=resume: c.post(url, f, follow=True) for c in (ann, bob)))
        assert all(not isinstance(a, Exception) and a.status_code == 200 for a in answers), answers
        lines = sorted(line for a in answers for line in said_on(a))
        assert lines == [f"Not resumed (1): {game} (it is running).", f"Resumed 1: {game}."], (attempt, lines)
        moved = Phase.objects.get(pk=phase.pk).deadline - phase.deadline
        assert timedelta(days=10) <= moved < timedelta(days=11)  # ten days given back, not twenty
