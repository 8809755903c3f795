"""The webhooks' sender: claims due deliveries, checks each hook's URL again (games/hooks/guard.py), posts, and
records the answer. It runs in its own task on the email queue after the news committed, so a resolution never
waits for a receiver, however slow or broken.

A failed attempt is tried again after a growing pause (BACKOFF: 1 minute, 5, 30, then 2 hours): the row goes
back to pending with `next_try_at` set, a task is published for then, and the sweep wakes the sender for it
too if that call is lost (the outbox's `held` keeps a row that is not due yet out of the sweep's stragglers).
The MAX_ATTEMPTS-th failure marks it failed, disables its hook (its other pending deliveries are skipped), and
tells the hook's owner by email, once, through the outbox (games/hooks/mail.py). The owner can enable it again from
where they added it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from games.extensions import Outbox
from games.hooks import guard, mail, pace, shapes, transport
from games.hooks.models import Delivery, Hook
from games.hooks.notices import SEND_HOOKS, attach
from games.models import MailStatus
from games.outgoing import outbox
from games.outgoing.dispatch import after_commit, publish

log = logging.getLogger(__name__)
BACKOFF = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2))
BATCH = 50


def backoff(attempts: int) -> timedelta:
    """The pause after the `attempts`-th failed attempt."""
    return BACKOFF[min(attempts, len(BACKOFF)) - 1]


def send_due(now: datetime | None = None) -> int:
    """Send every delivery due now, a batch at a time; returns how many were taken by their receivers."""
    sent = 0
    while True:
        at = now or timezone.now()
        due = Delivery.objects.filter(status=MailStatus.PENDING, next_try_at__lte=at).select_related("hook")
        rows = outbox.claim_pending(due, limit=BATCH)
        if not rows:
            return sent
        for row in rows:
            row.attempts += 1  # the claim counted this attempt in the table, not in the rows it read first
        sent += sum(attempt(row, at) for row in rows)


def attempt(row: Delivery, at: datetime) -> bool:
    """One claimed delivery: posted and recorded. Returns whether the receiver took it."""
    hook = row.hook
    if not hook.enabled:  # disabled since the row was written: it is not sent
        Delivery.objects.filter(pk=row.pk).update(status=MailStatus.SKIPPED)
        return False
    if pace.slot(hook.pk, hook.kind) is None:  # the receiver's pace (or its 429) says later
        put_back(row, pace.next_free(hook.pk, hook.kind), "")
        return False
    try:
        target = guard.check(hook.url)
    except guard.Refused as refusal:
        answer = transport.Answer(0, str(refusal))
    else:
        shaped = shapes.shape(hook, row.notice, row.pk, at)
        answer = transport.post(
            guard.Target(target.host, target.port, shaped.path or target.path, target.address),
            shaped.body,
            shaped.headers,
        )
    seconds = pace.retry_after(answer.retry_after, timezone.now()) if answer.status == 429 else None
    if seconds is not None:  # the receiver's own limit: obeyed, and not counted against the hook
        put_back(row, pace.hold(hook.pk, hook.kind, seconds), answer.problem, code=429)
        return False
    if answer.ok:
        Delivery.objects.filter(pk=row.pk).update(
            status=MailStatus.SENT, sent_at=at, status_code=answer.status, error=""
        )
        Hook.objects.filter(pk=hook.pk).update(last_ok_at=at)
        return True
    failed(row, answer, at)
    return False


def put_back(row: Delivery, when: datetime, error: str, code: int | None = None) -> None:
    """Back to pending for `when`, the claim's attempt given back: a receiver's pace is not a failure."""
    Delivery.objects.filter(pk=row.pk).update(
        status=MailStatus.PENDING, next_try_at=when, attempts=F("attempts") - 1, error=error, status_code=code
    )
    publish(SEND_HOOKS, countdown=max((when - timezone.now()).total_seconds(), 0.0))


def failed(row: Delivery, answer: transport.Answer, at: datetime) -> None:
    """Try again later, or, at the last attempt, give up: the hook is disabled and its owner told."""
    # The error names the kind of failure only: never the URL (it may hold a token) nor a receiver's words.
    log.warning(
        "webhook delivery %s of hook %s failed (attempt %s): %s", row.pk, row.hook_id, row.attempts, answer.problem
    )
    code = answer.status or None
    if row.attempts < outbox.MAX_ATTEMPTS:
        retry_at = at + backoff(row.attempts)
        Delivery.objects.filter(pk=row.pk).update(
            status=MailStatus.PENDING, next_try_at=retry_at, error=answer.problem, status_code=code
        )
        publish(SEND_HOOKS, countdown=(retry_at - at).total_seconds())
        return
    Delivery.objects.filter(pk=row.pk).update(status=MailStatus.FAILED, error=answer.problem, status_code=code)
    reason = _("%(attempts)s attempts to deliver failed; the last one: %(problem)s.") % {
        "attempts": row.attempts,
        "problem": answer.problem,
    }
    disable(row.hook, reason, at, tell=True)


def disable(hook: Hook, reason: str, at: datetime, *, tell: bool = False) -> bool:
    """Disable `hook` and skip its pending deliveries; False if it was disabled already. With `tell`, its owner's
    email is written in the same transaction (so told once, and never told of a change that was rolled back)."""
    with transaction.atomic():
        changed = Hook.objects.filter(pk=hook.pk, enabled=True).update(
            enabled=False, disabled_reason=reason[:300], disabled_at=at
        )
        Delivery.objects.filter(hook=hook, status=MailStatus.PENDING).update(status=MailStatus.SKIPPED)
        if changed and tell:
            mail.hook_disabled(hook, reason)
    return bool(changed)


def enable(hook: Hook) -> None:
    """Its owner enables it again: news from now on is delivered (what was skipped meanwhile is not), its pace
    starting afresh."""
    Hook.objects.filter(pk=hook.pk).update(enabled=True, disabled_reason="", disabled_at=None, next_post_at=None)
    attach(hook)  # the games it concerns may have gained players while it was disabled


def unsent() -> Iterable[Delivery]:
    return outbox.unsent(Delivery)


def wake_sender(*_: object) -> None:
    after_commit(SEND_HOOKS)


# The sweep wakes the sender for deliveries whose task was lost; a retry not due yet is held back.
def waiting(at: datetime) -> Q:
    """A retry whose time has not come at `at` (the sweep's time) is not a straggler."""
    return Q(status=MailStatus.PENDING, next_try_at__gt=at)


def fallen_due(at: datetime) -> QuerySet[Delivery]:
    """A retry whose time has come at `at` and that no sender took nor was woken for since (a claim and the
    sweep's wake both set attempted_at to their time, which is then not before its next_try_at): its call
    published for then was lost, or is late. Waking a sender twice sends nothing twice (the claim is
    conditional). Read through the pending deliveries' index on next_try_at."""
    since = Q(attempted_at__isnull=True) | Q(attempted_at__lt=F("next_try_at"))
    return Delivery.objects.filter(since, status=MailStatus.PENDING, next_try_at__lte=at).order_by("next_try_at")


OUTBOX = Outbox(model=Delivery, wake=wake_sender, held=waiting, due=fallen_due)
