"""The email telling a hook's owner it was turned off goes through the mail pipeline like every email but a sign-in
link (games/hooks/mail.py): written with the hook's turning off, sent after commit, kept when the provider fails and
sent again by the sweep, and sent by the sweep when its task was lost."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from games.hooks import deliver, notices
from games.hooks import mail as hooks_mail
from games.hooks.models import Delivery, Hook, HookEmail, Notice
from games.models import Game, MailStatus, Seat
from games.outgoing import outbox
from games.play import sweep

pytestmark = pytest.mark.django_db(transaction=True)  # the email is sent after the commit that turned the hook off


class BrokenBackend:
    """A mail provider that is down."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def send_messages(self, messages: object) -> int:
        raise ConnectionError("provider down")


def failing_hook(game: Game) -> Hook:
    """A player's hook whose delivery is on its last attempt, to an address the guard refuses (loopback)."""
    player = Seat.objects.select_related("player").get(game=game, number=0).player
    hook = Hook.objects.create(
        name="Alerts",
        kind=Hook.Kind.DISCORD,
        url="https://127.0.0.1/api/webhooks/9/SECRET-TOKEN",
        player=player,
        notices=[n.value for n in Notice],
    )
    Delivery.objects.create(hook=hook, notice=notices.test_notice(hook), attempts=outbox.MAX_ATTEMPTS - 1)
    return hook


def told(address: str) -> list[Any]:
    return [m for m in mail.outbox if "webhook Alerts is off" in m.subject and m.to == [address]]


def test_the_owner_is_told_through_the_outbox_and_a_failed_send_is_retried_by_the_sweep(make_game, settings):
    hook = failing_hook(make_game(humans=3))
    settings.EMAIL_BACKEND = "tests.hooks.test_mail.BrokenBackend"
    deliver.send_due()  # the last attempt fails: the hook is off, its owner's email written and its send fails
    hook.refresh_from_db()
    assert not hook.enabled and "5 attempts to deliver failed" in hook.disabled_reason
    email = HookEmail.objects.get()
    assert (email.status, email.attempts, email.to) == (MailStatus.FAILED, 1, hook.player.email)
    assert "provider down" in email.error and told(hook.player.email) == []
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    assert sweep.run().resent >= 1
    email.refresh_from_db()
    assert (email.status, email.attempts) == (MailStatus.SENT, 2) and email.sent_at is not None
    [message] = told(hook.player.email)
    assert "127.0.0.1" in message.body and "SECRET-TOKEN" not in message.body
    assert "https://pbem.example/me/" in message.body
    deliver.send_due()
    sweep.run()
    assert HookEmail.objects.count() == 1 and len(told(hook.player.email)) == 1, "told once"


def test_an_owners_email_whose_task_was_lost_is_sent_by_the_sweep(make_game, monkeypatch):
    hook = failing_hook(make_game(humans=3))
    lost: list[str] = []
    with monkeypatch.context() as patch:  # the sender's wake-up call is lost (a broker down, a worker killed)
        patch.setattr(hooks_mail, "after_commit", lambda name, *args: lost.append(name))
        deliver.send_due()
    email = HookEmail.objects.get()
    assert lost == [hooks_mail.SEND_HOOK_EMAILS]
    assert email.status == MailStatus.PENDING and told(hook.player.email) == []
    HookEmail.objects.filter(pk=email.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    sweep.run()
    email.refresh_from_db()
    assert email.status == MailStatus.SENT and len(told(hook.player.email)) == 1
