"""Orders by email reply: real Postmark inbound payloads posted to anymail's webhook."""

from __future__ import annotations

import json
import logging
import re

import pytest
from anymail.webhooks.mailgun import MailgunTrackingWebhookView
from anymail.webhooks.postmark import PostmarkInboundWebhookView, PostmarkTrackingWebhookView
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import resolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.incoming.mail.webhooks import ReadableInbound
from games.models import Game, Order, OutboundEmail
from games.play import orders, organise
from tests.support.inbound import (
    AUTH,
    MAILGUN_KEY,
    WEBHOOK,
    mailgun_fields,
    post,
    postmark_payload,
    reply_to_of,
    sendgrid_fields,
)
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    cache.clear()  # the owner's notices of refused replies are capped through the cache


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
    assert "No order found in your reply" in mail.outbox[0].body
    assert "\n  role: seller\n" in mail.outbox[0].body  # the turn email's example: a legal order now


def test_a_forged_reply_address_is_ignored(client, make_game):
    make_game(humans=3)
    row = OutboundEmail.objects.filter(seat__number=0).first()
    mail.outbox.clear()
    post(client, postmark_payload(f"turns+{row.pk}-0123456789abcdef@in.pbem.example", "role: seller"))
    assert not Order.objects.exists() and not mail.outbox


