"""Lengths of time in words: the admin's forms, the league page, the game page's deadline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from games.models import Game
from games.outgoing.durations import DurationInWordsField, from_words, in_words, relative
from tests.support.leagues import make_league

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("length", "words", "approximately"),
    [
        (timedelta(days=2), "2 days", "2 days"),
        (timedelta(days=1, hours=4, minutes=3), "1 day 4 hours 3 minutes", "1 day 4 hours"),
        (timedelta(days=1, minutes=30), "1 day 30 minutes", "1 day"),
        (timedelta(hours=1), "1 hour", "1 hour"),
        (timedelta(minutes=90), "1 hour 30 minutes", "1 hour 30 minutes"),
        (timedelta(seconds=20), "20 seconds", "less than a minute"),
        (timedelta(0), "0 minutes", "less than a minute"),
    ],
)
def test_a_length_reads_in_words(length, words, approximately):
    assert in_words(length) == words
    assert in_words(length, approximate=True) == approximately


def test_a_moment_reads_relative_to_now():
    assert relative(NOW + timedelta(days=1, hours=4, minutes=59), NOW) == "in 1 day 4 hours"
    assert relative(NOW - timedelta(hours=3, seconds=5), NOW) == "3 hours ago"
    assert relative(NOW + timedelta(seconds=10), NOW) == "in less than a minute"


@given(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=400)))
def test_what_the_admin_shows_it_reads_back(length):
    exact = timedelta(seconds=int(length.total_seconds()))
    assert from_words(in_words(exact)) == exact


@pytest.mark.parametrize(
    ("typed", "length"),
    [
        ("2 days", timedelta(days=2)),
        ("1d 12h", timedelta(hours=36)),
        ("1 day, 4 hours and 30 minutes", timedelta(hours=28, minutes=30)),
        ("90 min", timedelta(minutes=90)),
        ("2 00:00:00", timedelta(days=2)),  # Django's own form
        ("48:00:00", timedelta(days=2)),
        ("P2D", timedelta(days=2)),
    ],
)
def test_the_admin_reads_lengths_as_people_write_them(typed, length):
    assert DurationInWordsField().clean(typed) == length


@pytest.mark.parametrize("typed", ["2 weeks", "soon", "2 days 3", "days"])
def test_a_length_it_cannot_read_is_refused_with_an_example(typed):
    with pytest.raises(Exception, match='such as "2 days"'):
        DurationInWordsField().clean(typed)


@pytest.mark.django_db(transaction=True)
def test_the_game_admin_shows_and_saves_lengths_in_words(client, make_game):
    client.force_login(get_user_model().objects.create_superuser("org", "org@example.com", "pw"))
    game = make_game(humans=3, phase_length=timedelta(days=2), reminder_before=timedelta(hours=12))
    url = reverse("admin:games_game_change", args=[game.pk])
    page = client.get(url).content.decode()
    assert 'value="2 days"' in page and 'value="12 hours"' in page
    assert "2 00:00:00" not in page and "0:00:00" not in page
    # The read-only seats inline, as the page posts it back.
    seats = {"seats-TOTAL_FORMS": "3", "seats-INITIAL_FORMS": "3"}
    for i, seat in enumerate(game.seats.order_by("number")):
        seats |= {f"seats-{i}-id": str(seat.pk), f"seats-{i}-game": str(game.pk)}
    changes = {"title": game.title, "phase_length": "1 day 12 hours", "reminder_before": "6h"}
    response = client.post(url, {**changes, **seats})
    assert response.status_code == 302
    game.refresh_from_db()
    assert (game.phase_length, game.reminder_before) == (timedelta(hours=36), timedelta(hours=6))
    refused = client.post(url, {"title": game.title, "phase_length": "a while", "reminder_before": "6h", **seats})
    assert refused.status_code == 200 and "such as &quot;2 days&quot;" in refused.content.decode()
    assert Game.objects.get(pk=game.pk).phase_length == timedelta(hours=36)


@pytest.mark.django_db(transaction=True)
def test_the_league_page_says_its_turn_length_in_words(client):
    make_league(players=4, phase_length=timedelta(days=2))
    page = client.get(reverse("leagues-league", args=["spring"])).content.decode()
    assert "2 days per turn" in page and "0:00:00" not in page
