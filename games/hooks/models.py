"""Webhooks and their outbox.

A Hook belongs to a player (the notices they get by email, those they chose) or to a game or a league (its
public news, added by an organiser in the admin). A Delivery is one notice to one hook, written in the
transaction that made the news and sent after commit (games/hooks/deliver.py), like an email: it is a MailRow
of the one mail pipeline, so the sweep wakes its sender for rows whose task was lost.

A hook's URL may hold a token (Discord's and Slack's do), so pages show only its host once it is saved. A
generic JSON hook signs what it sends with a secret that is shown once, when the hook is made, and stored
nowhere: it is derived from the server's SECRET_KEY and a random salt kept here (`secret`), so a copy of the
database alone does not reveal it. (A new SECRET_KEY changes every hook's secret.)
"""

from __future__ import annotations

import base64
import secrets
from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy as _

from games.hooks.sealed import SealedURL
from games.leagues.models import League
from games.models import Game, MailRow, Player, WrittenEmail, unsent_index


def new_salt() -> str:
    return secrets.token_hex(16)


class Notice(models.TextChoices):
    """What a player's hook is sent: the notices they get by email, each chosen or not."""

    TURN = "turn", _("my turn (and a moved deadline)")
    REMINDER = "reminder", _("a reminder before my deadline")
    RESULT = "result", _("results (each turn's, and the game's end)")
    TALK = "talk", _("a table-talk message for me")


class Hook(models.Model):
    class Kind(models.TextChoices):
        DISCORD = "discord", _("Discord")
        SLACK = "slack", _("Slack")
        MATRIX = "matrix", _("Matrix (a hookshot-compatible generic webhook)")
        NTFY = "ntfy", _("ntfy")
        JSON = "json", _("JSON, signed (HMAC-SHA256, Standard Webhooks)")

    name = models.CharField(max_length=80, verbose_name=_("name"))
    kind = models.CharField(max_length=10, choices=Kind.choices, verbose_name=_("kind"))
    url = SealedURL(max_length=500)  # encrypted at rest (games/hooks/sealed.py): it may hold the channel's token
    # Exactly one owner (the constraint): a player's own notices, or a game's or a league's public news.
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="hooks", verbose_name=_("player")
    )
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, null=True, blank=True, related_name="hooks", verbose_name=_("game")
    )
    league = models.ForeignKey(
        League, on_delete=models.CASCADE, null=True, blank=True, related_name="hooks", verbose_name=_("league")
    )
    # The organiser who added a game's or league's hook: told by email if it is disabled.
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="hooks",
        verbose_name=_("added by"),
    )
    notices = models.JSONField(
        default=list, blank=True, verbose_name=_("notices")
    )  # a player's hook: the Notice values chosen
    secret_salt = models.CharField(max_length=32, default=new_salt, editable=False, verbose_name=_("secret salt"))
    enabled = models.BooleanField(default=True, verbose_name=_("enabled"))
    # Why it was disabled (a delivery failed every attempt): shown to its owner, who may enable it again.
    disabled_reason = models.CharField(max_length=300, blank=True, verbose_name=_("disabled reason"))
    disabled_at = models.DateTimeField(null=True, blank=True, verbose_name=_("disabled at"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    last_ok_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last ok at"))
    # The receiver's pace (games/hooks/pace.py): the bucket's next theoretical post, pushed on by a 429.
    next_post_at = models.DateTimeField(null=True, blank=True, editable=False, verbose_name=_("next post at"))

    class Meta:
        verbose_name = _("hook")
        verbose_name_plural = _("hooks")
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(player__isnull=False, game__isnull=True, league__isnull=True)
                    | Q(player__isnull=True, game__isnull=False, league__isnull=True)
                    | Q(player__isnull=True, game__isnull=True, league__isnull=False)
                ),
                name="hook-has-one-owner",
            )
        ]
        indexes = [
            # What a resolution asks: the enabled hooks of these players, of this game, of its league.
            models.Index(fields=["player"], name="hook-enabled-player", condition=Q(enabled=True)),
            models.Index(fields=["game"], name="hook-enabled-game", condition=Q(enabled=True)),
            models.Index(fields=["league"], name="hook-enabled-league", condition=Q(enabled=True)),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def host(self) -> str:
        """All of the URL a page shows once it is saved (its path may hold a token)."""
        return urlsplit(self.url).hostname or "?"

    @property
    def signed(self) -> bool:
        return self.kind == self.Kind.JSON

    @property
    def secret(self) -> str:
        """The JSON hook's signing secret, in Standard Webhooks' form (whsec_ and 32 bytes in base64)."""
        key = salted_hmac("pbem.hooks.secret", f"{self.pk}:{self.secret_salt}", algorithm="sha256").digest()
        return "whsec_" + base64.b64encode(key).decode()

    def owner_label(self) -> str:
        if self.game_id:
            return f"game #{self.game_id}"
        if self.league_id:
            return f"league {self.league}"
        return "a player"


class Delivery(MailRow):
    """One notice to one hook. `notice` holds what it says (games/hooks/notices.py), written with the news;
    it is shaped for the hook's kind when sent. A failed attempt is tried again after a pause that grows
    (`next_try_at`); the last failure disables the hook."""

    hook = models.ForeignKey(Hook, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("hook"))
    notice = models.JSONField(verbose_name=_("notice"))
    next_try_at = models.DateTimeField(default=timezone.now, verbose_name=_("next try at"))
    status_code = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("status code")
    )  # the receiver's last answer

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        indexes = [
            models.Index(fields=["next_try_at"], name="delivery-pending", condition=Q(status="pending")),
            unsent_index("delivery-unsent"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} to {self.hook}"


class HookEmail(WrittenEmail):
    """An email to a hook's owner (its hook was turned off after repeated failures), rendered when written, in the
    transaction that turned the hook off, and sent after commit through the mail pipeline (games/outgoing/outbox.py):
    retried, and swept when its task is lost, like every outbox (games/hooks/mail.py)."""

    hook = models.ForeignKey(Hook, on_delete=models.CASCADE, related_name="emails", verbose_name=_("hook"))
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="+", verbose_name=_("player")
    )

    class Meta:
        verbose_name = _("hook email")
        verbose_name_plural = _("hook emails")
        indexes = [
            unsent_index("hook-email-unsent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} email {self.pk} about {self.hook}"
