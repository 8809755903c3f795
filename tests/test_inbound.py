"""Orders by email reply: real Postmark inbound payloads posted to anymail's webhook."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re

import pytest
from django.core import mail
from django.core.cache import cache

from games import turns
from games.models import Order, OutboundEmail
from tests.conftest import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
WEBHOOK = "/anymail/postmark/inbound/"
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    cache.clear()  # the owner's notices of refused replies are capped through the cache


def postmark_payload(to: str, text: str, sender: str = "player1@example.com") -> dict:
    """The shape Postmark posts for an inbound email (trimmed to the fields anymail reads)."""
    return {
        "FromName": "Player 1",
        "MessageStream": "inbound",
        "From": sender,
        "FromFull": {"Email": sender, "Name": "Player 1", "MailboxHash": ""},
        "To": to,
        "ToFull": [{"Email": to, "Name": "", "MailboxHash": to.split("+")[1].split("@")[0] if "+" in to else ""}],
        "CcFull": [],
        "BccFull": [],
        "OriginalRecipient": to,
        "Subject": "Re: your turn",
        "MessageID": "73e6d360-66eb-11e1-8e72-a8904824019b",
        "ReplyTo": "",
        "MailboxHash": "",
        "Date": "Wed, 2 Dec 2026 17:40:00 +0000",
        "TextBody": text,
        "HtmlBody": "",
        "StrippedTextReply": "",
        "Tag": "",
        "Headers": [{"Name": "X-Spam-Status", "Value": "No"}],
        "Attachments": [],
    }


def reply_to_of(seat_email: str) -> str:
    message = next(m for m in mail.outbox if m.to == [seat_email])
    assert message.reply_to, "turn emails offer a reply address when replies are on"
    return message.reply_to[0]


def post(client, payload):
    return client.post(WEBHOOK, payload, content_type="application/json", HTTP_AUTHORIZATION=AUTH)


def test_a_turn_email_invites_a_reply_with_a_signed_address(make_game):
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    assert re.fullmatch(r"turns\+\d+-[0-9a-f]{16}@in\.pbem\.example", address)
    assert "Or reply to this email" in mail.outbox[0].body


def test_a_reply_stores_the_order_and_sends_a_receipt(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    text = "role: seller\n\nthanks!\n\nOn Wed, 2 Dec 2026 pbem wrote:\n> role: buyer\n"
    assert post(client, postmark_payload(address, text)).status_code == 200
    order = Order.objects.get(phase=open_phase(game), seat__number=0)
    assert order.data == {"role": "seller"}
    assert [m.to for m in mail.outbox] == [["player1@example.com"]]
    assert "stored and sealed" in mail.outbox[0].body


def test_a_reply_may_use_the_labels_the_email_shows(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    post(client, postmark_payload(address, "Today I will: Sell my own goods"))
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "seller"}


def test_an_illegal_reply_is_answered_with_the_reason_and_stores_nothing(client, make_game):
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    post(client, postmark_payload(address, "role: pirate"))
    assert not Order.objects.exists()
    assert "not stored" in mail.outbox[0].body


def test_a_reply_without_an_order_explains_the_format(client, make_game):
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    post(client, postmark_payload(address, "I will be away this week, sorry"))
    assert not Order.objects.exists()
    assert "role: ..." in mail.outbox[0].body


def test_a_forged_reply_address_is_ignored(client, make_game):
    make_game(humans=3)
    row = OutboundEmail.objects.filter(seat__number=0).first()
    mail.outbox.clear()
    post(client, postmark_payload(f"turns+{row.pk}-0123456789abcdef@in.pbem.example", "role: seller"))
    assert not Order.objects.exists() and not mail.outbox


def test_a_reply_after_the_seat_changed_hands_is_ignored(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    turns.replace_player(game.seats.get(number=0), "newcomer@example.com")
    post(client, postmark_payload(address, "role: seller"))
    assert not Order.objects.exists()


def test_a_reply_to_a_resolved_turn_is_refused(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    turns.resolve_now(game)
    mail.outbox.clear()
    post(client, postmark_payload(address, "role: seller"))
    assert not Order.objects.filter(is_default=False).exists()
    assert "is over" in mail.outbox[0].body


def test_the_webhook_refuses_a_caller_without_the_secret(client, make_game):
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    response = client.post(WEBHOOK, postmark_payload(address, "role: seller"), content_type="application/json")
    assert response.status_code in (400, 401, 403)
    assert not Order.objects.exists()


# --- The credential: the signed address at our domain, from the seat's own address ---------------------------------


def refused(client, payload, game) -> None:
    """Posted and answered 200 (read, then refused): nothing stored, nobody but maybe the seat's owner mailed."""
    mail.outbox.clear()
    assert post(client, payload).status_code == 200
    assert not Order.objects.filter(phase=open_phase(game)).exists()
    assert all(m.to == ["player1@example.com"] and "not used" in m.body for m in mail.outbox)


def test_a_reply_from_another_sender_stores_nothing_and_answers_only_the_seat_owner(client, make_game, caplog):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    caplog.set_level(logging.INFO, logger="games.inbound")
    refused(client, postmark_payload(address, "role: seller", sender="mallory@evil.example"), game)
    [notice] = mail.outbox
    assert "evil.example" in notice.body and "mallory" not in notice.body and "role" not in notice.body
    [line] = [r.getMessage() for r in caplog.records if r.name == "games.inbound"]
    assert "evil.example" in line and "mallory" not in line and "seller" not in line and address not in line


