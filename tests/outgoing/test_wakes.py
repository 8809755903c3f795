"""Coalesced wake-up calls (games/outgoing/wakes.py) and the game emails' sender they wake (games/outgoing/emails.py,
send_due): one call on its way serves every transaction until its task has drained what is due; a burst of games'
emails goes out in one task that reads what they share in the same statements for one game or ten."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail as outbox
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, OutboundEmail, Player, Wake
from games.outgoing import dispatch, emails, wakes
from games.outgoing import outbox as rows_outbox
from games.outgoing.dispatch import SEND_DUE
from games.play import orders, turns
from tests.support.phases import open_phase
from tests.support.services import missing_service

pytestmark = pytest.mark.django_db


class Published:
    """dispatch.publish as a broker would take it (or refuse it, with `up` False): the calls are recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []
        self.up = True

    def __call__(self, name: str, *args: Any, countdown: float = 0) -> bool:
        self.calls.append((name, countdown))
        return self.up


@pytest.fixture
def broker(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Published:
    """A broker that records what is published to it: calls are published, not run inline."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    published = Published()
    monkeypatch.setattr(dispatch, "publish", published)
    return published


def commit_waking_the_sender(django_capture_on_commit_callbacks: Any) -> None:
    """A transaction that makes an email due, committed (its on_commit callbacks run)."""
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        emails.wake_sender()


def test_one_call_on_its_way_serves_every_commit_until_its_task_has_drained(broker, django_capture_on_commit_callbacks):
    for _ in range(3):
        commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert broker.calls == [(SEND_DUE, emails.EMAIL_GATHER.total_seconds())]
    assert Wake.objects.filter(task=SEND_DUE).exists()
    wakes.drained(SEND_DUE)  # the task found nothing due: what falls due from now on needs a call of its own
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert len(broker.calls) == 2


def test_the_process_that_published_the_call_needs_no_query_while_it_cannot_have_started(
    broker, django_capture_on_commit_callbacks
):
    """A call with a countdown does not start before it: until then the process that published it knows it is
    on its way without asking the database; after, it asks."""
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as soon:
        commit_waking_the_sender(django_capture_on_commit_callbacks)
    after_the_countdown = time_machine.travel(timezone.now() + emails.EMAIL_GATHER * 2, tick=False)
    with after_the_countdown, CaptureQueriesContext(connection) as later:
        commit_waking_the_sender(django_capture_on_commit_callbacks)
    wake_table = Wake._meta.db_table
    assert not [q for q in soon.captured_queries if wake_table in q["sql"]]
    assert [q for q in later.captured_queries if wake_table in q["sql"]] and len(broker.calls) == 1


def test_a_call_on_its_way_too_long_was_lost_and_is_published_again(broker, django_capture_on_commit_callbacks):
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    with time_machine.travel(timezone.now() + wakes.WAKE_LOST / 2, tick=False):
        commit_waking_the_sender(django_capture_on_commit_callbacks)  # still on its way: its task is busy
    assert len(broker.calls) == 1
    with time_machine.travel(timezone.now() + wakes.WAKE_LOST + timedelta(seconds=1), tick=False):
        commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert len(broker.calls) == 2


def test_two_commits_that_both_found_no_call_on_its_way_publish_one(
    broker, monkeypatch, django_capture_on_commit_callbacks
):
    """Two processes committing at once can both read that no call is on its way. Recording the call is one
    statement that only the first gets through, so one sender is published, not two running side by side."""
    monkeypatch.setattr(wakes, "_on_its_way", lambda name, now: False)  # both read before either recorded its call
    for _ in range(2):
        monkeypatch.setattr(wakes, "_published_until", {})  # each commit in a process of its own
        commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert len(broker.calls) == 1 and Wake.objects.count() == 1
    with time_machine.travel(timezone.now() + wakes.WAKE_LOST + timedelta(seconds=1), tick=False):
        commit_waking_the_sender(django_capture_on_commit_callbacks)  # a call that old was lost: taken over
    assert len(broker.calls) == 2


def test_a_call_the_broker_refused_leaves_no_wake_so_the_next_commit_calls_again(
    broker, django_capture_on_commit_callbacks
):
    broker.up = False
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert not Wake.objects.exists()
    broker.up = True
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert len(broker.calls) == 2 and Wake.objects.exists()


def test_without_a_broker_the_sender_runs_inline_after_commit(make_game, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        make_game(humans=3)  # its first turn emails are written, and sent inline after commit
    assert not OutboundEmail.objects.exclude(status="sent").exists() and len(outbox.outbox) == 3
    assert not Wake.objects.exists()


# --- The sender -------------------------------------------------------------------------------------------


def games_with_pending_emails(make_game: Any, count: int) -> list[Game]:
    games = [make_game(humans=3, seed=seed) for seed in range(count)]
    OutboundEmail.objects.update(status="pending")
    return games


def sending_statements(make_game: Any, count: int) -> tuple[int, int, int]:
    """(reads, other statements, statements recording a row sent) of the sender taking `count` games' emails."""
    games_with_pending_emails(make_game, count)
    with CaptureQueriesContext(connection) as queries:
        assert emails.send_due() == 3 * count
    statements = [q["sql"] for q in queries.captured_queries]
    reads = [sql for sql in statements if sql.startswith("SELECT")]
    records = [sql for sql in statements if sql.startswith("UPDATE") and "\"status\" = 'sent'" in sql]
    return len(reads), len(statements) - len(reads) - len(records), len(records)


def test_the_sender_takes_a_burst_of_games_in_the_same_statements_for_one_game_or_ten(make_game):
    one = sending_statements(make_game, 1)
    OutboundEmail.objects.all().delete()
    outbox.outbox.clear()
    ten = sending_statements(make_game, 10)
    assert one[:2] == ten[:2]  # reads and the claim: the same whatever the number of games
    assert (one[2], ten[2]) == (3, 30)  # each email recorded just after it went
    assert len(outbox.outbox) == 30 and not OutboundEmail.objects.exclude(status="sent").exists()


def test_a_full_batch_wakes_another_sender_first(make_game, monkeypatch, broker, django_capture_on_commit_callbacks):
    games_with_pending_emails(make_game, 2)
    monkeypatch.setattr(emails, "SEND_BATCH", 4)
    with django_capture_on_commit_callbacks(execute=True):
        assert emails.send_due() == 6  # the full batch, then the two it left
    assert broker.calls == [(SEND_DUE, emails.EMAIL_GATHER.total_seconds())]
    assert not OutboundEmail.objects.filter(status="pending").exists()


def test_a_sender_takes_what_fell_due_while_it_sent_and_leaves_a_long_burst_to_the_next(
    make_game, monkeypatch, broker, django_capture_on_commit_callbacks
):
    first, later = games_with_pending_emails(make_game, 2)
    OutboundEmail.objects.filter(game=later).update(status="sent")
    send = rows_outbox.send_claimed

    batches: list[int] = []

    def and_meanwhile(*args: Any, **kwargs: Any) -> int:
        batches.append(send(*args, **kwargs))
        if len(batches) == 1:  # a resolution commits while the first batch goes out: its three emails fall due
            OutboundEmail.objects.filter(game=later).update(status="pending")
        return batches[-1]

    monkeypatch.setattr(rows_outbox, "send_claimed", and_meanwhile)
    with django_capture_on_commit_callbacks(execute=True):
        assert emails.send_due() == 6
    assert batches == [3, 3]
    assert broker.calls == []  # nothing left over: no other sender woken
    assert not OutboundEmail.objects.filter(status="pending").exists()
    OutboundEmail.objects.filter(game=first).update(status="pending")
    OutboundEmail.objects.filter(game=later).update(status="sent")
    batches.clear()
    monkeypatch.setattr(emails, "SEND_ROUNDS", 1)  # a burst longer than a sender takes
    with django_capture_on_commit_callbacks(execute=True):
        assert emails.send_due() == 3
    assert broker.calls == [(SEND_DUE, emails.EMAIL_GATHER.total_seconds())]  # the rest to the next sender
    assert OutboundEmail.objects.filter(game=later, status="pending").count() == 3


def test_while_a_sender_drains_a_commit_publishes_no_second_sender_and_its_last_look_takes_the_rows(
    make_game, monkeypatch, broker, django_capture_on_commit_callbacks
):
    """A resolution that commits while the sender sends finds its call on its way: no second sender is published to
    run beside it (it would hold the worker's other process), and the sender takes the new rows itself. Once the
    sender finds nothing due, the next commit calls again."""
    first, later = games_with_pending_emails(make_game, 2)
    OutboundEmail.objects.filter(game=later).update(status="sent")
    commit_waking_the_sender(django_capture_on_commit_callbacks)  # the call that starts this sender
    assert len(broker.calls) == 1
    claim = rows_outbox.claim_pending
    looks: list[int] = []

    def and_meanwhile(*args: Any, **kwargs: Any) -> list[Any]:
        rows = claim(*args, **kwargs)
        looks.append(len(rows))
        if len(looks) == 1:  # while the first batch goes out, a resolution commits three more emails
            OutboundEmail.objects.filter(game=later).update(status="pending")
            commit_waking_the_sender(django_capture_on_commit_callbacks)
        return rows

    monkeypatch.setattr(rows_outbox, "claim_pending", and_meanwhile)
    assert emails.send_due() == 6  # (the commit's own callbacks run as it commits, in and_meanwhile)
    assert len(broker.calls) == 1  # the resolution's commit published nothing
    assert looks == [3, 3, 0, 0]  # its rows in the next round; then nothing, the call given up, one more look
    assert not Wake.objects.exists() and not OutboundEmail.objects.filter(status="pending").exists()
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert len(broker.calls) == 2


def test_a_commit_between_the_senders_last_two_looks_is_sent_by_it(
    make_game, monkeypatch, broker, django_capture_on_commit_callbacks
):
    """The rows of a transaction that found the call on its way just before the sender gave it up are taken by
    the sender's last look: none is left waiting for the sweep."""
    games_with_pending_emails(make_game, 1)
    OutboundEmail.objects.update(status="sent")
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    drained = wakes.drained
    given_up: list[Any] = []

    def a_commit_first(name: Any) -> None:
        given_up.append(name)
        if len(given_up) == 1:
            OutboundEmail.objects.update(status="pending")
            commit_waking_the_sender(django_capture_on_commit_callbacks)  # finds the call on its way
        drained(name)

    monkeypatch.setattr(wakes, "drained", a_commit_first)
    assert emails.send_due() == 3
    assert len(broker.calls) == 1 and not OutboundEmail.objects.exclude(status="sent").exists()


def test_the_sweep_calls_a_sender_for_stragglers_even_while_a_dead_senders_call_seems_on_its_way(
    make_game, broker, django_capture_on_commit_callbacks
):
    """A sender killed while it drained leaves its call standing (its Wake row) for up to WAKE_LOST: resolutions
    publish nothing meanwhile. The sweep's stragglers, pending over a minute, get a sender called anyway."""
    games_with_pending_emails(make_game, 1)
    commit_waking_the_sender(django_capture_on_commit_callbacks)  # its sender starts and dies: the row stays
    calls = len(broker.calls)
    commit_waking_the_sender(django_capture_on_commit_callbacks)
    assert len(broker.calls) == calls and Wake.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert rows_outbox.send_stragglers(at=timezone.now() + timedelta(minutes=2)) == 1
    assert broker.calls[calls:] == [(SEND_DUE, emails.EMAIL_GATHER.total_seconds())]


def test_a_backlog_of_one_games_phases_emails_each_reader_the_news_once_in_one_thread(make_game):
    """A game's first emails and two resolutions' emails wait for one sender (a worker was busy): each email
    reports only the lines since the one before it to that reader, and the later ones point at the first,
    the root of its reader's thread."""
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)  # every phase: each resolution emails every seat
    phase = open_phase(game)
    for seat in game.seats.all():  # seat 1 the only seller: the sale asks only them
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    assert turns.resolve_phase(phase.pk)
    phase = open_phase(game)
    assert phase.owed_seats == [0]
    orders.submit_order(game.seats.get(number=0), phase.number, turns.engine_of(game).default_order(game.state, 0))
    assert turns.resolve_phase(phase.pk)
    sent = emails.send_due()
    # The first turn emails ask for orders of phases that have resolved since: skipped, not sent.
    assert sent == len(outbox.outbox) == OutboundEmail.objects.filter(status="sent").count()
    assert OutboundEmail.objects.filter(status="skipped", kind="turn-started").exists()
    twice = 0
    for address in ("player1@example.com", "player2@example.com", "player3@example.com"):
        first, *later = [m for m in outbox.outbox if m.to == [address]]
        assert "References" not in first.extra_headers
        assert [m.extra_headers["References"] for m in later] == [first.extra_headers["Message-ID"]] * len(later)
        news = [set(news_lines(m)) for m in (first, *later)]
        assert all(news) and not any(a & b for i, a in enumerate(news) for b in news[i + 1 :]), news
        twice += bool(later)
    assert twice == 2  # the buyers, not asked in the sale, heard of both resolutions


