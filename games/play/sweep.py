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

Overdue phases and reminders, the kinds a league's shared deadline makes due by the thousand in one minute, are
taken by a watermark (SweepMark, one row a kind): the sweep reads, from the index alone, the ids whose due time
lies after the last sweep's `upto` and at or before now, and moves `upto` to now in the same short transaction,
holding that row locked (a second sweep at the same time skips the kind: the first enqueues it). No phase row
is written, so the sweep's cost follows the rows newly due. A crash before the commit moves nothing and enqueues
nothing (the next sweep takes the range again); every task is idempotent (it works under the phase's lock and
skips a phase no longer due), so a range taken twice writes nothing twice. A due time set or moved behind the
watermark (a deadline moved back, a game resumed, a grace shorter than the sweep's lag, a writer's clock behind
the beat's) is not in any range: the next sweep reads, also from the index alone, the phases due by now at or
before the watermark that no sweep of the last settle time enqueued (SweepMark keeps those sweeps' ids) and
takes them. Older than that, the settle-time retry takes them, with what else the watermark cannot see (a task
or a publish lost after the commit): the claim below restricted to due times at or before the `upto` of the
last sweep at least the settle time old.

A sweep reads everything before it hands over any task: a task run at once (inline, or by a quick worker) opens
a game's next phase or moves a deadline, and a read after it took a phase its own task had just opened, due by
a sweep's clock running ahead of the deadlines' writer, before anyone could order in it.

The retry, complete phases and bots are taken a batch at a time (models.claim): a batch is read skipping rows
another transaction holds, marked so that it is no longer due, and its tasks are enqueued after that short
transaction commits. Only ids are read. So two sweeps running at once take different rows, and a later sweep
enqueues a phase's work again only once the settle time has passed since the last time (the task must have been
lost). A paused game's phases are left alone (a reminder taken for one is dropped by its task); resuming moves
its deadline on, and its reminder with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from games import extensions
from games.models import Game, Order, OutboundEmail, Phase, Seat, SweepMark, claim, queries
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
        # Past its deadline a complete phase is overdue too: taken once, as overdue (its defaults are moot).
        "complete": running.filter(not_asked, complete_at__lt=settled, deadline__gt=now).order_by("complete_at"),
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


def batch_of(task: TaskName, at: str) -> Callable[[list[int]], None]:
    """Enqueue `task` once per batch of phase ids, after commit, with the time the sweep found them due."""

    def enqueue(ids: list[int]) -> None:
        after_commit(task, ids, at)

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


# The kinds taken by a watermark (SweepMark), by their due time's column, and the task a batch of them goes in.
WATERMARKED: dict[str, tuple[str, TaskName]] = {
    "overdue": ("deadline", RESOLVE_OVERDUE_PHASES),
    "reminders": ("remind_at", SEND_REMINDERS),
}
# Ids fetched at a time from a watermark's range (enqueued in tasks of CLAIM_BATCH ids).
READ_BATCH = 10_000
# The sweeps a watermark remembers that are not yet the settle time old (the oldest dropped first: its due times
# are retried a little later, from a newer sweep's, once that one has settled).
KEPT_SWEEPS = 20


def newly_due(now: datetime, after: datetime | None) -> dict[str, QuerySet[Phase]]:
    """The phases of each watermarked kind whose due time is after `after` (None: any) and at or before `now`:
    one range of the kind's partial index, whose columns (due time, id) are all that is read, so PostgreSQL
    answers from the index alone (an index-only scan) and visits no phase's page."""
    overdue = Phase.objects.filter(status=Phase.Status.OPEN, paused=False, deadline__lte=now)
    reminders = Phase.objects.filter(status=Phase.Status.OPEN, remind_at__lte=now)
    if after is not None:
        overdue, reminders = overdue.filter(deadline__gt=after), reminders.filter(remind_at__gt=after)
    return {"overdue": overdue, "reminders": reminders}


def read_range(due: QuerySet[Phase], column: str) -> list[int]:
    """The ids of `due` in its index's order (due time, id), READ_BATCH at a time through a server-side cursor on
    PostgreSQL (one snapshot; at most a batch held by the driver at once). Only the ids cross: reading the due
    time too, to start each batch after the last one's, cost a Python datetime a row (about 1 s of a sweep of
    60,284 due rows, profiled at 1,000,000 open games). Read in the index's order (queries.IN_ORDER)."""
    ordered = due.order_by(column, "pk").values_list("pk", flat=True)
    if connection.vendor != "postgresql":
        return list(ordered)
    with queries.in_index_order(nested=True):  # (reset after: a caller's transaction may hold this one)
        return list(ordered.iterator(chunk_size=READ_BATCH))


@dataclass(frozen=True)
class Swept:
    """One sweep of a watermarked kind, as its SweepMark keeps it: when it ran, the watermark it left, and the ids
    it enqueued (kept only while it is not yet the settle time old: their tasks may still be in flight)."""

    at: datetime
    upto: datetime
    ids: tuple[int, ...] = ()

    @classmethod
    def load(cls, kept: list[Any]) -> Swept:
        return cls(
            datetime.fromisoformat(kept[0]), datetime.fromisoformat(kept[1]), tuple(kept[2]) if len(kept) > 2 else ()
        )

    def dump(self) -> list[Any]:
        return [self.at.isoformat(), self.upto.isoformat(), list(self.ids)]


def advance(kind: str, now: datetime) -> tuple[list[int], datetime | None] | None:
    """Read the phases of `kind` due at `now` that the watermark says no sweep has enqueued, and move the
    kind's watermark to `now`, in one transaction holding the kind's row. Returns the ids (for the caller to
    enqueue once it has read everything) and how far the settle-time retry reads (None: nothing is settled
    yet), or None if another sweep holds the kind.

    Two reads: the range after the watermark, and the phases due by now whose due time lies at or before the
    watermark but after what the retry reads, that no sweep of the last settle time enqueued: a deadline set or
    moved behind the watermark (a grace shorter than the sweep's lag, a game resumed, a deadline moved back, a
    writer's clock behind the beat's), which the watermark cannot see. With a beat less often than the settle
    time, the retry reaches the last sweep's watermark and this second read is empty; with sweeps closer than
    that (a second beat host, a clock gone back, a test's timeline), it takes those phases at once rather than
    a settle time later, and never a phase a recent sweep enqueued (its task may still be queued)."""
    column, _ = WATERMARKED[kind]
    settle = now - timedelta(seconds=settings.PBEM_SETTLE_SECONDS)
    with transaction.atomic():
        mark = SweepMark.objects.select_for_update(no_key=True, skip_locked=True).filter(kind=kind).first()
        if mark is None:
            return None
        swept = [Swept.load(kept) for kept in mark.settled]
        furthest = max((s for s in swept if s.at <= settle), key=lambda s: s.upto, default=None)
        recent = [s for s in swept if s.at > settle]
        # A clock gone back (now before the watermark) reads no further than now: what is due is due by now.
        retry_upto = None if furthest is None else min(furthest.upto, now)
        ids = []
        if mark.upto is not None and (retry_upto is None or retry_upto < min(mark.upto, now)):
            behind = newly_due(min(mark.upto, now), retry_upto)[kind]
            in_flight = {phase_id for s in recent for phase_id in s.ids}
            ids = [phase_id for phase_id in read_range(behind, column) if phase_id not in in_flight]
        ids += read_range(newly_due(now, mark.upto)[kind], column)
        mark.upto = now if mark.upto is None else max(mark.upto, now)
        # Kept: the settled sweep that reaches furthest (its ids no longer needed), and the last sweeps not yet
        # settled, this one among them (a few: a beat a minute and a settle time of seconds leave one or two).
        kept = ([Swept(furthest.at, furthest.upto)] if furthest else []) + recent[-(KEPT_SWEEPS - 1) :]
        mark.settled = [s.dump() for s in [*kept, Swept(now, mark.upto, tuple(ids))]]
        mark.save(update_fields=["upto", "settled"])
    return ids, retry_upto


def run(now: datetime | None = None) -> SweepResult:
    """Find and enqueue what is due at `now` (see the module's docstring). Returns what it enqueued.

    Every read comes before any task is handed over: a task run at once (inline, or by a quick worker) opens a
    game's next phase or moves its deadline, and a read after it would see that phase as if it had been due
    when this sweep looked (and, a clock behind the deadlines' writer, take a phase nobody could yet order in).
    So a phase is enqueued at most once a sweep, and what a sweep enqueues is what was due when it looked."""
    now = now or timezone.now()
    at = now.isoformat()
    found, mark = due(now), marks(now)
    # The watermarks' rows, made on the first sweep (committed at once: a second sweep's insert never waits).
    SweepMark.objects.bulk_create([SweepMark(kind=kind) for kind in WATERMARKED], ignore_conflicts=True)
    taken: dict[str, list[int]] = {}
    for kind, (column, _) in WATERMARKED.items():
        advanced = advance(kind, now)
        if advanced is None:  # another sweep holds the kind: it takes both its range and its retry
            taken[kind] = []
            continue
        taken[kind], settled = advanced
        if settled is not None:
            retry = found[kind].filter(**{f"{column}__lte": settled})
            taken[kind] += claim(retry, mark=mark[kind], enqueue=lambda ids: None)
        taken[kind] = list(dict.fromkeys(taken[kind]))
    complete = claim(found["complete"], mark=mark["complete"], enqueue=lambda ids: None)
    bots = claim(found["bots"], mark=mark["bots"], enqueue=lambda ids: None)
    # Handed over now, each after the commit of the transaction run() is in, if any (else at once). A process
    # killed before this loses them: the settle-time retry takes them again (see the module's docstring).
    for kind, (_, task) in WATERMARKED.items():
        enqueue = batch_of(task, at)
        for start in range(0, len(taken[kind]), queries.CLAIM_BATCH):
            enqueue(taken[kind][start : start + queries.CLAIM_BATCH])
    each(RESOLVE_PHASE)(complete)
    each(PLAY_BOTS)(bots)
    resent = outbox.retry_failed(now) + outbox.send_stragglers(now)
    receipts.forget_replies(now)
    if complete or bots:
        log.warning("sweep: %s complete phases and %s bot phases had lost their task", len(complete), len(bots))
    return SweepResult(
        overdue=taken["overdue"], complete=complete, bots=bots, reminders=taken["reminders"], resent=resent
    )


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
