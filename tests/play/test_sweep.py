"""The sweep (games/play/sweep.py) finds due work through indexes and only enqueues it: an overdue phase's task,
not the sweep, gives the league its say; reminders are due at a stored time that every deadline move
resets; two sweeps at once take different rows, and a later one does not enqueue the same work again."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.apps import apps
from django.db import connection, transaction
from django.db.models.signals import post_init
from django.utils import timezone

from games.leagues import vacations
from games.leagues.models import League, Membership, Table
from games.models import Game, Order, OutboundEmail, Phase, SweepMark, queries
from games.outgoing import dispatch, outbox, wakes
from games.play import organise, sweep, turns
from tests.support.leagues import first_game, make_league, open_phase_of, started_round, submit_for
from tests.support.phases import open_phase
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


class Enqueued:
    """Records the tasks the sweep (and the email retries) enqueue, as they would be sent after commit, without
    running them; `run()` runs them then, as a worker would."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.lock = threading.Lock()

    def __call__(self, name: str, *args: Any) -> None:
        def record() -> None:
            with self.lock:
                self.calls.append((name, args))

        transaction.on_commit(record)

    def of(self, name: str) -> list[tuple[Any, ...]]:
        return [args for task, args in self.calls if task == f"games.tasks.{name}"]

    def run(self) -> None:
        calls, self.calls = self.calls, []
        for name, args in calls:
            dispatch.bound_task(dispatch.TaskName(name)).apply(args=args, throw=True)


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> Enqueued:
    recorder = Enqueued()
    monkeypatch.setattr(sweep, "after_commit", recorder)
    # The email sender's wake-up calls (games/outgoing/wakes.py), recorded as the call they publish: no arguments.
    monkeypatch.setattr(wakes, "wake_once", lambda name, gather=None: recorder(name))
    monkeypatch.setattr(wakes, "wake_another", lambda name, gather=None: recorder(name))
    return recorder


def reminder_due(phase: Phase) -> bool:
    return phase.remind_at == phase.reminder_time(phase.game.reminder_before) and not phase.reminded


# --- What the sweep reads -----------------------------------------------------------------------------------


def test_the_sweep_loads_no_phase_and_runs_the_same_statements_however_many_games_are_open(make_game, enqueued):
    def sweep_of(open_games: int) -> tuple[int, int]:
        """(phases loaded, statements run) by a sweep when all of `open_games` games are due a reminder."""
        for i in range(open_games):
            make_game(humans=3, seed=i)
        SweepMark.objects.all().delete()  # each a first sweep: these games' reminders lie behind the last one's
        loaded: list[Phase] = []
        statements: list[str] = []

        def count(sender: Any, instance: Phase, **kwargs: Any) -> None:
            loaded.append(instance)

        def log(execute: Any, sql: str, *args: Any) -> Any:
            statements.append(sql)
            return execute(sql, *args)

        post_init.connect(count, sender=Phase)
        try:
            with connection.execute_wrapper(log):
                result = sweep.run(now=timezone.now() + timedelta(hours=40))  # reminders are due from hour 36
        finally:
            post_init.disconnect(count, sender=Phase)
        assert len(result.reminders) == open_games
        Phase.objects.filter(pk__in=result.reminders).update(status=Phase.Status.RESOLVED)  # out of the next one
        return len(loaded), len(statements)

    few, many = sweep_of(2), sweep_of(12)
    assert few == many and few[0] == 0


# --- Overdue phases ---------------------------------------------------------------------------------------


def test_the_leagues_grace_runs_in_the_overdue_phases_task_not_in_the_sweep(enqueued):
    league = make_league(players=4, grace=timedelta(hours=24))
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    submit_for(game, phase, [0, 1, 2])
    deadline = phase.deadline
    found = sweep.run(now=deadline + timedelta(seconds=1))
    assert found.overdue == [phase.pk] and enqueued.of("resolve_overdue_phases") == [([phase.pk], found_at(deadline))]
    assert not Table.objects.get(game=game).grace_used  # the sweep itself only enqueued
    enqueued.run()
    phase.refresh_from_db()
    assert Table.objects.get(game=game).grace_used and phase.status == Phase.Status.OPEN
    assert phase.deadline == deadline + timedelta(hours=24) and reminder_due(phase)


