"""A player's webhooks on My games: the list and the add form (`section`, registered as an account section),
and the posts that add, test, enable and delete one. Like every setting, only in a signed-in browser (not one
that opened a seat link); a player reaches only their own hooks (another's id is not found)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from games.extensions import AccountSection
from games.hooks import deliver, notices
from games.hooks.forms import HookForm
from games.hooks.models import Hook
from games.incoming import sessions
from games.models import Player

SHOW_ONCE = "hooks-show-once"  # the session holds the new hook's id (never its secret) until it is shown


def _refused(request: HttpRequest) -> HttpResponse:
    context = {
        "title": _("Sign in first"),
        "message": _("Only a signed-in player can change settings. Nothing was changed."),
    }
    return render(request, "games/link_error.html", context, status=403)


def _back() -> HttpResponse:
    return redirect("/me/#webhooks")


@dataclass(frozen=True)
class HookLine:
    """A hook as its card shows it: never its URL (its host only) nor its secret."""

    pk: int
    name: str
    kind: str
    host: str
    notices: tuple[str, ...]
    enabled: bool
    reason: str


def section(request: HttpRequest, player: Player, form: HookForm | None = None) -> AccountSection:
    """The My games card: the player's hooks and the add form. A JSON hook's secret is shown here once, on the
    page the add leads to (the session holds the hook's id until then, never the secret)."""
    hooks = list(Hook.objects.filter(player=player).order_by("pk"))
    shown = request.session.pop(SHOW_ONCE, None)
    new = next((hook for hook in hooks if hook.pk == shown and hook.signed), None)
    lines = [
        HookLine(h.pk, h.name, h.get_kind_display(), h.host, tuple(h.notices), h.enabled, h.disabled_reason)
        for h in hooks
    ]
    context = {
        "hooks": lines,
        "form": form or HookForm(count=len(hooks)),
        "new_secret": new.secret if new else "",
        "new_secret_name": new.name if new else "",
    }
    return AccountSection("hooks/section.html", context)


@sensitive_post_parameters("hook-url")  # an error report never quotes the URL (it may hold a token)
@require_http_methods(["GET", "POST"])
def add(request: HttpRequest) -> HttpResponse:
    """The add form's post (a refusal shows the form alone, with what to fix, and stores nothing)."""
    player = sessions.account_player(request)
    if player is None:
        return _refused(request)
    form = HookForm(request.POST or None, count=Hook.objects.filter(player=player).count())
    if request.method == "POST" and form.is_valid():
        hook = form.save(commit=False)
        hook.player = player
        hook.save()
        added = _("Webhook %(name)s added: it gets the notices you chose from now on.") % {"name": hook.name}
        if hook.signed:
            request.session[SHOW_ONCE] = hook.pk
            added += " " + _("Copy its secret, under Webhooks below: it is not shown again.")
        messages.success(request, added)
        return _back()
    card = section(request, player, form)
    return render(request, "hooks/add.html", {"card": card}, status=400 if form.errors else 200)


def _own(request: HttpRequest, hook_id: int) -> Hook | None:
    """The signed-in player's hook `hook_id` (404 if it is not theirs); None in a browser not signed in."""
    player = sessions.account_player(request)
    if player is None:
        return None
    hook = Hook.objects.filter(pk=hook_id, player=player).select_related("player").first()
    if hook is None:
        raise Http404(_("You have no such webhook."))
    return hook


@require_POST
def enable(request: HttpRequest, hook_id: int) -> HttpResponse:
    hook = _own(request, hook_id)
    if hook is None:
        return _refused(request)
    deliver.enable(hook)
    messages.success(request, _("Webhook %(hook_name)s is on again.") % {"hook_name": hook.name})
    return _back()


@require_POST
def delete(request: HttpRequest, hook_id: int) -> HttpResponse:
    hook = _own(request, hook_id)
    if hook is None:
        return _refused(request)
    name = hook.name
    hook.delete()
    messages.success(request, _("Webhook %(name)s deleted.") % {"name": name})
    return _back()


@require_POST
def test(request: HttpRequest, hook_id: int) -> HttpResponse:
    """A test notice, through the outbox like any other (the hook's line on the page shows how it went)."""
    hook = _own(request, hook_id)
    if hook is None:
        return _refused(request)
    if not hook.enabled:
        messages.error(
            request, _("Webhook %(hook_name)s is off: turn it on first. Nothing was sent.") % {"hook_name": hook.name}
        )
        return _back()
    notices.write([hook], {hook.pk: notices.test_notice(hook)})
    messages.success(request, _("A test notice is on its way to %(hook_name)s.") % {"hook_name": hook.name})
    return _back()
