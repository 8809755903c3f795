"""Lost wake-up calls and a broker at a given address: the faults a resolution must survive."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import kombu.pools
import pytest

from games.models import Game, Phase
from games.play import orders, turns
from pbem.celery import app as celery_app
from tests.support.phases import open_phase


@pytest.fixture
def lost(monkeypatch: pytest.MonkeyPatch) -> LostWakeUps:
    return LostWakeUps(monkeypatch)


def complete_but_unresolved(game: Game, lost: LostWakeUps) -> Phase:
    dropped = lost.start("games.tasks.resolve_phase")
    phase = open_phase(game)
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, piraeus_roles(seat.number))
    lost.stop()
    assert dropped == [("games.tasks.resolve_phase", phase.pk)]
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    return phase


@pytest.fixture
def broker_at(settings) -> Iterator[Callable[[str], None]]:
    """broker_at(url): tasks go to a real broker at `url` (after commit, not inline), for this test."""
    names = ("broker_url", "broker_read_url", "broker_write_url")
    saved = {name: celery_app.conf[name] for name in names}

    def drop_pooled_connections() -> None:
        # Celery and kombu keep connection and producer pools made for the broker first used.
        kombu.pools.reset()
        celery_app._pool = None  # type: ignore[attr-defined]
        celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]

    def point(url: str) -> None:
        settings.CELERY_BROKER_URL = url  # what /healthz reads to tell a broker from inline mode
        settings.CELERY_TASK_ALWAYS_EAGER = False
        celery_app.conf.task_always_eager = False
        celery_app.conf.update(dict.fromkeys(names, url))
        drop_pooled_connections()

    yield point
    celery_app.conf.update(saved)
    celery_app.conf.task_always_eager = True
    drop_pooled_connections()


def piraeus_roles(seat: int) -> dict[str, str]:
    return {"role": "seller" if seat == 0 else "buyer"}


class LostWakeUps:
    """While on, the named tasks (all, if none named) enqueued after commit are dropped, as when the broker
    is down or the worker dies before publishing. `dropped` lists the calls lost."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.forward = turns.after_commit
        self.dropped: list[tuple[Any, ...]] = []

    def start(self, *names: str) -> list[tuple[Any, ...]]:
        def maybe_drop(name: Any, *args: Any) -> None:
            if names and name not in names:
                self.forward(name, *args)
            else:
                self.dropped.append((name, *args))

        # The order service wakes the resolution, the turns module the bots: both publish through after_commit.
        for module in (orders, turns):
            self.monkeypatch.setattr(module, "after_commit", maybe_drop)
        return self.dropped

    def stop(self) -> None:
        for module in (orders, turns):
            self.monkeypatch.setattr(module, "after_commit", self.forward)
