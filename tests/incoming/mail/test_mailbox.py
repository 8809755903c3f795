"""Issue 42 item 1: replies read from an IMAP mailbox (`manage.py mailbox`, games/incoming/mail/mailbox.py) against a
real Dovecot of the test's own (tests/support/dovecot.py): over TLS with IDLE as a club's mail host offers it, and
plain without IDLE (polled). Each reply is taken once and flagged or moved after its commit; a process killed
between reading a message and committing it loses nothing and takes nothing twice; a Dovecot restart under a
running process costs a reconnection, not a reply."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from games.checks import mailbox_problems
from games.incoming.mail import mailbox
from games.models import MailboxCursor, Order, ReadReply, Receipt
from tests.support import reply_samples as samples
from tests.support.inbound import turn_email
from tests.support.phases import open_phase
from tests.support.tcp_proxy import Proxy
from tests.support.workers import ROOT, database_url, wait_for

pytestmark = pytest.mark.django_db(transaction=True)
REPLY_ADDRESS = "turns@in.pbem.example"
SEEN = b"\\Seen"
APP = f"pbem-mailbox-test-{os.getpid()}"  # its PostgreSQL connections, told apart from any other test run's


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = REPLY_ADDRESS
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}


def reply(text: str = "role: seller") -> bytes:
    """A reply to player 1's turn email, as Gmail writes it."""
    return samples.gmail(turn_email(), [text]).as_bytes()


def take_once(settings, url: str) -> str:
    settings.PBEM_INBOUND_IMAP = url
    out = io.StringIO()
    call_command("mailbox", "--once", stdout=out)
    return out.getvalue().strip()


def stored(game) -> list[tuple[dict, int]]:
    return [(order.data, order.revision) for order in Order.objects.filter(phase=open_phase(game))]


def test_a_reply_in_the_mailbox_is_taken_once_and_flagged_seen_after_it_commits(make_game, dovecot, settings):
    game = make_game(humans=3)
    dovecot.deliver(reply("role: seller"))
    dovecot.deliver(b"From: spammer@elsewhere.example\r\nTo: turns@in.pbem.example\r\nSubject: hi\r\n\r\nBuy now\r\n")
    assert dovecot.flags() == {1: set(), 2: set()}
    assert take_once(settings, dovecot.url()) == "2 messages taken from club@pbem.example@127.0.0.1:" + (
        f"{dovecot.port}/INBOX"
    )
    assert stored(game) == [({"role": "seller"}, 1)]
    (receipt,) = Receipt.objects.filter(to="player1@example.com")
    assert "You will sell your own goods today." in receipt.text
    assert dovecot.flags() == {1: {SEEN}, 2: {SEEN}}  # the stranger's too: read, nothing done
    assert MailboxCursor.objects.get().last_uid == 2
    # Read again (the next start): nothing is new, nothing is taken twice.
    dovecot.deliver(reply("role: buyer"))
    assert take_once(settings, dovecot.url()).startswith("1 message taken")
    assert stored(game) == [({"role": "buyer"}, 2)]
    assert take_once(settings, dovecot.url()).startswith("0 messages taken")
    assert Receipt.objects.filter(to="player1@example.com").count() == 2


def test_a_mailbox_read_for_the_first_time_is_read_from_its_unread_messages(make_game, dovecot, settings):
    """The club's mailbox holds mail read before pbem was set up: left alone, not answered late."""
    game = make_game(humans=3)
    dovecot.deliver(reply("role: buyer"))
    with dovecot.client() as client:
        client.add_flags([1], [SEEN])  # read by the club's secretary last month
    dovecot.deliver(reply("role: seller"))
    assert take_once(settings, dovecot.url()).startswith("1 message taken")
    assert stored(game) == [({"role": "seller"}, 1)]
    dovecot.deliver(reply("role: buyer"))  # from now on every new message counts, read or not
    with dovecot.client() as client:
        client.add_flags([3], [SEEN])
    assert take_once(settings, dovecot.url()).startswith("1 message taken")
    assert stored(game) == [({"role": "buyer"}, 2)]


def test_taken_messages_are_moved_to_the_folder_the_url_names(make_game, dovecot, settings):
    game = make_game(humans=3)
    dovecot.deliver(reply("role: seller"))
    assert take_once(settings, dovecot.url(move="Taken")).startswith("1 message taken")
    assert stored(game) == [({"role": "seller"}, 1)]
    assert dovecot.flags() == {}
    assert list(dovecot.flags("Taken")) == [1]


