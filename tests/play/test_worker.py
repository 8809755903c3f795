"""The resolution path through a real Celery worker on Redis (and on RabbitMQ): the last order's commit
enqueues the task, a worker process picks it up, resolves under the row lock, writes and sends the next
phase's emails; resolutions and emails each go to their own queue, taken by the workers started on it."""

from __future__ import annotations

import signal
import time
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from games.management.commands.replay import replay
from games.models import Event, Game, OutboundEmail, Phase, Player
from games.outgoing import outbox
from games.outgoing.dispatch import PLAY_BOTS, RESOLVE_PHASE, SEND_DUE, Queue
from games.play import orders, sweep, turns
from pbem.celery import app as celery_app
from tests.support import recording_mail
from tests.support.phases import open_phase
from tests.support.workers import database_url, started_workers, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=["redis", "rabbitmq"])
def broker_workers(request, postgres, settings, tmp_path):
    """Real workers on Redis, then on RabbitMQ: the test runs once on each."""
    url = request.getfixturevalue("broker_url" if request.param == "redis" else "rabbitmq_url")
    yield from started_workers(url, settings, tmp_path)


def waiting_in(queue: Queue) -> int:
    """Tasks waiting in `queue` on the broker the tasks go to (declared as the workers declare it)."""
    with celery_app.connection_for_write() as conn:
        declared: Any = celery_app.amqp.queues[queue](conn.default_channel).queue_declare()
        return int(declared.message_count)  # kombu types the reply as the queue's name


def test_a_real_worker_resolves_the_phase_when_the_last_order_commits(make_game, broker_workers):
    game = make_game(humans=3)  # created before the worker mode: its first emails were sent here
    worker = broker_workers()
    phase = open_phase(game)
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})

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


def test_resolutions_and_emails_go_to_their_own_queues_each_taken_by_its_own_workers(
    make_game, broker_workers, tmp_path
):
    """A worker on the resolutions' queue resolves the phase and leaves its emails' task waiting in the email
    queue, untouched, until a worker on that queue starts and sends them."""
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)  # every phase: the resolution writes three emails
    phase = open_phase(game)
    resolver = broker_workers(Queue.RESOLVE)
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    wait_for(lambda: Phase.objects.filter(game=game, number=2).exists(), 60, "the resolution", resolver)
    wait_for(lambda: waiting_in(Queue.EMAIL) == 1, 60, "the emails' task to reach the email queue", resolver)
    owed = OutboundEmail.objects.filter(game=game).exclude(phase=phase, kind="turn-started")
    assert owed.count() == 3 and set(owed.values_list("status", flat=True)) == {"pending"}
    assert waiting_in(Queue.RESOLVE) == 0

    mailer = broker_workers(Queue.EMAIL)
    wait_for(lambda: not owed.exclude(status="sent").exists(), 60, "the email worker to send them", mailer)
    resolver_log, mailer_log = (tmp_path / "worker-1.log").read_text(), (tmp_path / "worker-2.log").read_text()
    assert f"Task {RESOLVE_PHASE}[" in resolver_log and f"Task {SEND_DUE}[" not in resolver_log
    assert f"Task {SEND_DUE}[" in mailer_log and f"Task {RESOLVE_PHASE}[" not in mailer_log


def test_the_bots_decisions_wait_in_their_own_queue_and_never_hold_up_a_resolution(make_game, broker_workers, tmp_path):
    """A strong bot searches for seconds: its decisions go to the bots' queue. With no worker there yet, a table
    of players resolves at once on the resolutions' worker while the bots' table waits, untouched; a worker on
    the bots' queue then plays them (at a tiny budget, in its environment) and their phase resolves."""
    players = make_game(humans=3)
    resolver = broker_workers(Queue.RESOLVE)
    bot_table = make_game(humans=1, bots=2, bot_levels=["random", "strong", "strong"], seed=7)
    phase = open_phase(players)
    for seat in players.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    wait_for(lambda: Phase.objects.filter(game=players, number=2).exists(), 60, "the resolution", resolver)
    bots_phase = open_phase(bot_table)
    assert waiting_in(Queue.BOTS) == 1 and turns.submitted_seats(bots_phase) == set()

    bot_worker = broker_workers(Queue.BOTS, PBEM_BOT_SECONDS="0.5", PBEM_BOT_ITERATIONS="6")
    wait_for(lambda: turns.submitted_seats(bots_phase) == {1, 2}, 60, "the bots to play", bot_worker)
    bot_log, resolver_log = (tmp_path / "worker-2.log").read_text(), (tmp_path / "worker-1.log").read_text()
    assert f"Task {PLAY_BOTS}[" in bot_log and f"Task {RESOLVE_PHASE}[" not in bot_log
    assert f"Task {PLAY_BOTS}[" not in resolver_log


