"""An SMTP relay on this machine (aiosmtpd on a free port) that wants a login, and Django configured for it as an
operator configures it: EMAIL_PROVIDER=smtp and the EMAIL_* variables, read by pbem.settings; with a DKIM key
too where a test asks for one (`smtp_extra_env`)."""

from __future__ import annotations

import importlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import dkim
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

USER, PASSWORD = "pbem-relay", "relay-password"
DKIM_SELECTOR = "pbem1"


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


EMAIL_SETTINGS = ["EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD"]
EMAIL_SETTINGS += ["EMAIL_USE_TLS", "EMAIL_USE_SSL", "EMAIL_TIMEOUT", "EMAIL_PROVIDER"]
EMAIL_SETTINGS += ["PBEM_DKIM_SELECTOR", "PBEM_DKIM_KEY_FILE", "PBEM_DKIM_DOMAIN"]


@pytest.fixture
def smtp_extra_env() -> dict[str, str]:
    """More of the operator's environment for `smtp_sink`: a test module overrides it (a DKIM key, say)."""
    return {}


@pytest.fixture
def smtp_sink(settings: Any, monkeypatch: pytest.MonkeyPatch, smtp_extra_env: dict[str, str]) -> Iterator[Sink]:
    import pbem.settings as project_settings

    sink = Sink(port=free_port())
    controller = Controller(
        sink, hostname="127.0.0.1", port=sink.port, authenticator=sink.authenticate, auth_require_tls=False
    )
    controller.start()
    environment = {"EMAIL_PROVIDER": "smtp", "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(sink.port)}
    environment |= {"EMAIL_HOST_USER": USER, "EMAIL_HOST_PASSWORD": PASSWORD, "EMAIL_TIMEOUT": "10"}
    for name, value in (environment | smtp_extra_env).items():
        monkeypatch.setenv(name, value)
    configured = importlib.reload(project_settings)
    for name in EMAIL_SETTINGS:
        setattr(settings, name, getattr(configured, name))
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    try:
        yield sink
    finally:
        controller.stop()
        monkeypatch.undo()
        importlib.reload(project_settings)


def dkim_key(folder: Path) -> Path:
    """A new 2048-bit RSA key in PEM (PKCS #8), as Debian 12's `openssl genrsa` writes one (docs/operators.md)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = folder / "dkim.pem"
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path.write_bytes(pem)
    return path


def verifies(raw: bytes, records: dict[str, bytes]) -> bool:
    """dkimpy's verify of the message's signature, its DNS answered from `records` (name -> TXT value)."""

    def dns(name: bytes, timeout: int = 5) -> bytes | None:
        return records.get(name.decode().rstrip("."))

    return bool(dkim.verify(raw, dnsfunc=dns))
