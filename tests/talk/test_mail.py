"""Table talk by email (games/talk/mail.py, games/talk/inbound.py): at once but batched (at most one email per
reader and game every BATCH_WINDOW), or in the daily digest; every message emailed to each reader once, in a
bounded burst and with two senders at once; escaped, links broken up; a reply answers in its conversation."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Seat
from games.outgoing.links import seat_url
from games.play import organise
from games.talk import mail as talk_mail
from games.talk import services as talk
from games.talk.models import Delivery, Mailbox, Message, Participant, TalkSettings
from tests.support.accounts import sign_in_by_email
from tests.support.emails import unsubscribe_targets
from tests.support.inbound import post as post_inbound
from tests.support.inbound import postmark_payload
from tests.support.phases import open_phase
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    cache.clear()


def seat(game: Game, number: int) -> Seat:
    return Seat.objects.select_related("game", "player").get(game=game, number=number)


def talk_emails(kind: str = "talk") -> list[Any]:
    sent: list[Any] = mail.outbox  # anymail's test backend adds its parameters to each message
    return [m for m in sent if m.anymail_test_params.get("tags") == [kind]]


def test_a_burst_of_messages_reaches_each_reader_once_in_few_emails(make_game):
    """Three seats write 45 messages over 30 minutes (a message's task runs after each one, the sweep every
    minute): every reader gets every message written to them exactly once, in at most one email per window."""
    game = make_game(humans=4)
    seats = [seat(game, n) for n in range(4)]
    mail.outbox.clear()
    start = timezone.now()
    written: dict[int, set[str]] = {n: set() for n in range(4)}  # reader -> texts they may read
    for n in range(45):
        at = start + timedelta(seconds=40 * n)
        writer = seats[n % 3]
        to = [] if n % 2 else [(writer.number + 1) % 4]
        text = f"burst message {n}"
        talk.post(writer, writer.player, text, to=to, now=at)
        for reader in [writer.number, *to] if to else range(4):
            if reader != writer.number:
                written[reader].add(text)
        talk_mail.send_due(game.pk, at)  # what the message's own task does after commit
        if n % 3 == 0:
            talk_mail.sweep(at)
    for minute in range(0, 12):
        talk_mail.sweep(start + timedelta(seconds=40 * 45) + timedelta(minutes=minute))
    delivered: dict[int, list[str]] = {n: [] for n in range(4)}
    emails_to: dict[int, int] = {n: 0 for n in range(4)}
    for message in talk_emails():
        reader = int(re.search(r"player(\d)@", message.to[0]).group(1)) - 1
        emails_to[reader] += 1
        delivered[reader] += re.findall(r"burst message \d+", message.body)
    window_count = -(-(40 * 45) // int(talk_mail.BATCH_WINDOW.total_seconds())) + 1
    print(
        f"\nburst: 45 messages, emails per reader {emails_to}, bound {window_count}; "
        f"deliveries {sum(map(len, delivered.values()))}"
    )
    for reader in range(4):
        assert sorted(delivered[reader]) == sorted(written[reader]), reader  # each once, none missing
        assert emails_to[reader] <= window_count
    assert Participant.objects.filter(seen_at__isnull=True).count() == 0


def test_two_senders_at_once_email_each_message_once(make_game, postgres):
    game = make_game(humans=3)
    a = seat(game, 0)
    for n in range(5):
        talk.post(a, a.player, f"concurrent {n}")
    mail.outbox.clear()
    Participant.objects.exclude(seat_number=0).update(seen_at=None)
    Mailbox.objects.all().delete()
    later = timezone.now() + timedelta(hours=1)
    results = run_together(lambda: talk_mail.send_due(game.pk, later), lambda: talk_mail.send_due(game.pk, later))
    assert sorted(results) in ([0, 2], [1, 1]), results
    assert sorted(m.to[0] for m in talk_emails()) == ["player2@example.com", "player3@example.com"]


def test_a_message_email_is_text_escaped_with_no_clickable_link_and_a_reply_address(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    mail.outbox.clear()
    talk.post(a, a.player, "<b>deal</b> at http://evil.example/x or www.evil.example, mail me@evil.example", to=[1])
    (email,) = talk_emails()
    html = email.alternatives[0][0]
    assert email.to == ["player2@example.com"] and "Private: You and Player 1" in email.body
    assert "<b>deal</b>" in email.body and "&lt;b&gt;deal&lt;/b&gt;" in html and "<b>deal" not in html
    for shown in (email.body, html):
        assert "http://evil" not in shown and "evil.example" not in shown and "me@evil" not in shown
        assert "evil" in shown  # broken up, not removed
    assert re.fullmatch(r"turns\+t\d+x3-[0-9a-f]{16}@in\.pbem\.example", email.reply_to[0])
    assert "Reply to this email to answer in" in email.body


def test_replying_to_a_message_email_answers_in_its_conversation_with_the_quote_cut(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    talk.post(a, a.player, "a deal, Player 2?", to=[1])
    (email,) = talk_emails()
    text = "Yes, agreed.\nSee you.\n\nOn Fri, 4 Dec 2026, Player 1 wrote:\n> a deal, Player 2?\n"
    response = post_inbound(Client(), postmark_payload(email.reply_to[0], text, sender="player2@example.com"))
    assert response.status_code == 200
    reply = Message.objects.order_by("pk").last()
    assert (reply.thread, reply.sender_seat, reply.text) == ("0,1", 1, "Yes, agreed.\nSee you.")
    # From another address: nothing stored, nobody answered.
    before = (Message.objects.count(), len(mail.outbox))
    post_inbound(Client(), postmark_payload(email.reply_to[0], "forged", sender="mallory@example.com"))
    assert (Message.objects.count(), len(mail.outbox)) == before


def test_a_reply_through_the_mail_servers_pipe_is_posted_in_its_conversation(make_game):
    """Issue 42: `manage.py readmail` (and the IMAP mailbox) hand the raw message to the webhooks' receivers, table
    talk's among them."""
    game = make_game(humans=3)
    a = seat(game, 0)
    talk.post(a, a.player, "a deal, Player 2?", to=[1])
    (email,) = talk_emails()
    reply = EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = "Player 2 <player2@example.com>", email.reply_to[0], "Re: a deal"
    reply["Message-ID"] = "<pipe-1@example.com>"
    reply.set_content("Agreed, by the pipe.\n\nOn Fri, 4 Dec 2026, Player 1 wrote:\n> a deal, Player 2?\n")
    call_command("readmail", stdin=io.BytesIO(reply.as_bytes()), stdout=io.StringIO())
    posted = Message.objects.order_by("pk").last()
    assert (posted.thread, posted.sender_seat, posted.text) == ("0,1", 1, "Agreed, by the pipe.")


