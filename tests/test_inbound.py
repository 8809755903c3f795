"""Orders by email reply: real Postmark inbound payloads posted to anymail's webhook."""

from __future__ import annotations

import base64
import re

import pytest
from django.core import mail

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
