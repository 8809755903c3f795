"""EMAIL_PROVIDER=smtp: a real turn email goes through Django's SMTP backend to an SMTP server on this machine
(aiosmtpd, started on a free port: tests/support/smtp.py), and arrives as the MIME we built."""

from __future__ import annotations

import pytest
from django.core import mail

from games.models import OutboundEmail
from games.outgoing.emails import build
from tests.support.smtp import USER

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_turn_email_arrives_through_smtp_as_the_mime_we_built(smtp_sink, make_game, settings):
    game = make_game(humans=3)
    rows = list(OutboundEmail.objects.filter(game=game).select_related("seat__player").order_by("id"))
    assert rows and all(row.status == OutboundEmail.Status.SENT for row in rows)
    assert not mail.outbox  # nothing went to the test backend: it all went over SMTP
    # Each email logged in with the configured user (message.send() opens a connection of its own).
    assert smtp_sink.logins == [USER] * len(rows)
    assert [(sender, rcpts) for sender, rcpts, _ in smtp_sink.received] == [
        ("turns@pbem.localhost", [row.to]) for row in rows
    ]
    for row, received in zip(rows, smtp_sink.messages(), strict=True):
        sent = build(row)  # the message as pbem builds it, to compare with what the server got
        assert (received["Subject"].strip(), received["From"], received["To"]) == (
            sent.subject,
            settings.DEFAULT_FROM_EMAIL,
            row.to,
        )
        assert [received["Reply-To"]] == sent.reply_to and received["Reply-To"].startswith("turns+")
        for header in ("Message-ID", "Auto-Submitted", "References", "In-Reply-To"):
            assert received[header] == sent.extra_headers.get(header), header  # a reader's first: no References
        assert received["Message-ID"].endswith("@pbem.example>")
        assert received.get_content_type() == "multipart/alternative"
        text, html = received.iter_parts()
        assert text.get_content_type() == "text/plain" and html.get_content_type() == "text/html"
        assert row.seat.player.name in text.get_content() and "<table" in html.get_content()
        assert "Or reply to this email" in text.get_content()


def test_a_relay_that_refuses_the_login_leaves_the_emails_to_retry(smtp_sink, make_game, settings):
    settings.EMAIL_HOST_PASSWORD = "not-the-password"
    game = make_game(humans=3)
    rows = list(OutboundEmail.objects.filter(game=game))
    assert rows and {row.status for row in rows} == {OutboundEmail.Status.FAILED}
    assert all(row.error.startswith("SMTPAuthenticationError") for row in rows)
    assert not smtp_sink.received and not smtp_sink.logins
