"""Shared fixtures. Service tests run on whatever DATABASE_URL names (PostgreSQL in CI); tests that need
PostgreSQL, Redis or RabbitMQ skip without them, unless PBEM_REQUIRE_SERVICES=1 makes that a failure.

`make test` runs the suite in two processes (pytest-xdist's -n 2). Each has what a test may change of its own:
its test database (pytest-django names it test_<name>_gw0, _gw1...), its Redis database for the real-worker
tests (`broker_url`: CELERY_BROKER_URL's number plus the process's), its RabbitMQ virtual host (`rabbitmq_url`,
named after the process), its temporary folders (pytest's, per process) and free ports."""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from django.db.backends.postgresql.operations import DatabaseOperations
from django.test.signals import template_rendered
from django.urls import clear_url_caches
from django.utils import translation

from games import engines
from games.models import Game, Player
from games.outgoing import wakes
from games.play import turns
from pbem.celery import app as celery_app

# Fixtures kept in tests/support/ that tests in several folders ask for by name.
from tests.support.browser import chromium  # noqa: F401
from tests.support.dovecot import dovecot, dovecot_without_idle  # noqa: F401
from tests.support.faults import broker_at, complete_but_unresolved, lost  # noqa: F401
from tests.support.private_redis import private_redis  # noqa: F401
from tests.support.services import missing_service
from tests.support.smtp import smtp_extra_env, smtp_sink  # noqa: F401
from tests.support.template_audit import audited, context_problems
from tests.support.toy_game import TOY
from tests.support.workers import worker, workers  # noqa: F401

# RabbitMQ for the real-worker tests that run on it too (CELERY_BROKER_URL names the Redis the others use).
RABBITMQ_URL = os.environ.get("PBEM_TEST_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/")


def pytest_configure(config: pytest.Config) -> None:
    """The catalogues compiled when a .po is newer than its .mo (`make pytest` compiles them too; a bare pytest
    run would otherwise test yesterday's translations). Once, in the controlling process, before the workers."""
    if getattr(config, "workerinput", None) is None and shutil.which("msgfmt"):
        for po in (po for folder in django_settings.LOCALE_PATHS for po in Path(folder).glob("*/LC_MESSAGES/*.po")):
            mo = po.with_suffix(".mo")
            if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
                subprocess.run(["msgfmt", "--check-format", "-o", str(mo), str(po)], check=True)


def worker_number(config: pytest.Config) -> int:
    """Which of pytest-xdist's processes this is: 0 for gw0 (and for a run without xdist), 1 for gw1..."""
    workerinput = getattr(config, "workerinput", None)
    return int(str(workerinput["workerid"]).removeprefix("gw")) if workerinput else 0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """pytest-django runs the tests without a database last, and tests/engines holds the longest of them (200
    random games of each engine, over a minute for Ports of Call): started last, they kept one process busy
    well after the other was done. They go first, in their order; the rest keep pytest-django's."""
    items.sort(key=lambda item: not (item.nodeid.startswith("tests/engines/") and not uses_database(item)))


