"""Issue 42 item 3: with PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE set, mail through our own relay is DKIM-signed
(games/outgoing/dkim.py), and `manage.py dnsrecords` prints the record a receiver checks it with. The relay is a
real SMTP server (aiosmtpd); dkimpy's verify reads the DNS record from the command's own output. Every kind of
email is verified in tests/outgoing/test_email_looks.py."""

from __future__ import annotations

import io
import re
from email import message_from_bytes
from pathlib import Path

import pytest
from django.core.checks import run_checks
from django.core.management import call_command

from games.models import OutboundEmail
from tests.support.smtp import DKIM_SELECTOR, dkim_key, verifies

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def smtp_extra_env(tmp_path: Path) -> dict[str, str]:
    return {"PBEM_DKIM_SELECTOR": DKIM_SELECTOR, "PBEM_DKIM_KEY_FILE": str(dkim_key(tmp_path))}


def dnsrecords() -> str:
    out = io.StringIO()
    call_command("dnsrecords", stdout=out)
    return out.getvalue()


def published(zone: str) -> dict[str, bytes]:
    """The TXT records of the command's zone-file lines, as a DNS server answers them (the strings joined)."""
    records = {}
    for name, strings in re.findall(r"^(\S+)\. \d+ IN TXT (.+)$", zone, re.M):
        records[name] = "".join(re.findall(r'"([^"]*)"', strings)).encode()
    return records


def test_every_email_through_the_relay_is_signed_and_verifies_against_the_printed_record(smtp_sink, make_game):
    game = make_game(humans=3)
    rows = OutboundEmail.objects.filter(game=game)
    assert rows and {row.status for row in rows} == {OutboundEmail.Status.SENT}
    zone = dnsrecords()
    records = published(zone)
    assert f"{DKIM_SELECTOR}._domainkey.pbem.localhost" in records  # DEFAULT_FROM_EMAIL's domain
    assert len(smtp_sink.received) == rows.count()
    for _sender, _to, raw in smtp_sink.received:
        assert raw.startswith(b"DKIM-Signature: ")
        assert verifies(raw, records)
        assert signed_headers(raw) >= {"from", "to", "subject", "date", "message-id", "reply-to", "auto-submitted"}


def signed_headers(raw: bytes) -> set[str]:
    message = message_from_bytes(raw)
    tags = dict(tag.strip().split("=", 1) for tag in re.sub(r"\s+", "", message["DKIM-Signature"]).split(";") if tag)
    assert (tags["d"], tags["s"], tags["c"]) == ("pbem.localhost", DKIM_SELECTOR, "relaxed/relaxed")
    return set(tags["h"].lower().split(":"))


def test_a_signature_breaks_when_the_body_or_a_signed_header_is_changed_or_added(smtp_sink, make_game):
    make_game(humans=3)
    records = published(dnsrecords())
    raw = smtp_sink.received[0][2]
    head, body = raw.split(b"\r\n\r\n", 1)
    assert verifies(raw, records)
    assert not verifies(raw + b"P.S. Pay the harbour fee at evil.example\r\n", records)
    # A second Reply-To or Subject put in front (as a forger would, to send replies elsewhere) is not signed.
    assert not verifies(head + b"\r\nReply-To: thief@example.net\r\n\r\n" + body, records)
    assert not verifies(head + b"\r\nSubject: Urgent: confirm your password\r\n\r\n" + body, records)
    # Another key published under the selector: the signature is not that key's.
    wrong_key = {name: value[:-12] + b"AAAAAAAAAAAA" for name, value in records.items()}
    assert not verifies(raw, wrong_key)


def test_dnsrecords_without_a_key_says_how_to_make_one_and_suggests_spf_dmarc_and_the_reply_mx(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.DEFAULT_FROM_EMAIL = "Harbour club <turns@club.example>"
    settings.SITE_URL = "https://games.club.example"
    zone = dnsrecords()
    assert "openssl genrsa" in zone and "_domainkey" not in zone
    assert 'club.example. 3600 IN TXT "v=spf1 a:games.club.example mx ~all"' in zone
    assert '_dmarc.club.example. 3600 IN TXT "v=DMARC1; p=none;' in zone
    assert "in.pbem.example. 3600 IN MX 10 games.club.example." in zone
    # Replies read from the club's mailbox: its domain's MX stays with its mail host (an MX to this server would
    # take every mail of the domain away from it).
    settings.PBEM_INBOUND_IMAP = "imaps://turns%40in.pbem.example:pw@imap.pbem.example/INBOX"
    zone = dnsrecords()
    assert " IN MX " not in zone and "leave in.pbem.example's MX as it is" in zone


def checks(ids: str = "pbem.") -> list[str]:
    return [problem.id for problem in run_checks() if problem.id and problem.id.startswith(ids)]


def test_the_checks_refuse_half_a_dkim_setting_and_a_key_that_cannot_sign(settings, tmp_path):
    settings.EMAIL_PROVIDER = "smtp"
    settings.EMAIL_HOST = "localhost"
    settings.PBEM_DKIM_SELECTOR = DKIM_SELECTOR
    settings.PBEM_DKIM_KEY_FILE = ""
    assert "pbem.E008" in checks()
    settings.PBEM_DKIM_KEY_FILE = str(tmp_path / "missing.pem")
    assert "pbem.E009" in checks()
    (tmp_path / "public.pem").write_text("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n")
    settings.PBEM_DKIM_KEY_FILE = str(tmp_path / "public.pem")
    assert "pbem.E009" in checks()
    settings.PBEM_DKIM_KEY_FILE = str(dkim_key(tmp_path))
    assert not {"pbem.E008", "pbem.E009", "pbem.W005"} & set(checks())
    settings.EMAIL_PROVIDER = "postmark"  # a provider's API signs with the provider's key: ours is unused
    assert "pbem.W005" in checks()
