"""The webhooks app's emails: telling a hook's owner that their hook was turned off after repeated failures. Like
every email but a sign-in link, it goes through the mail pipeline (games/outgoing/outbox.py): rendered and kept as
a HookEmail row in the transaction that turned the hook off, sent after commit by a task on the email queue,
retried when the provider fails, and sent by the sweep if that task is lost. It names the hook and its host, never
its URL (Discord's and Slack's hold a token)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.extensions import Outbox
from games.hooks.models import Hook, HookEmail
from games.outgoing import mailpolicy, messages, outbox
from games.outgoing.dispatch import after_commit, task_name
from games.outgoing.mailpolicy import Need

# The sender, woken after commit (bound in games/hooks/tasks.py).
SEND_HOOK_EMAILS = task_name("hooks.tasks.send_emails")
DISABLED = "hook-disabled"


def hook_disabled(hook: Hook, reason: str) -> bool:
    """Write the email telling `hook`'s owner it is off and why; sent after commit. False when there is nobody to
    tell (an organiser's account without an address, or gone)."""
    if hook.player_id:
        assert hook.player is not None
        to, zone, where = hook.player.email, hook.player.time_zone, reverse("games-mine")
    else:
        user = get_user_model().objects.filter(pk=hook.added_by_id or 0).first()
        if user is None or not user.email:
            return False
        to, zone, where = user.email, None, reverse("admin:hooks_hook_change", args=[hook.pk])
    context = {
        "name": hook.name,
        "kind": hook.get_kind_display(),
        "host": hook.host,
        "reason": reason,
        "link": settings.SITE_URL + where,
    }
    language = messages.language_of(hook.player) if hook.player_id else None  # an organiser's: the active one
    rendered = messages.render(f"emails/{DISABLED}", context, messages.zone_of(zone), language=language)
    HookEmail.objects.create(
        hook=hook,
        player_id=hook.player_id,
        to=to,
        kind=DISABLED,
        subject=rendered.subject[:250],
        text=rendered.text,
        html=rendered.html,
    )
    after_commit(SEND_HOOK_EMAILS)
    return True


def send_pending() -> int:
    """Send every pending email of the app; one to a player whose address bounced since is skipped."""
    rows = list(HookEmail.objects.filter(status=HookEmail.Status.PENDING).select_related("player").order_by("pk"))

    def outgoing() -> Iterator[outbox.Outgoing]:
        for row in rows:
            # What keeps a player's channel working, as a seat's news does: only a bounced address stops it.
            if not mailpolicy.allows(row.player, Need.PLAY):
                yield outbox.Outgoing([row.pk], None)
                continue
            language = messages.language_of(row.player) if row.player is not None else ""
            rendered = messages.Rendered(row.subject, row.text, row.html, language=language)
            thread = messages.Thread(messages.message_id(f"pbem.hook-email.{row.pk}"))
            yield outbox.Outgoing([row.pk], messages.compose(rendered, row.to, kind=row.kind, thread=thread))

    return outbox.deliver(HookEmail, outgoing())


def wake_sender(values: list[Any]) -> None:
    after_commit(SEND_HOOK_EMAILS)


# For the sweep (games/outgoing/outbox.py): failed rows retried, rows whose wake-up call was lost sent.
OUTBOX = Outbox(model=HookEmail, wake=wake_sender)