def news_lines(message: Any) -> list[str]:
    """The lines of an email's "What happened since your last email" list (its text part)."""
    text = str(message.body)
    start = text.index("What happened since your last email")
    block = text[start:].split("\n\n", 1)[0]
    return [line.strip("- ").strip() for line in block.splitlines()[1:] if line.strip()]


def test_an_email_that_cannot_be_built_fails_alone_and_names_no_more_than_its_error(make_game, monkeypatch, caplog):
    """One email the sender cannot build (a template or a view that raises) must not hold back the batch: the
    others go out; it is recorded failed, to be retried by the sweep, with the exception's name only (its
    words could quote the game's state) in the row and the log."""
    games_with_pending_emails(make_game, 2)
    broken = OutboundEmail.objects.filter(status="pending").order_by("id")[1]
    build = emails.build_with_sections

    def build_or_raise(row: OutboundEmail, batch: Any) -> Any:
        if row.pk == broken.pk:
            raise ValueError("SECRET-HAND Spices/Chinese")
        return build(row, batch)

    monkeypatch.setattr(emails, "build_with_sections", build_or_raise)
    assert emails.send_due() == 5 and len(outbox.outbox) == 5
    failed = OutboundEmail.objects.get(pk=broken.pk)
    assert failed.status == "failed" and failed.attempts == 1 and failed.error == "could not be built: ValueError"
    assert "SECRET-HAND" not in caplog.text and f"game email {broken.pk} could not be built" in caplog.text
    assert OutboundEmail.objects.filter(status="sent").count() == 5