def test_a_burst_of_resolutions_emails_goes_out_in_one_sender_task(make_game, broker_workers, tmp_path):
    """Games resolving while no email worker is free (here: none is started yet) publish one wake-up call
    between them (games/outgoing/wakes.py): the email worker, once it starts, sends every game's emails in one task."""
    games = [make_game(humans=3, seed=seed) for seed in range(4)]
    resolver = broker_workers(Queue.RESOLVE)
    for game in games:
        phase = open_phase(game)
        for seat in game.seats.order_by("number"):
            orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    wait_for(lambda: Phase.objects.filter(number=2).count() == 4, 60, "the four resolutions", resolver)
    owed = OutboundEmail.objects.filter(phase__number=2)
    assert owed.count() == 4 and waiting_in(Queue.EMAIL) == 1

    mailer = broker_workers(Queue.EMAIL)
    wait_for(lambda: not owed.exclude(status="sent").exists(), 60, "the email worker to send them", mailer)

    def runs() -> list[str]:
        mailer_log = (tmp_path / "worker-2.log").read_text().splitlines()
        return [line for line in mailer_log if f"Task {SEND_DUE}[" in line and " succeeded " in line]

    # The task marks the emails sent before it returns and Celery logs its result: wait for that line too.
    wait_for(lambda: bool(runs()), 60, "the sender task's result in the worker's log", mailer)
    assert len(runs()) == 1 and runs()[0].endswith(": 4"), runs()  # one task, which sent the four emails


def blocked_by(lock_connection: psycopg.Connection) -> list[int]:
    """The database backends waiting for a lock that `lock_connection` holds."""
    holder = lock_connection.info.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", [holder])
        return [row[0] for row in cursor.fetchall()]


def backend_alive(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid])
        return cursor.fetchone() is not None


