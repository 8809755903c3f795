"""What the lobby stores: tables that players propose, their seats, the invitations sent for them, the
addresses an inviter may not write to again, and the lobby's own outbox.

A table lives here until its ready check passes (games/lobby/ready.py); only then is the core's Game
created, with the players who accepted and the bots. So nothing of the core (seats, phases, missed turns,
standings) ever sees a seat that nobody accepted.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import BotLevel, Game, Player, WrittenEmail, unsent_index


def new_key() -> str:
    return secrets.token_urlsafe(12)


class Table(models.Model):
    """A game proposed by a player: what it will be, who sits where, and until when it waits."""

    class Status(models.TextChoices):
        OPEN = "open", _("waiting for players")
        STARTED = "started", _("Started")
        CANCELLED = "cancelled", _("Cancelled")

    # The table's address (/lobby/t/<key>/): unguessable, so a private table is reached by its link only.
    key = models.CharField(max_length=24, unique=True, default=new_key, verbose_name=_("key"))
    creator = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="lobby_tables", verbose_name=_("creator")
    )
    engine = models.SlugField(max_length=32, verbose_name=_("engine"))
    title = models.CharField(max_length=120, blank=True, verbose_name=_("title"))
    # The engine's options and the press options, as games.play.turns.create_game takes them.
    options = models.JSONField(default=dict, blank=True, verbose_name=_("options"))
    size = models.PositiveSmallIntegerField(verbose_name=_("size"))
    # Each turn lasts `phase_length`; with `daily_at`, it ends at that time of day in `time_zone` instead (the
    # first such time at least `phase_length` after the turn opened).
    phase_length = models.DurationField(default=timedelta(hours=48), verbose_name=_("phase length"))
    daily_at = models.TimeField(null=True, blank=True, verbose_name=_("daily at"))
    time_zone = models.CharField(max_length=64, default="UTC", verbose_name=_("time zone"))
    # At the start time, seats still empty become bots (if the game can start at all: see ready.py).
    bots_fill = models.BooleanField(default=False, verbose_name=_("bots fill"))
    # How the table's bots play (its bot seats, and the empty seats bots fill).
    bot_level = models.CharField(
        max_length=6, choices=BotLevel.choices, default=BotLevel.STRONG, verbose_name=_("bot level")
    )
    private = models.BooleanField(default=False, verbose_name=_("private"))
    start_by = models.DateTimeField(verbose_name=_("start by"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    settled_at = models.DateTimeField(null=True, blank=True, verbose_name=_("settled at"))
    why_cancelled = models.CharField(max_length=200, blank=True, verbose_name=_("why cancelled"))
    game = models.OneToOneField(
        Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="lobby_table", verbose_name=_("game")
    )
    rematch_of = models.ForeignKey(
        Game,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematch_tables",
        verbose_name=_("rematch of"),
    )

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        indexes = [
            # The ready check's sweep (ready.settle_due): open tables whose start time has come.
            models.Index(fields=["start_by"], name="lobby-table-due", condition=models.Q(status="open")),
        ]

    def __str__(self) -> str:
        return f"table {self.pk}: {self.title or self.engine}"


class Invitation(models.Model):
    """One invitation email: who sent it, to which address, for which seat, and what came of it. The rows
    of the last day are what the caps count (games/lobby/invitations.py)."""

    class Answer(models.TextChoices):
        PENDING = "pending", _("Pending")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        BOUNCED = "bounced", _("Bounced")  # or complained: the address is not written to again by this inviter
        WITHDRAWN = (
            "withdrawn",
            _("Withdrawn"),
        )  # the table started without them, or was cancelled, or the creator re-seated

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("table"))
    inviter = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="invitations_sent", verbose_name=_("inviter")
    )
    # The address's player, if it is one already; a newcomer's Player is created when they accept, so an
    # address that never accepted is stored nowhere but here (what the caps and blocks need).
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations", verbose_name=_("player")
    )
    address = models.EmailField(verbose_name=_("address"))
    # Part of the join and decline links: a link works for this invitation only, while it is pending.
    key = models.CharField(max_length=24, default=new_key, verbose_name=_("key"))
    answer = models.CharField(max_length=10, choices=Answer.choices, default=Answer.PENDING, verbose_name=_("answer"))
    sent_at = models.DateTimeField(default=timezone.now, verbose_name=_("sent at"))
    answered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("answered at"))

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        indexes = [
            models.Index(fields=["inviter", "sent_at"], name="lobby-invites-by-inviter"),
            models.Index(fields=["address", "sent_at"], name="lobby-invites-by-address"),
        ]

    def __str__(self) -> str:
        return f"invitation {self.pk} to table {self.table_id}"


class TableSeat(models.Model):
    """A seat of a proposed table: the creator's, taken (a player accepted or joined), invited (an
    invitation waits for an answer), open (anyone signed in may take it), or a bot."""

    class State(models.TextChoices):
        TAKEN = "taken", _("Taken")
        INVITED = "invited", _("Invited")
        OPEN = "open", _("Open")
        BOT = "bot", _("Bot")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    state = models.CharField(max_length=8, choices=State.choices, verbose_name=_("state"))
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="lobby_seats", verbose_name=_("player")
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("invitation")
    )
    # A bot seat's own level, chosen with the table; blank: the table's bot_level (and for the seats bots fill).
    bot_level = models.CharField(
        max_length=6, choices=BotLevel.choices, blank=True, default="", verbose_name=_("bot level")
    )

    class Meta:
        verbose_name = _("table seat")
        verbose_name_plural = _("table seats")
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="lobby-one-seat-number"),
            models.UniqueConstraint(
                fields=["table", "player"], name="lobby-one-seat-per-player", condition=models.Q(player__isnull=False)
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"seat {self.number + 1} of table {self.table_id}"


class Block(models.Model):
    """An address an inviter may not invite again (it declined, bounced or complained); with no inviter, an
    address that asked for no invitations from anyone."""

    class Reason(models.TextChoices):
        DECLINED = "declined", _("Declined")
        BOUNCED = "bounced", _("Bounced")
        COMPLAINED = "complained", _("Complained")
        NO_INVITATIONS = "no-invitations", _("asked for no invitations at all")

    inviter = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="+", verbose_name=_("inviter")
    )
    address = models.EmailField(verbose_name=_("address"))
    reason = models.CharField(max_length=16, choices=Reason.choices, verbose_name=_("reason"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        indexes = [models.Index(fields=["address"], name="lobby-block-address")]

    def __str__(self) -> str:
        return f"block {self.pk} ({self.reason})"


class LobbyEmail(WrittenEmail):
    """An invitation or a table's news, rendered when it is written and sent after commit through the mail
    pipeline's claim/send/record path (games/outgoing/outbox.py), retried by the sweep like every outbox."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="emails", verbose_name=_("table"))
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, null=True, blank=True, verbose_name=_("invitation")
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, null=True, blank=True, verbose_name=_("player"))

    class Meta:
        verbose_name = _("lobby email")
        verbose_name_plural = _("lobby emails")
        indexes = [
            models.Index(fields=["status"], name="lobby-email-status"),
            unsent_index("lobby-email-unsent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} email {self.pk}"
