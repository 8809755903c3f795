"""What the API stores: players' tokens (hashed) and the bot accounts organisers seat at tables."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import Player


class Token(models.Model):
    """A player's API token. Only a digest of it is kept: the token itself is shown once, when it is made.
    It acts for its player's seats as their links and sessions do (a seat given to someone else is no longer
    theirs, so the token no longer reaches it)."""

    class Scope(models.TextChoices):
        READ = "read", _("read only")
        PLAY = "play", _("play (orders and table talk)")

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("player"))
    name = models.CharField(max_length=60, verbose_name=_("name"))
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.READ, verbose_name=_("scope"))
    # SHA-256 of the token, hex: a token is 32 random bytes, so a fast hash is as safe as a slow one.
    digest = models.CharField(max_length=64, unique=True, verbose_name=_("digest"))
    # The token's first characters, so its owner can tell tokens apart (never enough to use one).
    hint = models.CharField(max_length=12, verbose_name=_("hint"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    last_used_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last used at"))
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))
    # The rate limit (games/api/tokens.py): a generic cell rate's theoretical arrival time; a call is
    # allowed while it is no more than the burst ahead of now.
    allowed_at = models.DateTimeField(default=timezone.now, verbose_name=_("allowed at"))

    # Not a column: the token's player's language, as games/api/tokens.py authenticate read it with the token (None
    # for a token read otherwise). The API answers in it (games/api/auth.py).
    owner_language: str | None = None

    class Meta:
        verbose_name = _("token")
        verbose_name_plural = _("tokens")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def can_play(self) -> bool:
        return self.scope == self.Scope.PLAY

    def revoked(self, now: datetime | None = None) -> bool:
        return self.revoked_at is not None and self.revoked_at <= (now or timezone.now())


class Bot(models.Model):
    """An external program an organiser seats at tables: a player record that plays through the API only.
    It is never emailed (games/api/apps.py declines every email to it); it owes orders and misses deadlines
    like anyone."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="api_bot", verbose_name=_("player"))
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="api_bots",
        verbose_name=_("owner"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("bot")
        verbose_name_plural = _("bots")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return str(self.player)
