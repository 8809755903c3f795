"""The game rows: players, games, seats, phases, sealed orders and the log.

The rules live in games/engines; these rows only hold the engine's JSON state and what players sent.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import words


def new_link_key() -> str:
    return secrets.token_urlsafe(9)


class Player(models.Model):
    """A person, known by email address. Players need no password: a signed link signs them in."""

    email = models.EmailField(unique=True, verbose_name=_("email"))
    name = models.CharField(max_length=80, blank=True, verbose_name=_("name"))
    time_zone = models.CharField(max_length=64, default="UTC", verbose_name=_("time zone"))
    # The language of the player's pages and emails (settings.LANGUAGES' codes); blank until the browser's first
    # asks for one of ours (games/incoming/sessions.py) or the player chooses on My games. Blank reads English.
    language = models.CharField(max_length=8, blank=True, default="", verbose_name=_("language"))

    class Notify(models.TextChoices):
        # The default since issue 15: the least mail that lets a player play. "all" was the default before;
        # the migration that changed it left existing rows as they were (README, "Emails a player gets").
        OWED = "owed", _("only when I owe an order, and when a game ends")
        ALL = "all", _("every phase")

    class MailProblem(models.TextChoices):
        NONE = "", _("none")
        BOUNCED = "bounced", _("bounced (hard): nothing is sent, seats play their default orders")
        COMPLAINED = "complained", _("marked as spam: only emails asking for an owed order are sent")

    notify = models.CharField(max_length=8, choices=Notify.choices, default=Notify.OWED, verbose_name=_("notify"))
    # What the mail provider told us of the address (games/incoming/mail/bounces.py), and when and why; cleared when the
    # player confirms or changes it on the settings page, or uses a sign-in link (which proves it receives).
    mail_problem = models.CharField(
        max_length=12, choices=MailProblem.choices, default="", blank=True, verbose_name=_("mail problem")
    )
    mail_problem_at = models.DateTimeField(null=True, blank=True, verbose_name=_("mail problem at"))
    mail_problem_detail = models.CharField(max_length=200, blank=True, verbose_name=_("mail problem detail"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    # Every session of this player (account sessions and seat grants, games/incoming/sessions.py) carries the value
    # it had when it was opened; "sign out everywhere" increments it, which ends them all.
    session_epoch = models.PositiveIntegerField(default=0, verbose_name=_("session epoch"))
    # The latest sign-in link's stamp (games/outgoing/links.py): using the link clears it, so it signs in once, and
    # a newer link replaces it. The quota time throttles those emails per address (games/incoming/sessions.py).
    sign_in_sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sign in sent at"))
    sign_in_quota_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sign in quota at"))
    # An address the player asked to change to, and when: used once the link emailed to it is opened
    # (games/play/addresses.py). Until then their mail goes to `email`.
    new_email = models.EmailField(blank=True, verbose_name=_("new email"))
    new_email_sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("new email sent at"))

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.name or self.email

    @property
    def display_name(self) -> str:
        """How other people see this player (league pages, CSVs, others' emails): the name they gave, never
        their address or a part of it, since public pages list players and anyone can enumerate them."""
        return self.name or gettext("Player %(number)s") % {"number": self.pk}


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        PAUSED = "paused", _("Paused")
        FINISHED = "finished", _("Finished")

    engine = models.SlugField(max_length=32, verbose_name=_("engine"))
    # The organiser's own title, as typed; blank when they gave none, and the game is then called by `name`
    # (its game's name in the reader's language and its number), never by an English name stored here.
    title = models.CharField(max_length=120, blank=True, verbose_name=_("title"))
    options = models.JSONField(default=dict, blank=True, verbose_name=_("options"))
    seed = models.BigIntegerField(verbose_name=_("seed"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE, verbose_name=_("status"))
    state = models.JSONField(default=dict, verbose_name=_("state"))
    # How long each phase stays open, and how long before its deadline the reminder goes out.
    phase_length = models.DurationField(default=timedelta(hours=48), verbose_name=_("phase length"))
    reminder_before = models.DurationField(default=timedelta(hours=12), verbose_name=_("reminder before"))
    phase_number = models.PositiveIntegerField(default=0, verbose_name=_("phase number"))
    # The log's length, so a resolution numbers its events without counting the log.
    event_count = models.PositiveIntegerField(default=0, verbose_name=_("event count"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    paused_at = models.DateTimeField(null=True, blank=True, verbose_name=_("paused at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    # Final standings, written once when the game ends: [{"seat", "score", "rank", "detail"}].
    result = models.JSONField(default=list, blank=True, verbose_name=_("result"))
    # Who started it with the admin's Add game form: a staff user who is not a superuser sees in the admin
    # only these games and their leagues' games (games/admin.py, OrganisersGames).
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="started_games",
        verbose_name=_("started by"),
    )
    # Whether an app has rows about this game (a lobby or league table, a vote, a webhook that may concern it): set
    # by the app as it attaches them (games.models.attach_apps), never cleared. A resolution asks the apps'
    # questions (games/extensions.py, phase_related and phase_annotations) only of such a game: for the others it
    # knows their answers without a join or an EXISTS.
    apps_attached = models.BooleanField(default=False, verbose_name=_("apps attached"))

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return f"#{self.pk} {self.name}"

    @property
    def name(self) -> str:
        """What people read as the game's name: the organiser's title as typed, or else the game's name in the
        active language (`Genua`, `Gênes`), rendered when read so each reader gets their own."""
        return self.title or words.engine_name(self.engine)

    @property
    def name_later(self) -> str:
        """`name`, rendered when read: for facts shared by emails to readers of several languages."""
        return self.title or words.engine_name_later(self.engine)


class BotLevel(models.TextChoices):
    """How well a built-in bot plays: any legal order, or the search of games/engines/search.py, briefly
    (easy) or for the whole time budget per decision (strong); games/play/bots.py."""

    RANDOM = "random", _("random: any legal order")
    EASY = "easy", _("easy: a short search")
    STRONG = "strong", _("strong: plays to win")


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", verbose_name=_("game"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="seats", verbose_name=_("player")
    )
    is_bot = models.BooleanField(default=False, verbose_name=_("is bot"))
    # A bot that stands in for a player who left (a league seat nobody claimed) plays the documented
    # default orders, at once, so it neither stalls the table nor plays moves of its own choosing.
    bot_plays_defaults = models.BooleanField(default=False, verbose_name=_("bot plays defaults"))
    # How a bot seat plays when it plays orders of its own choosing.
    bot_level = models.CharField(
        max_length=6, choices=BotLevel.choices, default=BotLevel.RANDOM, verbose_name=_("bot level")
    )
    # Part of every signed link: changing it (a replacement) makes the old links stop working.
    link_key = models.CharField(max_length=24, default=new_link_key, verbose_name=_("link key"))

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one-seat-number-per-game")]
        ordering = ["game", "number"]

    def __str__(self) -> str:
        """As an organiser reads it (the admin's titles and columns): who holds it, in which game, by name. It
        reads the player and the game: lists that show it select them."""
        holder = gettext("bot") if self.is_bot else self.player.display_name if self.player else gettext("open seat")
        return gettext("seat %(number)s (%(holder)s) of %(game)s") % {
            "number": self.number + 1,
            "holder": holder,
            "game": self.game,
        }

    @property
    def label(self) -> str:
        """The seat as everyone at the table sees it: the player's name, or the seat's number."""
        if self.is_bot:
            return gettext("Bot %(number)s") % {"number": self.number + 1}
        if self.player and self.player.name:
            return self.player.name
        return gettext("Seat %(number)s") % {"number": self.number + 1}


class Phase(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        RESOLVED = "resolved", _("Resolved")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="phases", verbose_name=_("game"))
    number = models.PositiveIntegerField(verbose_name=_("number"))
    # The phase's name in English, as the engine's message reads in English: what the admin's search and a phase
    # stored before the names were messages show.
    name = models.CharField(max_length=120, verbose_name=_("name"))
    # The engine's message for the name (Msg.to_json), rendered in each reader's language (`label`); null for a
    # phase stored before, whose English `name` is shown as it is.
    message = models.JSONField(null=True, blank=True, verbose_name=_("message"))
    # {"<seat number>": prompt JSON}: who owes an order in this phase and what they are asked.
    prompts = models.JSONField(default=dict, verbose_name=_("prompts"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status"))
    opened_at = models.DateTimeField(default=timezone.now, verbose_name=_("opened at"))
    deadline = models.DateTimeField(verbose_name=_("deadline"))
    resolved_at = models.DateTimeField(null=True, blank=True, verbose_name=_("resolved at"))
    # Some owed order was missing and replaced by the engine's default (the deadline, or "resolve now").
    used_defaults = models.BooleanField(default=False, verbose_name=_("used defaults"))
    reminded = models.BooleanField(default=False, verbose_name=_("reminded"))
    # While the phase is open and its seats still owe a reminder: when it is due (reminder_time). Set when the
    # phase opens and whenever its deadline moves (move_deadline); cleared once the reminder is written. The
    # sweep takes it when its watermark passes it (SweepMark), or in its settle-time retry (remind_asked_at).
    remind_at = models.DateTimeField(null=True, blank=True, verbose_name=_("remind at"))
    # While the phase is open: when the last owed order came in (set in that order's transaction). The
    # resolution it enqueues is a wake-up call that a dead worker or a broker outage can lose; the sweep
    # resolves an open phase whose complete_at is older than the settle time (PBEM_SETTLE_SECONDS).
    complete_at = models.DateTimeField(null=True, blank=True, verbose_name=_("complete at"))
    # When bots were asked to play their owed orders (the phase opened, or a seat went to a bot), until
    # they have: the sweep asks again if the bots' task was lost. Both are cleared when the phase resolves.
    bots_due_at = models.DateTimeField(null=True, blank=True, verbose_name=_("bots due at"))
    # When a sweep's retry last enqueued this phase's resolution (overdue and behind the watermark, or complete
    # and unresolved): no sweep enqueues it again before the settle time has passed, when that task must have
    # been lost. (The watermark's first take of an overdue phase writes nothing on it.)
    resolve_asked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("resolve asked at"))
    # The same for its reminder (remind_at due). Like resolve_asked_at it is in no index, so the sweep's mark
    # rewrites the row in place (a HOT update) instead of adding an entry to each of the table's indexes.
    remind_asked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("remind asked at"))
    # The game is paused (kept in step with Game.status under the game's lock: organise.pause_game, resume_game,
    # and a phase opened in a paused game): the sweep's indexes leave the phase out, so it reads no game.
    paused = models.BooleanField(default=False, verbose_name=_("paused"))

    class Meta:
        verbose_name = _("phase")
        verbose_name_plural = _("phases")
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one-phase-number-per-game")]
        indexes = [
            # Only open phases are in these (the deadline's: every open phase of a running game; the others:
            # those with their orders in, bots to play, a reminder to send), so the sweep's cost follows what is
            # due, not the number of games. The id after the time: the sweep takes a batch after the last one's
            # last row by (time, id) (models.claim), a range of the index even when a league's deadlines are all
            # one time.
            models.Index(
                fields=["deadline", "id"], name="open-phase-deadline", condition=models.Q(status="open", paused=False)
            ),
            models.Index(
                fields=["complete_at", "id"],
                name="open-phase-complete",
                condition=models.Q(status="open", paused=False, complete_at__isnull=False),
            ),
            models.Index(
                fields=["bots_due_at", "id"],
                name="open-phase-bots-due",
                condition=models.Q(status="open", paused=False, bots_due_at__isnull=False),
            ),
            models.Index(
                fields=["remind_at", "id"],
                name="open-phase-remind",
                condition=models.Q(status="open", remind_at__isnull=False),
            ),
        ]
        ordering = ["game", "number"]

    def __str__(self) -> str:
        """The phase by its name and its game's (it reads the game: lists that show it select it)."""
        return f"{self.name} (phase {self.number}) of {self.game}"

    @property
    def label(self) -> str:
        """The phase's name in the active language: its message rendered, or its stored English if it has none.
        Every page, email, feed and API shows this, not `name`."""
        return phase_label(self.name, self.message)

    @property
    def owed_seats(self) -> list[int]:
        return sorted(int(seat) for seat in self.prompts)

    def owes(self, seat_number: int) -> bool:
        """Whether `seat_number` owes an order in this phase: what `prompt_for` is not None says, without rendering
        the prompt's words (the order's POST and every list of games ask it)."""
        return self.prompts.get(str(seat_number)) is not None

    def prompt_for(self, seat_number: int) -> dict[str, Any] | None:
        """What `seat_number` is asked, its words rendered in the active language (games/words.py); None if it
        owes nothing. The stored prompt keeps the engine's messages (a phase stored before they were is English)."""
        stored: dict[str, Any] | None = self.prompts.get(str(seat_number))
        return None if stored is None else words.prompt(stored)

    def reminder_time(self, reminder_before: timedelta) -> datetime:
        """When the seats still owing are reminded: `reminder_before` (the game's) ahead of the deadline, but
        never earlier than half-way through the phase, so a short phase does not remind at once."""
        halfway = self.opened_at + (self.deadline - self.opened_at) / 2
        return max(self.deadline - reminder_before, halfway)

    def move_deadline(self, deadline: datetime, reminder_before: timedelta) -> list[str]:
        """Give the phase a new deadline; its reminder is due again, at the new reminder time. Every change of
        an open phase's deadline goes through here. Returns the fields to save."""
        self.deadline = deadline
        self.reminded = False
        self.remind_at = self.reminder_time(reminder_before)
        self.remind_asked_at = None
        return ["deadline", "reminded", "remind_at", "remind_asked_at"]


def phase_label(name: str, message: dict[str, Any] | None) -> str:
    """A phase's name in the active language from its two columns (for rows read as values, not as Phase)."""
    return words.render(message) if message else name


class SweepMark(models.Model):
    """How far the sweep has enqueued one kind of due work (games/play/sweep.py): every open phase whose due time
    (its deadline, its reminder time) is at or before `upto` has had its task enqueued. The next sweep reads only
    the range after it, from the index alone, and writes this one row instead of a mark on each phase taken, so
    its cost follows the rows newly due, not the rows due. `settled` is the sweeps' recent [at, upto, ids]: the
    settle-time retry (a lost task, a lost publish) reads up to the `upto` of the last sweep at least the settle
    time old, and a phase due behind `upto` that none of the later sweeps' ids holds (a deadline moved behind it)
    is taken by the next sweep."""

    kind = models.CharField(max_length=20, primary_key=True)
    upto = models.DateTimeField(null=True)
    settled = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"{self.kind} up to {self.upto}"


class Order(models.Model):
    """A sealed order: one per seat and phase, revisable until the phase resolves.

    Nothing shows `data` to anyone but its own seat before the phase resolves: not the admin, not a
    page, not an email, not a log line."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="orders", verbose_name=_("phase"))
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="orders", verbose_name=_("seat"))
    data = models.JSONField(verbose_name=_("data"))
    is_default = models.BooleanField(default=False, verbose_name=_("is default"))
    # A default order its seat is not to blame for: the organiser resolved the phase before its deadline, or
    # the seat's player was on a declared vacation (games.extensions.excused). Not a missed turn.
    excused = models.BooleanField(default=False, verbose_name=_("excused"))
    revision = models.PositiveIntegerField(default=1, verbose_name=_("revision"))
    submitted_at = models.DateTimeField(default=timezone.now, verbose_name=_("submitted at"))
    # When the player wrote this revision: an email reply's Date (games/incoming/mail/inbound.py compares it with a
    # later reply's, so an older reply delivered late does not replace it); null for the page's, written on arrival.
    written_at = models.DateTimeField(null=True, blank=True, verbose_name=_("written at"))

    class Meta:
        verbose_name = _("order")
        verbose_name_plural = _("orders")
        constraints = [models.UniqueConstraint(fields=["phase", "seat"], name="one-order-per-seat-and-phase")]

    def __str__(self) -> str:
        return f"order of {self.seat} in {self.phase.name} (phase {self.phase.number})"


class Event(models.Model):
    """One line of the game log: public (seat is None) or private to one seat."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", verbose_name=_("game"))
    phase_number = models.PositiveIntegerField(verbose_name=_("phase number"))
    seq = models.PositiveIntegerField(verbose_name=_("seq"))
    seat = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("seat"))
    # The line's English, as the engine's message reads in English: what the admin, a search and a line stored
    # before the engines spoke in messages show.
    text = models.TextField(verbose_name=_("text"))
    # The engine's message (games/engines/base.py Msg.to_json: id and params), rendered in each reader's language
    # (`words`); null for a line stored before there were messages, whose English `text` is shown as it is.
    message = models.JSONField(null=True, blank=True, verbose_name=_("message"))
    data = models.JSONField(default=dict, blank=True, verbose_name=_("data"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="one-event-per-game-seq")]
        ordering = ["game", "seq"]

    def __str__(self) -> str:
        # Not the text: the admin prints str() in places (labels, titles) its seat check does not cover.
        return f"line {self.seq} of {self.game}"

    @property
    def words(self) -> str:
        """The line in the active language: its message rendered, or its stored English if it has none."""
        return words.render(self.message) if self.message else self.text