def test_a_message_committed_but_not_flagged_before_a_crash_is_flagged_at_the_next_start_not_taken_again(
    make_game, dovecot, settings
):
    game = make_game(humans=3)
    dovecot.deliver(reply("role: seller"))
    reader = mailbox.Reader(mailbox.parse(dovecot.url()))
    client = reader.connect()
    cursor = reader.cursor()
    raw = client.fetch([1], ["BODY.PEEK[]"])[1][b"BODY[]"]
    reader.take(cursor.pk, 1, raw)  # committed; the process dies before it marks the message
    reader.close()
    assert dovecot.flags() == {1: set()}
    assert take_once(settings, dovecot.url()).startswith("0 messages taken")
    assert dovecot.flags() == {1: {SEEN}}
    assert stored(game) == [({"role": "seller"}, 1)]


def test_a_mailbox_made_anew_is_read_from_its_start_and_a_reply_taken_before_is_not_taken_again(
    make_game, dovecot, settings
):
    """A new UIDVALIDITY (the mailbox restored or recreated) means its UIDs start again: the reader starts over,
    and a reply taken before is known by its Message-ID."""
    game = make_game(humans=3)
    dovecot.deliver(reply("role: seller"))
    take_once(settings, dovecot.url())
    MailboxCursor.objects.update(uidvalidity=1, last_uid=50)  # as stored for the mailbox before it was made anew
    with dovecot.client() as client:
        client.remove_flags([1], [SEEN])
    assert take_once(settings, dovecot.url()).startswith("1 message taken")
    assert stored(game) == [({"role": "seller"}, 1)]
    assert ReadReply.objects.count() == 1 and Receipt.objects.filter(to="player1@example.com").count() == 1
    assert MailboxCursor.objects.get().last_uid == 1


def test_a_server_without_idle_is_polled(make_game, dovecot_without_idle, settings):
    game = make_game(humans=3)
    box = mailbox.parse(dovecot_without_idle.url(poll="0.1"))
    done = threading.Event()

    def read() -> None:
        try:
            mailbox.serve(box, stopping=done.is_set)
        finally:
            connection.close()

    thread = threading.Thread(target=read)
    thread.start()
    try:
        wait_for(MailboxCursor.objects.exists, 20, "the reader's first look", FakeProcess(thread))
        dovecot_without_idle.deliver(reply("role: seller"))  # arrives while the reader waits between looks
        wait_for(lambda: stored(game), 20, "the polled reply", FakeProcess(thread))
    finally:
        done.set()
        thread.join(timeout=20)
    assert stored(game) == [({"role": "seller"}, 1)]
    assert dovecot_without_idle.flags() == {1: {SEEN}}


class FakeProcess:
    """wait_for's liveness check for a thread."""

    def __init__(self, thread: threading.Thread) -> None:
        self.thread = thread

    def poll(self) -> int | None:
        return None if self.thread.is_alive() else 1


