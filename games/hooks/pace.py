"""Each hook is posted to under its receiver's documented rate limit, and a receiver's 429 is obeyed.

The pace of a hook is a token bucket (GCRA: one timestamp a hook, `Hook.next_post_at`, its "theoretical arrival
time"): a post every `interval` seconds on average, up to `burst` at once after a quiet spell. The slot is taken
under the hook's row lock, so two senders at once share one pace. A wait of a few seconds is waited by the
sender; a longer one (a receiver's Retry-After) puts the delivery back for then without using an attempt.

The limits, as each receiver documents them (the pace stays under each):
- Discord: a webhook's bucket is 5 requests per 2 seconds (its X-RateLimit-* headers): a post every 0.42 s.
- Slack: incoming webhooks, 1 message a second (short bursts tolerated): a post every 1.05 s.
- ntfy: ntfy.sh's default visitor limit is a burst of 60, then one request every 5 s: the same bucket.
- Matrix (hookshot): the homeserver's message limit, Synapse's default 0.2 a second with a burst of 10.
- JSON: the receiver is the owner's own program: 10 a second, one at a time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime

from django.db import transaction
from django.utils import timezone

from games.hooks.models import Hook

# The longest the sender waits in-process for a slot; a later one goes back to the outbox for its time.
WAIT_HERE = timedelta(seconds=3)
# What a receiver's Retry-After is held to: at least a second, at most an hour (a retry is tried then anyway).
RETRY_AFTER_BOUNDS = (1.0, 3600.0)


@dataclass(frozen=True)
class Limit:
    interval: float  # seconds between posts, on average
    burst: int = 1  # posts at once after a quiet spell

    @property
    def tolerance(self) -> timedelta:
        return timedelta(seconds=self.interval * (self.burst - 1))


LIMITS = {
    Hook.Kind.DISCORD: Limit(2 / 5 * 1.05),
    Hook.Kind.SLACK: Limit(1.05),
    Hook.Kind.NTFY: Limit(5.0, burst=60),
    Hook.Kind.MATRIX: Limit(5.0, burst=10),
    Hook.Kind.JSON: Limit(0.1),
}


def slot(hook_id: int, kind: str) -> datetime | None:
    """Take the hook's next slot and wait for it if it is near (WAIT_HERE); None if it is later (nothing taken:
    the caller puts the delivery back for `next_free(hook_id)`)."""
    limit = LIMITS[Hook.Kind(kind)]
    with transaction.atomic():
        hook = Hook.objects.select_for_update().only("next_post_at").get(pk=hook_id)
        now = timezone.now()
        arrival = hook.next_post_at or now
        at = max(now, arrival - limit.tolerance)
        if at - now > WAIT_HERE:
            return None
        Hook.objects.filter(pk=hook_id).update(next_post_at=max(arrival, now) + timedelta(seconds=limit.interval))
    wait = (at - now).total_seconds()
    if wait > 0:
        time.sleep(wait)  # pacing a receiver (a few seconds at most), not waiting for something to happen
    return at


def next_free(hook_id: int, kind: str) -> datetime:
    """When the hook's next slot opens."""
    arrival = Hook.objects.filter(pk=hook_id).values_list("next_post_at", flat=True).first()
    now = timezone.now()
    return max(now, (arrival or now) - LIMITS[Hook.Kind(kind)].tolerance)


def hold(hook_id: int, kind: str, seconds: float) -> datetime:
    """The receiver said 429, come back in `seconds`: nothing goes to the hook before then. Returns when."""
    now = timezone.now()
    until = now + timedelta(seconds=seconds)
    Hook.objects.filter(pk=hook_id).update(next_post_at=until + LIMITS[Hook.Kind(kind)].tolerance)
    return until


def retry_after(value: str | None, now: datetime) -> float | None:
    """A Retry-After header's seconds (RFC 9110: seconds, or an HTTP date), held to RETRY_AFTER_BOUNDS; None if
    absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - now).total_seconds()
        except (TypeError, ValueError, IndexError):
            return None
    if seconds != seconds:  # NaN
        return None
    low, high = RETRY_AFTER_BOUNDS
    return min(max(seconds, low), high)