def test_a_paused_games_phase_is_out_of_the_sweeps_indexes_until_it_resumes(make_game, enqueued):
    """Pausing marks the open phase paused (the overdue, complete and bots finders read no game: the phase says
    it), a phase opened while paused (the organiser's "resolve now") is opened paused, and resuming clears it."""
    game = make_game(humans=3)
    phase = open_phase(game)
    assert organise.pause_game(game) and Phase.objects.get(pk=phase.pk).paused
    assert sweep.run(now=phase.deadline + timedelta(hours=1)).overdue == []
    assert organise.resolve_now(Game.objects.get(pk=game.pk))
    forced = open_phase(game)
    assert forced.number == phase.number + 1 and forced.paused
    assert organise.resume_game(Game.objects.get(pk=game.pk)) and not Phase.objects.get(pk=forced.pk).paused
    # Its deadline (given back the time it was paused) lies behind the first sweep's watermark: the settle-time
    # retry takes it, from the first sweep's watermark once that is the settle time old.
    resumed = Phase.objects.get(pk=forced.pk)
    assert resumed.deadline < phase.deadline + timedelta(hours=1)
    assert sweep.run(now=phase.deadline + timedelta(hours=2)).overdue == [forced.pk]


def test_the_migration_marks_the_open_phases_of_paused_games(make_game):
    paused, running = make_game(humans=3, seed=1), make_game(humans=3, seed=2)
    Game.objects.filter(pk=paused.pk).update(status=Game.Status.PAUSED)
    importlib.import_module("games.migrations.0024_phase_paused_remind_asked").mark_paused(
        apps, connection.schema_editor()
    )
    assert open_phase(paused).paused and not open_phase(running).paused


@pytest.mark.parametrize("attempt", range(3))
def test_a_pause_racing_the_sweep_leaves_the_phase_open_and_paused(make_game, enqueued, postgres, attempt):
    """The organiser pauses a game whose phase is overdue while the sweep runs (two connections at once): the
    sweep takes the phase before the pause (its task then finds the game paused, under the lock, and leaves
    it) or after (the phase is paused, out of the index), or skips it while the pause holds it. Either way
    one outcome: the game paused, its phase open and marked paused, nothing resolved."""
    game = make_game(humans=3, seed=attempt)
    phase = open_phase(game)
    paused, found = run_together(
        lambda: organise.pause_game(game), lambda: sweep.run(now=phase.deadline + timedelta(seconds=1))
    )
    assert paused is True and isinstance(found, sweep.SweepResult), (paused, found)
    enqueued.run()
    after = Phase.objects.select_related("game").get(pk=phase.pk)
    assert after.game.status == Game.Status.PAUSED and after.status == Phase.Status.OPEN and after.paused
    assert not after.used_defaults and Phase.objects.filter(game=game).count() == 1


@pytest.mark.parametrize("attempt", range(3))
def test_a_pause_racing_a_resolution_pauses_the_phase_that_is_open_after_both(make_game, postgres, attempt):
    """A resolution opening the next phase while the organiser pauses (two connections at once): the pause waits
    for the resolution's lock and marks the new phase, or goes first and the resolution (not forced) waits
    for the game to resume. Either way the game's one open phase is marked paused."""
    game = make_game(humans=3, seed=attempt)
    phase = open_phase(game)
    paused, _ = run_together(
        lambda: organise.pause_game(game), lambda: turns.resolve_phase(phase.pk, use_defaults=True)
    )
    assert paused is True
    assert Game.objects.get(pk=game.pk).status == Game.Status.PAUSED
    assert [p.paused for p in Phase.objects.filter(game=game, status=Phase.Status.OPEN)] == [True]


def found_at(deadline: Any) -> str:
    return (deadline + timedelta(seconds=1)).isoformat()


def test_an_overdue_phase_whose_deadline_moved_after_the_sweep_found_it_is_not_resolved(make_game, enqueued):
    game = make_game(humans=3)
    phase = open_phase(game)
    assert sweep.run(now=phase.deadline + timedelta(seconds=1)).overdue == [phase.pk]
    organise.extend_deadline(game, timedelta(hours=24))  # the organiser, while the task waits in the queue
    enqueued.run()
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN and not phase.used_defaults


