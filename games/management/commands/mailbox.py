"""Replies from the IMAP mailbox PBEM_INBOUND_IMAP names (games/incoming/mail/mailbox.py), read for as long as the
process runs: a systemd service of its own (deploy/systemd/pbem-mailbox.service), one per mailbox."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from games.incoming.mail import mailbox


class Command(BaseCommand):
    help = "Read replies from the mailbox PBEM_INBOUND_IMAP names: new mail at once where the server has IDLE."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="take what is there now, then stop")

    def handle(self, *args: Any, **opts: Any) -> None:
        if not settings.PBEM_INBOUND_IMAP:
            raise CommandError("PBEM_INBOUND_IMAP is not set (imaps://user:password@host/INBOX).")
        try:
            box = mailbox.parse(settings.PBEM_INBOUND_IMAP)
        except ValueError as error:
            raise CommandError(str(error)) from None
        if not opts["once"]:
            mailbox.serve(box)
            return
        reader = mailbox.Reader(box)
        try:
            reader.connect()
            taken = reader.take_new()
        finally:
            reader.close()
        said = ngettext("%(count)d message taken from %(box)s", "%(count)d messages taken from %(box)s", taken)
        self.stdout.write(said % {"count": taken, "box": box.name})
