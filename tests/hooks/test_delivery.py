"""Webhooks as a player adds them on My games and as the news reaches them: through the outbox, after commit,
to a real HTTPS receiver on this machine (tests/support/hooks_receiver.py); retried with a growing pause, then given
up, the hook turned off and its owner emailed; checked again at every send (a name that now answers a private
address, a redirect); signed so that a receiver can check it with the secret shown once."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.hooks import deliver, notices, pace, shapes
from games.hooks.models import Delivery, Hook, Notice
from games.models import Game, MailStatus, Phase
from games.play import sweep
from tests.support import hooks_receiver
from tests.support.accounts import sign_in_by_email
from tests.support.hooks_receiver import Receiver
from tests.support.leagues import play_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings: Any, tmp_path: Path) -> Iterator[Receiver]:
    for found, ca_file in hooks_receiver.serve(tmp_path):
        hooks_receiver.point_hooks_at(settings, ca_file)
        yield found


def add_hook(client: Client, **form: Any) -> Any:
    """Post My games' add form as the page does."""
    data = {"name": "My channel", "kind": "discord", "notices": [Notice.TURN, Notice.RESULT], **form}
    return client.post(reverse("hooks-add"), {f"hook-{name}": value for name, value in data.items()})


def signed_in(address: str = "player1@example.com") -> Client:
    return sign_in_by_email(Client(), address)


def bodies(receiver: Receiver) -> list[dict[str, Any]]:
    return [json.loads(item.body) for item in receiver.received]


def test_a_player_adds_a_discord_hook_on_my_games_and_gets_their_turn_and_results(make_game, receiver):
    game = make_game(humans=3)
    client = signed_in()
    page = add_hook(client, url=receiver.url("/api/webhooks/1/TOKEN-xyz"))
    assert page.status_code == 302
    mine = client.get(page.url).content.decode()
    assert "My channel" in mine and "hooks.test" in mine and "TOKEN-xyz" not in mine
    assert receiver.received == []  # nothing happened yet
    played = play_phase(game)
    received = bodies(receiver)
    assert received, "no notice reached the receiver"
    for body in received:
        assert body["allowed_mentions"] == {"parse": []}
        assert f"https://pbem.example/games/{game.pk}/" in body["content"] and game.name in body["content"]
    texts = [body["content"].split("\n")[0] for body in received]
    seat = game.seats.get(number=0)
    following = Phase.objects.get(game=game, number=played.number + 1)
    expected = []
    if 0 in following.owed_seats:
        expected.append(f"Your turn in {game.name}: {following.name}.")
    else:
        expected.append(f"{game.name}: {played.name} is resolved. Now: {following.name}.")
    assert [text.split(" Orders by")[0] for text in texts] == expected, texts
    assert all(item.path == "/api/webhooks/1/TOKEN-xyz" for item in receiver.received)
    assert Delivery.objects.filter(hook__player=seat.player, status=MailStatus.SENT).count() == len(received)


def test_a_refused_address_shows_why_and_stores_nothing(make_game, receiver):
    make_game(humans=3)
    client = signed_in()
    hooks_receiver.ANSWERS["chat.example.com"] = ["10.0.0.8"]
    for url, words in [
        ("http://hooks.test/x", "must start with https://"),
        ("https://chat.example.com/x", "private network"),
        ("https://169.254.169.254/latest/meta-data/", "cloud metadata"),
    ]:
        page = add_hook(client, url=url)
        assert page.status_code == 400 and words in page.content.decode()
    page = add_hook(client, url=receiver.url(), notices=[])
    assert "Choose at least one kind of notice" in page.content.decode()
    assert not Hook.objects.exists()


