"""Answers to inbound mail (games/incoming/mail/inbound.py's receipts and notices, games/talk/inbound.py's refusals),
sent through an outbox like every email: the answer is written in the transaction that read the reply, and a task
sends it after commit; a send that fails leaves the row failed, for the sweep to retry (games/outgoing/outbox.py). So
the webhook's answer never depends on the outgoing provider: it has read the message, and says 200.

Also the record of the replies read (`ReadReply`), so that a provider delivering one message twice (a retry
after a timeout, an at-least-once queue) has it taken once.

Both models live here rather than in games/models.py (kept under 400 lines); GamesConfig.ready() imports this
module, which registers them with the games app like any model of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from games.extensions import Outbox
from games.models import MailRow, ReadReply, Receipt
from games.outgoing import messages, outbox
from games.outgoing.dispatch import SEND_RECEIPTS, after_commit

# Longer than any provider retries a delivery (Mailgun 8 hours, SendGrid 3 days, Postmark's retries about 10
# hours): a message read earlier than this is forgotten by the sweep.
REMEMBER_REPLIES = timedelta(days=14)


def reply_key(message_id: str, *content: str) -> str:
    """The key of an inbound message: its Message-ID, or, for a message without one, what it says and to whom
    (a redelivery is the same bytes; two replies the player sent are not)."""
    basis = message_id.strip() or "\x00".join(content)
    return hashlib.sha256(basis.encode("utf-8", "replace")).hexdigest()


def first_reading(key: str) -> bool:
    """Record the message `key` as read, in the caller's transaction; False if it was read before (a redelivery:
    the caller takes it no further). Two deliveries at once: the second waits on the first's row, then finds it."""
    try:
        with transaction.atomic():
            ReadReply.objects.create(key=key)
    except IntegrityError:
        return False
    return True


def forget_replies(now: datetime) -> int:
    """Drop the record of messages read longer ago than any provider redelivers (run by the sweep)."""
    deleted, _ = ReadReply.objects.filter(read_at__lt=now - REMEMBER_REPLIES).delete()
    return deleted


def write(game_id: int, to: str, subject: str, text: str, headers: dict[str, str]) -> Receipt:
    """Queue an answer, in the caller's transaction; its sender is woken after commit."""
    row = Receipt.objects.create(game_id=game_id, to=to, subject=subject[:250], text=text, headers=headers)
    after_commit(SEND_RECEIPTS)
    return row


def compose(row: Receipt) -> outbox.Outgoing:
    """The message of a row: plain text, marked as an automatic reply (RFC 3834, and Exchange's own header) so
    that an auto-responder does not answer it and two cannot loop."""
    message = messages.compose(
        messages.Rendered(subject=row.subject, text=row.text, html=""),
        row.to,
        kind="receipt",
        thread=messages.Thread(messages.message_id(f"pbem.receipt.{row.pk}")),
        auto="auto-replied",
        headers={**row.headers, "X-Auto-Response-Suppress": "All"},
    )
    return outbox.Outgoing([row.pk], message)


def send_pending() -> int:
    """Send the receipts pending, oldest first, a batch at a time; returns how many went out."""
    sent = 0
    while rows := outbox.claim_pending(Receipt.objects.filter(status=MailRow.Status.PENDING), limit=50):
        sent += outbox.send_claimed(Receipt, _outgoing(rows))
    return sent


def _outgoing(rows: list[Receipt]) -> Iterator[outbox.Outgoing]:
    yield from (compose(row) for row in rows)


def unsent() -> QuerySet[Receipt]:
    return outbox.unsent(Receipt)


def wake_sender(*_: object) -> None:
    after_commit(SEND_RECEIPTS)


# Registered with every other outbox (GamesConfig.ready()): the sweep retries and wakes them alike.
OUTBOX = Outbox(model=Receipt, wake=wake_sender)
