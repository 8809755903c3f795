"""The deadline in words beside its time in the reader's zone: on the game page as the page is served, in an
email as the email is written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.urls import reverse

from games.outgoing.links import make_token
from games.play import organise, sweep
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)  # a Friday; the first deadline is Sunday 09:00 UTC


def seat_page(client, game, number: int = 0) -> str:
    seat = game.seats.get(number=number)
    client.get(reverse("games-link", args=[make_token(seat, open_phase(game))]))
    return client.get(reverse("games-game", args=[game.pk])).content.decode()


def test_the_game_page_counts_down_to_the_deadline_as_it_is_served(client, make_game):
    with time_machine.travel(T0, tick=False) as clock:
        game = make_game(humans=3, phase_length=timedelta(hours=48))
        assert "Sun 6 Dec, 09:00 UTC</time> (in 2 days)" in seat_page(client, game)
        clock.move_to(T0 + timedelta(hours=28, minutes=30))
        assert "(in 19 hours 30 minutes)" in seat_page(client, game)
        organise.pause_game(game)  # a paused game keeps its deadline until it is resumed: it can lie behind
        clock.move_to(T0 + timedelta(hours=51, minutes=10))
        assert "(3 hours 10 minutes ago) (paused by the organiser)" in seat_page(client, game)


def test_the_game_page_shows_the_deadline_in_the_readers_zone(client, make_game):
    with time_machine.travel(T0, tick=False):
        game = make_game(humans=3, phase_length=timedelta(hours=30))
        player = game.seats.get(number=0).player
        player.time_zone = "Asia/Tokyo"  # the turn link opens the page in its player's zone
        player.save()
        page = seat_page(client, game)
    assert "Sun 6 Dec, 00:00 JST</time> (in 1 day 6 hours)" in page


def test_an_email_counts_from_when_it_was_written(make_game):
    with time_machine.travel(T0, tick=False) as clock:
        make_game(humans=3, phase_length=timedelta(hours=48))
        first = mail.outbox[0]
        expected = "Deadline: Sunday 6 December 2026, 09:00 (UTC), in 2 days counted from when this email was written."
        assert expected in first.body
        html = first.alternatives[0][0]
        assert "<strong>in 2 days</strong> counted from when this email was written" in html
        mail.outbox.clear()
        clock.move_to(T0 + timedelta(hours=40, minutes=15))
        sweep.run()  # the reminders are due 12 hours before the deadline
        assert len(mail.outbox) == 3
        assert all("in 7 hours 45 minutes counted from when this email was written" in m.body for m in mail.outbox)


def test_an_email_shows_the_deadline_in_its_readers_zone(make_game):
    with time_machine.travel(T0, tick=False):
        game = make_game(humans=3, phase_length=timedelta(hours=48))
        player = game.seats.get(number=0).player
        player.time_zone = "Asia/Tokyo"
        player.save()
        mail.outbox.clear()
        organise.resolve_now(game)
    message = next(m for m in mail.outbox if m.to == [player.email])
    assert "Deadline: Sunday 6 December 2026, 18:00 (Asia/Tokyo), in 2 days counted from when" in message.body


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo", "America/New_York", "Australia/Lord_Howe"])
@pytest.mark.parametrize("layout", ["D j M H:i T", "l j F Y, H:i", "N jS, P e O"])
@pytest.mark.parametrize("language", ["en-gb", "de", "fr"])
def test_a_deadline_in_an_email_reads_as_djangos_date_filter_writes_it(zone, layout, language):
    """The emails' `local` filter keeps what it wrote for a moment, layout, zone and language: it writes what
    Django's `date` would, across a daylight-saving change and in other languages."""
    from django.template import Context, Template
    from django.utils import timezone, translation

    ours = Template("{% load pbem_time %}{{ moment|local:layout }}|{{ moment|local:layout }}")
    djangos = Template("{{ moment|date:layout }}")
    moments = [datetime(2026, 3, 8, 6, 59, tzinfo=UTC) + timedelta(hours=h) for h in (0, 1, 24 * 20, 24 * 235)]
    with timezone.override(zone), translation.override(language):
        for moment in moments:
            context = Context({"moment": moment, "layout": layout})
            written = djangos.render(context)
            assert ours.render(context) == f"{written}|{written}" and written
