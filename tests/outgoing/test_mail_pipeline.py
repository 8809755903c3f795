"""The one outbox pipeline (games/outgoing/outbox.py): league emails are claimed, sent and recorded like game emails, so
a failed or lost one is sent again by the sweep; a digest's news waits for the digest; and the apps'
preferences are asked before an outbox row is written, never applied by deleting rows afterwards."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail as django_mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import extensions
from games.extensions import EmailAsk, Extension
from games.leagues import services
from games.leagues.models import LeagueEmail, Membership
from games.models import OutboundEmail, Seat
from games.outgoing import outbox
from games.play import orders, sweep
from tests.support.leagues import first_game, make_league, open_phase_of, started_round

pytestmark = pytest.mark.django_db(transaction=True)


class BrokenBackend:
    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def send_messages(self, messages: object) -> int:
        raise ConnectionError("provider down")


def sent_kinds(to: str) -> list[str]:
    sent: list[Any] = list(django_mail.outbox)  # anymail's test backend adds its parameters to Django's message
    return [m.anymail_test_params["tags"][0] for m in sent if m.to == [to]]


def test_a_league_email_that_fails_is_kept_and_the_sweep_sends_it_again(settings):
    league = make_league(players=4)
    settings.EMAIL_BACKEND = "tests.outgoing.test_mail_pipeline.BrokenBackend"
    services.request_signup(league, "new@example.com", "New", "UTC")
    row = LeagueEmail.objects.get(kind="signup-confirm")
    assert (row.status, row.attempts) == ("failed", 1) and "provider down" in row.error
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    assert sweep.run().resent >= 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("sent", 2) and row.sent_at is not None
    assert sent_kinds("new@example.com") == ["signup-confirm"]


def test_a_league_email_that_keeps_failing_stops_after_its_attempts(settings):
    league = make_league(players=4)
    settings.EMAIL_BACKEND = "tests.outgoing.test_mail_pipeline.BrokenBackend"
    services.request_signup(league, "new@example.com", "New", "UTC")
    for _ in range(outbox.MAX_ATTEMPTS + 2):
        sweep.run()
    row = LeagueEmail.objects.get(kind="signup-confirm")
    assert (row.status, row.attempts) == ("failed", outbox.MAX_ATTEMPTS)
    assert not outbox.unsent(LeagueEmail).exists()


def test_a_league_email_lost_in_flight_is_sent_again():
    league = make_league(players=4)
    long_ago = timezone.now() - outbox.SENDING_TIMEOUT - timedelta(minutes=1)
    row = LeagueEmail.objects.create(
        league=league, to="p1@example.com", kind="standings", subject="s", text="t", html="h", status="sending"
    )
    LeagueEmail.objects.filter(pk=row.pk).update(attempted_at=long_ago, created_at=long_ago)
    assert outbox.send_stragglers() == 1  # one league sender woken
    row.refresh_from_db()
    assert row.status == "sent" and sent_kinds("p1@example.com") == ["standings"]


def test_a_digests_news_waits_for_the_digest_not_for_the_sweep():
    league = make_league(players=4)
    Membership.objects.filter(league=league, player__email="p1@example.com").update(digest=True)
    started_round(league)
    kept = LeagueEmail.objects.filter(player__email="p1@example.com", kind="round-started")
    kept.update(created_at=timezone.now() - timedelta(hours=3))
    assert outbox.send_stragglers(at=timezone.now()) == 0
    assert kept.get().status == "pending" and "round-started" not in sent_kinds("p1@example.com")


def test_a_members_choice_is_asked_before_a_row_is_written_not_deleted_after():
    league = make_league(players=4)
    Membership.objects.filter(league=league, player__email="p1@example.com").update(notify=Membership.Notify.OWED)
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    seller = game.seats.get(player__email="p4@example.com").number
    with CaptureQueriesContext(connection) as queries:
        for number in range(4):  # p4 the only seller: the next phase asks only p4
            seat = Seat.objects.select_related("player").get(game=game, number=number)
            orders.submit_order(seat, phase.number, {"role": "seller" if number == seller else "buyer"})
    outboxes = {OutboundEmail._meta.db_table, LeagueEmail._meta.db_table}
    deleted = {q["sql"].split('"')[1] for q in queries.captured_queries if q["sql"].startswith("DELETE")}
    assert not deleted & outboxes
    news = OutboundEmail.objects.filter(phase=phase, kind="phase-resolved")
    following = open_phase_of(game)
    assert following.owed_seats == [seller]
    assert sorted(news.values_list("to", flat=True)) == ["p2@example.com", "p3@example.com"]


def test_an_apps_declines_are_asked_for_every_kind_before_writing(monkeypatch, make_game):
    asked: list[EmailAsk] = []

    def decline_all(ask: EmailAsk) -> set[int]:
        asked.append(ask)
        return {player.pk for player in ask.players}

    monkeypatch.setitem(extensions._registered, "test", Extension(declines=decline_all))
    game = make_game(humans=3)
    assert not OutboundEmail.objects.filter(game=game).exists()
    assert {ask.kind for ask in asked} == {"turn-started"} and asked[0].game == game
    league = make_league(players=4)
    started_round(league)
    assert not LeagueEmail.objects.exists()  # league news is asked too (one player at a time)
    assert "round-started" in {ask.kind for ask in asked}