def test_a_worker_killed_in_the_middle_of_a_resolution_leaves_it_to_the_sweep_which_resolves_it_once(
    make_game, workers, settings
):
    """The worker is stopped at a known point inside the resolution's transaction: the test holds an
    uncommitted row with the next phase's number, so the worker's insert of the next phase waits for the
    test's transaction, after the worker has written the log and closed the phase. SIGKILL there; its
    transaction never commits. A new worker and the sweep then resolve the phase, once: one next phase,
    one set of emails, the log as one resolution writes it."""
    game = make_game(humans=3)  # created inline: its first emails were sent here
    Player.objects.update(notify=Player.Notify.ALL)  # every phase: the resolution writes an email for each seat
    phase = open_phase(game)
    seats = {s.number: s for s in game.seats.all()}
    for number in (0, 1):
        orders.submit_order(seats[number], phase.number, {"role": "seller" if number == 0 else "buyer"})
    first = workers()
    with psycopg.connect(database_url()) as lock:
        lock.execute(
            "INSERT INTO games_phase (game_id, number, name, prompts, status, opened_at, deadline, used_defaults,"
            " reminded, paused) VALUES (%s, 2, 'placeholder', '{}', 'open', now(), now(), false, false, false)",
            [game.pk],
        )
        orders.submit_order(seats[2], phase.number, {"role": "buyer"})  # the last order: enqueued on commit
        wait_for(lambda: bool(blocked_by(lock)), 60, "the worker to reach the next phase's insert", first)
        (resolving,) = blocked_by(lock)
        with connection.cursor() as cursor:
            cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [resolving])
            assert cursor.fetchone()[0].startswith('INSERT INTO "games_phase"')  # not yet at its COMMIT
        assert not Event.objects.filter(game=game).exists()  # its writes are not committed
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
        lock.rollback()
    deadline = time.monotonic() + 60
    while backend_alive(resolving):  # PostgreSQL rolls the dead worker's transaction back
        assert time.monotonic() < deadline, "the killed worker's transaction is still open"
        time.sleep(0.05)
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    assert not Event.objects.filter(game=game).exists()

    second = workers()
    found = sweep.run(now=timezone.now() + timedelta(seconds=settings.PBEM_SETTLE_SECONDS + 1))
    assert found.complete == [phase.pk]
    wait_for(lambda: Phase.objects.filter(game=game, number=2).exists(), 60, "the sweep's resolution", second)
    emails = OutboundEmail.objects.filter(game=game).exclude(phase=phase, kind="turn-started")
    wait_for(lambda: not emails.exclude(status="sent").exists(), 60, "the next phase's emails", second)

    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert Phase.objects.filter(game=game).count() == 2
    sent = sorted((e.seat.number, e.kind) for e in emails)
    assert sent == [(0, "turn-started"), (1, "phase-resolved"), (2, "phase-resolved")]
    same, detail = replay(Game.objects.get(pk=game.pk))  # the log and state of exactly one resolution
    assert same, detail
    seqs = list(Event.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert turns.resolve_phase(phase.pk) is False  # the killed worker's task, if Redis hands it out again


def test_a_worker_killed_half_way_through_a_batch_of_overdue_phases_loses_none_and_resolves_none_twice(
    make_game, workers, settings
):
    """Three overdue phases go to the worker as one task. The test holds an uncommitted row with the second
    game's next phase number, so the worker, having resolved the first phase, waits inside the second's
    transaction: SIGKILL there. The first stays resolved, the other two open; once their mark has settled the
    sweep takes those two again and a new worker resolves them. Every game ends with one resolution: two phases,
    its log as one resolution writes it."""
    games = [make_game(humans=3, seed=seed) for seed in range(3)]
    phases = [open_phase(game) for game in games]
    now = timezone.now()
    for i, phase in enumerate(phases):  # overdue, in the games' order
        Phase.objects.filter(pk=phase.pk).update(deadline=now - timedelta(minutes=3 - i))
    first = workers()
    with psycopg.connect(database_url()) as lock:
        lock.execute(
            "INSERT INTO games_phase (game_id, number, name, prompts, status, opened_at, deadline, used_defaults,"
            " reminded, paused) VALUES (%s, 2, 'placeholder', '{}', 'open', now(), now(), false, false, false)",
            [games[1].pk],
        )
        assert sweep.run(now=now).overdue == [phase.pk for phase in phases]  # one task, enqueued on commit
        wait_for(lambda: bool(blocked_by(lock)), 60, "the worker to reach the second phase's next phase", first)
        (resolving,) = blocked_by(lock)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
        lock.rollback()
    deadline = time.monotonic() + 60
    while backend_alive(resolving):  # PostgreSQL rolls the dead worker's transaction back
        assert time.monotonic() < deadline, "the killed worker's transaction is still open"
        time.sleep(0.05)
    statuses = [Phase.objects.get(pk=phase.pk).status for phase in phases]
    assert statuses == [Phase.Status.RESOLVED, Phase.Status.OPEN, Phase.Status.OPEN]

    second = workers()
    found = sweep.run(now=now + timedelta(seconds=settings.PBEM_SETTLE_SECONDS + 1))
    assert found.overdue == [phases[1].pk, phases[2].pk]
    wait_for(
        lambda: all(Phase.objects.filter(game=game, number=2).exists() for game in games[1:]),
        60,
        "the sweep's resolutions",
        second,
    )
    for game, phase in zip(games, phases, strict=True):
        phase.refresh_from_db()
        assert phase.status == Phase.Status.RESOLVED and phase.used_defaults
        assert Phase.objects.filter(game=game).count() == 2
        same, detail = replay(Game.objects.get(pk=game.pk))
        assert same, detail


def test_a_worker_killed_while_sending_a_phases_emails_sends_none_twice_and_none_is_lost(make_game, workers, tmp_path):
    """The worker is stopped inside the provider's call for the second of a phase's three emails (the test
    backend writes each message to a file and hangs on the second). SIGKILL there. The email it had sent
    is not sent again; the sweep wakes a new worker, which sends the other two."""
    mail_dir = tmp_path / "mail"
    mail_dir.mkdir()
    recorded = {"DJANGO_SETTINGS_MODULE": "tests.support.worker_settings", "PBEM_TEST_MAIL_DIR": str(mail_dir)}
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)  # every phase: the resolution writes three emails
    phase = open_phase(game)
    first = workers(**recorded, PBEM_TEST_MAIL_STOP_AT="2")
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    wait_for((mail_dir / recording_mail.STOPPED).exists, 60, "the worker to hang in its second send", first)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=20)
    owed = OutboundEmail.objects.filter(game=game).exclude(phase=phase, kind="turn-started")
    assert owed.count() == 3 and len(recording_mail.message_ids(mail_dir)) == 1

    second = workers(**recorded)
    # Later: the row the dead worker held is past the time a send can take, the others are stragglers.
    assert outbox.send_stragglers(at=timezone.now() + outbox.SENDING_TIMEOUT + timedelta(minutes=1)) == 1
    wait_for(lambda: not owed.exclude(status="sent").exists(), 60, "the new worker to send the rest", second)
    ids = recording_mail.message_ids(mail_dir)
    assert len(ids) == len(set(ids)) == 3
    assert set(ids) == {f"<pbem.{game.pk}.{row.pk}@pbem.example>" for row in owed}