def test_an_overdue_phases_lost_task_is_enqueued_again_only_after_the_settle_time(make_game, enqueued, settings):
    settings.PBEM_SETTLE_SECONDS = 30
    game = make_game(humans=3)
    phase = open_phase(game)
    late = phase.deadline + timedelta(seconds=1)
    assert sweep.run(now=late).overdue == [phase.pk]
    enqueued.calls.clear()  # lost: a worker killed before it ran it
    assert sweep.run(now=late + timedelta(seconds=20)).overdue == []
    assert sweep.run(now=late + timedelta(seconds=31)).overdue == [phase.pk]
    enqueued.run()
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and phase.used_defaults


def test_overdue_phases_go_in_one_task_a_batch_and_a_phase_that_fails_stops_none_of_the_others(
    make_game, enqueued, small_batches, settings
):
    """Six overdue phases, claimed three at a time: two tasks, not six. In the second, the middle phase's game
    cannot be resolved (its stored state is broken): the phases before and after it resolve with default orders,
    the task then fails naming it, and it stays open; the sweep takes it again once its mark has settled, and it
    resolves once its game is mended."""
    settings.PBEM_SETTLE_SECONDS = 30
    games = [make_game(humans=3, seed=seed) for seed in range(6)]
    phases = [open_phase(game) for game in games]
    late = timezone.now() + timedelta(minutes=1)  # the next phases' deadlines are two days later
    for i, phase in enumerate(phases):  # the deadlines in the games' order: the batches' order
        Phase.objects.filter(pk=phase.pk).update(deadline=late - timedelta(minutes=10 - i))
    broken = games[4]
    state = Game.objects.get(pk=broken.pk).state
    Game.objects.filter(pk=broken.pk).update(state={})
    ids = [phase.pk for phase in phases]
    enqueued.calls.clear()  # the games' own wake-up calls, when their first emails were written
    assert sweep.run(now=late).overdue == ids
    assert enqueued.of("resolve_overdue_phases") == [(ids[:3], late.isoformat()), (ids[3:], late.isoformat())]
    with pytest.raises(sweep.OverdueFailed, match=rf"^1 of 3 overdue phases failed: \[{ids[4]}\]$"):
        enqueued.run()
    resolved = set(
        Phase.objects.filter(pk__in=ids, status=Phase.Status.RESOLVED, used_defaults=True).values_list("pk", flat=True)
    )
    assert resolved == set(ids) - {ids[4]} and Phase.objects.get(pk=ids[4]).status == Phase.Status.OPEN

    assert sweep.run(now=late + timedelta(seconds=20)).overdue == []  # its mark has not settled yet
    Game.objects.filter(pk=broken.pk).update(state=state)
    assert sweep.run(now=late + timedelta(seconds=31)).overdue == [ids[4]]
    enqueued.run()
    assert Phase.objects.get(pk=ids[4]).status == Phase.Status.RESOLVED
    assert [Phase.objects.filter(game=game).count() for game in games] == [2] * 6  # each resolved once


# --- Reminders --------------------------------------------------------------------------------------------


def test_every_deadline_move_sets_when_the_reminder_is_due(make_game, enqueued):
    game = make_game(humans=3, phase_length=timedelta(hours=10))
    phase = open_phase(game)
    assert reminder_due(phase) and phase.remind_at == phase.opened_at + timedelta(hours=5)  # half-way
    Phase.objects.filter(pk=phase.pk).update(reminded=True, remind_at=None)
    organise.extend_deadline(game, timedelta(hours=24))
    phase = open_phase(game)
    assert reminder_due(phase) and phase.remind_at == phase.deadline - game.reminder_before
    organise.pause_game(game)
    Game.objects.filter(pk=game.pk).update(paused_at=timezone.now() - timedelta(hours=3))
    organise.resume_game(Game.objects.get(pk=game.pk))
    resumed = open_phase(game)
    assert resumed.deadline > phase.deadline + timedelta(hours=2) and reminder_due(resumed)


