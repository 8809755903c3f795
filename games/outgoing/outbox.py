"""The outbox rows' state machine, the same for every outbox table (each a `MailRow`: the game emails',
the receipts', the apps'): pending -> sending -> sent, or failed (retried up to MAX_ATTEMPTS), or skipped.

- `deliver`, and `claim_pending` with `send_claimed`: claim, send and record. A row is claimed (pending ->
  sending, an attempt counted) just before its send and recorded sent or failed just after;
- `retry_failed` and `send_stragglers`, run by the sweep over every outbox (the core's and the apps'), put
  failed rows with attempts left back and wake a sender for rows whose task was lost.

Messages are built by games/outgoing/messages.py; who may be written is games/outgoing/mailpolicy.py's call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import connections, router, transaction
from django.db.models import F, Q, QuerySet
from django.utils.timezone import now

from games import extensions
from games.extensions import Outbox
from games.models import MAX_ATTEMPTS, MailRow, MailStatus, claim, owed

log = logging.getLogger(__name__)
M = TypeVar("M", bound=MailRow)
# Longer than one provider call can take (anymail's requests time out well before): a row still being
# sent after this has lost its worker.
SENDING_TIMEOUT = timedelta(minutes=2)


@dataclass
class Outgoing:
    """One message to send and the outbox rows it stands for (a digest stands for several); None for rows
    that are no longer worth sending (they are marked skipped)."""

    rows: Sequence[int]
    message: EmailMultiAlternatives | None
    record: dict[str, Any] = field(default_factory=dict)  # more columns to store with the sent rows
    sent: bool = False  # set by deliver once the provider took it
    failed: str = ""  # without a message: why it could not be built (the rows fail, to be retried), not skipped


def deliver(model: type[MailRow], outgoing: Iterable[Outgoing], connection: BaseEmailBackend | None = None) -> int:
    """Claim, send and record each message of `outgoing` (built lazily, before its claim: a worker killed
    while rendering has sent nothing). A worker killed half-way leaves the rows it sent recorded sent, the
    rows it had not reached pending, and at most the rows in the provider's hands sending. The claim is
    conditional: of two senders of the same rows (a task and the sweep), one sends them. Returns how many
    messages went out."""
    connection = connection or get_connection()
    sent = 0
    for item in outgoing:
        pending = model._default_manager.filter(pk__in=item.rows, status=MailStatus.PENDING)
        if item.message is None:
            pending.update(status=MailStatus.SKIPPED)
            continue
        if pending.update(status=MailStatus.SENDING, attempts=F("attempts") + 1, attempted_at=now()):
            sent += _send(model, item, connection)
    return sent


@contextmanager
def unflushed_commits() -> Iterator[None]:
    """While a sender runs, its own writes (claims, sent marks) commit without waiting for PostgreSQL's
    write-ahead log to reach the disk (synchronous_commit off, for this connection, until it is done). Only a
    crash of the database server itself can then lose the last fraction of a second of them, and a lost claim
    or sent mark means an email sent again: never an email lost, nor any turn. Orders and resolutions, in
    other tasks and requests, keep waiting for the disk. Elsewhere than PostgreSQL it changes nothing."""
    db = connections[router.db_for_write(MailRow)]
    if db.vendor != "postgresql":
        yield
        return
    with db.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO OFF")
    try:
        yield
    finally:
        with db.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")


def claim_pending(pending: QuerySet[M], limit: int | None = None) -> list[M]:
    """Take up to `limit` rows of `pending` (pending rows of one outbox, with whatever the query selects),
    oldest first, for this sender: in one short transaction, skipping rows another sender holds, they are
    marked sending with an attempt counted. Send them with `send_claimed`. A sender killed from here on leaves
    them sending, and the sweep puts them back after SENDING_TIMEOUT (send_stragglers): nothing is sent twice
    but a message that was in the provider's hands."""
    with transaction.atomic():
        locked = pending.select_for_update(skip_locked=True, of=("self",)).order_by("pk")
        rows = list(locked[:limit] if limit is not None else locked)
        if rows:
            pending.model._default_manager.filter(pk__in=[row.pk for row in rows]).update(
                status=MailStatus.SENDING, attempts=F("attempts") + 1, attempted_at=now()
            )
    return rows


def send_claimed(model: type[MailRow], outgoing: Iterable[Outgoing], connection: BaseEmailBackend | None = None) -> int:
    """Send and record each message of `outgoing`, whose rows this sender claimed (`claim_pending`); rows of
    an item without a message are marked skipped, or failed if it says why. Each message is recorded sent
    just after its send, so a worker killed half-way has at most the message in the provider's hands sent
    twice. Returns how many messages went out."""
    connection = connection or get_connection()
    sent = 0
    # Marked together at the end, in one UPDATE: a backlog (the sweep's, after an outage) can hold a dozen
    # superseded turn emails of one game. A sender killed first leaves them sending, and the sweep puts them
    # back (send_stragglers), to be found obsolete again.
    skipped: list[int] = []
    try:
        for item in outgoing:
            if item.message is None and not item.failed:
                skipped.extend(item.rows)
            elif item.message is None:
                claimed = model._default_manager.filter(pk__in=item.rows, status=MailStatus.SENDING)
                claimed.update(status=MailStatus.FAILED, error=item.failed)
            else:
                sent += _send(model, item, connection)
    finally:
        if skipped:
            claimed = model._default_manager.filter(pk__in=skipped, status=MailStatus.SENDING)
            claimed.update(status=MailStatus.SKIPPED)
    return sent


