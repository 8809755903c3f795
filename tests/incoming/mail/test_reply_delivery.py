"""Issue 27: a reply is taken once, in the order it was written, whatever the providers do with it.

- The webhook answers 200 to a message it has read even when outgoing mail is down: the receipt waits in its
  outbox and the sweep sends it once the provider is back; the order was stored once.
- A provider delivering a message again (same Message-ID; the same bytes without one) has it taken once.
- A reply written before the order stored now (a retried older reply) does not replace it: the Date of the
  reply is compared with when the stored order was written (an email's Date, the page's arrival).
- Spam verdicts are read as each provider writes them.
- Receipts are in the game's thread under its own subject, and a refusal says what stands instead.
- A turn that is the seat's alone takes no reply that leaves a field out or gives one twice differently.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
from django.core import mail
from django.core.cache import cache
from django.utils import timezone

from games.models import Order, Player, ReadReply, Receipt
from games.outgoing import receipts
from games.outgoing.order_text import order_lines
from games.play import orders, sweep, turns
from tests.support.inbound import WEBHOOK, mailgun_fields, postmark_payload, reply_to_of, sendgrid_fields
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()
MAILGUN_KEY = "mailgun-signing-key"


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret", "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}
    cache.clear()


class DownBackend:
    """The outgoing provider, down."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def send_messages(self, messages: object) -> int:
        raise ConnectionError("provider down")


def payload(address: str, text: str, *, written: datetime | None = None, message_id: str = "", subject: str = ""):
    body = postmark_payload(address, text)
    headers = body["Headers"]
    if written is not None:
        body["Date"] = format_datetime(written)
        headers.append({"Name": "Date", "Value": format_datetime(written)})
    if message_id:
        headers.append({"Name": "Message-ID", "Value": message_id})
    if subject:
        body["Subject"] = subject
    return body


def post(client, body, url: str = WEBHOOK) -> int:
    return client.post(url, json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=AUTH).status_code


def receipts_to(address: str) -> list[str]:
    sent: list[Any] = list(mail.outbox)  # anymail's test backend adds its parameters to Django's message
    return [m.body for m in sent if m.to == [address] and m.anymail_test_params["tags"] == ["receipt"]]


def test_a_reply_read_while_outgoing_mail_is_down_is_answered_200_and_its_receipt_sent_later(
    client, make_game, settings
):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    settings.EMAIL_BACKEND = "tests.incoming.mail.test_reply_delivery.DownBackend"
    assert post(client, payload(address, "role: seller", message_id="<a1@mail.example>")) == 200
    (row,) = Receipt.objects.all()
    assert (row.status, row.attempts, row.error) == ("failed", 1, "ConnectionError: provider down")
    assert Order.objects.get(phase=open_phase(game), seat__number=0).revision == 1
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    sweep.run()  # puts the failed receipt back and wakes its sender (inline here)
    assert Receipt.objects.get().status == "sent"
    (receipt,) = receipts_to("player1@example.com")
    assert "You will sell your own goods today." in receipt


