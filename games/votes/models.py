"""What the ending votes store: a table's proposals to end its game early, their secret ballots, and the
emails they send (rendered when written, like league news).

Nothing shows a ballot to anyone but its own voter, nor who proposed, ever: not a page, an email, the admin
(which lists proposals without either) nor a log line (games/votes/rules.py says why)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import Game, MailRow, Player, unsent_index


class Kind(models.TextChoices):
    DRAW = "draw", _("a draw")
    CANCEL = "cancel", _("cancelling the game")


class Proposal(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        PASSED = "passed", _("Passed")  # every player at the table voted yes: the game ended
        FAILED = "failed", _("Failed")  # a player voted no, or not everyone voted by the deadline
        VOID = "void", _("Void")  # the game ended otherwise before the vote closed

    class Reason(models.TextChoices):
        NONE = "", _("still open")
        AGREED = "agreed", _("every player agreed")
        REFUSED = "refused", _("a player voted no")
        DEADLINE = "deadline", _("not every player voted by the deadline")
        GAME_OVER = "game-over", _("the game ended before the vote closed")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="proposals", verbose_name=_("game"))
    kind = models.CharField(max_length=10, choices=Kind.choices, verbose_name=_("kind"))
    # Who proposed: their own page says "you proposed this", nothing else ever shows it.
    proposer = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("proposer")
    )
    opened_at = models.DateTimeField(default=timezone.now, verbose_name=_("opened at"))
    opened_in_phase = models.PositiveIntegerField(verbose_name=_("opened in phase"))
    closes_at = models.DateTimeField(verbose_name=_("closes at"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status"))
    reason = models.CharField(max_length=10, choices=Reason.choices, default="", blank=True, verbose_name=_("reason"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))
    closed_in_phase = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("closed in phase"))

    class Meta:
        verbose_name = _("proposal")
        verbose_name_plural = _("proposals")
        constraints = [
            # One vote at a time per table: of two proposals racing, the second is refused.
            models.UniqueConstraint(fields=["game"], condition=models.Q(status="open"), name="votes-one-open-per-game"),
        ]
        indexes = [models.Index(fields=["closes_at"], name="votes-open-due", condition=models.Q(status="open"))]
        ordering = ["game", "pk"]

    def __str__(self) -> str:
        return f"proposal {self.pk} of game {self.game_id}: {self.kind} ({self.status})"


class Ballot(models.Model):
    """One player's secret vote, for the seat they held when they cast it: it counts only while they still
    hold it. A yes may become a no until the vote closes (a no closes it)."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="ballots", verbose_name=_("proposal"))
    seat_number = models.PositiveSmallIntegerField(verbose_name=_("seat number"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"))
    yes = models.BooleanField(verbose_name=_("yes"))
    cast_at = models.DateTimeField(default=timezone.now, verbose_name=_("cast at"))

    class Meta:
        verbose_name = _("ballot")
        verbose_name_plural = _("ballots")
        constraints = [
            models.UniqueConstraint(fields=["proposal", "seat_number", "player"], name="votes-one-ballot-per-voter")
        ]

    def __str__(self) -> str:
        # Never the vote: the admin and error pages print str().
        return f"ballot on proposal {self.proposal_id}"


class VoteEmail(MailRow):
    """A vote's email to one player (a vote opened, a vote that failed), rendered when written and sent after
    commit through the mail pipeline (games/outgoing/outbox.py), retried by the sweep like the other outboxes."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", verbose_name=_("game"))
    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="emails", verbose_name=_("proposal"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"))
    to = models.EmailField(verbose_name=_("to"))
    kind = models.CharField(max_length=20, verbose_name=_("kind"))
    subject = models.CharField(max_length=250, verbose_name=_("subject"))
    headline = models.CharField(max_length=250, verbose_name=_("headline"))
    text = models.TextField(verbose_name=_("text"))
    html = models.TextField(verbose_name=_("html"))

    class Meta:
        verbose_name = _("vote email")
        verbose_name_plural = _("vote emails")
        constraints = [
            models.UniqueConstraint(fields=["proposal", "player", "kind"], name="votes-one-email-per-player-kind")
        ]
        indexes = [
            unsent_index("votes-email-unsent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to player {self.player_id}"
