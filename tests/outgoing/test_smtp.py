"""EMAIL_PROVIDER=smtp: a real turn email goes through Django's SMTP backend to an SMTP server on this machine
(aiosmtpd, started here on a free port), and arrives as the MIME we built."""

from __future__ import annotations

import importlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from django.core import mail

from games.models import OutboundEmail
from games.outgoing.emails import build

pytestmark = pytest.mark.django_db(transaction=True)
USER, PASSWORD = "pbem-relay", "relay-password"


@dataclass
class Sink:
    """What the SMTP server received: each message's envelope and its bytes, and who logged in."""

    port: int
    received: list[tuple[str, list[str], bytes]] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's name)
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (USER.encode(), PASSWORD.encode())
        if ok:
            self.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)

    def messages(self) -> list[EmailMessage]:
        return [message_from_bytes(raw, policy=default_policy) for _, _, raw in self.received]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SMTP_SETTINGS = ["EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD"]
SMTP_SETTINGS += ["EMAIL_USE_TLS", "EMAIL_USE_SSL", "EMAIL_TIMEOUT"]


@pytest.fixture
def smtp_sink(settings, monkeypatch) -> Iterator[Sink]:
    """An SMTP server on 127.0.0.1 that wants a login, and Django configured for it as an operator does: by
    EMAIL_PROVIDER=smtp and the EMAIL_* variables, read by pbem.settings."""
    import pbem.settings as project_settings

    sink = Sink(port=free_port())
    controller = Controller(
        sink, hostname="127.0.0.1", port=sink.port, authenticator=sink.authenticate, auth_require_tls=False
    )
    controller.start()
    environment = {"EMAIL_PROVIDER": "smtp", "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(sink.port)}
    environment |= {"EMAIL_HOST_USER": USER, "EMAIL_HOST_PASSWORD": PASSWORD, "EMAIL_TIMEOUT": "10"}
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    configured = importlib.reload(project_settings)
    for name in SMTP_SETTINGS:
        setattr(settings, name, getattr(configured, name))
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    try:
        yield sink
    finally:
        controller.stop()
        monkeypatch.undo()
        importlib.reload(project_settings)


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