def test_a_forged_display_name_does_not_pass_for_the_seat_owner(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    payload = postmark_payload(address, "role: seller", sender="mallory@evil.example")
    payload["FromFull"]["Name"] = "player1@example.com"
    refused(client, payload, game)


def test_the_owner_is_told_once_however_often_a_stranger_replies(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    for _ in range(3):
        post(client, postmark_payload(address, "role: seller", sender="mallory@evil.example"))
    assert not Order.objects.filter(phase=open_phase(game)).exists()
    assert len([m for m in mail.outbox if "not used" in m.body]) == 1


def test_the_sender_is_compared_without_regard_to_case(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    post(client, postmark_payload(address, "role: seller", sender="Player1@EXAMPLE.com"))
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "seller"}


def test_a_reply_address_at_another_domain_is_refused(client, make_game):
    game = make_game(humans=3)
    local = reply_to_of("player1@example.com").partition("@")[0]
    refused(client, postmark_payload(f"{local}@evil.example", "role: seller"), game)
    assert not mail.outbox


def test_the_domain_of_the_reply_address_is_compared_without_regard_to_case(client, make_game):
    game = make_game(humans=3)
    local = reply_to_of("player1@example.com").partition("@")[0]
    post(client, postmark_payload(f"{local}@IN.pbem.Example", "role: seller"))
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "seller"}


def test_an_upper_cased_signature_is_refused(client, make_game):
    game = make_game(humans=3)
    local, _, domain = reply_to_of("player1@example.com").partition("@")
    refused(client, postmark_payload(f"{local.upper()}@{domain}", "role: seller"), game)
    assert not mail.outbox


def test_a_relay_that_lowercases_the_address_still_delivers_the_reply(client, make_game, settings):
    settings.PBEM_REPLY_ADDRESS = "Turns@in.pbem.example"
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    assert address.startswith("Turns+")
    post(client, postmark_payload(address.lower(), "role: seller"))
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "seller"}


def test_a_reply_the_provider_flags_as_spam_is_refused(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    payload = postmark_payload(address, "role: seller")
    payload["Headers"] = [{"Name": "X-Spam-Status", "Value": "Yes"}, {"Name": "X-Spam-Score", "Value": "7.5"}]
    refused(client, payload, game)
    assert [m.to for m in mail.outbox] == [["player1@example.com"]]
    assert "spam" in mail.outbox[0].body


def test_replies_are_refused_when_replies_are_turned_off(client, make_game, settings):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    settings.PBEM_REPLY_ADDRESS = ""
    refused(client, postmark_payload(address, "role: seller"), game)
    assert not mail.outbox


# --- Mailgun and SendGrid: the same reply through other providers' shapes --------------------------------------------


MAILGUN_KEY = "mailgun-signing-key"


def mailgun_fields(to: str, text: str, sender: str = "player1@example.com", **changes) -> dict:
    """A Mailgun route's forward() POST, fully parsed (form fields), signed as Mailgun signs it."""
    headers = [["From", f"Player 1 <{sender}>"], ["To", to], ["Subject", "Re: your turn"]]
    fields = {
        "recipient": to,
        "sender": sender,
        "from": f"Player 1 <{sender}>",
        "subject": "Re: your turn",
        "body-plain": text,
        "stripped-text": text,
        "message-headers": json.dumps(headers),
        "timestamp": "1764697200",
        "token": "a" * 50,
    }
    fields.update(changes)
    fields = {key: value for key, value in fields.items() if value is not None}
    message = f"{fields.get('timestamp', '')}{fields.get('token', '')}".encode()
    fields.setdefault("signature", hmac.new(MAILGUN_KEY.encode(), message, hashlib.sha256).hexdigest())
    return fields


def sendgrid_fields(to: str, text: str, sender: str = "player1@example.com", **changes) -> dict:
    """SendGrid's Inbound Parse POST (default, not raw), as multipart form fields."""
    fields = {
        "headers": f"From: Player 1 <{sender}>\nTo: {to}\nSubject: Re: your turn\n",
        "from": f"Player 1 <{sender}>",
        "to": to,
        "subject": "Re: your turn",
        "text": text,
        "envelope": json.dumps({"to": [to], "from": sender}),
        "charsets": json.dumps({"to": "UTF-8", "subject": "UTF-8", "from": "UTF-8", "text": "utf-8"}),
        "spam_score": "0.1",
    }
    fields.update(changes)
    return {key: value for key, value in fields.items() if value is not None}


@pytest.fixture
def mailgun_on(settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}


def post_form(client, url: str, fields: dict):
    return client.post(url, fields, HTTP_AUTHORIZATION=AUTH)


@pytest.mark.usefixtures("mailgun_on")
@pytest.mark.parametrize(("url", "fields"), [("/anymail/mailgun/inbound/", mailgun_fields),
                                             ("/anymail/sendgrid/inbound/", sendgrid_fields)])
def test_other_providers_deliver_a_reply_but_not_one_from_another_sender(client, make_game, url, fields):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    assert post_form(client, url, fields(address, "role: buyer", sender="mallory@evil.example")).status_code == 200
    assert not Order.objects.exists()
    assert post_form(client, url, fields(address, "role: buyer")).status_code == 200
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "buyer"}
