"""Real Celery worker processes on the test's Redis and database, and waiting on what they do."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import kombu.pools
import pytest
from django.db import connection

from games.outgoing.dispatch import Queue
from pbem.celery import app as celery_app


def started_workers(broker_url: str, settings, tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """start(*queues, pool=, **env) -> a new real worker process (solo pool unless named) on `broker_url`, the test's
    database and anymail's test backend, consuming `queues` (all of them if none is named; `env` adds to its
    environment); every worker still running is stopped at the end. Once one is started, tasks sent from the test
    go to the broker instead of running inline."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker_url,
        "EMAIL_PROVIDER": "test",
        "SITE_URL": "https://pbem.example",
        "PBEM_VAR_DIR": str(tmp_path),
    }
    saved = {name: celery_app.conf[name] for name in BROKER_URLS}
    point_at(dict.fromkeys(BROKER_URLS, broker_url))
    celery_app.control.purge()
    started: list[subprocess.Popen[bytes]] = []

    def start(*queues: Queue, pool: str = "solo", **extra_env: str) -> subprocess.Popen[bytes]:
        settings.CELERY_TASK_ALWAYS_EAGER = False
        celery_app.conf.task_always_eager = False
        consume = ["-Q", ",".join(queues)] if queues else []
        # Each worker its own node name: on RabbitMQ two of one name cannot both hold their control queue.
        name = f"worker{len(started) + 1}@%h"
        with (tmp_path / f"worker-{len(started) + 1}.log").open("w") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "pbem",
                    "worker",
                    f"--pool={pool}",  # prefork: as deployed (its main process keeps reading the broker)
                    *(["--concurrency=2"] if pool == "prefork" else []),
                    "--loglevel=INFO",
                    "--without-gossip",
                    "--without-mingle",
                    # The worker heartbeat's timer stays on: a solo worker on RabbitMQ without it notices a
                    # delivery (or its stop signal) only at its next timer, up to 10 s later (README).
                    "-n",
                    name,
                    *consume,
                ],
                cwd=ROOT,
                env={**env, **extra_env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:  # a warm shutdown still waiting for its broker: it holds our database
                process.kill()
                process.wait(timeout=20)
    celery_app.control.purge()  # a killed worker's unacknowledged task must not reach the next test
    celery_app.conf.task_always_eager = True
    point_at(saved)


@pytest.fixture
def workers(postgres, broker_url, settings, tmp_path):
    """Real workers on Redis (see started_workers)."""
    yield from started_workers(broker_url, settings, tmp_path)


@pytest.fixture
def worker(workers):
    return workers()


def wait_for(condition, timeout: float, what: str, worker_process) -> None:
    """Poll the database (the worker tells us nothing else) until the condition holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        assert worker_process.poll() is None, "the worker died"
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


BROKER_URLS = ("broker_url", "broker_read_url", "broker_write_url")


def point_at(urls: dict[str, str]) -> None:
    """This process's tasks go to the broker `urls` name (Celery and kombu keep pools made for the broker first
    used: they are dropped)."""
    celery_app.conf.update(urls)
    kombu.pools.reset()
    celery_app._pool = None  # type: ignore[attr-defined]
    celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]