def test_league_deadlines_grace_and_vacations_set_when_the_reminder_is_due(enqueued):
    league = make_league(players=4, grace=timedelta(hours=24), vacation_days=5, vacation_cap_days=5)
    League.objects.filter(pk=league.pk).update(deadline_mode=League.DeadlineMode.DAILY)
    league.refresh_from_db()
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    assert phase.deadline.time() == league.daily_time and reminder_due(phase)  # the league's daily deadline
    vacations.declare(Membership.objects.get(league=league, player__email="p1@example.com"), 2)
    moved = open_phase_of(game)
    assert moved.deadline == phase.deadline + timedelta(days=2) and reminder_due(moved)
    submit_for(game, moved, [1, 2, 3])
    sweep.run(now=moved.deadline + timedelta(seconds=1))
    enqueued.run()
    graced = open_phase_of(game)
    assert graced.deadline == moved.deadline + timedelta(hours=24) and reminder_due(graced)


def test_a_reminder_taken_by_the_sweep_waits_if_the_deadline_moves_before_its_task_runs(make_game, enqueued):
    game = make_game(humans=3)
    phase = open_phase(game)
    near = phase.deadline - timedelta(hours=1)
    assert sweep.run(now=near).reminders == [phase.pk]
    organise.extend_deadline(game, timedelta(hours=48))
    enqueued.run()
    assert not OutboundEmail.objects.filter(phase=phase, kind="reminder").exists()
    moved = open_phase(game)
    assert sweep.run(now=near).reminders == []  # due again only near the new deadline
    assert sweep.run(now=moved.deadline - timedelta(hours=1)).reminders == [phase.pk]
    enqueued.run()
    assert OutboundEmail.objects.filter(phase=phase, kind="reminder").count() == 3


def test_a_phase_past_its_deadline_is_resolved_not_reminded_and_not_taken_for_a_reminder_again(make_game, enqueued):
    """The sweep missed the reminder window (a beat down for hours): the phase is overdue now. Its reminder task
    sends nothing and clears its remind_at, the overdue task resolves it, and no later sweep takes it again."""
    game = make_game(humans=3)
    phase = open_phase(game)
    late = phase.deadline + timedelta(seconds=1)
    taken = sweep.run(now=late)
    assert taken.overdue == [phase.pk] and taken.reminders == [phase.pk]
    assert sweep.send_reminders([phase.pk], late) == 0  # before the resolution: past its deadline, no reminder
    assert Phase.objects.get(pk=phase.pk).remind_at is None
    enqueued.run()
    assert not OutboundEmail.objects.filter(phase=phase, kind="reminder").exists()
    resolved = Phase.objects.get(pk=phase.pk)
    assert resolved.status == Phase.Status.RESOLVED and resolved.remind_at is None
    again = sweep.run(now=late + timedelta(minutes=10))
    assert phase.pk not in again.reminders and phase.pk not in again.overdue


def test_a_paused_games_reminder_is_dropped_until_it_resumes(make_game, enqueued):
    """The reminders' finder does not join the games (games/play/sweep.py, `due`): a paused game's phase may be taken
    once. Its task writes no reminder and clears remind_at, so no later sweep takes it; resuming the game moves
    its deadline, which makes its reminder due again."""
    game = make_game(humans=3)
    phase = open_phase(game)
    near = phase.deadline - timedelta(hours=1)
    organise.pause_game(game)
    assert sweep.run(now=near).reminders == [phase.pk]
    enqueued.run()
    assert not OutboundEmail.objects.filter(phase=phase, kind="reminder").exists()
    assert Phase.objects.get(pk=phase.pk).remind_at is None
    assert sweep.run(now=near + timedelta(minutes=10)).reminders == []
    organise.resume_game(Game.objects.get(pk=game.pk))
    resumed = Phase.objects.select_related("game").get(pk=phase.pk)
    assert reminder_due(resumed)
    # Its reminder time lies behind the last sweep's watermark (near + 10 minutes): the settle-time retry takes it.
    assert sweep.run(now=resumed.deadline - timedelta(minutes=30)).reminders == [phase.pk]
    enqueued.run()
    assert OutboundEmail.objects.filter(phase=phase, kind="reminder").count() == 3


def test_the_migration_schedules_the_reminders_of_open_phases_not_yet_reminded(make_game):
    waiting, reminded = open_phase(make_game(humans=3, seed=1)), open_phase(make_game(humans=3, seed=2))
    Phase.objects.filter(pk=waiting.pk).update(remind_at=None)
    Phase.objects.filter(pk=reminded.pk).update(remind_at=None, reminded=True)
    migration = importlib.import_module("games.migrations.0007_phase_remind_at")
    migration.schedule_reminders(apps, None)
    waiting = Phase.objects.select_related("game").get(pk=waiting.pk)
    assert reminder_due(waiting)
    assert Phase.objects.get(pk=reminded.pk).remind_at is None