def _send(model: type[MailRow], item: Outgoing, connection: BaseEmailBackend) -> int:
    """Hand a claimed message to the provider and record the answer: sent, or failed with the error."""
    assert item.message is not None
    claimed = model._default_manager.filter(pk__in=item.rows)
    try:
        item.message.connection = connection
        item.message.send()
    except Exception as error:  # noqa: BLE001  (any provider error: keep the rows to retry)
        error_text = f"{type(error).__name__}: {error}"[:2000]
        claimed.update(status=MailStatus.FAILED, error=error_text)
        log.warning("%s %s failed: %s", model._meta.verbose_name, list(item.rows), error_text)
        return 0
    record_sent(model, item.rows, {"message_id": item.message.extra_headers.get("Message-ID", ""), **item.record})
    item.sent = True
    return 1


def record_sent(model: type[MailRow], rows: Sequence[int], columns: dict[str, str]) -> None:
    """Mark `rows` sent now, with `columns` (the Message-ID, and what the outbox keeps besides). One UPDATE
    written out here rather than through a queryset: it runs after every email, and compiling it through the
    ORM took about a third of the time of rendering the email itself."""
    db = connections[router.db_for_write(model)]
    values: dict[str, Any] = {"status": MailStatus.SENT, "sent_at": db.ops.adapt_datetimefield_value(now())}
    values |= columns
    quote = db.ops.quote_name
    sets = ", ".join(f"{quote(name)} = %s" for name in values)  # plain columns, named as their fields
    ids = ", ".join(["%s"] * len(rows))
    # Only the model's own names are written into the statement; every value is a parameter.
    sql = f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE id IN ({ids})"  # noqa: S608
    with db.cursor() as cursor:
        cursor.execute(sql, [*values.values(), *rows])


def unsent(model: type[MailRow]) -> QuerySet[Any]:
    """Rows owed and not yet sent: pending, being sent, or failed with attempts left. Each outbox has a
    partial index on this condition, so the health check's oldest-first read stays cheap."""
    return model._default_manager.filter(owed())


def outboxes() -> list[Outbox]:
    """Every outbox: the core's (game emails, receipts) and the apps', each registered the same way
    (games/extensions.py, `outbox`)."""
    return extensions.outboxes()


def retry_failed(at: datetime | None = None) -> int:
    """Put failed rows with attempts left back in the queue and wake their senders. Returns how many rows
    were put back. Run by the sweep: the rows are taken in batches through the unsent index, and marked woken
    at `at` (attempted_at), so a later sweep wakes them again only if they are still pending a minute later
    (send_stragglers)."""
    at = at or now()
    put_back = 0
    for outbox in outboxes():
        failed = outbox.model._default_manager.filter(status=MailStatus.FAILED, attempts__lt=MAX_ATTEMPTS)
        requeue = {"status": MailStatus.PENDING, "attempted_at": at}
        woken: set[Any] = set()
        put_back += len(
            claim(failed.order_by("created_at"), mark=requeue, enqueue=_waker(outbox, woken), value=outbox.value)
        )
    return put_back


def send_stragglers(at: datetime | None = None) -> int:
    """Wake a sender for rows left pending for over a minute: their task was lost (a worker that died, a
    broker outage). A row left sending longer than a send can take is put back first: its worker died with it
    in the provider's hands, so whether it went out is unknown. It is sent again: a turn email twice is a
    lesser harm than a turn nobody hears of. Returns how many senders were woken (one per game for game
    emails).

    Run by the sweep, in batches through the unsent index. A row is marked woken at `at` (attempted_at: the
    last time a sender claimed it, or was woken for it), so a later sweep wakes it again only if the row is
    still pending a minute after that. Rows an outbox holds on purpose (a digest's news) are left alone."""
    at = at or now()
    stale = at - timedelta(minutes=1)
    woken_count = 0
    for outbox in outboxes():
        rows = outbox.model._default_manager.exclude(outbox.held_at(at))
        woken: set[Any] = set()
        requeue = {"status": MailStatus.PENDING, "attempted_at": at}
        lost = rows.filter(status=MailStatus.SENDING, attempted_at__lt=at - SENDING_TIMEOUT)
        claim(lost.order_by("attempted_at"), mark=requeue, enqueue=_waker(outbox, woken), value=outbox.value)
        left = rows.filter(
            Q(attempted_at__isnull=True) | Q(attempted_at__lt=stale),
            status=MailStatus.PENDING,
            created_at__lt=stale,  # attempted_at is never earlier: the index's range
        )
        claim(left.order_by("created_at"), mark={"attempted_at": at}, enqueue=_waker(outbox, woken), value=outbox.value)
        if outbox.due is not None:
            claim(outbox.due(at), mark={"attempted_at": at}, enqueue=_waker(outbox, woken), value=outbox.value)
        woken_count += len(woken)
    return woken_count


def _waker(outbox: Outbox, woken: set[Any]) -> Any:
    """Wake a sender after commit for each value of a batch not woken yet by this sweep (for game emails,
    one task per game, so the sweep stays short and one slow game does not hold back others)."""

    def wake(values: list[Any]) -> None:
        new = sorted(set(values) - woken)
        if new:
            outbox.wake(new)
        woken.update(values)

    return wake
