"""The email outboxes' rows: the game emails' outbox, the receipts' outbox (answers to inbound mail), the
replies already read, and the coalesced wake-up calls of their senders. Every outbox table is a `MailRow`
(games/outgoing/outbox.py claims, sends and records them the same way for each)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from games.models.games import Game, Phase, Seat


class Wake(models.Model):
    """A wake-up call on its way to a task that drains one kind of due rows (games/outgoing/wakes.py, wake_once): the
    row exists from the moment the call is published until the task starts. While it exists, newly due rows
    need no call of their own: the task, once it starts, finds them too. Under a burst (a league's deadline,
    a backlog after an outage) many games' emails then go out in a few tasks instead of one task each."""

    task = models.CharField(max_length=100, primary_key=True)
    at = models.DateTimeField()  # when the call was published: an old one was lost, and is published again

    def __str__(self) -> str:
        return f"{self.task} woken at {self.at:%Y-%m-%d %H:%M:%S}"


class MailStatus(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"  # claimed by a sender, in the provider's hands
    SENT = "sent"
    SKIPPED = "skipped"  # no longer worth sending (a turn email for a phase that resolved)
    FAILED = "failed"


# How many sends a row gets: its last failure leaves it failed for good (games/outgoing/outbox.py).
MAX_ATTEMPTS = 5


def owed() -> models.Q:
    """An outbox row still owed: pending, being sent, or failed with attempts left."""
    return models.Q(status__in=[MailStatus.PENDING, MailStatus.SENDING]) | models.Q(
        status=MailStatus.FAILED, attempts__lt=MAX_ATTEMPTS
    )


def unsent_index(name: str) -> models.Index:
    """Every outbox's partial index on the rows still owed, oldest first: the sweep's and /healthz's read."""
    return models.Index(fields=["created_at"], name=name, condition=owed())


class MailRow(models.Model):
    """What every outbox table has (this one and the apps'): the claim/send/record path of games/outgoing/outbox.py
    reads and writes only these columns."""

    Status = MailStatus

    status = models.CharField(max_length=10, choices=MailStatus.choices, default=MailStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # When a sender last claimed it (status "sending" until the provider answers), or was woken for it.
    attempted_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # The Message-ID it was sent with: later emails of its thread point at the first one sent to a reader.
    message_id = models.CharField(max_length=200, blank=True)

    class Meta:
        abstract = True


class WrittenEmail(MailRow):
    """An app's outbox row that holds its email as written (rendered in the transaction that decided it is due):
    the address, its kind, and the subject and bodies the sender sends as they are."""

    to = models.EmailField()
    kind = models.CharField(max_length=32)
    subject = models.CharField(max_length=250)
    text = models.TextField()
    html = models.TextField(blank=True)

    class Meta:
        abstract = True


class OutboundEmail(MailRow):
    """The email outbox: a row per (phase, seat, kind), written in the transaction that decides the
    email is due, claimed and sent by a task after commit. The unique constraint makes every email
    at most once, whatever retries or sweeps do."""

    class Kind(models.TextChoices):
        TURN_STARTED = "turn-started"
        REMINDER = "reminder"
        PHASE_RESOLVED = "phase-resolved"
        GAME_OVER = "game-over"
        # An organiser moved the open phase's deadline (extended it, or resumed a paused game): each seat that
        # still owes an order is told the new one. A phase's deadline may move again, so this kind alone may
        # be written more than once for a seat and phase.
        DEADLINE_MOVED = "deadline-moved"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="emails")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="emails")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="emails")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    to = models.EmailField(blank=True)
    subject = models.CharField(max_length=250, blank=True)
    # The log's length when the email became due: it reports the lines after the previous email's.
    events_upto = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "seat", "kind"],
                name="one-email-per-phase-seat-kind",
                condition=~models.Q(kind="deadline-moved"),
            )
        ]
        indexes = [
            models.Index(fields=["status"], name="outbox-status"),
            unsent_index("outbox-unsent"),
            # The sender's claim (games/outgoing/emails.py, send_due): the oldest pending rows, in a backlog's order.
            models.Index(fields=["id"], name="outbox-pending", condition=models.Q(status="pending")),
            # What an email needs of those sent before it (games/outgoing/emails.py, with_history): its seat's last one,
            # and the first one its address got in the game. Partial, so a lookup reads its seat's or reader's
            # few sent rows whatever the planner thinks of the share of sent rows.
            models.Index(fields=["seat", "id"], name="outbox-sent-by-seat", condition=models.Q(status="sent")),
            models.Index(fields=["game", "to", "id"], name="outbox-sent-by-reader", condition=models.Q(status="sent")),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.seat}"

    @property
    def asks_for_order(self) -> bool:
        """A turn email, reminder or moved deadline: it asks for an order, so it is pointless once its phase
        resolved."""
        return self.kind in (self.Kind.TURN_STARTED, self.Kind.REMINDER, self.Kind.DEADLINE_MOVED)


class Receipt(MailRow):
    """A receipt or notice to one player, composed when the reply was read (its text says what became of it)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="receipts")
    to = models.EmailField()
    subject = models.CharField(max_length=250)
    text = models.TextField()
    # In-Reply-To, References and what else the answer carries (games/outgoing/outbox.py compose sets the rest).
    headers = models.JSONField(default=dict)

    class Meta:
        indexes = [models.Index(fields=["id"], name="receipt-pending", condition=models.Q(status="pending"))]

    def __str__(self) -> str:
        return f"receipt {self.pk} of game {self.game_id}"


class ReadReply(models.Model):
    """An inbound message already taken: its key is a digest of its Message-ID (of its content, without one)."""

    key = models.CharField(max_length=64, primary_key=True)
    read_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"reply read at {self.read_at:%Y-%m-%d %H:%M}"


class MailboxCursor(models.Model):
    """How far `manage.py mailbox` has taken an IMAP mailbox (games/incoming/mail/mailbox.py): the highest UID whose
    message is taken, committed in the same transaction as what the message did, under the mailbox's UIDVALIDITY
    (UIDs mean nothing under another one: the mailbox was made anew)."""

    mailbox = models.CharField(max_length=300, unique=True)  # user@host:port/folder, never the password
    uidvalidity = models.BigIntegerField()
    last_uid = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.mailbox} at UID {self.last_uid}"
