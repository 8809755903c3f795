"""The DNS records that make the server's mail trusted (docs/operators.md, "DNS for mail"): the DKIM key's record
when one is set, and suggestions for SPF, DMARC and the reply domain's MX, written as zone-file lines."""

from __future__ import annotations

from email.utils import parseaddr
from typing import Any
from urllib.parse import urlparse

from django.conf import settings
from django.core.management.base import BaseCommand

from games.outgoing import dkim

TTL = 3600
LOCAL = {"", "localhost", "127.0.0.1", "::1"}


def records() -> list[str]:
    """Comment lines and records, in the order an operator publishes them."""
    sender = dkim.domain()
    site = urlparse(settings.SITE_URL).hostname or "this-server.example.org"
    lines = [f"; DNS records for the mail pbem sends from {sender} (manage.py dnsrecords): publish them.", ""]
    if dkim.configured():
        name, value = dkim.dkim_record(settings.PBEM_DKIM_SELECTOR, settings.PBEM_DKIM_KEY_FILE)
        lines += [
            "; DKIM: the public half of PBEM_DKIM_KEY_FILE. Receivers check every message's signature with it.",
            f"{name}. {TTL} IN TXT {dkim.txt_strings(value)}",
        ]
    else:
        lines += [
            "; DKIM: no key set. Make one (openssl genrsa -out /etc/pbem/dkim.pem 2048), set PBEM_DKIM_SELECTOR",
            "; (a name of your choice, e.g. pbem1) and PBEM_DKIM_KEY_FILE, and run this again for its record.",
        ]
    relay = settings.EMAIL_HOST if settings.EMAIL_PROVIDER == "smtp" else ""
    lines += [
        "",
        f"; SPF, a suggestion: which machines may send mail from {sender}: here this server ({site}) and the",
        "; domain's own mail exchangers. ~all asks receivers to mark, not refuse, other senders; -all once it works.",
    ]
    if relay.lower() not in LOCAL:
        lines.append(f"; Mail leaves through {relay}: add what its operator documents (an include: or its addresses).")
    lines.append(f'{sender}. {TTL} IN TXT "v=spf1 a:{site} mx ~all"')
    lines += [
        "",
        f"; DMARC, a suggestion: what receivers do with mail claiming {sender} that passes neither DKIM nor SPF, and",
        "; where they send reports. Start with p=none, read the reports for a few weeks, then p=quarantine.",
        f'_dmarc.{sender}. {TTL} IN TXT "v=DMARC1; p=none; adkim=r; aspf=r; rua=mailto:postmaster@{sender}"',
    ]
    reply = parseaddr(settings.PBEM_REPLY_ADDRESS)[1].rpartition("@")[2].lower()
    if reply and settings.PBEM_INBOUND_IMAP:
        lines += [
            "",
            f"; Replies: mail to {settings.PBEM_REPLY_ADDRESS} (and its + addresses) is read from the mailbox that",
            f"; PBEM_INBOUND_IMAP names (manage.py mailbox): leave {reply}'s MX as it is, at that mailbox's host.",
        ]
    elif reply:
        lines += [
            "",
            f"; Replies: mail to {settings.PBEM_REPLY_ADDRESS} (and its + addresses) must reach whatever takes it in",
            "; (docs/operators.md, Mail in). If that is this server's own mail server (readmail), its MX:",
            f"{reply}. {TTL} IN MX 10 {site}.",
        ]
    return lines


class Command(BaseCommand):
    help = "Print the DNS records for the server's mail: DKIM (when a key is set), SPF, DMARC, the reply domain's MX."

    def handle(self, *args: Any, **opts: Any) -> None:
        self.stdout.write("\n".join(records()))
