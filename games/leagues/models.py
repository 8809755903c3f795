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
from django.utils.translation import ngettext

from games.engines import engine_choices, get_engine
from games.models import Game, Player, WrittenEmail, unsent_index
from games.play.newgame import check_options


def new_secret() -> str:
    return secrets.token_urlsafe(12)


def default_points() -> list[int]:
    return [10, 6, 3, 1]


class League(models.Model):
    class DeadlineMode(models.TextChoices):
        LENGTH = "length", _("a fixed phase length")
        DAILY = "daily", _("a fixed time of day (league time zone)")

    name = models.CharField(max_length=120, verbose_name=_("name"))
    slug = models.SlugField(unique=True, verbose_name=_("slug"))
    # A callable, so a new game needs no migration; an unknown engine would fail only when a round is drawn.
    engine = models.SlugField(
        max_length=32, choices=engine_choices, help_text=_("The game played at every table."), verbose_name=_("engine")
    )
    options = models.JSONField(
        default=dict, blank=True, help_text=_("The game's options for every table."), verbose_name=_("options")
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="leagues", verbose_name=_("organisers")
    )
    time_zone = models.CharField(max_length=64, default="UTC", verbose_name=_("time zone"))
    # Deadlines: a phase is open `phase_length`; in daily mode it closes at the first `daily_time` (league
    # time zone) at least `phase_length` after it opened.
    deadline_mode = models.CharField(
        max_length=8, choices=DeadlineMode.choices, default=DeadlineMode.LENGTH, verbose_name=_("deadline mode")
    )
    phase_length = models.DurationField(default=timedelta(hours=48), verbose_name=_("phase length"))
    daily_time = models.TimeField(default=time(20, 0), verbose_name=_("daily time"))
    # Missed turns: the first miss of a game extends its deadline once for everyone by `grace` (zero: no
    # grace); later misses use default orders. `substitute_after` consecutive misses lose the seat.
    grace = models.DurationField(default=timedelta(hours=24), verbose_name=_("grace"))
    substitute_after = models.PositiveSmallIntegerField(default=3, verbose_name=_("substitute after"))
    claim_window = models.DurationField(
        default=timedelta(hours=48), help_text=_("How long a standby has to claim."), verbose_name=_("claim window")
    )

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
        verbose_name=_("substitute bot"),
    )
    vacation_days = models.PositiveSmallIntegerField(
        default=14, help_text=_("Vacation allowance per season, days."), verbose_name=_("vacation days")
    )
    vacation_cap_days = models.PositiveSmallIntegerField(
        default=7, help_text=_("Most days vacations add to one game."), verbose_name=_("vacation cap days")
    )
    # Points by finishing place: 1st, 2nd, ...; places past the list score 0; shared places split points.
    points = models.JSONField(default=default_points, verbose_name=_("points"))

    class EarlyEndings(models.TextChoices):
        NONE = "none", _("not allowed: every game is played to its end")
        DRAWS = "draws", _("a table may agree a draw (shared places), and a player may concede")
        ALL = "all", _("draws, conceding, and cancelling a game (it then scores nothing)")

    # What a table may do to end its game early (games/votes/rules.py); existing leagues keep "none".
    early_endings = models.CharField(
        max_length=8,
        choices=EarlyEndings.choices,
        default=EarlyEndings.NONE,
        help_text=_(
            "Whether a table may vote to end its game early. Applies to games still running; results already "
            "earned never change."
        ),
        verbose_name=_("early endings"),
    )
    invite_key = models.CharField(max_length=32, default=new_secret, verbose_name=_("invite key"))
    signups_open = models.BooleanField(default=True, verbose_name=_("signups open"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("league")
        verbose_name_plural = _("leagues")

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
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("league"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    name = models.CharField(max_length=120, blank=True, verbose_name=_("name"))
    started_at = models.DateTimeField(default=timezone.now, verbose_name=_("started at"))

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="one-season-number-per-league")]
        ordering = ["league", "number"]

    def __str__(self) -> str:
        return self.name or _("%(league)s season %(number)s") % {"league": self.league, "number": self.number}


class Round(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")  # tables drawn, games not created yet
        STARTED = "started", _("Started")
        FINISHED = "finished", _("Finished")

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("season"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    starts_at = models.DateTimeField(verbose_name=_("starts at"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED, verbose_name=_("status"))
    # The draw's seed (games/leagues/scheduling.py): with the same members, meetings and standings it draws the
    # same tables. Nothing else: each game has its own seed, unrelated to it. Shown nowhere, all the same.
    draw_seed = models.BigIntegerField(verbose_name=_("draw seed"))
    # Points by finishing place its games score, the league's when the round was drawn: changing the league's
    # points applies from the next round drawn, never to results already earned (or being played for).
    points = models.JSONField(default=list, verbose_name=_("points"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [models.UniqueConstraint(fields=["season", "number"], name="one-round-number-per-season")]
        ordering = ["season", "number"]

    def __str__(self) -> str:
        return _("%(season)s round %(number)s") % {"season": self.season, "number": self.number}


class Table(models.Model):
    """One game of a round. `players` is the draw (player ids in seat order) until the game exists."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables", verbose_name=_("round"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    players = models.JSONField(default=list, verbose_name=_("players"))
    game = models.OneToOneField(
        Game, on_delete=models.PROTECT, null=True, blank=True, related_name="league_table", verbose_name=_("game")
    )
    grace_used = models.BooleanField(default=False, verbose_name=_("grace used"))
    vacation_added = models.DurationField(default=timedelta(0), verbose_name=_("vacation added"))

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="one-table-number-per-round")]
        ordering = ["round", "number"]

    def __str__(self) -> str:
        return _("%(round)s table %(number)s") % {"round": self.round, "number": self.number}


class Membership(models.Model):
    """A player's place in a league: playing, on the standby list (substitutes), inactive (not drawn until
    they say they are back), or dropped."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        STANDBY = "standby", _("Standby")
        INACTIVE = "inactive", _("Inactive")  # lost a seat for missing turns in a row: not drawn for new rounds
        DROPPED = "dropped", _("Dropped")

    class Notify(models.TextChoices):
        # The default since issue 15, as for players (games.models.Player.Notify): existing rows kept theirs.
        OWED = "owed", _("only when I owe an order, and when a game ends")
        ALL = "all", _("every turn email, and the league's news")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("league"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE, verbose_name=_("status"))
    notify = models.CharField(max_length=8, choices=Notify.choices, default=Notify.OWED, verbose_name=_("notify"))
    digest = models.BooleanField(
        default=False, help_text=_("One daily email with the league's news."), verbose_name=_("digest")
    )
    calendar_key = models.CharField(max_length=32, default=new_secret, verbose_name=_("calendar key"))
    joined_at = models.DateTimeField(default=timezone.now, verbose_name=_("joined at"))

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [models.UniqueConstraint(fields=["league", "player"], name="one-membership-per-player")]
        ordering = ["league", "joined_at", "pk"]

    def __str__(self) -> str:
        return _("%(player)s in %(league)s (%(status)s)") % {
            "player": self.player,
            "league": self.league,
            "status": self.get_status_display(),
        }


class Seating(models.Model):
    """Who held a table's seat from which phase on: misses and results are counted per player."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seatings", verbose_name=_("table"))
    seat_number = models.PositiveSmallIntegerField(verbose_name=_("seat number"))
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="seatings", verbose_name=_("player")
    )
    from_phase = models.PositiveIntegerField(default=1, verbose_name=_("from phase"))
    until_phase = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("until phase")
    )  # the last phase held; None: still
    # The holder conceded the seat (games/votes): they rank last at this table once its game has a result.
    conceded = models.BooleanField(default=False, verbose_name=_("conceded"))

    class Meta:
        verbose_name = _("seating")
        verbose_name_plural = _("seatings")
        ordering = ["table", "seat_number", "from_phase"]

    def __str__(self) -> str:
        return _("%(player)s in seat %(seat)s of %(table)s from phase %(phase)s") % {
            "player": self.player,
            "seat": self.seat_number + 1,
            "table": self.table,
            "phase": self.from_phase,
        }


class Substitution(models.Model):
    """A dropped seat offered to a standby player, who may claim it until `expires_at`."""

    class Status(models.TextChoices):
        OFFERED = "offered", _("Offered")
        CLAIMED = "claimed", _("Claimed")
        BOT = "bot", _("Bot")  # nobody claimed in time, or nobody was on standby
        WITHDRAWN = "withdrawn", _("Withdrawn")  # the game ended before anyone claimed the seat

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="substitutions", verbose_name=_("table"))
    seat_number = models.PositiveSmallIntegerField(verbose_name=_("seat number"))
    standby = models.ForeignKey(Membership, on_delete=models.CASCADE, null=True, blank=True, verbose_name=_("standby"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OFFERED, verbose_name=_("status"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))

    class Meta:
        verbose_name = _("substitution")
        verbose_name_plural = _("substitutions")

    def __str__(self) -> str:
        return _("seat %(seat)s of %(table)s (%(status)s)") % {
            "seat": self.seat_number + 1,
            "table": self.table,
            "status": self.get_status_display(),
        }


class Vacation(models.Model):
    membership = models.ForeignKey(
        Membership, on_delete=models.CASCADE, related_name="vacations", verbose_name=_("membership")
    )
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="vacations", verbose_name=_("season"))
    starts_on = models.DateField(verbose_name=_("starts on"))
    days = models.PositiveSmallIntegerField(verbose_name=_("days"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("vacation")
        verbose_name_plural = _("vacations")
        ordering = ["-starts_on"]

    def __str__(self) -> str:
        return ngettext(
            "%(player)s away %(days)d day from %(start)s", "%(player)s away %(days)d days from %(start)s", self.days
        ) % {"player": self.membership.player, "days": self.days, "start": self.starts_on}

    @property
    def ends_on(self) -> date:
        return self.starts_on + timedelta(days=self.days)


class LeagueEmail(WrittenEmail):
    """League news for one player (sign-up, round started, vacation, substitute offer, standings), rendered
    when it happens: sent at once, or gathered into the player's daily digest (then `digest` is set and the
    row waits, pending, for the daily task). Sent, retried and swept like the game emails (games/outgoing/outbox.py)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="emails", verbose_name=_("league"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, null=True, blank=True, verbose_name=_("player"))
    # What this piece of news says in a line (the subject stays the thread's): the body's first line.
    headline = models.CharField(max_length=250, blank=True, verbose_name=_("headline"))
    digest = models.BooleanField(default=False, verbose_name=_("digest"))
    # Its player may decline it (games/outgoing/mailpolicy.py: league news): it carries the one-click unsubscribe.
    declinable = models.BooleanField(default=False, verbose_name=_("declinable"))
    # The thread it belongs to for its reader: "season.<id>" (the league's season), or "game.<id>" for news
    # of one game (a deadline moved), which joins that game's emails.
    thread = models.CharField(max_length=40, blank=True, verbose_name=_("thread"))

    class Meta:
        verbose_name = _("league email")
        verbose_name_plural = _("league emails")
        indexes = [
            models.Index(fields=["status", "digest"], name="league-email-status"),
            unsent_index("league-email-unsent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to}"
