"""The worker survives a Redis broker outage under load: a real worker (tests/support/workers.py) on a Redis of the
test's own (tests/support/private_redis.py) is resolving a phase, its task delivered and not yet acknowledged
(acks_late), when the broker is SIGKILLed; Redis comes back on the same port. The worker must still be running,
finish that resolution, and take the next task from the broker it reconnected to.

kombu 5.7.0 (the latest) exits there: on the lost connection the consumer closes its channel, whose QoS gives
the unacknowledged task back to Redis through a client it builds from a connection already let go
(`'NoneType' object has no attribute 'hostname'`, "Unrecoverable error", the process gone). pbem/celery.py
patches that one step (see `closed_connection_is_a_connection_error`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from games.models import Phase
from games.outgoing.dispatch import RESOLVE_PHASE, publish
from tests.support.faults import complete_but_unresolved
from tests.support.private_redis import PrivateRedis
from tests.support.workers import database_url, started_workers, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def outage_workers(postgres: None, private_redis: PrivateRedis, settings: Any, tmp_path: Path) -> Iterator[Any]:
    yield from started_workers(private_redis.url, settings, tmp_path)


class PhaseHeld:
    """The phase's row locked from another connection, so the worker's resolution waits on it mid-task."""

    def __init__(self, phase_id: int) -> None:
        self.connection = psycopg.connect(database_url())
        self.connection.execute("SELECT 1 FROM games_phase WHERE id = %s FOR UPDATE", [phase_id])

    def waited_on(self) -> bool:
        self.connection.execute("SELECT pg_stat_clear_snapshot()")  # a transaction reads one snapshot of the stats
        found = self.connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        ).fetchone()
        return bool(found and found[0])

    def release(self) -> None:
        self.connection.commit()
        self.connection.close()


def test_the_worker_survives_the_broker_dropping_while_it_resolves(
    make_game, lost, outage_workers, private_redis, tmp_path
):
    first = complete_but_unresolved(make_game(humans=3, seed=1), lost)
    lost.dropped.clear()
    second = complete_but_unresolved(make_game(humans=3, seed=2), lost)
    worker = outage_workers("resolve", pool="prefork")
    held = PhaseHeld(first.pk)
    try:
        assert publish(RESOLVE_PHASE, first.pk)
        wait_for(held.waited_on, 60, "the worker's resolution to wait on the phase's lock", worker)
        private_redis.kill()  # the outage, with the resolution's task delivered and not acknowledged
        log = tmp_path / "worker-1.log"
        wait_for(lambda: "Connection to broker lost" in log.read_text(), 90, "the worker to see the outage", worker)
        private_redis.start()
    finally:
        held.release()
    resolved = lambda phase: Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED  # noqa: E731
    wait_for(lambda: resolved(first), 60, "the resolution under way to finish", worker)
    assert publish(RESOLVE_PHASE, second.pk)  # through the broker that came back
    wait_for(lambda: resolved(second), 60, "the next resolution, taken from the broker again", worker)
    assert worker.poll() is None and "Unrecoverable error" not in log.read_text()