@pytest.fixture
def mailbox_process(dovecot, tmp_path, settings) -> Iterator:
    """start() -> `manage.py mailbox` in a process of its own, as its systemd unit runs it (its system checks
    passing), on the test's database, its PostgreSQL connection named APP; every one still running is killed at
    the end. It signs as the test does: the same SECRET_KEY, not the development key the checks refuse."""
    settings.SECRET_KEY = "a-production-like-key-for-the-mailbox-process-" + "x" * 20
    started: list[subprocess.Popen[bytes]] = []
    env = {
        "SECRET_KEY": settings.SECRET_KEY,
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": "",
        "EMAIL_PROVIDER": "test",
        "SITE_URL": "https://pbem.example",
        "PBEM_REPLY_ADDRESS": REPLY_ADDRESS,
        "ANYMAIL_WEBHOOK_SECRET": "hook:secret",
        "PBEM_INBOUND_IMAP": dovecot.url(),
        "SSL_CERT_FILE": str(dovecot.ca_file),
        "PGAPPNAME": APP,
    }

    def start(**changes: str) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"mailbox-{len(started)}.log").open("w")
        process = subprocess.Popen(
            [sys.executable, "manage.py", "mailbox"], cwd=ROOT, env=env | changes, stdout=log, stderr=subprocess.STDOUT
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE application_name = %s", [APP])
        return ("Lock",) in cursor.fetchall()


def test_a_process_killed_between_reading_a_reply_and_committing_it_loses_nothing_and_takes_nothing_twice(
    make_game, dovecot, mailbox_process, postgres, settings
):
    game = make_game(humans=3)
    first = mailbox_process()
    wait_for(MailboxCursor.objects.exists, 30, "the process's first look", first)
    # Hold the cursor's row: the process reads the reply, stores its order, and then waits to move the cursor.
    with psycopg.connect(database_url()) as holder:
        holder.execute("SELECT 1 FROM games_mailboxcursor FOR UPDATE")
        dovecot.deliver(reply("role: seller"))
        wait_for(waiting_on_a_lock, 30, "the process to wait for its commit", first)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        holder.rollback()
    assert stored(game) == [] and not Receipt.objects.exists() and not ReadReply.objects.exists()
    assert dovecot.flags() == {1: set()}  # not marked: nothing committed
    # The next start (here in this process, the same Reader.take_new): taken once, then marked.
    assert take_once(settings, dovecot.url()).startswith("1 message taken")
    assert dovecot.flags() == {1: {SEEN}}
    assert stored(game) == [({"role": "seller"}, 1)]
    assert Receipt.objects.filter(to="player1@example.com").count() == 1
    assert MailboxCursor.objects.get().last_uid == 1


def test_a_dovecot_restart_under_a_running_process_costs_a_reconnection_not_a_reply(
    make_game, dovecot, mailbox_process, postgres, tmp_path
):
    game = make_game(humans=3)
    process = mailbox_process()
    dovecot.deliver(reply("role: seller"))
    wait_for(lambda: dovecot.flags() == {1: {SEEN}}, 90, "the first reply taken and marked", process)
    dovecot.restart()  # the process's connection (idling, or about to) is closed by the server
    dovecot.deliver(reply("role: buyer"))
    wait_for(lambda: stored(game) == [({"role": "buyer"}, 2)], 90, "the reply after the restart", process)
    wait_for(lambda: dovecot.flags() == {1: {SEEN}, 2: {SEEN}}, 90, "the second reply marked", process)
    assert Receipt.objects.filter(to="player1@example.com").count() == 2
    log = (tmp_path / "mailbox-0.log").read_text()
    assert log.count(": connected, IDLE") == 2 and "connection lost (abort), reconnecting in 1 s" in log, log
    assert "p@ss" not in log and "word%1" not in log  # the password is in no log line


@pytest.mark.parametrize(
    "url",
    ["imaps://host/INBOX", "pop3://user:pw@host/", "imaps://user:pw@host:port/INBOX", "imaps://u:p@h/INBOX?poll=soon"],
)
def test_a_url_that_names_no_mailbox_is_refused_by_the_checks_and_the_command(settings, url):
    settings.PBEM_INBOUND_IMAP = url
    assert [problem.id for problem in mailbox_problems()] == ["pbem.E010"]
    with pytest.raises(CommandError, match="PBEM_INBOUND_IMAP"):
        call_command("mailbox", "--once")


def test_a_mailbox_without_replies_on_is_warned_of(settings):
    settings.PBEM_INBOUND_IMAP = "imaps://club%40example.org:secret@imap.example.org/INBOX"
    assert mailbox_problems() == []
    settings.PBEM_REPLY_ADDRESS = ""
    assert [problem.id for problem in mailbox_problems()] == ["pbem.W006"]
    box = mailbox.parse(settings.PBEM_INBOUND_IMAP)
    assert (box.user, box.password, box.port, box.folder, box.name) == (
        "club@example.org",
        "secret",
        993,
        "INBOX",
        "club@example.org@imap.example.org:993/INBOX",  # what the log and the cursor say: no password
    )


def test_the_database_going_away_under_a_running_process_costs_a_reconnection_not_a_reply(
    make_game, dovecot, mailbox_process, postgres, tmp_path
):
    game = make_game(humans=3)
    db = connection.settings_dict
    proxy = Proxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))  # the process's way to PostgreSQL
    proxy.up()
    try:
        via_proxy = database_url().replace(f":{db['PORT'] or 5432}/", f":{proxy.port}/")
        process = mailbox_process(DATABASE_URL=via_proxy)
        wait_for(MailboxCursor.objects.exists, 30, "the process's first look", process)
        proxy.down()  # PostgreSQL restarting, as the process sees it
        dovecot.deliver(reply("role: seller"))
        log = tmp_path / "mailbox-0.log"
        wait_for(lambda: "database lost" in log.read_text(), 30, "the process to find the database gone", process)
        assert stored(game) == [] and dovecot.flags() == {1: set()}
        proxy.up()
        wait_for(lambda: dovecot.flags() == {1: {SEEN}}, 30, "the reply taken once the database is back", process)
    finally:
        proxy.down()
    assert stored(game) == [({"role": "seller"}, 1)]
    assert Receipt.objects.filter(to="player1@example.com").count() == 1