# --- The watermarks (SweepMark) ------------------------------------------------------------------------------


def overdue_and_reminded(make_game: Callable[..., Game]) -> tuple[Phase, Phase, Any]:
    """An overdue phase and a phase due a reminder at the returned time (of two games of three humans each)."""
    overdue, reminded = open_phase(make_game(humans=3, seed=1)), open_phase(make_game(humans=3, seed=2))
    now = reminded.deadline - timedelta(hours=1)
    Phase.objects.filter(pk=overdue.pk).update(deadline=now - timedelta(minutes=1), remind_at=None, reminded=True)
    return overdue, reminded, now


def work_done(overdue: Phase, reminded: Phase) -> tuple[int, int]:
    """(phases of the overdue phase's game, reminders written for the other)."""
    return Phase.objects.filter(game_id=overdue.game_id).count(), OutboundEmail.objects.filter(
        phase=reminded, kind="reminder"
    ).count()


def takes_no_phase(result: sweep.SweepResult) -> bool:
    return not (result.overdue or result.complete or result.bots or result.reminders)


def test_a_sweep_that_fails_before_its_commit_moves_no_watermark_and_the_next_takes_the_range_once(
    make_game, enqueued, monkeypatch, postgres
):
    """The process dies (here: the watermark's write fails) after the range's tasks were handed to the commit but
    before it: nothing is enqueued and the watermark stays where it was, so the next sweep takes the same range,
    each piece once."""
    overdue, reminded, now = overdue_and_reminded(make_game)
    enqueued.calls.clear()

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("killed")

    with monkeypatch.context() as patched:
        patched.setattr(SweepMark, "save", crash)
        with pytest.raises(RuntimeError, match="killed"):
            sweep.run(now=now)
    assert enqueued.calls == [] and set(SweepMark.objects.values_list("upto", flat=True)) == {None}
    found = sweep.run(now=now + timedelta(seconds=5))
    assert found.overdue == [overdue.pk] and found.reminders == [reminded.pk]
    assert len(enqueued.of("resolve_overdue_phases")) == 1 and len(enqueued.of("send_reminders")) == 1
    enqueued.run()
    assert work_done(overdue, reminded) == (2, 3)


def test_work_lost_after_the_watermark_moved_is_enqueued_again_once_after_the_settle_time(
    make_game, enqueued, settings, postgres
):
    """The watermark committed, then its tasks were lost (the process killed before it published them, the broker
    down, a worker killed): nothing marks those phases, so the settle-time retry takes them, once the sweep that
    moved past them is the settle time old, once, and the work is then done once."""
    settings.PBEM_SETTLE_SECONDS = 30
    overdue, reminded, now = overdue_and_reminded(make_game)
    found = sweep.run(now=now)
    assert found.overdue == [overdue.pk] and found.reminders == [reminded.pk]
    enqueued.calls.clear()  # lost
    assert takes_no_phase(sweep.run(now=now + timedelta(seconds=20)))
    again = sweep.run(now=now + timedelta(seconds=31))
    assert again.overdue == [overdue.pk] and again.reminders == [reminded.pk]
    assert takes_no_phase(sweep.run(now=now + timedelta(seconds=40)))
    enqueued.run()
    assert work_done(overdue, reminded) == (2, 3)
    later = sweep.run(now=now + timedelta(minutes=5))  # (the resolved game's next phase is due a reminder by then)
    assert overdue.pk not in later.overdue and reminded.pk not in later.reminders


def test_work_enqueued_twice_is_done_once(make_game, enqueued, settings, postgres):
    """The tasks were slow, not lost: the settle-time retry enqueues them a second time, and both copies run. Each
    task works under its phase's lock and skips a phase no longer due: one resolution, one reminder a seat."""
    settings.PBEM_SETTLE_SECONDS = 30
    overdue, reminded, now = overdue_and_reminded(make_game)
    enqueued.calls.clear()
    sweep.run(now=now)
    sweep.run(now=now + timedelta(seconds=31))
    assert len(enqueued.of("resolve_overdue_phases")) == 2 and len(enqueued.of("send_reminders")) == 2
    enqueued.run()
    assert work_done(overdue, reminded) == (2, 3)


