"""Leagues: a league of one game → seasons → rounds → tables, each table one core Game.

The core's models know nothing of leagues: a table points at its game (one to one), and the league's
deadline and missed-turn rules reach the core through two signals (games/leagues/policy.py).
"""

from __future__ import annotations

import secrets
from datetime import date, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engines import engine_choices, get_engine
from games.models import Game, Player, WrittenEmail, unsent_index
from games.play.newgame import check_options


def new_secret() -> str:
    return secrets.token_urlsafe(12)


def default_points() -> list[int]:
    return [10, 6, 3, 1]


class League(models.Model):
    class DeadlineMode(models.TextChoices):
        LENGTH = "length", "a fixed phase length"
        DAILY = "daily", "a fixed time of day (league time zone)"

    name = models.CharField(max_length=120)
    slug = models.SlugField(unique=True)
    # A callable, so a new game needs no migration; an unknown engine would fail only when a round is drawn.
    engine = models.SlugField(max_length=32, choices=engine_choices, help_text="The game played at every table.")
    options = models.JSONField(default=dict, blank=True, help_text="The game's options for every table.")
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="leagues")
    time_zone = models.CharField(max_length=64, default="UTC")
    # Deadlines: a phase is open `phase_length`; in daily mode it closes at the first `daily_time` (league
    # time zone) at least `phase_length` after it opened.
    deadline_mode = models.CharField(max_length=8, choices=DeadlineMode.choices, default=DeadlineMode.LENGTH)
    phase_length = models.DurationField(default=timedelta(hours=48))
    daily_time = models.TimeField(default=time(20, 0))
    # Missed turns: the first miss of a game extends its deadline once for everyone by `grace` (zero: no
    # grace); later misses use default orders. `substitute_after` consecutive misses lose the seat.
    grace = models.DurationField(default=timedelta(hours=24))
    substitute_after = models.PositiveSmallIntegerField(default=3)
    claim_window = models.DurationField(default=timedelta(hours=48), help_text="How long a standby has to claim.")

    class SubstituteBot(models.TextChoices):
        STRONG = "strong", _("a strong bot: plays to win, as the seat's player would have tried")
        EASY = "easy", _("an easy bot")
        RANDOM = "random", _("a random bot: any legal order")
        DEFAULTS = "defaults", _("default orders only, as for a missed deadline")

    # The last resort, when no standby player claims a seat in time: how the bot that takes it plays.
    substitute_bot = models.CharField(
        max_length=8,
        choices=SubstituteBot.choices,
        default=SubstituteBot.STRONG,
        help_text=_("How a seat nobody claims is played: a strong bot keeps the table's standings fair."),
    )
    vacation_days = models.PositiveSmallIntegerField(default=14, help_text="Vacation allowance per season, days.")
    vacation_cap_days = models.PositiveSmallIntegerField(default=7, help_text="Most days vacations add to one game.")
    # Points by finishing place: 1st, 2nd, ...; places past the list score 0; shared places split points.
    points = models.JSONField(default=default_points)

    class EarlyEndings(models.TextChoices):
        NONE = "none", "not allowed: every game is played to its end"
        DRAWS = "draws", "a table may agree a draw (shared places), and a player may concede"
        ALL = "all", "draws, conceding, and cancelling a game (it then scores nothing)"

    # What a table may do to end its game early (games/votes/rules.py); existing leagues keep "none".
    early_endings = models.CharField(
        max_length=8,
        choices=EarlyEndings.choices,
        default=EarlyEndings.NONE,
        help_text="Whether a table may vote to end its game early. Applies to games still running; results "
        "already earned never change.",
    )
    invite_key = models.CharField(max_length=32, default=new_secret)
    signups_open = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """The options must set up the league's game at every table size a draw may produce, so that
        drawing a round cannot fail on them (the check the Add game form makes through create_game)."""
        if self.options is None:
            self.options = {}  # an emptied options box means every default
        if self.engine not in dict(engine_choices()):
            return  # the engine field reports it
        engine = get_engine(self.engine)
        try:
            check_options(self.engine, self.options, range(engine.min_players, engine.max_players + 1))
        except ValueError as error:
            raise ValidationError({"options": str(error)}) from None


class Season(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=120, blank=True)
    started_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="one-season-number-per-league")]
        ordering = ["league", "number"]

    def __str__(self) -> str:
        return self.name or f"{self.league} season {self.number}"