def test_a_reply_after_the_seat_changed_hands_is_ignored(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    organise.replace_player(game.seats.get(number=0), "newcomer@example.com")
    post(client, postmark_payload(address, "role: seller"))
    assert not Order.objects.exists()


def test_a_reply_to_a_resolved_turn_is_refused(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    organise.resolve_now(game)
    mail.outbox.clear()
    post(client, postmark_payload(address, "role: seller"))
    assert not Order.objects.filter(is_default=False).exists()
    # Nothing stands to be told of: the turn is gone. The turn open now is named, with the link to order in it.
    body = mail.outbox[0].body
    assert body.startswith("That turn (Day 1 — planning) is over, so your reply was not used. The turn open now is ")
    now = open_phase(game)
    assert f"is {now.name}, and it asks you for an order: reply to its own email, or order at http" in body


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
    caplog.set_level(logging.INFO, logger="games.incoming.mail.inbound")
    refused(client, postmark_payload(address, "role: seller", sender="mallory@evil.example"), game)
    [notice] = mail.outbox
    assert "evil.example" in notice.body and "mallory" not in notice.body and "role" not in notice.body
    [line] = [r.getMessage() for r in caplog.records if r.name == "games.incoming.mail.inbound"]
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


@pytest.fixture
def mailgun_on(settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}


def post_form(client, url: str, fields: dict):
    return client.post(url, fields, HTTP_AUTHORIZATION=AUTH)


@pytest.mark.usefixtures("mailgun_on")
@pytest.mark.parametrize(
    ("url", "fields"), [("/anymail/mailgun/inbound/", mailgun_fields), ("/anymail/sendgrid/inbound/", sendgrid_fields)]
)
def test_other_providers_deliver_a_reply_but_not_one_from_another_sender(client, make_game, url, fields):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    assert post_form(client, url, fields(address, "role: buyer", sender="mallory@evil.example")).status_code == 200
    assert not Order.objects.exists()
    assert post_form(client, url, fields(address, "role: buyer")).status_code == 200
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "buyer"}


# --- Malformed payloads with a valid secret: 400 if unreadable, 200 if read and refused, never 500 -------------------

BROKEN_MIME = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="zz"\nFrom: =?x-bogus?q?=FF?= <\n\n--zz\nContent-Type: text/plain; charset=x-no-such-charset\nContent-Transfer-Encoding: base64\n\n@@@not base64\n'  # noqa: E501
HUGE = "x" * 200_000


def postmark_shapes(to: str) -> list[tuple[str, object]]:
    """(name, body): the body is posted as JSON if it is not already bytes."""

    def changed(**fields: object) -> dict:
        payload = postmark_payload(to, "role: pirate")
        payload.update(fields)
        return payload

    return [
        ("broken JSON", b'{"From": "player1@example.com", "To": '),
        ("a JSON list", b"[]"),
        ("a JSON string", b'"hello"'),
        ("JSON null", b"null"),
        ("an empty body", b""),
        ("bytes that are not UTF-8", b"\xff\xfe{\x00}"),
        ("a number as the original recipient", changed(OriginalRecipient=12345)),
        ("a list as the original recipient", changed(OriginalRecipient=[to])),
        ("a number as the only recipient", changed(OriginalRecipient=12345, ToFull=[], To="")),
        ("ToFull as a string", changed(ToFull=to)),
        ("ToFull as a list of strings", changed(ToFull=[to])),
        ("ToFull with a number as the address", changed(ToFull=[{"Email": 7, "Name": ""}])),
        ("FromFull as a string", changed(FromFull="player1@example.com")),
        ("FromFull with two at signs", changed(FromFull={"Email": "player1@example.com@evil.example", "Name": ""})),
        ("Headers as a dict", changed(Headers={"X-Spam-Status": "No"})),
        ("a header without a name", changed(Headers=[{"Value": "No"}])),
        ("a header with a number as its value", changed(Headers=[{"Name": "X-Spam-Score", "Value": 5}])),
        ("a header that injects another", changed(Headers=[{"Name": "Subject", "Value": "a\r\nBcc: x@y.example"}])),
        ("an attachment without content", changed(Attachments=[{"Name": "a.txt", "ContentType": "text/plain"}])),
        ("an attachment that is not base64", changed(Attachments=[{"ContentType": "text/plain", "Content": "@@"}])),
        ("TextBody as a dict", changed(TextBody={"role": "seller"})),
        ("StrippedTextReply as a number", changed(StrippedTextReply=42)),
        ("Subject as a list", changed(Subject=["Re:", "turn"])),
        ("a 200 KB subject", changed(Subject=HUGE)),
        ("broken RawEmail MIME", changed(RawEmail=BROKEN_MIME)),
        ("RawEmail as a number", changed(RawEmail=3)),
        ("a tracking record type", changed(RecordType="Delivery")),
        ("a huge row id in the address", changed(OriginalRecipient=f"turns+{'9' * 40}-{'a' * 16}@in.pbem.example")),
    ]


def mailgun_shapes(to: str) -> list[tuple[str, dict]]:
    def changed(**fields):
        return mailgun_fields(to, "role: pirate", **fields)

    return [
        ("no message headers", changed(**{"message-headers": None})),
        ("broken JSON message headers", changed(**{"message-headers": '[["From", '})),
        ("message headers as a JSON dict", changed(**{"message-headers": '{"From": "x"}'})),
        ("message headers that are not pairs", changed(**{"message-headers": '[["From"], 3, null]'})),
        ("a timestamp that is not a number", changed(timestamp="yesterday")),
        ("an attachment count that is not a number", changed(**{"attachment-count": "many"})),
        ("broken JSON content-id map", changed(**{"attachment-count": "1", "content-id-map": "{"})),
        ("a tracking event", changed(event="delivered")),
        ("broken body-mime", changed(**{"body-mime": BROKEN_MIME})),
        ("a 200 KB header", changed(**{"message-headers": json.dumps([["From", "player1@example.com"], ["X", HUGE]])})),
        ("a recipient that is not an address", changed(recipient="@@@")),
        ("a From header with two at signs", changed(**{"message-headers": '[["From", "a@b@c"], ["To", "x"]]'})),
    ]


def sendgrid_shapes(to: str) -> list[tuple[str, dict]]:
    def changed(**fields):
        return sendgrid_fields(to, "role: pirate", **fields)

    return [
        ("neither headers nor raw email", changed(headers=None)),
        ("broken raw email", changed(headers=None, email=BROKEN_MIME)),
        ("an envelope without a recipient", changed(envelope='{"from": "player1@example.com"}')),
        ("an envelope that is a list", changed(envelope="[1, 2]")),
        ("an envelope recipient that is a number", changed(envelope='{"to": [5], "from": "x"}')),
        ("a number as the only recipient", changed(envelope='{"to": [5], "from": "x"}', headers="From: x@y.example\n")),
        ("charsets that are a list", changed(charsets="[]")),
        ("an unknown charset", changed(charsets='{"text": "x-no-such-charset"}')),
        ("attachment info that is a list", changed(**{"attachment-info": "[1]"})),
        ("headers without colons and a 200 KB line", changed(headers=f"garbage\n{HUGE}\n")),
        ("a To header with two at signs", changed(headers="From: player1@example.com\nTo: a@b@c\n")),
    ]


def test_inbound_routes_are_served_by_readable_wrappers_and_tracking_routes_by_anymail():
    inbound = resolve("/anymail/postmark/inbound/").func.view_class
    assert issubclass(inbound, ReadableInbound) and issubclass(inbound, PostmarkInboundWebhookView)
    for url in ("/anymail/mailgun/inbound/", "/anymail/mailgun/inbound_mime/", "/anymail/sendgrid/inbound/"):
        assert issubclass(resolve(url).func.view_class, ReadableInbound)
    assert resolve("/anymail/postmark/tracking/").func.view_class is PostmarkTrackingWebhookView
    assert resolve("/anymail/mailgun/tracking/").func.view_class is MailgunTrackingWebhookView


@pytest.mark.usefixtures("mailgun_on")
def test_a_mailgun_reply_with_a_wrong_signature_keeps_anymails_refusal(client, make_game):
    make_game(humans=3)
    fields = mailgun_fields(reply_to_of("player1@example.com"), "role: buyer", signature="0" * 64)
    assert post_form(client, "/anymail/mailgun/inbound/", fields).status_code == 400
    assert not Order.objects.exists()


def malformed_posts(client, address: str) -> list[tuple[str, int]]:
    answers = []
    for name, body in postmark_shapes(address):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = client.post(WEBHOOK, raw, content_type="application/json", HTTP_AUTHORIZATION=AUTH)
        answers.append((f"Postmark: {name}", response.status_code))
    for url, shapes in [("/anymail/mailgun/inbound/", mailgun_shapes), ("/anymail/sendgrid/inbound/", sendgrid_shapes)]:
        for name, fields in shapes(address):
            answers.append((f"{url.split('/')[2]}: {name}", post_form(client, url, fields).status_code))
    broken = b'--zz\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc'
    for url in ("/anymail/mailgun/inbound/", "/anymail/sendgrid/inbound/"):
        response = client.post(url, broken, content_type="multipart/form-data; boundary=zz", HTTP_AUTHORIZATION=AUTH)
        answers.append((f"{url.split('/')[2]}: a multipart body cut short", response.status_code))
    return answers


@pytest.mark.usefixtures("mailgun_on")
def test_malformed_payloads_are_answered_400_or_200_and_store_nothing(make_game, caplog):
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    client = Client(raise_request_exception=False)
    answers = malformed_posts(client, address)
    assert len(answers) >= 40
    # Unreadable is 400, but 406 to Mailgun: the only answer that stops its retries.
    unreadable = {"Postmark": 400, "mailgun": 406, "sendgrid": 400}
    wrong = [(name, code) for name, code in answers if code not in (200, unreadable[name.split(":")[0]])]
    assert wrong == [("mailgun: a multipart body cut short", 400)]  # anymail's own refusal, below
    assert any(code == 406 for name, code in answers if name.startswith("mailgun"))
    assert not Order.objects.exists()
    # The secret was right every time: anymail refused as unauthenticated only the Mailgun body cut short
    # before its signature fields.
    unauthenticated = [r for r in caplog.records if r.name == "django.security.AnymailWebhookValidationFailure"]
    assert [r.getMessage().splitlines()[0] for r in unauthenticated] == [
        "Mailgun webhook called without required security fields"
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
POSTMARK_FIELDS = list(postmark_payload("turns@in.pbem.example", "").keys()) + ["RawEmail", "RecordType"]


@given(changes=st.dictionaries(st.sampled_from(POSTMARK_FIELDS), json_values, min_size=1, max_size=4))
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_postmark_fields_of_any_json_type_are_answered_400_or_200(make_game, changes):
    if not Game.objects.exists():
        make_game(humans=3)
    address = reply_to_of("player1@example.com")
    payload = {**postmark_payload(address, "role: pirate"), **changes}
    client = Client(raise_request_exception=False)
    response = client.post(WEBHOOK, payload, content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    assert response.status_code in (200, 400), changes
    assert not Order.objects.exists()


def test_the_receipt_reads_the_stored_order_back_in_the_engines_words(client, make_game):
    """The same words as the game page (Engine.read_back), not the form's labels."""
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    post(client, postmark_payload(address, "role: seller"))
    body = mail.outbox[0].body
    assert "We read your reply as:\n  You will sell your own goods today.\n" in body
    assert "Today I will: Sell my own goods" not in body


def test_a_one_seat_reply_is_read_back_with_its_warnings_and_says_the_turn_has_been_resolved(client, make_game):
    game = make_game(humans=2, engine="phoenician", seed=3)
    for _ in range(2):  # both ships choose where they start
        phase = open_phase(game)
        (seat,) = phase.prompts
        centre = phase.prompt_for(int(seat))["fields"][0]["choices"][0]["value"]
        orders.submit_order(game.seats.get(number=int(seat)), phase.number, {"centre": centre})
    (seat,) = open_phase(game).prompts
    player = game.seats.get(number=int(seat)).player.email
    address = [m for m in mail.outbox if m.to == [player]][-1].reply_to[0]  # this turn's email
    mail.outbox.clear()
    post(client, postmark_payload(address, "steps: pass", sender=player))
    receipt = next(m for m in mail.outbox if m.to == [player] and m.subject.startswith("Re:")).body
    assert (
        "We read your reply as:\n  You will end your turn without a move.\n  Note: You do nothing this turn" in receipt
    )
    # Written in the transaction that stored the order, before the resolution it wakes after commit.
    assert "Every order is in: the turn is being resolved." in receipt


def test_an_order_written_into_the_quoted_email_is_named_in_the_receipt(client, make_game):
    """Issue 37: the true reason. The player changed the quoted example in place, under the attribution: nothing
    is read, and the receipt quotes the line it found there (not the example, not the email's own help)."""
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    quote = "On Wed, 2 Dec 2026 at 17:40, pbem <turns@pbem.example> wrote:\n> Hello\n> role: buyer\n> Bye"
    post(client, postmark_payload(address, f"Done, see below.\n\n{quote}"))
    assert not Order.objects.filter(is_default=False).exists()
    body = mail.outbox[0].body
    assert body.startswith("No order found above the quoted email. These lines are in the quoted part")
    assert "\n  role: buyer\n" in body
