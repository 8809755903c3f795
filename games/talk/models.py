"""What table talk stores. A message belongs to a thread: the whole table, or a set of seats (its sender's
among them). Who may read a private message is decided when it is written: a Participant row for each seat
of its thread, naming the player who held that seat then. So a player who takes a seat over later does not
read what was said before they sat (unless a Share lets them), and one who left reads nothing new. The same
rows are each reader's inbox (seen, emailed), for table messages too."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import Game, Player

TABLE = "table"


def thread_key(seats: set[int]) -> str:
    """A private thread's key: its seats' numbers, sorted ("0,2,3")."""
    return ",".join(str(n) for n in sorted(seats))


def thread_seats(key: str) -> list[int]:
    return [] if key == TABLE else [int(n) for n in key.split(",")]


class Message(models.Model):
    """Nothing shows `text` of a private message to anyone but its participants: not the admin (unless a
    participant reported it), not a page, not an email, not a log line."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="messages", verbose_name=_("game"))
    thread = models.CharField(max_length=64, verbose_name=_("thread"))  # TABLE or thread_key(seats)
    sender_seat = models.PositiveSmallIntegerField(verbose_name=_("sender seat"))
    sender = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("sender"))
    text = models.TextField(verbose_name=_("text"))
    sent_at = models.DateTimeField(default=timezone.now, verbose_name=_("sent at"))

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        indexes = [
            models.Index(fields=["game", "thread", "id"], name="talk-thread"),
            models.Index(fields=["game", "sender_seat", "sent_at"], name="talk-seat-rate"),
        ]

    def __str__(self) -> str:
        # Not the text: the admin prints str() in places (labels, titles, delete pages).
        return f"message {self.pk} of game {self.game_id}"

    @property
    def private(self) -> bool:
        return self.thread != TABLE


class Participant(models.Model):
    """A seat that may read the message, as held by `player` when it was written; also that reader's inbox
    row: `seen_at` once a page or an email showed it to them."""

    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, related_name="participants", verbose_name=_("message")
    )
    seat_number = models.PositiveSmallIntegerField(verbose_name=_("seat number"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"))
    seen_at = models.DateTimeField(null=True, blank=True, verbose_name=_("seen at"))

    class Meta:
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [models.UniqueConstraint(fields=["message", "seat_number"], name="talk-one-row-per-seat")]
        indexes = [
            models.Index(
                fields=["player", "seat_number"], name="talk-unseen", condition=models.Q(seen_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat_number + 1} of message {self.message_id}"


class Share(models.Model):
    """`by_player` (at seat `by_seat`) let the player who now holds seat `seat_number` read the thread's
    messages up to message `upto` that they themselves could read, written before that player sat."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", verbose_name=_("game"))
    thread = models.CharField(max_length=64, verbose_name=_("thread"))
    seat_number = models.PositiveSmallIntegerField(verbose_name=_("seat number"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"))
    by_seat = models.PositiveSmallIntegerField(verbose_name=_("by seat"))
    by_player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("by player"))
    upto = models.PositiveBigIntegerField(verbose_name=_("upto"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("share")
        verbose_name_plural = _("shares")
        constraints = [
            models.UniqueConstraint(
                fields=["game", "thread", "seat_number", "player", "by_player"], name="talk-one-share"
            )
        ]

    def __str__(self) -> str:
        return f"share with seat {self.seat_number + 1} of game {self.game_id}"


class Report(models.Model):
    """A participant asked the organisers to read a message: only reported messages show in the admin."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports", verbose_name=_("message"))
    by_seat = models.PositiveSmallIntegerField(verbose_name=_("by seat"))
    by_player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("by player"))
    reason = models.CharField(max_length=200, blank=True, verbose_name=_("reason"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        constraints = [models.UniqueConstraint(fields=["message", "by_player"], name="talk-one-report")]

    def __str__(self) -> str:
        return f"report on message {self.message_id}"


class Delivery(models.TextChoices):
    NOW = "now", _("at once (at most one email per game every few minutes)")
    TURN = "turn", _("in my next turn email")
    DIGEST = "digest", _("in a daily digest")


class TalkSettings(models.Model):
    """How a player gets the messages written to them by email (their notification settings); a player
    without a row gets them at once."""

    player = models.OneToOneField(
        Player, on_delete=models.CASCADE, primary_key=True, related_name="talk_settings", verbose_name=_("player")
    )
    delivery = models.CharField(
        max_length=8, choices=Delivery.choices, default=Delivery.NOW, verbose_name=_("delivery")
    )

    class Meta:
        verbose_name = _("talk settings")
        verbose_name_plural = _("talk settings")

    def __str__(self) -> str:
        return f"table talk emails of player {self.player_id}"


class Mailbox(models.Model):
    """One reader's message emails of one game: its row lock makes one sender at a time email them, and
    `last_sent_at` spaces those emails (games/talk/mail.py, BATCH_WINDOW)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", verbose_name=_("game"))
    seat_number = models.PositiveSmallIntegerField(verbose_name=_("seat number"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"))
    last_sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last sent at"))
    emails_sent = models.PositiveIntegerField(default=0, verbose_name=_("emails sent"))

    class Meta:
        verbose_name = _("mailbox")
        verbose_name_plural = _("mailboxes")
        constraints = [
            models.UniqueConstraint(fields=["game", "seat_number", "player"], name="talk-one-mailbox-per-reader")
        ]

    def __str__(self) -> str:
        return f"mailbox of seat {self.seat_number + 1} of game {self.game_id}"