class Round(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled"  # tables drawn, games not created yet
        STARTED = "started"
        FINISHED = "finished"

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    # The draw's seed (games/leagues/scheduling.py): with the same members, meetings and standings it draws the
    # same tables. Nothing else: each game has its own seed, unrelated to it. Shown nowhere, all the same.
    draw_seed = models.BigIntegerField()
    # Points by finishing place its games score, the league's when the round was drawn: changing the league's
    # points applies from the next round drawn, never to results already earned (or being played for).
    points = models.JSONField(default=list)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["season", "number"], name="one-round-number-per-season")]
        ordering = ["season", "number"]

    def __str__(self) -> str:
        return f"{self.season} round {self.number}"


class Table(models.Model):
    """One game of a round. `players` is the draw (player ids in seat order) until the game exists."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    players = models.JSONField(default=list)
    game = models.OneToOneField(Game, on_delete=models.PROTECT, null=True, blank=True, related_name="league_table")
    grace_used = models.BooleanField(default=False)
    vacation_added = models.DurationField(default=timedelta(0))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="one-table-number-per-round")]
        ordering = ["round", "number"]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class Membership(models.Model):
    """A player's place in a league: playing, on the standby list (substitutes), inactive (not drawn until
    they say they are back), or dropped."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        STANDBY = "standby"
        INACTIVE = "inactive"  # lost a seat for missing turns in a row: not drawn for new rounds
        DROPPED = "dropped"

    class Notify(models.TextChoices):
        # The default since issue 15, as for players (games.models.Player.Notify): existing rows kept theirs.
        OWED = "owed", "only when I owe an order, and when a game ends"
        ALL = "all", "every turn email, and the league's news"

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    notify = models.CharField(max_length=8, choices=Notify.choices, default=Notify.OWED)
    digest = models.BooleanField(default=False, help_text="One daily email with the league's news.")
    calendar_key = models.CharField(max_length=32, default=new_secret)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["league", "player"], name="one-membership-per-player")]
        ordering = ["league", "joined_at", "pk"]

    def __str__(self) -> str:
        return f"{self.player} in {self.league} ({self.status})"


class Seating(models.Model):
    """Who held a table's seat from which phase on: misses and results are counted per player."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seatings")
    seat_number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True, related_name="seatings")
    from_phase = models.PositiveIntegerField(default=1)
    until_phase = models.PositiveIntegerField(null=True, blank=True)  # the last phase held; None: still
    # The holder conceded the seat (games/votes): they rank last at this table once its game has a result.
    conceded = models.BooleanField(default=False)

    class Meta:
        ordering = ["table", "seat_number", "from_phase"]

    def __str__(self) -> str:
        return f"{self.player} in seat {self.seat_number + 1} of {self.table} from phase {self.from_phase}"


class Substitution(models.Model):
    """A dropped seat offered to a standby player, who may claim it until `expires_at`."""

    class Status(models.TextChoices):
        OFFERED = "offered"
        CLAIMED = "claimed"
        BOT = "bot"  # nobody claimed in time, or nobody was on standby
        WITHDRAWN = "withdrawn"  # the game ended before anyone claimed the seat

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="substitutions")
    seat_number = models.PositiveSmallIntegerField()
    standby = models.ForeignKey(Membership, on_delete=models.CASCADE, null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OFFERED)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"seat {self.seat_number + 1} of {self.table} ({self.status})"


class Vacation(models.Model):
    membership = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="vacations")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="vacations")
    starts_on = models.DateField()
    days = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-starts_on"]

    def __str__(self) -> str:
        return f"{self.membership.player} away {self.days} day(s) from {self.starts_on}"

    @property
    def ends_on(self) -> date:
        return self.starts_on + timedelta(days=self.days)


class LeagueEmail(WrittenEmail):
    """League news for one player (sign-up, round started, vacation, substitute offer, standings), rendered
    when it happens: sent at once, or gathered into the player's daily digest (then `digest` is set and the
    row waits, pending, for the daily task). Sent, retried and swept like the game emails (games/outgoing/outbox.py)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="emails")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, null=True, blank=True)
    # What this piece of news says in a line (the subject stays the thread's): the body's first line.
    headline = models.CharField(max_length=250, blank=True)
    digest = models.BooleanField(default=False)
    # Its player may decline it (games/outgoing/mailpolicy.py: league news): it carries the one-click unsubscribe.
    declinable = models.BooleanField(default=False)
    # The thread it belongs to for its reader: "season.<id>" (the league's season), or "game.<id>" for news
    # of one game (a deadline moved), which joins that game's emails.
    thread = models.CharField(max_length=40, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "digest"], name="league-email-status"),
            unsent_index("league-email-unsent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to}"
