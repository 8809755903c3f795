"""The resolution path through a real Celery worker on Redis: the last order's commit enqueues the task,
a worker process picks it up, resolves under the row lock, writes and sends the next phase's emails."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from games import turns
from games.models import OutboundEmail, Phase
from pbem.celery import app as celery_app
from tests.conftest import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def worker(postgres, broker_url, settings, tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker_url,
        "EMAIL_PROVIDER": "test",
        "SITE_URL": "https://pbem.example",
        "PBEM_VAR_DIR": str(tmp_path),
    }
    celery_app.conf.broker_url = broker_url
    celery_app.control.purge()
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "pbem",
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    settings.CELERY_TASK_ALWAYS_EAGER = False
    celery_app.conf.task_always_eager = False
    yield process
    process.terminate()
    process.wait(timeout=20)
    log.close()
    celery_app.conf.task_always_eager = True


def wait_for(condition, timeout: float, what: str, worker_process) -> None:
    """Poll the database (the worker tells us nothing else) until the condition holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        assert worker_process.poll() is None, "the worker died"
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def test_a_real_worker_resolves_the_phase_when_the_last_order_commits(make_game, worker):
    game = make_game(humans=3)  # created before the worker mode: its first emails were sent here
    phase = open_phase(game)
    for seat in game.seats.order_by("number"):
        turns.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})

    def resolved() -> bool:
        return Phase.objects.filter(game=game, number=2).exists()

    wait_for(resolved, 60, "the worker to resolve the phase", worker)
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    following = Phase.objects.get(game=game, number=2)
    assert following.owed_seats == [0]  # the sale: only the seller is asked
    wait_for(
        lambda: OutboundEmail.objects.filter(phase=following, status="sent").exists(),
        60,
        "the worker to send the next turn email",
        worker,
    )
    assert OutboundEmail.objects.get(phase=following).seat.number == 0