def test_a_sweep_reads_only_the_range_after_the_watermark_and_writes_no_phase(make_game, enqueued, postgres):
    """The overdue phases and reminders newly due are read by the range after the watermark, and the sweep writes
    its one row a kind, not the phases it takes: their rows are unchanged."""
    overdue, reminded, now = overdue_and_reminded(make_game)
    before = {p.pk: (p.resolve_asked_at, p.remind_asked_at) for p in Phase.objects.filter(status="open")}
    statements: list[str] = []

    def log(execute: Any, sql: str, *args: Any) -> Any:
        statements.append(sql)
        return execute(sql, *args)

    with connection.execute_wrapper(log):
        found = sweep.run(now=now)
    assert found.overdue == [overdue.pk] and found.reminders == [reminded.pk]
    assert not [sql for sql in statements if sql.startswith("UPDATE") and "games_phase" in sql.split("SET")[0]]
    after = {p.pk: (p.resolve_asked_at, p.remind_asked_at) for p in Phase.objects.filter(status="open")}
    assert after == before
    assert set(SweepMark.objects.values_list("kind", "upto")) == {("overdue", now), ("reminders", now)}


def test_a_deadline_moved_behind_the_watermark_is_taken_by_the_next_sweep_once(make_game, enqueued, settings):
    """A deadline set or moved behind the watermark (moved back, a game resumed, a grace shorter than the sweep's
    lag, a writer's clock behind the beat's): the range after the watermark never sees it. The next sweep takes
    it, even one sooner than the settle time (a second beat host, a test's timeline), and no sweep takes it
    again while its task may still be queued; it resolves once."""
    settings.PBEM_SETTLE_SECONDS = 30
    phase = open_phase(make_game(humans=3))
    swept = phase.deadline - timedelta(minutes=10)
    assert sweep.run(now=swept).overdue == []
    Phase.objects.filter(pk=phase.pk).update(deadline=swept - timedelta(minutes=1))
    assert sweep.run(now=swept + timedelta(seconds=5)).overdue == [phase.pk]
    assert sweep.run(now=swept + timedelta(seconds=10)).overdue == []  # its task may still be queued
    assert len(enqueued.of("resolve_overdue_phases")) == 1
    enqueued.run()
    assert Phase.objects.filter(game_id=phase.game_id).count() == 2


def test_a_sweep_whose_clock_went_back_enqueues_nothing_twice(make_game, enqueued, settings):
    """A second beat host whose clock runs behind sweeps after the first: the phases the first enqueued are due
    by its time too, and their tasks may still be queued, so it enqueues none of them again (the settle-time
    retry does, once the first sweep is the settle time old, if they are still open: the task was lost)."""
    settings.PBEM_SETTLE_SECONDS = 30
    phase = open_phase(make_game(humans=3))
    swept = phase.deadline + timedelta(minutes=1)
    assert sweep.run(now=swept).overdue == [phase.pk]
    assert sweep.run(now=swept - timedelta(seconds=5)).overdue == []
    assert len(enqueued.of("resolve_overdue_phases")) == 1
    enqueued.run()
    assert Phase.objects.filter(game_id=phase.game_id).count() == 2


def test_a_sweep_does_not_take_the_phase_its_own_task_opened(make_game, settings):
    """Every read of a sweep comes before its tasks run (here inline, as a quick worker would): the next phase its
    task opens, due by the sweep's clock because the clock that sets deadlines runs behind it (a test's timeline,
    a beat host ahead), is left to the next sweep, so its players were asked before it resolves. Taking it in
    the same sweep resolved it with default orders nobody could have avoided: a league counted a miss (the seat
    was offered up for misses that were not in a row, tests/leagues/test_policy.py)."""
    settings.PBEM_SETTLE_SECONDS = 30
    game = make_game(humans=3)
    first = open_phase(game)
    sweep.run(now=first.deadline - timedelta(hours=1))  # settled by the next sweep: the retry reads up to it
    with time_machine.travel(timezone.now() - timedelta(hours=2), tick=False):  # the deadlines' writer
        assert sweep.run(now=first.deadline + timedelta(hours=1)).overdue == [first.pk]
    following = Phase.objects.get(game=game, number=first.number + 1)
    assert following.status == Phase.Status.OPEN and following.deadline < first.deadline - timedelta(hours=1)
    assert not Order.objects.filter(phase=following).exists()
    assert sweep.run(now=first.deadline + timedelta(hours=1, seconds=5)).overdue == [following.pk]
    following.refresh_from_db()
    assert following.status == Phase.Status.RESOLVED


