"""Issue 42 item 2: `manage.py readmail`, the mail server's pipe. A reply written as a mail client writes it,
on standard input, goes the webhooks' way (games/incoming/mail/webhooks.py take_raw): stored once and answered,
or refused; the exit status is 0 either way, and 75 (EX_TEMPFAIL, the mail server retries) when the database
cannot be reached. The status is read from a real process, as Postfix reads it."""

from __future__ import annotations

import io
import os
import socket
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from games.models import Order, ReadReply, Receipt
from tests.support import reply_samples as samples
from tests.support.inbound import turn_email
from tests.support.phases import open_phase
from tests.support.workers import ROOT, database_url

pytestmark = pytest.mark.django_db(transaction=True)
REPLY_ADDRESS = "turns@in.pbem.example"


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = REPLY_ADDRESS
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}


def readmail(raw: bytes, *args: str) -> str:
    out = io.StringIO()
    call_command("readmail", *args, stdin=io.BytesIO(raw), stdout=out)
    return out.getvalue().strip()


def run_readmail(raw: bytes, database: str, env_file: Path) -> subprocess.CompletedProcess[bytes]:
    """readmail as docs/operators.md has the mail server run it: deploy/pbem-manage, which reads the settings from
    an environment file, in a process of its own with the message on its standard input."""
    settings = {
        "DATABASE_URL": database,
        "EMAIL_PROVIDER": "test",
        "SITE_URL": "https://pbem.example",
        "PBEM_REPLY_ADDRESS": REPLY_ADDRESS,
        "ANYMAIL_WEBHOOK_SECRET": "hook:secret",
    }
    env_file.write_text("".join(f"{name}={value}\n" for name, value in settings.items()))
    env = {name: value for name, value in os.environ.items() if name not in settings}
    command = [str(ROOT / "deploy" / "pbem-manage"), "readmail"]
    env |= {"PBEM_ENV_FILE": str(env_file), "PBEM_HOME": str(ROOT)}
    return subprocess.run(command, input=raw, env=env, capture_output=True, timeout=60)


def receipts_for(address: str) -> list[Receipt]:
    return list(Receipt.objects.filter(to=address))


def test_a_reply_piped_in_by_the_mail_server_is_stored_once_and_answered(make_game, postgres, tmp_path):
    game = make_game(humans=3)
    raw = samples.gmail(turn_email(), ["role: seller"]).as_bytes()
    done = run_readmail(raw, database_url(), tmp_path / "env")
    assert (done.returncode, done.stdout.decode().strip()) == (0, "taken"), done.stderr.decode()
    order = Order.objects.get(phase=open_phase(game), seat__number=0)
    assert (order.data, order.revision) == ({"role": "seller"}, 1)
    (receipt,) = receipts_for("player1@example.com")
    assert "You will sell your own goods today." in receipt.text
    # The mail server delivering it again (a lost exit status) changes nothing and answers nothing.
    assert readmail(raw) == "taken"
    assert Order.objects.get(pk=order.pk).revision == 1
    assert len(receipts_for("player1@example.com")) == 1


def test_the_envelope_recipient_counts_as_the_webhooks_do(make_game):
    """A reply that reached the reply address through an alias or a Bcc: the pipe's --recipient is the envelope's."""
    game = make_game(humans=3)
    turn = turn_email()
    message = samples.gmail(turn, ["role: buyer"])
    message.replace_header("To", "Harbour club <club@example.org>")
    assert readmail(message.as_bytes()) == "taken"
    assert not Order.objects.filter(phase=open_phase(game)).exists()  # no reply address of ours: ignored
    assert readmail(message.as_bytes(), "--recipient", turn.reply_to) == "taken"
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "buyer"}


def test_a_reply_from_another_address_is_refused_and_only_the_seat_is_told(make_game):
    game = make_game(humans=3)
    message = samples.gmail(turn_email(), ["role: seller"])
    message.replace_header("From", "Someone <someone@elsewhere.example>")
    assert readmail(message.as_bytes()) == "taken"
    assert not Order.objects.filter(phase=open_phase(game)).exists()
    (notice,) = receipts_for("player1@example.com")
    assert "was not used" in notice.text
    assert not receipts_for("someone@elsewhere.example")


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\x00\x00",
        b"From: \x00player1@example.com\r\nTo: turns+1-00@in.pbem.example\r\n\r\nrole: seller\x00\r\n",
        b"not a message at all, just a line",
    ],
    ids=["empty", "NUL bytes", "NUL in a header and the body", "no headers"],
)
def test_junk_on_standard_input_is_refused_with_status_0_and_changes_nothing(make_game, raw):
    game = make_game(humans=3)
    assert readmail(raw).startswith(("taken", "refused"))
    assert not Order.objects.filter(phase=open_phase(game)).exists()
    assert not Receipt.objects.exists()
    assert not ReadReply.objects.exists()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"\r\nSubject: ", b"\r\nSubject: \x00"),
        (b"\r\nMessage-ID: <", b"\r\nMessage-ID: <\x00"),
        (b"role: seller", b"role: sel\x00ler"),
        (b"role: seller", b"role: sel=00ler"),  # quoted-printable's NUL: one once decoded
    ],
    ids=["in the Subject", "in the Message-ID", "in the order line", "quoted-printable =00 in the order line"],
)
def test_a_reply_with_a_nul_byte_is_refused_unread_with_status_0_and_changes_nothing(make_game, before, after):
    """A reply that would count (our address, the seat's player) but holds a NUL, which no mail client writes and
    PostgreSQL's text cannot hold: refused as unreadable, not retried by the mail server for days (75), not read
    as another order ("sel\x00ler" taken for "seller")."""
    game = make_game(humans=3)
    raw = samples.gmail(turn_email(), ["role: seller"]).as_bytes()
    assert before in raw
    assert readmail(raw.replace(before, after)) == "refused: unreadable"
    assert not Order.objects.filter(phase=open_phase(game)).exists()
    assert not Receipt.objects.exists()
    assert not ReadReply.objects.exists()
    assert readmail(raw) == "taken"  # the same reply without it counts
    assert Order.objects.get(phase=open_phase(game), seat__number=0).data == {"role": "seller"}


def test_a_message_too_large_to_be_a_reply_is_refused_unread(make_game, monkeypatch):
    monkeypatch.setattr("games.management.commands.readmail.MAX_BYTES", 1000)
    game = make_game(humans=3)
    raw = samples.gmail(turn_email(), ["role: seller", "x" * 2000]).as_bytes()
    assert readmail(raw) == "refused: too large"
    assert not Order.objects.filter(phase=open_phase(game)).exists()


def test_with_the_database_down_the_mail_server_is_told_to_retry(make_game, tmp_path):
    make_game(humans=3)
    raw = samples.gmail(turn_email(), ["role: seller"]).as_bytes()
    with socket.socket() as closed:  # a port nothing listens on: PostgreSQL down
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = run_readmail(raw, f"postgres://postgres@127.0.0.1:{port}/pbem", tmp_path / "env")
    assert done.returncode == 75, done.stderr.decode()
    assert b"try again later" in done.stderr
    assert not Order.objects.exists()