def verified(secret: str, item: hooks_receiver.Received) -> bool:
    """A receiver's check of a delivery, as Standard Webhooks specify it, written here from the specification."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{item.headers['webhook-id']}.{item.headers['webhook-timestamp']}.".encode() + item.body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return hmac.compare_digest(item.headers["webhook-signature"], f"v1,{expected}")


def test_a_json_hooks_secret_is_shown_once_and_signs_what_a_receiver_checks(make_game, receiver, caplog):
    caplog.set_level(logging.DEBUG)
    game = make_game(humans=3)
    client = signed_in()
    page = add_hook(client, kind="json", url=receiver.url("/pbem"), notices=[n.value for n in Notice])
    shown = client.get(page.url)
    assert "no-store" in shown["Cache-Control"]  # no browser or proxy cache keeps the page with the secret
    first = shown.content.decode()
    found = re.search(r"<code>(whsec_[A-Za-z0-9+/=]+)</code>", first)
    assert found is not None, "the new hook's secret is not on the page"
    secret = found.group(1)
    again = client.get(page.url).content.decode()
    assert secret not in again and "whsec_" not in again
    # Every notice (a turn or a result: the player chose both) and a test reach the receiver, signed.
    play_phase(game)
    client.post(reverse("hooks-test", args=[Hook.objects.get().pk]))
    assert len(receiver.received) >= 2
    assert not [r for r in caplog.records if secret in r.getMessage()], "a log line shows the secret"
    for item in receiver.received:
        assert verified(secret, item)
        body = json.loads(item.body)
        assert body["type"] in ("pbem.turn-started", "pbem.phase-resolved", "pbem.test")
        assert item.headers["webhook-id"].startswith("pbem_")
    # A body changed on the way, or another secret, does not verify.
    tampered = hooks_receiver.Received("/pbem", receiver.received[0].headers, receiver.received[0].body + b" ")
    assert not verified(secret, tampered)
    assert not verified("whsec_" + base64.b64encode(b"x" * 32).decode(), receiver.received[0])


def player_hook(game: Game, url: str, kind: str = Hook.Kind.DISCORD, notices: Any = None) -> Hook:
    player = game.seats.get(number=0).player
    return Hook.objects.create(
        name="Alerts", kind=kind, url=url, player=player, notices=notices or [n.value for n in Notice]
    )


def test_a_failing_receiver_is_retried_with_a_growing_pause_then_the_hook_is_off_and_its_owner_told(
    make_game, receiver, caplog
):
    caplog.set_level(logging.DEBUG)
    game = make_game(humans=3)
    hook = player_hook(game, receiver.url("/api/webhooks/9/SECRET-TOKEN"))
    receiver.answers = [500, 503, 502, 500, 500]
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        client = signed_in()
        client.post(reverse("hooks-test", args=[hook.pk]))  # one delivery: sent at once, answered 500
    row = Delivery.objects.get()
    assert (row.status, row.attempts, row.status_code) == (MailStatus.PENDING, 1, 500)
    assert row.next_try_at == start + timedelta(minutes=1) and row.error == "the receiver answered 500"
    pauses = [timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2)]
    at = start
    for attempt, pause in enumerate(pauses, start=2):
        # Not before its time: a sweep a little earlier leaves it waiting.
        with time_machine.travel(at + pause - timedelta(seconds=5), tick=False):
            sweep.run()
        assert len(receiver.received) == attempt - 1
        at += pause
        with time_machine.travel(at + timedelta(seconds=1), tick=False):
            sweep.run()  # the sweep wakes the sender (the task published for then may have been lost)
        assert len(receiver.received) == attempt
        at += timedelta(seconds=1)
    row.refresh_from_db()
    hook.refresh_from_db()
    assert (row.status, row.attempts) == (MailStatus.FAILED, 5)
    assert not hook.enabled and "5 attempts to deliver failed" in hook.disabled_reason
    told = [m for m in mail.outbox if "webhook Alerts is off" in m.subject]
    assert len(told) == 1 and told[0].to == [hook.player.email]
    assert "hooks.test" in told[0].body and "SECRET-TOKEN" not in told[0].body
    assert "https://pbem.example/me/" in told[0].body
    # Off: news is no longer written for it, and the sweep does not retry the failed row.
    with time_machine.travel(at + timedelta(hours=3), tick=False):
        play_phase(Game.objects.get(pk=game.pk))
        sweep.run()
    assert Delivery.objects.count() == 1 and len(receiver.received) == 5
    # Its owner turns it on again from My games: the next news reaches it.
    client.post(reverse("hooks-enable", args=[hook.pk]))
    hook.refresh_from_db()
    assert hook.enabled and hook.disabled_reason == ""
    client.post(reverse("hooks-test", args=[hook.pk]))
    assert Delivery.objects.filter(status=MailStatus.SENT).count() == 1
    # Five failures were logged, by the delivery's and hook's ids: never the URL's path.
    failures = [r.getMessage() for r in caplog.records if "webhook delivery" in r.getMessage()]
    assert len(failures) == 5 and not [r for r in caplog.records if "SECRET-TOKEN" in r.getMessage()]


def test_each_send_checks_the_address_again_and_follows_no_redirect(make_game, receiver):
    game = make_game(humans=3)
    hook = player_hook(game, receiver.url())
    client = signed_in()
    # The name now answers a private address (DNS rebinding): nothing is sent, the row waits to retry.
    hooks_receiver.ANSWERS["hooks.test"] = ["10.1.1.1"]
    client.post(reverse("hooks-test", args=[hook.pk]))
    row = Delivery.objects.get()
    assert receiver.received == [] and row.status == MailStatus.PENDING
    assert "private network" in row.error and row.status_code is None
    Delivery.objects.all().delete()
    # A redirect to the metadata service: the one request made is the receiver's, and it counts as failed.
    hooks_receiver.ANSWERS["hooks.test"] = ["127.0.0.1"]
    receiver.answers = [(302, {"Location": "https://169.254.169.254/latest/meta-data/"})]
    client.post(reverse("hooks-test", args=[hook.pk]))
    row = Delivery.objects.get()
    assert len(receiver.received) == 1 and row.status == MailStatus.PENDING and row.status_code == 302
    assert "follow no redirects" in row.error


def test_a_certificate_for_another_name_is_refused(make_game, settings, tmp_path):
    # The connection goes to the checked address, and TLS checks the certificate against the URL's name.
    for other, ca_file in hooks_receiver.serve(tmp_path, names=("elsewhere.test",)):
        hooks_receiver.point_hooks_at(settings, ca_file)
        game = make_game(humans=3)
        hook = player_hook(game, other.url())
        deliver_test = signed_in()
        deliver_test.post(reverse("hooks-test", args=[hook.pk]))
        row = Delivery.objects.get()
        assert other.received == [] and "certificate could not be verified" in row.error


def test_each_kind_gets_its_own_shape(make_game, receiver):
    game = make_game(humans=3)
    kinds = [Hook.Kind.SLACK, Hook.Kind.MATRIX, Hook.Kind.NTFY]
    hooks = {kind: player_hook(game, receiver.url(f"/{kind}-topic"), kind=kind) for kind in kinds}
    Game.objects.filter(pk=game.pk).update(title="<!channel> & Co")
    client = signed_in()
    for kind in kinds:
        client.post(reverse("hooks-test", args=[hooks[kind].pk]))
    slack, matrix, ntfy = receiver.received
    assert slack.path == "/slack-topic" and json.loads(slack.body) == {
        "text": "A test from pbem: webhook Alerts works.\n<https://pbem.example/me/|pbem>"
    }
    assert json.loads(matrix.body)["html"].startswith("<b>A test from pbem")
    assert ntfy.path == "/" and json.loads(ntfy.body)["topic"] == "ntfy-topic"
    assert json.loads(ntfy.body)["click"] == "https://pbem.example/me/"
    assert all(item.headers["content-type"] == "application/json" for item in receiver.received)


@pytest.mark.parametrize(
    ("path", "root", "topic"),
    [("/alerts", "/", "alerts"), ("/ntfy/alerts/", "/ntfy/", "alerts"), ("/a/b/c", "/a/b/", "c")],
)
def test_ntfy_is_published_to_its_servers_root_also_under_a_path(path: str, root: str, topic: str) -> None:
    hook = Hook(name="n", kind=Hook.Kind.NTFY, url=f"https://ntfy.example{path}")
    notice = {"headline": "Your turn", "lines": [], "game": {"url": "https://pbem.example/g/1/", "title": "G"}}
    shaped = shapes.shape(hook, notice, 1, timezone.now())
    assert shaped.path == root and json.loads(shaped.body)["topic"] == topic


def test_a_resolution_does_not_wait_for_a_receiver_that_is_down(make_game, settings, tmp_path):
    for down, ca_file in hooks_receiver.serve(tmp_path):
        hooks_receiver.point_hooks_at(settings, ca_file)
        port = down.port
    # The receiver has stopped: its port refuses connections.
    game = make_game(humans=3)
    player_hook(game, f"https://hooks.test:{port}/x")
    played = play_phase(game)
    assert played.status == Phase.Status.RESOLVED and Phase.objects.filter(game=game, number=2).exists()
    rows = list(Delivery.objects.all())
    assert rows and all(r.status == MailStatus.PENDING and "could not connect" in r.error for r in rows)


def most_in_any(window: float, times: list[float]) -> int:
    return max(sum(1 for later in times if start <= later < start + window) for start in times)


def test_a_discord_hook_is_paced_under_its_limit_whatever_the_news_at_once(make_game, receiver):
    """Discord allows a webhook 5 posts in 2 s: 8 notices written at once arrive, none refused, at most 5 in any
    2 s (11 in 2 s was seen before the pace)."""
    game = make_game(humans=3)
    hook = player_hook(game, receiver.url("/api/webhooks/9/TOKEN"))
    with transaction.atomic():
        for _ in range(8):
            notices.write([hook], {hook.pk: notices.test_notice(hook)})
    assert Delivery.objects.filter(status=MailStatus.SENT).count() == 8
    times = [item.at for item in receiver.received]
    assert len(times) == 8 and most_in_any(2.0, times) <= 5
    assert set(Delivery.objects.values_list("attempts", flat=True)) == {1}


def test_a_429_is_obeyed_for_the_whole_hook_and_costs_no_attempt(make_game, receiver):
    game = make_game(humans=3)
    hook = player_hook(game, receiver.url("/hook"), kind=Hook.Kind.SLACK)
    receiver.answers = [(429, {"Retry-After": "30"})]
    start = timezone.now()
    with time_machine.travel(start, tick=False), transaction.atomic():
        notices.write([hook], {hook.pk: notices.test_notice(hook)})
        notices.write([hook], {hook.pk: notices.test_notice(hook)})
    assert len(receiver.received) == 1  # the second waits with the first
    rows = list(Delivery.objects.order_by("pk"))
    assert [(row.status, row.attempts) for row in rows] == [(MailStatus.PENDING, 0)] * 2
    assert rows[0].next_try_at == start + timedelta(seconds=30) and rows[0].status_code == 429
    assert all(row.next_try_at >= start + timedelta(seconds=30) for row in rows)
    # The sender runs again when the call published for then arrives (inline here: called as the worker would)
    with time_machine.travel(start + timedelta(seconds=25), tick=False):
        deliver.send_due()
    assert len(receiver.received) == 1, "nothing before the receiver's time"
    with time_machine.travel(start + timedelta(seconds=31), tick=False):
        deliver.send_due()
    assert len(receiver.received) == 3
    assert [(row.status, row.attempts) for row in Delivery.objects.order_by("pk")] == [(MailStatus.SENT, 1)] * 2
    hook.refresh_from_db()
    assert hook.enabled


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("12", 12.0),
        ("0.3", 1.0),
        ("999999", 3600.0),
        ("soon", None),
        (None, None),
        ("Wed, 21 Oct 2026 07:28:30 GMT", 30),
    ],
)
def test_retry_after_is_read_as_seconds_or_a_date_within_bounds(header, seconds):
    now = timezone.make_aware(datetime(2026, 10, 21, 7, 28), UTC)
    assert pace.retry_after(header, now) == seconds


def test_the_sweep_wakes_a_retry_whose_own_time_has_come_when_its_task_was_lost(make_game, receiver):
    """A delivery put back for less than a minute (a receiver's Retry-After of 30 s, or its pace) whose published
    call is lost: the next sweep after its time sends it, not only a sweep a minute after its last attempt."""
    game = make_game(humans=3)
    hook = player_hook(game, receiver.url("/hook"), kind=Hook.Kind.SLACK)
    receiver.answers = [(429, {"Retry-After": "30"})]
    start = timezone.now()
    with time_machine.travel(start, tick=False), transaction.atomic():
        notices.write([hook], {hook.pk: notices.test_notice(hook)})
    assert Delivery.objects.get().status == MailStatus.PENDING
    later = start + timedelta(seconds=31)
    with time_machine.travel(later, tick=False):
        sweep.run(later)  # the call published for start + 30 s never arrived
    assert len(receiver.received) == 2
    assert Delivery.objects.get().status == MailStatus.SENT
    with time_machine.travel(later + timedelta(seconds=1), tick=False):
        sweep.run(later + timedelta(seconds=1))  # woken once: a sent row is not sent again
    assert len(receiver.received) == 2
