"""The email outboxes' rows: the game emails' outbox, the receipts' outbox (answers to inbound mail), the
replies already read, and the coalesced wake-up calls of their senders. Every outbox table is a `MailRow`
(games/outgoing/outbox.py claims, sends and records them the same way for each)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.games import Game, Phase, Seat


class Wake(models.Model):
    """A wake-up call on its way to a task that drains one kind of due rows (games/outgoing/wakes.py, wake_once): the
    row exists from the moment the call is published until its task has drained what is due. While it exists,
    newly due rows need no call of their own: the task finds them too. Under a burst (a league's deadline,
    a backlog after an outage) many games' emails then go out in a few tasks instead of one task each."""

    task = models.CharField(max_length=100, primary_key=True, verbose_name=_("task"))
    at = models.DateTimeField(
        verbose_name=_("at")
    )  # when the call was published: an old one was lost, and is published again

    class Meta:
        verbose_name = _("wake")
        verbose_name_plural = _("wakes")

    def __str__(self) -> str:
        return f"{self.task} woken at {self.at:%Y-%m-%d %H:%M:%S}"


class MailStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    SENDING = "sending", _("Sending")  # claimed by a sender, in the provider's hands
    SENT = "sent", _("Sent")
    SKIPPED = "skipped", _("Skipped")  # no longer worth sending (a turn email for a phase that resolved)
    FAILED = "failed", _("Failed")


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

    status = models.CharField(
        max_length=10, choices=MailStatus.choices, default=MailStatus.PENDING, verbose_name=_("status")
    )
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("attempts"))
    error = models.TextField(blank=True, verbose_name=_("error"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    # When a sender last claimed it (status "sending" until the provider answers), or was woken for it.
    attempted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("attempted at"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent at"))
    # The Message-ID it was sent with: later emails of its thread point at the first one sent to a reader.
    message_id = models.CharField(max_length=200, blank=True, verbose_name=_("message id"))

    class Meta:
        abstract = True


class WrittenEmail(MailRow):
    """An app's outbox row that holds its email as written (rendered in the transaction that decided it is due):
    the address, its kind, and the subject and bodies the sender sends as they are."""

    to = models.EmailField(verbose_name=_("to"))
    kind = models.CharField(max_length=32, verbose_name=_("kind"))
    subject = models.CharField(max_length=250, verbose_name=_("subject"))
    text = models.TextField(verbose_name=_("text"))
    html = models.TextField(blank=True, verbose_name=_("html"))

    class Meta:
        abstract = True


class OutboundEmail(MailRow):
    """The email outbox: a row per (phase, seat, kind), written in the transaction that decides the
    email is due, claimed and sent by a task after commit. The unique constraint makes every email
    at most once, whatever retries or sweeps do."""

    class Kind(models.TextChoices):
        TURN_STARTED = "turn-started", _("Turn Started")
        REMINDER = "reminder", _("Reminder")
        PHASE_RESOLVED = "phase-resolved", _("Phase Resolved")
        GAME_OVER = "game-over", _("Game Over")
        # An organiser moved the open phase's deadline (extended it, or resumed a paused game): each seat that
        # still owes an order is told the new one. A phase's deadline may move again, so this kind alone may
        # be written more than once for a seat and phase.
        DEADLINE_MOVED = "deadline-moved", _("Deadline Moved")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="emails", verbose_name=_("game"))
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="emails", verbose_name=_("phase"))
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="emails", verbose_name=_("seat"))
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    to = models.EmailField(blank=True, verbose_name=_("to"))
    subject = models.CharField(max_length=250, blank=True, verbose_name=_("subject"))
    # The log's length when the email became due: it reports the lines after the previous email's.
    events_upto = models.PositiveIntegerField(default=0, verbose_name=_("events upto"))

    class Meta:
        verbose_name = _("outbound email")
        verbose_name_plural = _("outbound emails")
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

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="receipts", verbose_name=_("game"))
    to = models.EmailField(verbose_name=_("to"))
    subject = models.CharField(max_length=250, verbose_name=_("subject"))
    text = models.TextField(verbose_name=_("text"))
    # In-Reply-To, References and what else the answer carries (games/outgoing/outbox.py compose sets the rest).
    headers = models.JSONField(default=dict, verbose_name=_("headers"))

    class Meta:
        verbose_name = _("receipt")
        verbose_name_plural = _("receipts")
        indexes = [models.Index(fields=["id"], name="receipt-pending", condition=models.Q(status="pending"))]

    def __str__(self) -> str:
        return f"receipt {self.pk} of game {self.game_id}"


class ReadReply(models.Model):
    """An inbound message already taken: its key is a digest of its Message-ID (of its content, without one)."""

    key = models.CharField(max_length=64, primary_key=True, verbose_name=_("key"))
    read_at = models.DateTimeField(default=timezone.now, db_index=True, verbose_name=_("read at"))

    class Meta:
        verbose_name = _("read reply")
        verbose_name_plural = _("read replies")

    def __str__(self) -> str:
        return f"reply read at {self.read_at:%Y-%m-%d %H:%M}"


class MailboxCursor(models.Model):
    """How far `manage.py mailbox` has taken an IMAP mailbox (games/incoming/mail/mailbox.py): the highest UID whose
    message is taken, committed in the same transaction as what the message did, under the mailbox's UIDVALIDITY
    (UIDs mean nothing under another one: the mailbox was made anew)."""

    mailbox = models.CharField(
        max_length=300, unique=True, verbose_name=_("mailbox")
    )  # user@host:port/folder, never the password
    uidvalidity = models.BigIntegerField(verbose_name=_("uidvalidity"))
    last_uid = models.BigIntegerField(default=0, verbose_name=_("last uid"))

    class Meta:
        verbose_name = _("mailbox cursor")
        verbose_name_plural = _("mailbox cursors")

    def __str__(self) -> str:
        return f"{self.mailbox} at UID {self.last_uid}"