def uses_database(item: pytest.Item) -> bool:
    """Each engine's folder also holds its games played on the database; those keep pytest-django's place."""
    fixtures = getattr(item, "fixturenames", ())
    return item.get_closest_marker("django_db") is not None or "db" in fixtures or "transactional_db" in fixtures


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete() -> Iterator[None]:
    """A transactional test's database is emptied after it by Django's flush, which on PostgreSQL is one
    TRUNCATE of every table: about 0.3 s a test here, as each table and index gets new files. DELETE FROM each
    table empties them just the same in a fiftieth of that (the foreign keys Django makes are checked at the
    flush's commit, when every table is empty). A flush that resets the sequences keeps Django's TRUNCATE."""
    truncate = DatabaseOperations.sql_flush

    def sql_flush(
        ops: DatabaseOperations, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False
    ) -> list[str]:
        if reset_sequences:
            return truncate(ops, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        delete = style.SQL_KEYWORD("DELETE FROM")
        return [f"{delete} {style.SQL_FIELD(ops.quote_name(table))};" for table in tables]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", sql_flush)
        yield


@pytest.fixture(autouse=True)
def _test_settings(settings: Any) -> Iterator[None]:
    # anymail's test backend records every message in django.core.mail.outbox, with anymail's extras.
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    # Django's default hasher costs about 0.5 s a password here; no test is about the hash itself.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SITE_URL = "https://pbem.example"
    # Tasks run inline unless a test asks for the real worker.
    settings.CELERY_TASK_ALWAYS_EAGER = True
    celery_app.conf.task_always_eager = True
    wakes._published_until.clear()  # no call published by an earlier test counts as on its way
    yield


@pytest.fixture(autouse=True)
def _english_after_each_test() -> Iterator[None]:
    """A page in German leaves German active in its thread (Django's LocaleMiddleware activates a request's
    language and leaves it, as the next request activates its own): the next test starts in English."""
    yield
    translation.deactivate()


@pytest.fixture
def urls_loaded_with(settings: Any) -> Iterator[Callable[..., None]]:
    """urls_loaded_with(debug=...): the URLs as a server started with that DEBUG registers them."""
    import pbem.urls

    def load(debug: bool) -> None:
        settings.DEBUG = debug
        importlib.reload(pbem.urls)
        clear_url_caches()

    yield load
    settings.DEBUG = False
    importlib.reload(pbem.urls)
    clear_url_caches()


@pytest.fixture
def file_outbox(settings: Any, tmp_path: Path) -> Path:
    """Email goes to files in this folder, as in development, where the /outbox/ page reads it."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    settings.EMAIL_OUTBOX_DIR = tmp_path
    return tmp_path


@pytest.fixture(autouse=True)
def template_audit() -> Iterator[list[str]]:
    """Every audited template a test renders (tests/support/template_audit.py) gets plain data and public facts
    only: the test fails if one is handed a model instance or an engine. Yields what was found so far.

    Each context is walked once, where a view or an email hands it over: at the template a render starts with
    (Django binds the context to it). The templates an audited one includes or extends are handed the same
    context, and what they add to it (a loop's item, a `with`) is read from what was walked; walking it again at
    every include cost a test that renders many emails a sixth of its time."""
    found: list[str] = []

    def audit(sender: Any, template: Any, context: Any, **kwargs: Any) -> None:
        outer = getattr(context, "template", None)  # (None: a render without a Context, as by Template.render)
        walked = outer is not None and outer is not template and audited(outer.name)
        if audited(template.name) and not walked:
            found.extend(context_problems(template.name, context))

    template_rendered.connect(audit)
    yield found
    template_rendered.disconnect(audit)
    assert found == [], "templates were handed more than their reader may see:\n" + "\n".join(found[:20])


@pytest.fixture
def postgres(db: None) -> None:
    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL (set DATABASE_URL=postgres://...)")


@pytest.fixture
def broker_url(request: pytest.FixtureRequest) -> str:
    """CELERY_BROKER_URL's Redis, on a database of this test process's own: CELERY_BROKER_URL's number in the
    first process (gw0, or a run without xdist), the next number in the second, and so on. The queues' names
    are the same in every process, and a real-worker test purges them, so two processes on one database would
    take or drop each other's tasks (a Redis database also keeps its publish/subscribe channels apart, as
    Celery prefixes them with the database's number)."""
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("redis://"):
        missing_service("needs Redis (set CELERY_BROKER_URL=redis://...)")
    parsed = urlparse(url)
    with socket.socket() as probe:
        if probe.connect_ex((parsed.hostname or "127.0.0.1", parsed.port or 6379)) != 0:
            missing_service(f"Redis is not answering at {url}")
    process = worker_number(request.config)
    if not process:
        return url
    number = int(parsed.path.strip("/") or 0) + process
    with redis.Redis.from_url(url) as client:
        databases = int(client.config_get("databases")["databases"])
    if number >= databases:
        pytest.fail(
            f"test process {process}'s Redis database would be {number}, but Redis has {databases}: give "
            "CELERY_BROKER_URL a database number low enough for every process (-n)"
        )
    return parsed._replace(path=f"/{number}").geturl()


@pytest.fixture(scope="session")
def rabbitmq_url() -> Iterator[str]:
    """RabbitMQ, on a virtual host of this test run's own when rabbitmqctl is at hand (this machine's case):
    the queues' names are the same in every run, so two test runs at once on the default virtual host would
    take each other's tasks. A URL naming a virtual host is used as it is."""
    parsed = urlparse(RABBITMQ_URL)
    with socket.socket() as probe:
        if probe.connect_ex((parsed.hostname or "127.0.0.1", parsed.port or 5672)) != 0:
            missing_service(f"RabbitMQ is not answering at {parsed.hostname}:{parsed.port or 5672}")
    rabbitmqctl = shutil.which("rabbitmqctl")
    if not rabbitmqctl or parsed.path.strip("/"):
        yield RABBITMQ_URL
        return
    vhost = f"pbem-test-{os.getpid()}"
    user = parsed.username or "guest"
    for command in (["add_vhost", vhost], ["set_permissions", "-p", vhost, user, ".*", ".*", ".*"]):
        subprocess.run([rabbitmqctl, *command], check=True, capture_output=True)
    try:
        yield parsed._replace(path=f"/{vhost}").geturl()
    finally:
        subprocess.run([rabbitmqctl, "delete_vhost", vhost], capture_output=True)


@pytest.fixture
def toy_game(monkeypatch: pytest.MonkeyPatch) -> str:
    """Registers the toy game of tests/support/toy_game (a whole game in one folder) for one test; its slug."""
    monkeypatch.setitem(engines._REGISTRY, TOY.slug, TOY)
    return TOY.slug


@pytest.fixture
def make_game(db: None) -> Callable[..., Game]:
    """make_game(humans=3, bots=0, engine="piraeus", **create_game options) -> Game with its first phase."""

    def make(humans: int = 3, bots: int = 0, engine: str = "piraeus", **kwargs: Any) -> Game:
        players: list[Player | None] = [
            turns.player_for(f"player{i + 1}@example.com", f"Player {i + 1}") for i in range(humans)
        ]
        players += [None] * bots
        kwargs.setdefault("seed", 1234)
        kwargs.setdefault("phase_length", timedelta(hours=48))
        return turns.create_game(engine, players, **kwargs)

    return make


@pytest.fixture(autouse=True)
def quick_bots(settings, monkeypatch):
    """Strong bots search a hundredth of a second here (2 s by default): a table with bots is not a test of how
    well they play (tests/engines/test_search.py and make bench-bots are). The environment's is for the real
    workers a test starts."""
    settings.PBEM_BOT_SECONDS = 0.01
    monkeypatch.setenv("PBEM_BOT_SECONDS", "0.01")
