"""Bounces and complaints through anymail's tracking webhooks, as Postmark, SendGrid and Mailgun post them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from games.leagues.models import Membership, Substitution
from games.models import Game, Order, OutboundEmail, Player, Seat
from games.outgoing import emails
from games.play import orders, organise, turns
from tests.support.accounts import emailed_sign_in_link
from tests.support.leagues import first_game, make_league, owed_turns_of, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()
MAILGUN_KEY = "mailgun-signing-key"


@pytest.fixture(autouse=True)
def webhooks_on(settings: Any) -> None:
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret", "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}


def postmark(record: str, kind: str, email: str) -> tuple[str, Any]:
    """Postmark's bounce and spam-complaint webhook body (its documented fields)."""
    return "/anymail/postmark/tracking/", {
        "RecordType": record,
        "MessageStream": "outbound",
        "ID": 4323372036854775807,
        "Type": kind,
        "TypeCode": 1 if kind == "HardBounce" else 4096 if kind == "SoftBounce" else 512,
        "Name": kind,
        "Tag": "turn-started",
        "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
        "Metadata": {"game": "1"},
        "ServerID": 23,
        "Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
        "Details": "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
        "Email": email,
        "From": "turns@pbem.example",
        "BouncedAt": "2026-12-04T02:00:00Z",
        "DumpAvailable": False,
        "Inactive": kind == "HardBounce",
        "CanActivate": True,
        "Subject": "Your turn",
    }


def sendgrid(event: str, email: str, **more: Any) -> tuple[str, Any]:
    """SendGrid's event webhook: a JSON array of events."""
    body = {
        "email": email,
        "timestamp": 1764813600,
        "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>",
        "event": event,
        "category": ["turn-started"],
        "sg_event_id": f"sg-{event}-{email}",
        "sg_message_id": "14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0",
        **more,
    }
    return "/anymail/sendgrid/tracking/", [body]


def mailgun(event: str, email: str, severity: str = "permanent") -> tuple[str, Any]:
    """Mailgun's webhook (its JSON form), signed with the webhook signing key."""
    timestamp, token = str(int(time.time())), f"token-{event}-{severity}-{email}"
    signature = hmac.new(MAILGUN_KEY.encode(), (timestamp + token).encode(), hashlib.sha256).hexdigest()
    return "/anymail/mailgun/tracking/", {
        "signature": {"timestamp": timestamp, "token": token, "signature": signature},
        "event-data": {
            "event": event,
            "severity": severity,
            "reason": "bounce" if severity == "permanent" else "generic",
            "recipient": email,
            "timestamp": 1764813600.0,
            "id": "G9Bn5sl1TC6nu79C8C0bwg",
            "delivery-status": {"code": 550 if severity == "permanent" else 421, "message": "No such user"},
            "message": {"headers": {"message-id": "20261204020000.1.ABC@pbem.example", "to": email}},
            "user-variables": {"game": "1"},
        },
    }


def post(hook: tuple[str, Any], auth: str = AUTH) -> int:
    url, body = hook
    return Client().post(url, json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=auth).status_code


def problem(email: str) -> str:
    return Player.objects.get(email=email).mail_problem


@pytest.mark.parametrize(
    "hook",
    [
        postmark("Bounce", "HardBounce", "player1@example.com"),
        sendgrid("bounce", "player1@example.com", reason="550 5.1.1 No such user", status="5.1.1", type="bounce"),
        sendgrid("dropped", "player1@example.com", reason="Bounced Address", status="5.0.0"),
        mailgun("failed", "player1@example.com"),
    ],
    ids=["postmark-hard-bounce", "sendgrid-bounce", "sendgrid-dropped-bounced-address", "mailgun-failed-permanent"],
)
def test_a_hard_bounce_marks_the_address_and_its_seat_plays_its_default_orders(make_game, hook):
    game = make_game(humans=3)
    assert post(hook) == 200
    ann = Player.objects.get(email="player1@example.com")
    assert ann.mail_problem == "bounced" and ann.mail_problem_at is not None and ann.mail_problem_detail
    # Her owed order was played at once, as a missed deadline would have it, and counts as one.
    first = game.phases.get(number=1)
    assert Order.objects.get(phase=first, seat__number=0).is_default
    mail.outbox.clear()
    others = [s for s in game.seats.exclude(number=0)]
    for _ in range(6):
        phase = open_phase(game)
        for seat in others:
            if phase.prompt_for(seat.number) is not None:
                orders.submit_order(seat, phase.number, turns.engine_of(game).default_order(game.state, seat.number))
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED or open_phase(game).number == phase.number:
            break
    assert not [m for m in mail.outbox if m.to == ["player1@example.com"]]  # nothing more is sent to it
    assert not Order.objects.filter(seat__number=0, is_default=False).exists()
    assert Order.objects.filter(seat__number=0, is_default=True).count() >= 1


@pytest.mark.parametrize(
    "hook",
    [
        postmark("Bounce", "SoftBounce", "player1@example.com"),
        sendgrid("bounce", "player1@example.com", reason="421 4.7.0 Try again later", status="4.7.0", type="blocked"),
        mailgun("failed", "player1@example.com", severity="temporary"),
        sendgrid("delivered", "player1@example.com", response="250 OK"),
    ],
    ids=["postmark-soft-bounce", "sendgrid-blocked", "mailgun-temporary", "sendgrid-delivered"],
)
def test_soft_bounces_and_deliveries_mark_nothing(make_game, hook):
    make_game(humans=3)
    assert post(hook) == 200
    assert problem("player1@example.com") == ""


