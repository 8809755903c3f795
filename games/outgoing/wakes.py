"""Coalesced wake-up calls: one call on its way wakes a draining task for all the rows due meanwhile.

A task that drains a kind of due rows (the game emails' sender, games/outgoing/emails.py) needs one call after the
transaction that makes rows due, not one call per transaction. `wake_once` publishes a call after commit only
if none is on its way already: a Wake row (games/models.py) stands for the call from its publication until its
task has drained what is due. The task takes rows while it finds any; when it finds none it removes the row
(`drained`) and looks once more. So every transaction that found a call on its way committed before that last
look, and the task finds its rows too; a transaction after it publishes a call of its own.

While a task drains, the transactions that make rows due publish nothing: it takes their rows in its next round.
Removing the row when the task started instead let each resolution during a long send publish a second sender,
which ran beside the first and left no pool process free for the next resolution (bench/README.md, issue 43).

Under a burst (a league's deadline resolving hundreds of games, a backlog after an outage) the rows then go
out in a few tasks, each taking many games' rows in a handful of statements, instead of a task per game. At
a quiet time it is one call per transaction, as before. A call published longer ago than WAKE_LOST is taken
as lost (a broker outage, a worker killed before or while its task ran) and is published again; the sweep covers
what is left (games/outgoing/outbox.py, send_stragglers). Without a broker the call runs inline, after commit, once per
loop of inline calls.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from games.models import Wake
from games.outgoing import dispatch
from games.outgoing.dispatch import TaskName

# Longer than a queued call waits for a free worker in a heavy burst; shorter than the sweep's period, so a
# lost call delays nothing beyond what the sweep would catch anyway.
WAKE_LOST = timedelta(seconds=30)


def wake_once(name: TaskName, gather: timedelta = timedelta(0)) -> None:
    """After commit, wake `name` (a task without arguments that drains its kind of due rows), unless a call to
    it is on its way: published and its task not done draining. The task starts `gather` after the call, so that
    what falls due meanwhile goes out with it."""
    transaction.on_commit(lambda: _wake(name, gather))


def wake_another(name: TaskName, gather: timedelta = timedelta(0)) -> None:
    """After commit, wake `name` even if a call is on its way: a task that finds more due than it takes at once
    (a backlog) calls a second task to share it."""
    transaction.on_commit(lambda: _wake(name, gather, another=True))


# Task -> until when a call this process published is sure to be on its way: a call with a countdown does not
# start before it, so until then this process needs no query to know. (Its own clock only: machines' clocks
# may differ by more than a countdown.)
_published_until: dict[str, datetime] = {}


def _wake(name: TaskName, gather: timedelta, another: bool = False) -> None:
    if dispatch.inline():
        if not dispatch.queued_inline(name):  # queued already: it runs after this, and drains these rows too
            dispatch.publish(name)
        return
    now = timezone.now()
    if not another and (now < _published_until.get(name, now) or _on_its_way(name, now)):
        return
    if not _stand_for(name, now, another):
        return  # a transaction committing at the same time took the call: one sender, not two side by side
    if dispatch.publish(name, countdown=gather.total_seconds()):
        _published_until[name] = now + gather
    else:
        Wake.objects.filter(task=name, at=now).delete()  # nothing is on its way: the next commit tries again


def _on_its_way(name: TaskName, now: datetime) -> bool:
    """Whether a call to `name` published less than WAKE_LOST ago is on its way (its Wake row). Asked after every
    transaction that makes rows due (a resolution's commit), so written out once rather than by the ORM, whose
    exists() cost about a tenth of a resolution's CPU to build and compile (bench/README.md, issue 43)."""
    db = connections[router.db_for_read(Wake)]
    table, task, at = _names(db)
    with db.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {table} WHERE {task} = %s AND {at} > %s LIMIT 1",  # noqa: S608
            [name, db.ops.adapt_datetimefield_value(now - WAKE_LOST)],
        )
        return cursor.fetchone() is not None


def _stand_for(name: TaskName, now: datetime, another: bool) -> bool:
    """Record the call about to be published (its Wake row), unless one published less than WAKE_LOST ago stands
    already; `another` records it whatever stands. True if this process is to publish it. One statement, so of two
    processes that both found no call on its way, only one publishes: the other's insert waits for the first's and
    then finds its row."""
    db = connections[router.db_for_write(Wake)]
    table, task, at = _names(db)
    unless_standing = "" if another else f" WHERE {table}.{at} <= %s"
    with db.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({task}, {at}) VALUES (%s, %s) ON CONFLICT ({task}) "  # noqa: S608
            f"DO UPDATE SET {at} = EXCLUDED.{at}{unless_standing} RETURNING {task}",
            [name, db.ops.adapt_datetimefield_value(now)]
            + ([] if another else [db.ops.adapt_datetimefield_value(now - WAKE_LOST)]),
        )
        return cursor.fetchone() is not None


def _names(db: BaseDatabaseWrapper) -> tuple[str, str, str]:
    """The Wake table's name and its two columns', quoted for `db`: the model's own names are all that the statements
    written out here put in their text; every value is a parameter."""
    quote = db.ops.quote_name
    task, at = (quote(field.column) for field in Wake._meta.concrete_fields)
    return quote(Wake._meta.db_table), task, at


def drained(name: TaskName) -> None:
    """Called by a task woken by `wake_once` when it finds nothing due, before it looks once more: from here on,
    newly due rows need a call of their own."""
    _published_until.pop(name, None)
    Wake.objects.filter(task=name).delete()
