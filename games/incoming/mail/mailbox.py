"""Replies from a mailbox over IMAP (`manage.py mailbox`, a long-running process: docs/operators.md, "Mail in"), for a
club with a mailbox of its own (its domain's, Gmail's, Fastmail's) and no provider's webhook.

PBEM_INBOUND_IMAP names the mailbox in one URL: imaps://user:password@host/INBOX (imap:// upgrades with STARTTLS
where the server offers it). Its query may add move=Folder (move each taken message there instead of flagging it
\\Seen), poll=seconds (between looks where the server has no IDLE; 60) and idle=seconds (how long one IDLE is held
before it is renewed; 300, under the 29 minutes servers allow).

Each message goes the webhooks' way from its raw bytes (games/incoming/mail/webhooks.py take_raw), exactly once:
the highest UID taken is kept in the database (MailboxCursor, under the mailbox's UIDVALIDITY) and moved past a
message in the transaction that does what the message says, so a process killed before that commit takes it again
and one killed after does not. The message is flagged (or moved) only after the commit; one committed but not yet
flagged when the process died is flagged at the next start. The server dropping the connection, or the database
going away, costs a reconnection with a growing pause (1 s to a minute), never a message: nothing moves past a
message the database has not committed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlparse

from django.db import InterfaceError, OperationalError, close_old_connections, connection, transaction
from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from games.incoming.mail.webhooks import take_raw
from games.models import MailboxCursor

log = logging.getLogger(__name__)
SEEN = b"\\Seen"
TIMEOUT = 60.0  # seconds a command may wait on the server before the connection counts as dropped
LONGEST_PAUSE = 60.0  # seconds between reconnections, at most
DOWN = (OSError, IMAPClientError, OperationalError, InterfaceError)  # the server or the database went away


@dataclass(frozen=True)
class Mailbox:
    host: str
    port: int
    tls: bool  # imaps: TLS from the first byte
    user: str
    password: str
    folder: str
    move_to: str  # where taken messages go; "" flags them \Seen where they are
    poll: float
    idle: float

    @property
    def name(self) -> str:
        """What the cursor and the log lines call it: never the password."""
        return f"{self.user}@{self.host}:{self.port}/{self.folder}"


def parse(url: str) -> Mailbox:
    parts = urlparse(url)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
        raise ValueError("PBEM_INBOUND_IMAP must look like imaps://user:password@host/INBOX")
    query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
    tls = parts.scheme == "imaps"
    try:
        port = parts.port
        poll, idle = float(query.get("poll", 60)), float(query.get("idle", 300))
    except ValueError:
        raise ValueError("PBEM_INBOUND_IMAP's port, poll or idle is not a number") from None
    return Mailbox(
        host=parts.hostname,
        port=port or (993 if tls else 143),
        tls=tls,
        user=unquote(parts.username),
        password=unquote(parts.password or ""),
        folder=unquote(parts.path.lstrip("/")) or "INBOX",
        move_to=query.get("move", ""),
        poll=poll,
        idle=idle,
    )


class Reader:
    """One connection to the mailbox: connect, take what is new, wait for more."""

    def __init__(self, mailbox: Mailbox) -> None:
        self.mailbox = mailbox
        self.client: IMAPClient | None = None
        self.uidvalidity = 0

    def connect(self) -> IMAPClient:
        box = self.mailbox
        client = IMAPClient(box.host, box.port, ssl=box.tls, timeout=TIMEOUT)
        self.client = client
        if not box.tls and client.has_capability("STARTTLS"):
            client.starttls()
        client.login(box.user, box.password)
        if box.move_to and not client.folder_exists(box.move_to):
            client.create_folder(box.move_to)
        self.uidvalidity = int(client.select_folder(box.folder)[b"UIDVALIDITY"])
        return client

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            try:
                client.logout()
            except DOWN:  # the connection is gone already: close what is left of it
                with suppress(*DOWN):
                    client.shutdown()

    def cursor(self) -> MailboxCursor:
        row, _ = MailboxCursor.objects.get_or_create(
            mailbox=self.mailbox.name, defaults={"uidvalidity": self.uidvalidity}
        )
        if row.uidvalidity != self.uidvalidity:
            # The mailbox was made anew (or restored): its UIDs start again. What is unread in it is read once more;
            # a message taken before is known by its Message-ID (games/outgoing/receipts.py first_reading).
            log.warning("mailbox %s: UIDVALIDITY changed, reading it from the start", self.mailbox.name)
            MailboxCursor.objects.filter(pk=row.pk).update(uidvalidity=self.uidvalidity, last_uid=0)
            row.refresh_from_db()
        return row

    def take_new(self) -> int:
        """Take every message past the cursor, oldest first; how many were taken."""
        assert self.client is not None
        close_old_connections()  # a database connection dropped while we waited is replaced, not used
        cursor = self.cursor()
        self.mark_up_to(cursor.last_uid)
        # A mailbox read for the first time (or made anew) is read from its unread messages: the club's mail read
        # before pbem was set up is left alone, not answered years late.
        unread = ["UNSEEN"] if cursor.last_uid == 0 else []
        found = self.client.search(["UID", f"{cursor.last_uid + 1}:*", *unread])
        uids = sorted(uid for uid in found if uid > cursor.last_uid)  # n:* always answers the last one
        for uid in uids:
            fetched = self.client.fetch([uid], ["BODY.PEEK[]"]).get(uid, {})
            self.take(cursor.pk, uid, fetched.get(b"BODY[]"))
            self.mark([uid])
        return len(uids)

    def take(self, cursor: int, uid: int, raw: bytes | None) -> None:
        """What the message says, and the cursor moved past it, in one transaction. The database going away
        propagates (nothing is committed, the message is taken again later); any other error is the message's:
        logged, left unflagged in the mailbox for the operator, and passed over."""
        where = f"mailbox {self.mailbox.name} UID {uid}"
        try:
            with transaction.atomic():
                taken = take_raw(raw, "imap") if raw is not None else False
                MailboxCursor.objects.filter(pk=cursor, last_uid__lt=uid).update(last_uid=uid)
        except (OperationalError, InterfaceError):
            raise
        except Exception as error:  # noqa: BLE001  (one message must not stop every later one)
            log.error("%s could not be taken (%s): left unread and passed over", where, type(error).__name__)
            MailboxCursor.objects.filter(pk=cursor, last_uid__lt=uid).update(last_uid=uid)
            return
        log.info("%s: %s", where, "taken" if taken else "unreadable, refused")

    def mark(self, uids: list[int]) -> None:
        assert self.client is not None
        if self.mailbox.move_to:
            self.client.move(uids, self.mailbox.move_to)
        else:
            self.client.add_flags(uids, [SEEN], silent=True)

    def mark_up_to(self, last_uid: int) -> None:
        """Mark what a process committed but died before marking."""
        if last_uid:
            assert self.client is not None
            criteria = ["UID", f"1:{last_uid}"] + ([] if self.mailbox.move_to else ["UNSEEN"])
            if left := self.client.search(criteria):
                self.mark(list(left))

    def wait(self) -> None:
        """Until the server tells of a change (IDLE), or for the poll's period where it cannot."""
        assert self.client is not None
        if not self.client.has_capability("IDLE"):
            time.sleep(self.mailbox.poll)
            return
        self.client.idle()
        try:
            self.client.idle_check(timeout=self.mailbox.idle)
        finally:
            self.client.idle_done()


def serve(mailbox: Mailbox, stopping: Callable[[], bool] = lambda: False) -> None:
    """Read the mailbox until stopped, reconnecting after any drop with a pause that doubles up to a minute."""
    pause = 1.0
    while not stopping():
        reader = Reader(mailbox)
        try:
            idle = reader.connect().has_capability("IDLE")
            log.info("mailbox %s: connected, %s", mailbox.name, "IDLE" if idle else f"polled every {mailbox.poll} s")
            while not stopping():
                reader.take_new()
                pause = 1.0
                reader.wait()
        except DOWN as error:
            what = "database" if isinstance(error, OperationalError | InterfaceError) else "connection"
            kind = type(error).__name__
            log.warning("mailbox %s: %s lost (%s), reconnecting in %.0f s", mailbox.name, what, kind, pause)
            if what == "database":
                connection.close()
        finally:
            reader.close()
        time.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)
