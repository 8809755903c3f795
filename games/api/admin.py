"""The API's admin: bots for organisers (make one, see its address to seat it, give it a new token), and the
players' tokens for superusers (names and use, never a secret: only digests are stored)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.admin.scope import ListedLookupsOnly
from games.api import bots
from games.api.models import Bot, Token


class BotForm(forms.Form):
    name = forms.CharField(max_length=80, help_text=gettext_lazy("How the table sees the bot (e.g. “Random Rita”)."))


def _made(request: HttpRequest, bot: Bot, secret: str, title: str) -> HttpResponse:
    context = {**admin.site.each_context(request), "title": title, "bot": bot.player.name, "address": bot.player.email}
    response = TemplateResponse(request, "admin/api/bot_made.html", {**context, "secret": secret})
    response["Cache-Control"] = "no-store"
    return response


@admin.register(Bot)
class BotAdmin(ListedLookupsOnly):
    list_display = ["name", "address", "owner", "created_at"]
    search_fields = ["player__name"]
    actions = ["new_token"]
    fields = ("name", "address", "owner", "created_at")
    readonly_fields = ("name", "address", "owner", "created_at")

    @admin.display(description=gettext_lazy("name"))
    def name(self, bot: Bot) -> str:
        return bot.player.name

    @admin.display(description=gettext_lazy("address to seat it by"))
    def address(self, bot: Bot) -> str:
        return bot.player.email

    def get_queryset(self, request: HttpRequest) -> QuerySet[Bot]:
        found = super().get_queryset(request).select_related("player", "owner")
        return found if request.user.is_superuser else found.filter(owner=request.user)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # its seats and orders point at its player: a bot is kept, like every player

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        if not self.has_add_permission(request):
            return super().add_view(request, form_url, extra_context)  # Django's own refusal
        form = BotForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            made = bots.make_bot(form.cleaned_data["name"], request.user)
            return _made(request, made.bot, made.secret, _("Bot made"))
        context = {**self.admin_site.each_context(request), "title": _("Add bot"), "form": form, "opts": self.opts}
        return TemplateResponse(request, "admin/api/bot_add.html", context)

    @admin.action(description=gettext_lazy("Give the selected bot a new token (its old ones stop working)"))
    def new_token(self, request: HttpRequest, queryset: QuerySet[Bot]) -> HttpResponse | None:
        chosen = list(queryset[:2])
        if len(chosen) != 1:
            self.message_user(request, _("Choose one bot: its new token is shown once."), messages.ERROR)
            return None
        return _made(request, chosen[0], bots.new_token(chosen[0]), _("New token"))


@admin.register(Token)
class TokenAdmin(ListedLookupsOnly):
    list_display = ["name", "player", "scope", "hint", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["scope"]
    fields = ("name", "player", "scope", "hint", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("name", "player", "scope", "hint", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a player makes their own, on My games

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description=gettext_lazy("Revoke the selected tokens"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[Token]) -> None:
        from django.utils import timezone  # noqa: PLC0415

        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(
            request, ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count) % {"count": count}
        )