# --- Emails -----------------------------------------------------------------------------------------------


def test_a_sender_woken_for_a_straggler_is_woken_again_only_a_minute_later(make_game, enqueued):
    game = make_game(humans=3)
    row = OutboundEmail.objects.filter(game=game).first()
    assert row is not None
    OutboundEmail.objects.filter(pk=row.pk).update(status="pending")
    enqueued.calls.clear()  # the game's own wake-up call, when its first emails were written
    later = row.created_at + timedelta(minutes=2)
    assert outbox.send_stragglers(at=later) == 1 and enqueued.of("send_due_emails") == [()]
    assert outbox.send_stragglers(at=later + timedelta(seconds=30)) == 0
    assert outbox.send_stragglers(at=later + timedelta(seconds=61)) == 1


# --- Two sweeps at once -------------------------------------------------------------------------------------


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    # claim() reads its batch size from its own module (games.models re-exports the models, not this knob).
    monkeypatch.setattr(queries, "CLAIM_BATCH", 3)


def due_everything(make_game: Callable[..., Game], now: Any) -> dict[str, set[int]]:
    """Phases due for each of the sweep's kinds (and one email to retry and one straggler in some games)."""
    kinds = {"overdue": 8, "reminders": 8, "complete": 4, "bots": 4}
    due: dict[str, set[int]] = {kind: set() for kind in kinds}
    hour_ago = now - timedelta(hours=1)
    columns = {
        "overdue": {"deadline": hour_ago},
        "reminders": {"remind_at": hour_ago},
        "complete": {"complete_at": hour_ago},
        "bots": {"bots_due_at": hour_ago},
    }
    seed = 0
    for kind, count in kinds.items():
        for _ in range(count):
            seed += 1
            phase = open_phase(make_game(humans=3, seed=seed))
            Phase.objects.filter(pk=phase.pk).update(**columns[kind])
            due[kind].add(phase.pk)
    games = list(Game.objects.order_by("pk").values_list("pk", flat=True))
    for game_id in games[:6]:
        OutboundEmail.objects.filter(pk=OutboundEmail.objects.filter(game_id=game_id).order_by("pk")[0].pk).update(
            status="failed", attempts=1, attempted_at=hour_ago
        )
    for game_id in games[6:12]:
        OutboundEmail.objects.filter(pk=OutboundEmail.objects.filter(game_id=game_id).order_by("pk")[0].pk).update(
            status="pending", created_at=hour_ago, attempted_at=None
        )
    due["failed"], due["stragglers"] = set(games[:6]), set(games[6:12])
    return due


def test_phases_due_at_one_time_are_each_taken_once_batch_after_batch(make_game, enqueued, small_batches):
    """A league's deadlines all fall in the same minute: eight overdue phases and eight reminders due at one time,
    claimed three at a time. Each batch starts after the last one's last row by (time, id), so every phase is
    taken once, in id order, in batches of 3, 3 and 2."""
    now = timezone.now()
    phases = [open_phase(make_game(humans=3, seed=seed)) for seed in range(8)]
    ids = sorted(phase.pk for phase in phases)
    Phase.objects.filter(pk__in=ids).update(deadline=now - timedelta(minutes=1), remind_at=now - timedelta(hours=1))
    enqueued.calls.clear()
    found = sweep.run(now=now)
    assert found.overdue == ids and found.reminders == ids
    at = now.isoformat()
    assert enqueued.of("resolve_overdue_phases") == [(ids[:3], at), (ids[3:6], at), (ids[6:], at)]
    assert enqueued.of("send_reminders") == [(ids[:3], at), (ids[3:6], at), (ids[6:], at)]


