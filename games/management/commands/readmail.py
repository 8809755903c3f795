"""One message on standard input, from the mail server's pipe (Postfix's pipe transport, Exim's pipe, procmail):
docs/operators.md ("Mail in") shows the Postfix lines.

The exit status is what the mail server acts on (sysexits.h): 0 once the message is taken or refused (an
unreadable or oversized message would be refused again, so it is not bounced back to a sender who may be forged),
75 (EX_TEMPFAIL) when it could not be taken now, the database unreachable above all: the mail server keeps it in
its queue and tries again, so nothing is lost while PostgreSQL restarts."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, BinaryIO

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import Error as DatabaseError

from games.incoming.mail.webhooks import take_raw

log = logging.getLogger(__name__)
EX_TEMPFAIL = os.EX_TEMPFAIL  # 75
MAX_BYTES = 10 * 1024 * 1024  # a reply is a few kilobytes; a message past this is no reply of a player's


class Command(BaseCommand):
    help = "Take one email message (RFC 5322) from standard input, as replies to the server's emails are taken."
    # No system checks: the mail server starts one process per message, and a check that reads the database would
    # fail with its own status, not 75, when the database is down.
    requires_system_checks: list[str] = []
    stealth_options = ("stdin",)  # the tests hand a stream instead of the process's standard input

    def add_arguments(self, parser: CommandParser) -> None:
        recipient = "the envelope recipient, if the mail server gives it (Postfix: ${original_recipient})"
        parser.add_argument("--recipient", default=None, help=recipient)

    def handle(self, *args: Any, **opts: Any) -> None:
        stream: BinaryIO = opts.get("stdin") or sys.stdin.buffer
        raw = stream.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            log.warning("readmail: a message over %d bytes refused unread", MAX_BYTES)
            self.stdout.write("refused: too large")
            return
        try:
            taken = take_raw(raw, "pipe", opts["recipient"] or None)
        except DatabaseError as error:
            log.error("readmail: the database is unreachable (%s): the mail server will retry", type(error).__name__)
            raise CommandError("the database is unreachable: try again later", returncode=EX_TEMPFAIL) from None
        except Exception as error:  # noqa: BLE001
            # Not the message's fault as far as we know: keep it in the mail server's queue rather than bounce it.
            log.error("readmail: the message could not be taken (%s): the mail server will retry", type(error).__name__)
            raise CommandError("the message could not be taken now: try again later", returncode=EX_TEMPFAIL) from None
        self.stdout.write("taken" if taken else "refused: unreadable")
