"""The sweep: run by beat every period, it finds the work that is due and enqueues it, nothing more.

Due work, each kind found through a partial index of open phases (or of the outbox), so its cost follows what
is due, not how many games are open:
- phases past their deadline: a task per batch (`resolve_overdue_phases`), which takes its phases one by one, each
  in its own transaction: the league deals with the miss (its grace), or else the phase resolves with default
  orders (`resolve_overdue`). One task per phase cost a publish each: at 300,000 open games the sweep spent most
  of a minute publishing 3,000 tasks (bench/README.md);
- phases whose orders are all in, or whose bots were asked to play, longer ago than the settle time
  (PBEM_SETTLE_SECONDS): their wake-up call was lost (a killed worker, a broker outage), so the resolution or
  the bots' task goes again;
- reminders due (Phase.remind_at): a task per batch of phases (`send_reminders`);
- emails failed with attempts left, lost in flight, or left pending, in every outbox (games/outgoing/outbox.py).

Each kind is taken a batch at a time (models.claim): a batch is read skipping rows another transaction holds,
marked so that it is no longer due, and its tasks are enqueued after that short transaction commits. Only ids
are read. So two sweeps running at once (a slow beat, two beat processes by mistake) take different rows,
and a later sweep enqueues a phase's work again only once the settle time has passed since the last time
(the task must have been lost). A paused game's phases are left alone (a reminder taken for one is dropped by
its task); resuming moves its deadline on, and its reminder with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from games import extensions
from games.models import Game, Order, OutboundEmail, Phase, Seat, claim
from games.outgoing import emails, outbox, receipts
from games.outgoing.dispatch import (
    PLAY_BOTS,
    RESOLVE_OVERDUE_PHASES,
    RESOLVE_PHASE,
    SEND_REMINDERS,
    TaskArg,
    TaskName,
    after_commit,
)
from games.play import turns

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepResult:
    overdue: list[int]  # phases enqueued for resolution at their deadline
    complete: list[int]  # complete phases whose resolution was lost
    bots: list[int]  # phases whose bots' task was lost
    reminders: list[int]  # phases whose reminder is due, enqueued in batches
    resent: int = 0  # failed emails put back, and games whose sender was woken

    def counts(self) -> dict[str, int]:
        return {
            "overdue": len(self.overdue),
            "complete": len(self.complete),
            "bots": len(self.bots),
            "reminders": len(self.reminders),
            "resent": self.resent,
        }


def due(now: datetime) -> dict[str, QuerySet[Phase]]:
    """The open phases of running games that the sweep takes, by kind, each in the order of its index. Each is
    one range of its partial index, the phases' own rows and no other table's: a paused game's phases carry
    `paused` (set under the game's lock), which the indexes of the first three kinds leave out."""
    settled = now - timedelta(seconds=settings.PBEM_SETTLE_SECONDS)
    running = Phase.objects.filter(status=Phase.Status.OPEN, paused=False)
    not_asked = Q(resolve_asked_at__isnull=True) | Q(resolve_asked_at__lt=settled)
    return {
        "overdue": running.filter(not_asked, deadline__lte=now).order_by("deadline"),
        "complete": running.filter(not_asked, complete_at__lt=settled).order_by("complete_at"),
        "bots": running.filter(bots_due_at__lt=settled).order_by("bots_due_at"),
        # Neither "deadline after now" nor "game running": the planner multiplies the selectivities of correlated
        # conditions (5,103 reminders due among 100,000 open games were estimated at 80 rows), then reads every
        # due row of the index to sort them, batch after batch (140-450 ms a batch). Without them, the index is
        # walked in order and the walk stops at the batch. A phase past its deadline, or of a paused game, is
        # taken too: its task sends nothing and clears its remind_at (send_reminders), and resuming the game
        # moves the deadline, which sets it again.
        "reminders": Phase.objects.filter(
            Q(remind_asked_at__isnull=True) | Q(remind_asked_at__lt=settled),
            status=Phase.Status.OPEN,
            remind_at__lte=now,
        ).order_by("remind_at"),
    }


def each(task: TaskName, *extra: TaskArg) -> Callable[[list[int]], None]:
    """Enqueue `task` once per phase id, after commit: one slow game does not hold back the others."""

    def enqueue(ids: list[int]) -> None:
        for phase_id in ids:
            after_commit(task, phase_id, *extra)

    return enqueue


def marks(now: datetime) -> dict[str, dict[str, Any]]:
    """What taking a phase of each kind writes at `now` so that it is no longer due (models.claim). The marks of
    overdue, complete and reminded phases are columns no index reads, so PostgreSQL rewrites the row in place
    (HOT); moving remind_at itself added an entry to each of the table's indexes, for every phase taken."""
    return {
        "overdue": {"resolve_asked_at": now},
        "complete": {"resolve_asked_at": now},
        # bots_due_at is when the bots were last asked: asking again now is its meaning, and the settle time its mark.
        "bots": {"bots_due_at": now},
        "reminders": {"remind_asked_at": now},
    }


def run(now: datetime | None = None) -> SweepResult:
    """Find and enqueue what is due at `now` (see the module's docstring). Returns what it enqueued."""
    now = now or timezone.now()
    at = now.isoformat()
    found, mark = due(now), marks(now)
    # Overdue first: a phase both overdue and complete is then taken once, as overdue (its defaults are moot).
    overdue = claim(
        found["overdue"], mark=mark["overdue"], enqueue=lambda ids: after_commit(RESOLVE_OVERDUE_PHASES, ids, at)
    )
    complete = claim(found["complete"], mark=mark["complete"], enqueue=each(RESOLVE_PHASE))
    bots = claim(found["bots"], mark=mark["bots"], enqueue=each(PLAY_BOTS))
    reminders = claim(
        found["reminders"], mark=mark["reminders"], enqueue=lambda ids: after_commit(SEND_REMINDERS, ids, at)
    )
    resent = outbox.retry_failed(now) + outbox.send_stragglers(now)
    receipts.forget_replies(now)
    if complete or bots:
        log.warning("sweep: %s complete phases and %s bot phases had lost their task", len(complete), len(bots))
    return SweepResult(overdue=overdue, complete=complete, bots=bots, reminders=reminders, resent=resent)


# --- The tasks' work for what the sweep found ---------------------------------------------------------------


def resolve_overdue(phase_id: int, at: datetime) -> bool:
    """A phase the sweep found past its deadline at `at`: a league may deal with the miss (its grace moves the
    deadline once); otherwise it resolves with default orders, unless its deadline has moved past `at` since
    the sweep found it. Returns whether it resolved."""
    if any(handled for _, handled in extensions.deadline_passed.send(sender=Phase, phase_id=phase_id, now=at)):
        return False
    return turns.resolve_phase(phase_id, use_defaults=True, overdue_at=at)


def resolve_overdue_phases(phase_ids: list[int], at: datetime) -> int:
    """A batch of phases the sweep found past their deadline at `at`, each as `resolve_overdue`, one after the
    other, each in its own transaction: a worker killed half-way has committed the phases before the one it was
    in, and the sweep takes the others again once their mark has settled (a phase resolved already is left
    alone, under its lock). A phase that fails does not stop the batch: it is logged, stays open and is taken
    again by a later sweep; once the batch is done the task fails naming it. Returns how many resolved."""
    resolved = 0
    failed: list[int] = []
    first: Exception | None = None
    for phase_id in phase_ids:
        try:
            resolved += resolve_overdue(phase_id, at)
        except Exception as error:  # noqa: BLE001  (the phase's own fault; raised below, after the others)
            log.exception("overdue phase %s could not be resolved; a later sweep takes it again", phase_id)
            failed.append(phase_id)
            first = first or error
    if failed:
        raise OverdueFailed(f"{len(failed)} of {len(phase_ids)} overdue phases failed: {failed}") from first
    return resolved


class OverdueFailed(RuntimeError):
    """Some phases of an overdue batch failed (each logged); the batch's others were resolved."""


def send_reminders(phase_ids: list[int], at: datetime) -> int:
    """One reminder for each seat with a player that still owes an order, in each phase of the batch whose
    reminder is due at `at`. Checked again under the phase's lock: a deadline moved since the sweep took the
    phase has set its new reminder time, and a phase reminded already (a task run twice) is not reminded
    again. Returns how many reminders were written."""
    with transaction.atomic():
        phases = list(
            Phase.objects.select_for_update(no_key=True, of=("self",))
            .select_related("game")
            .only(
                "game",
                "prompts",
                "opened_at",
                "deadline",
                "game__status",
                "game__reminder_before",
                "game__event_count",
            )
            .filter(pk__in=phase_ids, status=Phase.Status.OPEN, reminded=False)
            .order_by("pk")
        )
        # Past its deadline a phase is due for resolution, not a reminder, and a paused game's phase is due
        # nothing: neither is due a reminder until a new deadline (move_deadline, which resuming a game calls,
        # sets its remind_at again), so the sweep stops taking it.
        idle = {p.pk for p in phases if p.deadline <= at or p.game.status != Game.Status.ACTIVE}
        if idle:
            Phase.objects.filter(pk__in=idle).update(remind_at=None)
        phases = [p for p in phases if p.pk not in idle and p.reminder_time(p.game.reminder_before) <= at]
        if not phases:
            return 0
        ordered = set(Order.objects.filter(phase__in=phases).values_list("phase_id", "seat__number"))
        seats: dict[int, list[Seat]] = {}
        reachable = Seat.objects.filter(game_id__in={p.game_id for p in phases}, is_bot=False, player__isnull=False)
        for seat in reachable.select_related("player").order_by("game_id", "number"):
            seats.setdefault(seat.game_id, []).append(seat)
        rows = [
            row
            for phase in phases
            for row in turns.email_rows(
                phase.game,
                phase,
                [
                    s
                    for s in seats.get(phase.game_id, [])
                    if s.number in phase.owed_seats and (phase.pk, s.number) not in ordered
                ],
                OutboundEmail.Kind.REMINDER,
            )
        ]
        OutboundEmail.objects.bulk_create(rows, ignore_conflicts=True)
        Phase.objects.filter(pk__in=[p.pk for p in phases]).update(reminded=True, remind_at=None)
        if rows:
            emails.wake_sender()
    return len(rows)
