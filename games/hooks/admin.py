"""Webhooks in the admin: an organiser adds one for a game or a league of theirs (its public news), sees how its
deliveries went, and turns it on again or sends a test. Staff who are not superusers see only the hooks of the
games and leagues they are responsible for, never a player's own. A hook's URL is typed once, when it is
added, and then shown as its host only (a Discord or Slack URL holds a token); a JSON hook's secret is shown
once, on the page the add leads to, and nowhere else (not a form field, a list column, a filter or a log)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.debug import sensitive_post_parameters

from games.admin.scope import ReadOnlyMixin, StaffScoped, games_of
from games.hooks import deliver, notices
from games.hooks.forms import MAX_HOOKS, checked_url
from games.hooks.models import Delivery, Hook
from games.leagues.models import League

SHOW_ONCE = "hooks-admin-show-once"


def leagues_of(user: Any) -> QuerySet[League]:
    return League.objects.all() if user.is_superuser else League.objects.filter(organisers=user)


class NewsHookForm(forms.ModelForm):
    class Meta:
        model = Hook
        fields = ["name", "kind", "url", "game", "league"]
        help_texts = {"url": gettext_lazy("https://... (Discord, Slack, Matrix hookshot, ntfy or your JSON receiver).")}

    def clean_url(self) -> str:
        return checked_url(self.cleaned_data["url"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        game, league = cleaned.get("game"), cleaned.get("league")
        if bool(game) == bool(league):
            raise forms.ValidationError(_("Choose a game or a league (one of them) whose news this webhook gets."))
        if Hook.objects.filter(Q(game=game) if game else Q(league=league)).count() >= MAX_HOOKS:
            raise forms.ValidationError(
                _("It has %(MAX_HOOKS)s webhooks already, the most one game or league can have.")
                % {"MAX_HOOKS": MAX_HOOKS}
            )
        return cleaned


class HookEditForm(forms.ModelForm):
    """A saved hook: its name only (a new URL or owner is a new hook: its secret is new too)."""

    class Meta:
        model = Hook
        fields = ["name"]


@admin.register(Hook)
class HookAdmin(StaffScoped):
    list_display = ["name", "kind", "host", "news_of", "enabled", "last_ok_at"]
    list_filter = ["kind", "enabled"]
    search_fields = ["name"]
    actions = ["turn_on", "turn_off", "send_test"]

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        return queryset.filter(Q(game__in=games_of(user)) | Q(league__in=leagues_of(user)))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        # A player's own hooks are theirs (My games), not the organisers'.
        return super().get_queryset(request).filter(player__isnull=True).select_related("game", "league")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        kwargs["form"] = HookEditForm if obj is not None else NewsHookForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ["name", "kind", "url", "game", "league"]
        return ["name", "kind", "host", "news_of", "enabled", "disabled_reason", "last_ok_at", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return []
        return ["kind", "host", "news_of", "enabled", "disabled_reason", "last_ok_at", "created_at"]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        # Pick lists offer only the organiser's own games and leagues.
        if db_field.name == "game":
            kwargs["queryset"] = (
                games_of(request.user) if not request.user.is_superuser else db_field.related_model.objects
            )
        if db_field.name == "league":
            kwargs["queryset"] = leagues_of(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request: HttpRequest, obj: Hook, form: Any, change: bool) -> None:
        if not change:
            obj.added_by_id = request.user.pk
        super().save_model(request, obj, form, change)
        if not change and obj.signed:
            request.session[SHOW_ONCE] = obj.pk

    @method_decorator(sensitive_post_parameters("url"))  # an error report never quotes the URL
    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return super().add_view(request, form_url, extra_context)

    def response_add(self, request: HttpRequest, obj: Hook, post_url_continue: str | None = None) -> HttpResponse:
        # A JSON hook's page next, where its secret is shown (once); the others go back to the list as usual.
        if obj.signed:
            return HttpResponseRedirect(reverse("admin:hooks_hook_change", args=[obj.pk]))
        return super().response_add(request, obj, post_url_continue)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # The new JSON hook's secret, once: the session holds only its id, taken on the first showing.
        shown = request.session.pop(SHOW_ONCE, None)
        hook = self.get_queryset(request).filter(pk=object_id).first() if str(shown) == object_id else None
        extra = {**(extra_context or {}), "new_secret": hook.secret if hook is not None else ""}
        return super().change_view(request, object_id, form_url, extra)

    @admin.display(description=gettext_lazy("news of"))
    def news_of(self, hook: Hook) -> str:
        return hook.owner_label()

    @admin.display(description=gettext_lazy("host"))
    def host(self, hook: Hook) -> str:
        return hook.host

    @admin.action(description=gettext_lazy("Turn the selected webhooks on again"))
    def turn_on(self, request: HttpRequest, queryset: QuerySet[Hook]) -> None:
        for hook in queryset:
            deliver.enable(hook)
        self.message_user(
            request,
            ngettext(
                "%(count)d webhook on again: it gets the news from now on.",
                "%(count)d webhooks on again: they get the news from now on.",
                len(queryset),
            )
            % {"count": len(queryset)},
        )

    @admin.action(description=gettext_lazy("Turn the selected webhooks off"))
    def turn_off(self, request: HttpRequest, queryset: QuerySet[Hook]) -> None:
        at = timezone.now()
        off = sum(deliver.disable(hook, _("turned off by an organiser"), at) for hook in queryset)
        self.message_user(
            request,
            ngettext(
                "%(count)d webhook off: it gets no news until turned on again.",
                "%(count)d webhooks off: they get no news until turned on again.",
                off,
            )
            % {"count": off},
        )

    @admin.action(description=gettext_lazy("Send a test notice to the selected webhooks"))
    def send_test(self, request: HttpRequest, queryset: QuerySet[Hook]) -> None:
        hooks = [hook for hook in queryset if hook.enabled]
        notices.write(hooks, {hook.pk: notices.test_notice(hook) for hook in hooks})
        self.message_user(
            request,
            ngettext(
                "A test notice is on its way to %(count)d webhook (those turned on).",
                "A test notice is on its way to %(count)d webhooks (those turned on).",
                len(hooks),
            )
            % {"count": len(hooks)},
        )


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyMixin, StaffScoped):
    """How each delivery went: read-only. Its notice is public news, but the list shows only what it was."""

    list_display = ["hook", "event", "status", "status_code", "error"]  # fits 1280 px; the page has the rest
    list_filter = ["status"]
    fields = ("hook", "event", "status", "attempts", "status_code", "error", "created_at", "sent_at", "next_try_at")
    readonly_fields = fields

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        return queryset.filter(Q(hook__game__in=games_of(user)) | Q(hook__league__in=leagues_of(user)))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).filter(hook__player__isnull=True).select_related("hook")

    @admin.display(description=gettext_lazy("notice"))
    def event(self, delivery: Delivery) -> str:
        return str(delivery.notice.get("event", ""))