def test_the_senders_own_commits_do_not_wait_for_the_disk_and_the_connection_is_given_back_as_it_was(
    make_game, monkeypatch, postgres
):
    """synchronous_commit is off while the sender runs (its claims and sent marks: a server crash can only make
    it send an email again), and on again once it returns, for the orders and resolutions that follow."""
    games_with_pending_emails(make_game, 1)
    seen: list[str] = []
    build = emails.build_with_sections

    def build_noting(row: OutboundEmail, batch: Any) -> Any:
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            seen.append(cursor.fetchone()[0])
        return build(row, batch)

    monkeypatch.setattr(emails, "build_with_sections", build_noting)
    assert emails.send_due() == 3 and seen == ["off"] * 3
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"


@pytest.mark.django_db(transaction=True)
def test_two_senders_at_once_each_send_their_own_rows_and_none_twice(make_game, monkeypatch, broker):
    """Two senders, each in its own thread and connection, as two email workers woken together (a full batch
    wakes the next at once). Each holds its first batch claimed until the other has claimed its own, then both
    go on taking batch after batch: every pending email goes out once, by one of them, and both sent some."""
    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL: SKIP LOCKED between two connections (set DATABASE_URL=postgres://...)")
    games_with_pending_emails(make_game, 4)  # twelve emails
    pending = set(OutboundEmail.objects.filter(status="pending").values_list("pk", flat=True))
    monkeypatch.setattr(emails, "SEND_BATCH", 2)
    meet = threading.Barrier(2, timeout=30)
    send = rows_outbox.send_claimed
    firsts: set[int] = set()

    def after_both_claimed(*args: Any, **kwargs: Any) -> int:
        if threading.get_ident() not in firsts:
            firsts.add(threading.get_ident())
            meet.wait()
        return send(*args, **kwargs)

    monkeypatch.setattr(rows_outbox, "send_claimed", after_both_claimed)
    sent: dict[str, int] = {}
    errors: list[BaseException] = []

    def sender(name: str) -> None:
        try:
            sent[name] = emails.send_due()
        except BaseException as error:  # noqa: BLE001  (reported by the test below)
            errors.append(error)
            meet.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=sender, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads) and not errors, errors
    assert sent["a"] > 0 and sent["b"] > 0 and sent["a"] + sent["b"] == len(pending) == 12
    # Each message names its row: <pbem.GAME.ROW@domain> (messages.message_id).
    rows_of_messages = [
        int(message.extra_headers["Message-ID"].split("@")[0].rsplit(".", 1)[1]) for message in outbox.outbox
    ]
    assert sorted(rows_of_messages) == sorted(pending)  # each row's email once
    assert not OutboundEmail.objects.exclude(status="sent").exists()
