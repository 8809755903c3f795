"""What the ending votes store: a table's proposals to end its game early, their secret ballots, and the
emails they send (rendered when written, like league news).

Nothing shows a ballot to anyone but its own voter, nor who proposed, ever: not a page, an email, the admin
(which lists proposals without either) nor a log line (games/votes/rules.py says why)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from games.models import Game, MailRow, Player, unsent_index


class Kind(models.TextChoices):
    DRAW = "draw", "a draw"
    CANCEL = "cancel", "cancelling the game"


class Proposal(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        PASSED = "passed"  # every player at the table voted yes: the game ended
        FAILED = "failed"  # a player voted no, or not everyone voted by the deadline
        VOID = "void"  # the game ended otherwise before the vote closed

    class Reason(models.TextChoices):
        NONE = "", "still open"
        AGREED = "agreed", "every player agreed"
        REFUSED = "refused", "a player voted no"
        DEADLINE = "deadline", "not every player voted by the deadline"
        GAME_OVER = "game-over", "the game ended before the vote closed"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="proposals")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # Who proposed: their own page says "you proposed this", nothing else ever shows it.
    proposer = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    opened_at = models.DateTimeField(default=timezone.now)
    opened_in_phase = models.PositiveIntegerField()
    closes_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    reason = models.CharField(max_length=10, choices=Reason.choices, default="", blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_in_phase = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
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

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="ballots")
    seat_number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    yes = models.BooleanField()
    cast_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["proposal", "seat_number", "player"], name="votes-one-ballot-per-voter")
        ]

    def __str__(self) -> str:
        # Never the vote: the admin and error pages print str().
        return f"ballot on proposal {self.proposal_id}"


class VoteEmail(MailRow):
    """A vote's email to one player (a vote opened, a vote that failed), rendered when written and sent after
    commit through the mail pipeline (games/outgoing/outbox.py), retried by the sweep like the other outboxes."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="emails")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    to = models.EmailField()
    kind = models.CharField(max_length=20)
    subject = models.CharField(max_length=250)
    headline = models.CharField(max_length=250)
    text = models.TextField()
    html = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["proposal", "player", "kind"], name="votes-one-email-per-player-kind")
        ]
        indexes = [
            unsent_index("votes-email-unsent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to player {self.player_id}"