def test_two_sweeps_at_once_take_different_rows_and_enqueue_each_piece_of_work_once(
    make_game, enqueued, small_batches, postgres
):
    """Both sweeps run in their own thread and connection. Each waits, holding the rows of its first batch of
    each kind locked (for overdue phases and reminders, the kind's watermark row), until the other has read its
    own first batch of that kind: so every kind is read by both at the same time, and a sweep that waited for
    the other's locks instead of skipping them would never get there. Together they enqueue every piece of due
    work exactly once; a third sweep right after enqueues nothing."""
    now = timezone.now()
    due = due_everything(make_game, now)
    enqueued.calls.clear()  # the games' own wake-up calls, when their first emails were written
    meet = threading.Barrier(2, timeout=30)
    results: dict[str, sweep.SweepResult] = {}
    errors: list[BaseException] = []

    def sweeper(name: str) -> None:
        met: set[str] = set()

        def hold_first_batch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            result = execute(sql, params, many, context)
            # A claim's first batch of a kind (a later batch starts after the last row, `(...) > (%s, %s)`): its rows
            # are now locked. Only first batches meet, so both sweeps wait once a kind, the same kinds in the same
            # order (a sweep that also met at its second batch paired with the other's next kind, which a few
            # runs under load let one sweep take all of).
            if "FOR NO KEY UPDATE" in sql and ") > (%s" not in sql and sql not in met:
                met.add(sql)
                meet.wait()
            return result

        try:
            with connection.execute_wrapper(hold_first_batch):
                results[name] = sweep.run(now=now)
        except BaseException as error:  # noqa: BLE001  (reported by the test below)
            errors.append(error)
            meet.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=sweeper, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a sweep did not finish"
    assert not errors, errors
    a, b = results["a"], results["b"]
    for kind in ("overdue", "reminders"):  # one watermark a kind, locked: one sweep takes the kind, the other skips it
        mine, theirs = getattr(a, kind), getattr(b, kind)
        assert sorted(mine + theirs) == sorted(due[kind]) and not (mine and theirs), kind
    for kind in ("complete", "bots"):
        mine, theirs = getattr(a, kind), getattr(b, kind)
        assert mine and theirs, f"{kind}: both sweeps should have taken a batch"
        assert not set(mine) & set(theirs) and sorted(mine + theirs) == sorted(due[kind]), kind
    assert sorted(i for args in enqueued.of("resolve_overdue_phases") for i in args[0]) == sorted(due["overdue"])
    assert sorted(args[0] for args in enqueued.of("resolve_phase")) == sorted(due["complete"])
    assert sorted(args[0] for args in enqueued.of("play_bots")) == sorted(due["bots"])
    assert sorted(i for args in enqueued.of("send_reminders") for i in args[0]) == sorted(due["reminders"])
    # Each failed row put back once, each straggler's game woken once; the sender woken for them.
    assert a.resent + b.resent == len(due["failed"]) + len(due["stragglers"]) and enqueued.of("send_due_emails")
    enqueued.calls.clear()
    again = sweep.run(now=now + timedelta(seconds=5))
    assert again.counts() == dict.fromkeys(again.counts(), 0) and enqueued.calls == []


def test_a_read_in_index_order_is_never_compiled_by_postgresqls_jit(postgres):
    """With sorting off, a read no index orders (the lost sends of an outbox) still sorts, at the planner's penalty
    cost, above jit_above_cost: PostgreSQL compiled each such read with LLVM, 50-300 ms to read nothing, about a
    second a sweep. The sweep's reads turn JIT off with sorting (queries.IN_ORDER)."""
    lost = OutboundEmail.objects.filter(status="sending").order_by("attempted_at", "pk").values_list("pk")[:500]
    sql, params = lost.query.sql_with_params()

    def plan(cursor: Any) -> str:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        return str(cursor.fetchone()[0])

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SHOW jit")
        if cursor.fetchone()[0] == "on":  # (a server without JIT cannot show the hazard, only its absence)
            assert "'JIT'" in plan(cursor), "sorting off alone no longer brings JIT: this test shows nothing"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        default = cursor.fetchone()[0]
        with queries.in_index_order(nested=True):
            assert "'JIT'" not in plan(cursor)
        sending = OutboundEmail.objects.filter(status="sending").order_by("attempted_at")
        assert queries.claim(sending, mark={"attempts": 1}, enqueue=list) == []
        # Inside a caller's transaction both reset after: the caller's own statements plan as usual.
        cursor.execute("SHOW jit")
        jit = cursor.fetchone()[0]
        cursor.execute("SHOW enable_sort")
        assert (cursor.fetchone()[0], jit) == ("on", default)