def test_a_refused_reply_is_told_to_the_player_and_stores_nothing(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    talk.post(a, a.player, "hello", to=[1])
    (email,) = talk_emails()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    mail.outbox.clear()
    post_inbound(Client(), postmark_payload(email.reply_to[0], "too late?", sender="player2@example.com"))
    assert Message.objects.count() == 1
    (notice,) = mail.outbox
    assert notice.to == ["player2@example.com"] and "game is over" in notice.body and "too late" not in notice.body


def test_a_reader_who_chose_the_digest_or_the_turn_email_gets_no_message_email(make_game):
    game = make_game(humans=3)
    TalkSettings.objects.create(player=seat(game, 1).player, delivery=Delivery.DIGEST)
    TalkSettings.objects.create(player=seat(game, 2).player, delivery=Delivery.TURN)
    a = seat(game, 0)
    mail.outbox.clear()
    talk.post(a, a.player, "to everyone")
    talk.post(a, a.player, "to 2", to=[1])
    assert talk_emails() == []
    assert talk_mail.send_digests() == 1
    (digest,) = talk_emails("talk-digest")
    assert digest.to == ["player2@example.com"] and "to everyone" in digest.body and "to 2" in digest.body
    assert talk_mail.send_digests() == 0  # sent once


def test_a_turn_email_lists_the_messages_its_reader_has_not_seen_once(make_game):
    game = make_game(humans=3)
    TalkSettings.objects.create(player=seat(game, 1).player, delivery=Delivery.TURN)
    a = seat(game, 0)
    talk.post(a, a.player, "private news for 2", to=[1])
    talk.post(a, a.player, "private news for 3", to=[2])
    phase = open_phase(game)
    mail.outbox.clear()
    organise.resolve_now(game)  # the next phase's turn emails
    turn = {m.to[0]: m for m in mail.outbox if m.anymail_test_params["tags"] == ["turn-started"]}
    assert "player2@example.com" in turn, "the test needs seat 2 asked for an order next"
    body = turn["player2@example.com"].body
    assert "== Table talk you have not read ==" in body and "private news for 2" in body
    assert "private news for 3" not in body
    assert "private news for 2" in turn["player2@example.com"].alternatives[0][0]
    assert all("private news for 2" not in m.body for to, m in turn.items() if to != "player2@example.com")
    assert not Participant.objects.filter(seat_number=1, seen_at__isnull=True).exists()
    # The next turn email does not list it again.
    mail.outbox.clear()
    assert phase.pk != open_phase(game).pk
    organise.resolve_now(game)
    assert all("private news for 2" not in m.body for m in mail.outbox)


def test_a_signed_in_player_chooses_how_table_talk_reaches_them(make_game):
    game = make_game(humans=3)
    client = sign_in_by_email(Client(), "player2@example.com")
    page = client.get(reverse("games-mine")).content.decode()
    assert "<legend>Email me the messages written to me</legend>" in page
    assert re.search(r'value="now"[^>]*checked', page)  # at once, until they choose
    assert client.post(reverse("games-talk-delivery"), {"delivery": "digest"}).status_code == 302
    assert TalkSettings.objects.get(player__email="player2@example.com").delivery == Delivery.DIGEST
    assert client.post(reverse("games-talk-delivery"), {"delivery": "loud"}).status_code == 302
    assert TalkSettings.objects.get(player__email="player2@example.com").delivery == Delivery.DIGEST
    # A browser that only opened a seat link (a forwarded turn email) changes nothing.
    other = Client()
    other.get(seat_url(seat(game, 2), open_phase(game)))
    assert other.post(reverse("games-talk-delivery"), {"delivery": "turn"}).status_code == 403
    assert not TalkSettings.objects.filter(player__email="player3@example.com").exists()


def test_one_click_on_a_message_email_moves_messages_into_the_next_turn_email(make_game):
    game = make_game(humans=3)
    a, b = seat(game, 0), seat(game, 1)
    mail.outbox.clear()
    talk.post(a, a.player, "first offer", to=[1])
    (email,) = talk_emails()
    assert email.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url, _ = unsubscribe_targets(email)  # and a mailto target, as replies are on
    done = Client(enforce_csrf_checks=True).post(url, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200
    assert TalkSettings.objects.get(player=b.player).delivery == Delivery.TURN
    mail.outbox.clear()
    cache.clear()
    Mailbox.objects.update(last_sent_at=None)  # no batch window holds the next one back
    talk.post(a, a.player, "second offer", to=[1])
    assert talk_emails() == []  # it waits for b's next turn email