def test_a_redelivered_message_is_taken_once(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    first = payload(address, "role: seller", message_id="<once@mail.example>")
    assert [post(client, first), post(client, first)] == [200, 200]
    # The same bytes without a Message-ID (a provider's parsed payload may drop it) are the same message too.
    bare = postmark_payload(address, "role: buyer")
    assert [post(client, bare), post(client, bare)] == [200, 200]
    order = Order.objects.get(phase=open_phase(game), seat__number=0)
    assert (order.data, order.revision) == ({"role": "buyer"}, 2)
    assert len(receipts_to("player1@example.com")) == 2
    assert ReadReply.objects.count() == 2


def test_what_was_read_is_forgotten_after_any_provider_stops_redelivering(client, make_game):
    make_game(humans=3)
    post(client, payload(reply_to_of("player1@example.com"), "role: seller", message_id="<old@mail.example>"))
    assert receipts.forget_replies(timezone.now() + receipts.REMEMBER_REPLIES - timedelta(minutes=1)) == 0
    assert receipts.forget_replies(timezone.now() + receipts.REMEMBER_REPLIES + timedelta(minutes=1)) == 1


def test_an_older_reply_delivered_late_does_not_replace_a_newer_order(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    at = timezone.now() - timedelta(hours=1)
    assert post(client, payload(address, "role: buyer", written=at, message_id="<new@mail.example>")) == 200
    mail.outbox.clear()
    older = payload(address, "role: seller", written=at - timedelta(minutes=5), message_id="<old@mail.example>")
    assert post(client, older) == 200
    order = Order.objects.get(phase=open_phase(game), seat__number=0)
    assert (order.data, order.revision, order.written_at) == ({"role": "buyer"}, 1, at.replace(microsecond=0))
    (receipt,) = receipts_to("player1@example.com")
    assert "written before the order you sent since" in receipt
    assert "Your order stored before stands:\n  You will buy goods today." in receipt
    # A later reply (by its Date) still changes it, even delivered out of order with nothing between.
    assert post(client, payload(address, "role: seller", written=at + timedelta(seconds=1))) == 200
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "seller"}


def test_a_reply_written_before_an_order_from_the_page_does_not_replace_it(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    seat = game.seats.get(number=0)
    orders.submit_order(seat, open_phase(game).number, {"role": "buyer"})  # on the page, now
    post(client, payload(address, "role: seller", written=timezone.now() - timedelta(minutes=2)))
    assert Order.objects.get(phase=open_phase(game), seat=seat).data == {"role": "buyer"}
    post(client, payload(address, "role: seller", written=timezone.now() + timedelta(days=1)))  # a fast clock
    order = Order.objects.get(phase=open_phase(game), seat=seat)
    assert order.data == {"role": "seller"} and order.written_at <= timezone.now()


# --- Spam verdicts as providers write them ---------------------------------------------------------------------


def postmark_spam(status: str, score: str | None = None):
    def shape(address: str) -> tuple[str, dict, str]:
        body = postmark_payload(address, "role: seller")
        body["Headers"] = [{"Name": "X-Spam-Status", "Value": status}]
        if score is not None:
            body["Headers"].append({"Name": "X-Spam-Score", "Value": score})
        return WEBHOOK, body, "json"

    return shape


def mailgun_spam(**headers: str):
    def shape(address: str) -> tuple[str, dict, str]:
        pairs = [["From", "Player 1 <player1@example.com>"], ["To", address], *map(list, headers.items())]
        fields = mailgun_fields(address, "role: seller", **{"message-headers": json.dumps(pairs)})
        return "/anymail/mailgun/inbound/", fields, "form"

    return shape


def sendgrid_spam(score: str, headers: str = ""):
    def shape(address: str) -> tuple[str, dict, str]:
        fields = sendgrid_fields(address, "role: seller", spam_score=score)
        fields["headers"] += headers
        return "/anymail/sendgrid/inbound/", fields, "form"

    return shape


def mailjet_spam(score: float):
    def shape(address: str) -> tuple[str, dict, str]:
        body = {
            "Sender": "player1@example.com",
            "Recipient": address,
            "From": "Player 1 <player1@example.com>",
            "Subject": "Re: your turn",
            "Headers": {"From": "Player 1 <player1@example.com>", "To": address, "Subject": "Re: your turn"},
            "Parts": [{"Headers": {"Content-Type": "text/plain; charset=utf-8"}, "ContentRef": "Text-part"}],
            "Text-part": "role: seller",
            "SpamAssassinScore": score,
        }
        return "/anymail/mailjet/inbound/", body, "json"

    return shape


SPAM_SHAPES = {
    "Postmark: Yes": (postmark_spam("Yes"), True),
    "Postmark: SpamAssassin's 'Yes, score=9.0 required=5.0 tests=...'": (
        postmark_spam("Yes, score=9.0 required=5.0 tests=BAYES_99,URIBL_BLACK autolearn=no", "9.0"),
        True,
    ),
    "Postmark: 'Yes ' with a space": (postmark_spam("Yes "), True),
    "Postmark: No, but a score of 6.1": (postmark_spam("No, score=6.1 required=7.0", "6.1"), True),
    "Postmark: No, score 0.3": (postmark_spam("No, score=0.3 required=5.0 tests=NONE", "0.3"), False),
    "Mailgun: Sflag Yes": (mailgun_spam(**{"X-Mailgun-Sflag": "Yes", "X-Mailgun-Sscore": "3.0"}), True),
    "Mailgun: Sflag ' yes' with a space": (mailgun_spam(**{"X-Mailgun-Sflag": " yes"}), True),
    "Mailgun: Sflag No, score 7.5": (mailgun_spam(**{"X-Mailgun-Sflag": "No", "X-Mailgun-Sscore": "7.5"}), True),
    "Mailgun: Sflag No, score 0.1": (mailgun_spam(**{"X-Mailgun-Sflag": "No", "X-Mailgun-Sscore": "0.1"}), False),
    "SendGrid: spam_score 8.2": (sendgrid_spam("8.2"), True),
    "SendGrid: spam_score 0.1": (sendgrid_spam("0.1"), False),
    "SendGrid: a filter's X-Spam-Flag: YES": (sendgrid_spam("0.1", "X-Spam-Flag: YES\n"), True),
    "Mailgun: rspamd's X-Spam: Yes": (mailgun_spam(**{"X-Spam": "Yes"}), True),
    "Mailgun: rspamd's X-Spam: No": (mailgun_spam(**{"X-Spam": "No"}), False),
    "Mailgun: rspamd's action 'add header'": (mailgun_spam(**{"X-Rspamd-Action": "add header"}), True),
    "Mailgun: rspamd's action 'no action'": (mailgun_spam(**{"X-Rspamd-Action": "no action"}), False),
    "Mailgun: Barracuda's Yes": (mailgun_spam(**{"X-Barracuda-Spam-Status": "Yes, SCORE=8.1"}), True),
    "Mailgun: Exchange's SCL 6": (mailgun_spam(**{"X-MS-Exchange-Organization-SCL": "6"}), True),
    "Mailgun: Exchange's SCL 1": (mailgun_spam(**{"X-MS-Exchange-Organization-SCL": "1"}), False),
    "Mailgun: Exchange's filter SFV:SPM": (
        mailgun_spam(**{"X-Forefront-Antispam-Report": "CIP:203.0.113.9;CTRY:;LANG:en;SCL:9;SFV:SPM;"}),
        True,
    ),
    "Mailjet: SpamAssassinScore 5.0": (mailjet_spam(5.0), True),
    "Mailjet: SpamAssassinScore 1.2": (mailjet_spam(1.2), False),
}


@pytest.mark.parametrize("name", list(SPAM_SHAPES))
def test_spam_verdicts_are_read_as_each_provider_writes_them(client, make_game, name):
    shape, spam = SPAM_SHAPES[name]
    game = make_game(humans=3)
    url, fields, kind = shape(reply_to_of("player1@example.com"))
    mail.outbox.clear()
    if kind == "json":
        answered = client.post(url, json.dumps(fields), content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    else:
        answered = client.post(url, fields, HTTP_AUTHORIZATION=AUTH)
    assert answered.status_code == 200
    stored = Order.objects.filter(phase=open_phase(game), seat__number=0).exists()
    assert stored is not spam
    [told] = [m.body for m in mail.outbox if m.to == ["player1@example.com"]]
    assert ("took it for spam" in told) is spam and ("You will sell your own goods today." in told) is not spam


# --- What a receipt says, and under which subject ----------------------------------------------------------------


@pytest.mark.parametrize(
    "subject",
    ["Re: SV: {}", "Re: Out of office: Re: {}", "AW: WG: {}", "Réf. : {}", "Re[3]: Fwd: {}", "my order", ""],
)
def test_a_receipts_subject_is_the_games_thread_subject_whatever_came_in(client, make_game, subject):
    game = make_game(humans=3, title="Harbour League table 4")
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    post(client, payload(address, "role: seller", subject=subject.format(f"{game.name} #{game.pk}")))
    assert [m.subject for m in mail.outbox] == [f"Re: Harbour League table 4 #{game.pk}"]


def test_a_refused_bid_says_the_earlier_bid_still_stands(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    post(client, payload(address, "role: buyer", message_id="<first@mail.example>"))
    mail.outbox.clear()
    post(client, payload(address, "role: pirate", message_id="<second@mail.example>"))
    (receipt,) = receipts_to("player1@example.com")
    assert receipt.startswith("Your order was not stored: ")
    assert "Your order stored before stands:\n  You will buy goods today." in receipt
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "buyer"}


def test_a_refusal_without_an_earlier_order_says_the_default_is_played_at_the_deadline(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    post(client, payload(address, "role: pirate"))
    (receipt,) = receipts_to("player1@example.com")
    deadline = open_phase(game).deadline.astimezone(UTC).strftime("%a %-d %b %H:%M")
    assert f"No order of yours is stored for Day 1 — planning: unless one is in by {deadline} UTC, the" in receipt


def test_a_reply_from_another_account_tells_the_owner_which_address_counts(client, make_game):
    game = make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    body = postmark_payload(address, "role: seller", sender="player.one@gmail.example")
    assert post(client, body) == 200
    (notice,) = [m for m in mail.outbox if m.to == ["player1@example.com"]]
    assert notice.subject == f"Re: {game.name} #{game.pk}"
    assert "came from an address at gmail.example, and only replies from player1@example.com" in notice.body
    assert "send your reply again from player1@example.com" in notice.body
    assert "player.one" not in notice.body and not Order.objects.exists()


# --- A turn that is the seat's alone resolves as its order is stored: no reply it could not have meant --------------


def test_a_one_seat_turn_takes_no_reply_that_leaves_a_field_out_or_gives_one_twice(client, make_game):
    game = make_game(humans=1, bots=1, engine="genoa")
    phase = open_phase(game)
    assert list(phase.prompts) == ["0"]
    prompt = phase.prompt_for(0)
    assert prompt is not None and [spec["name"] for spec in prompt["fields"]] == ["route", "tiles"]
    example = turns.engine_of(game).example_order(game.state, 0)
    lines = order_lines(prompt, example, one_line=True)  # "route: …", "tiles:" (none)
    address = [m for m in mail.outbox if m.to == ["player1@example.com"]][-1].reply_to[0]
    mail.outbox.clear()
    post(client, payload(address, lines[0], message_id="<route-only@mail.example>"))
    post(client, payload(address, "\n".join([lines[0], "route: Palace", lines[1]]), message_id="<twice@mail.example>"))
    first, second = receipts_to("player1@example.com")
    assert "this turn is yours alone" in first and "tiles is missing" in first and lines[1] in first
    assert "it gives route more than once, differently" in second
    assert not Order.objects.filter(phase=phase).exists() and open_phase(game).pk == phase.pk
    post(client, payload(address, "\n".join(lines), message_id="<whole@mail.example>"))
    assert Order.objects.get(phase=phase, seat__number=0).data == example


def test_a_players_receipt_is_in_their_language(client, make_game):
    Player.objects.create(email="player1@example.com", name="Anke", language="de")
    make_game(humans=3)
    address = reply_to_of("player1@example.com")
    mail.outbox.clear()
    assert post(client, payload(address, "role: seller")) == 200
    (message,) = [m for m in mail.outbox if m.anymail_test_params["tags"] == ["receipt"]]
    assert message.extra_headers["Content-Language"] == "de"
    assert "Wir haben deine Antwort so gelesen:" in message.body and "Die Spielseite: https://" in message.body
    assert "Zug verdeckt gespeichert" in message.body