@pytest.mark.parametrize(
    "hook",
    [
        postmark("SpamComplaint", "SpamComplaint", "player2@example.com"),
        sendgrid("spamreport", "player2@example.com"),
        mailgun("complained", "player2@example.com"),
    ],
    ids=["postmark", "sendgrid", "mailgun"],
)
def test_a_complaint_stops_everything_but_the_owed_order_email(make_game, hook):
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)
    assert post(hook) == 200
    assert problem("player2@example.com") == "complained"
    mail.outbox.clear()
    phase = open_phase(game)  # seat 1 sells: the others are not asked next, so hear the phase's news
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    for _ in range(300):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        organise.resolve_now(game)
    to_bea = {m.anymail_test_params["tags"][0] for m in mail.outbox if m.to == ["player2@example.com"]}
    to_others = {m.anymail_test_params["tags"][0] for m in mail.outbox if m.to != ["player2@example.com"]}
    assert to_bea == {"turn-started"}  # no news, no game over: only what asks for her order
    assert {"phase-resolved", "game-over"} <= to_others


def test_a_wrong_webhook_secret_marks_nothing(make_game):
    make_game(humans=3)
    wrong = "Basic " + base64.b64encode(b"hook:guess").decode()
    assert post(postmark("Bounce", "HardBounce", "player1@example.com"), auth=wrong) in (400, 401, 403)
    assert post(mailgun("failed", "player1@example.com"), auth=wrong) in (400, 401, 403)
    assert problem("player1@example.com") == ""


def test_pending_emails_to_an_address_that_bounced_are_skipped(make_game):
    game = make_game(humans=3)
    OutboundEmail.objects.filter(game=game).update(status="pending")
    post(postmark("Bounce", "HardBounce", "player3@example.com"))
    post(postmark("SpamComplaint", "SpamComplaint", "player2@example.com"))
    emails.send_pending(game.pk)
    statuses = dict(OutboundEmail.objects.filter(game=game, phase__number=1).values_list("to", "status"))
    assert statuses["player3@example.com"] == "skipped" and statuses["player2@example.com"] == "sent"


def test_the_player_is_asked_to_fix_it_and_confirming_it_sends_mail_again(client, make_game):
    game = make_game(humans=3)
    link = next(m for m in mail.outbox if m.to == ["player1@example.com"]).body.split("https://pbem.example")[1]
    link = link.split()[0]
    post(postmark("Bounce", "HardBounce", "player1@example.com"))
    page = client.get(link, follow=True)
    assert b"Our emails to player1@example.com bounce" in page.content
    client.post(emailed_sign_in_link(client, "player1@example.com"))  # sent: she asked for it
    assert problem("player1@example.com") == ""  # the link reached her: the address works
    post(postmark("SpamComplaint", "SpamComplaint", "player1@example.com"))
    mine = client.get("/me/")
    assert b"You marked our email as spam" in mine.content and mine.context["address_form"] is not None
    taken = client.post("/me/", {"address": "player2@example.com"}, follow=True)
    assert b"cannot be used here" in taken.content and problem("player1@example.com") == "complained"
    client.post("/me/", {"address": "ann@new.example"})  # used once she opens the link sent to it
    assert problem("player1@example.com") == "complained"
    link = re.search(r"https://pbem\.example(/me/address/\S+/)", str(mail.outbox[-1].body))
    assert link is not None and mail.outbox[-1].to == ["ann@new.example"]
    client.post(link.group(1))
    ann = Player.objects.get(pk=Seat.objects.get(game=game, number=0).player_id)
    assert (ann.email, ann.mail_problem) == ("ann@new.example", "")


def test_the_organiser_sees_and_clears_the_mark_in_the_admin(client, make_game):
    make_game(humans=3)
    post(postmark("Bounce", "HardBounce", "player1@example.com"))
    client.force_login(get_user_model().objects.create_superuser("org", "org@example.com", "pw"))
    listed = client.get("/admin/games/player/?mail_problem__exact=bounced")
    assert listed.status_code == 200 and b"player1@example.com" in listed.content
    assert b"player2@example.com" not in listed.content
    ann = Player.objects.get(email="player1@example.com")
    client.post("/admin/games/player/", {"action": "address_works", "_selected_action": [ann.pk]})
    assert problem("player1@example.com") == ""


def test_in_a_league_a_dead_address_misses_its_turns_and_the_substitute_rules_apply():
    league = make_league(players=4, standby=1, grace=timedelta(0), substitute_after=2)
    game = first_game(started_round(league))
    holder = Seat.objects.get(game=game, number=3).player
    assert holder is not None
    assert post(postmark("Bounce", "HardBounce", holder.email)) == 200
    owed_turns_of(game, 3, [True, True])  # the others play; seat 4 plays its defaults by itself
    assert Substitution.objects.filter(table__game=game, seat_number=3).exists()
    assert Membership.objects.get(league=league, player=holder).status == Membership.Status.INACTIVE
