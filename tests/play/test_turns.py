"""The service layer: sealed orders, resolution, deadlines, reminders and the organisers' actions."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.engines import OrderError, get_engine
from games.models import Event, Game, Order, OutboundEmail, Phase
from games.play import orders, organise, sweep, turns
from tests.support.phases import headline, open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def legal_order(game: Game, seat: int, salt: int = 0) -> dict:
    return get_engine(game.engine).random_order(game.state, seat, random.Random(salt))


def submit_all(game: Game, except_seats: tuple[int, ...] = ()) -> Phase:
    phase = open_phase(game)
    for seat in game.seats.filter(number__in=phase.owed_seats).exclude(number__in=except_seats):
        orders.submit_order(seat, phase.number, legal_order(game, seat.number))
    return phase


def test_a_game_starts_with_an_open_phase_asking_every_seat_that_owes(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    assert phase.number == 1
    assert phase.owed_seats == sorted(int(s) for s in get_engine("piraeus").prompts(game.state))
    assert phase.deadline - phase.opened_at == timedelta(hours=48)


def test_an_order_is_stored_sealed_and_the_phase_waits_for_the_others(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    result = orders.submit_order(seat, phase.number, legal_order(game, 0))
    assert not result.complete and not result.revised
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    assert turns.submitted_seats(phase) == {0}


def test_an_order_can_be_revised_until_the_phase_resolves(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    orders.submit_order(seat, phase.number, {"role": "buyer"})
    result = orders.submit_order(seat, phase.number, {"role": "seller"})
    order = Order.objects.get(phase=phase, seat=seat)
    assert result.revised and order.revision == 2 and order.data == {"role": "seller"}


def test_the_last_owed_order_resolves_the_phase_and_opens_the_next(make_game):
    game = make_game(humans=3)
    phase = submit_all(game)
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and not phase.used_defaults
    nxt = open_phase(game)
    assert nxt.number == 2
    assert Event.objects.filter(game=game, phase_number=1).exists()


def test_a_malformed_order_is_refused_with_the_engines_message_and_nothing_is_stored(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=1)
    bad = {"role": "pirate"}
    with pytest.raises(OrderError) as engine_says:
        get_engine("piraeus").validate(game.state, 1, bad)
    with pytest.raises(orders.OrderRejected) as rejected:
        orders.submit_order(seat, phase.number, bad)
    assert str(rejected.value) == str(engine_says.value)
    assert not Order.objects.filter(phase=phase).exists()


@pytest.mark.parametrize(
    "garbage", [{}, {"role": None}, {"role": ["buyer", "seller"]}, {"role": {"x": 1}}, {"role": 10**30}]
)
def test_garbage_orders_are_refused_not_crashed_on(make_game, garbage):
    game = make_game(humans=3)
    phase = open_phase(game)
    with pytest.raises(orders.OrderRejected):
        orders.submit_order(game.seats.get(number=0), phase.number, garbage)
    assert not Order.objects.filter(phase=phase).exists()


def test_an_order_for_a_phase_that_has_moved_on_is_refused(make_game):
    game = make_game(humans=3)
    old = submit_all(game)
    with pytest.raises(orders.OrderRejected, match="already been resolved"):
        orders.submit_order(game.seats.get(number=0), old.number, legal_order(game, 0))
    assert Order.objects.filter(phase=old).count() == len(old.owed_seats)


def test_an_order_for_a_phase_that_does_not_exist_is_refused(make_game):
    game = make_game(humans=3)
    with pytest.raises(orders.OrderRejected, match="no such turn"):
        orders.submit_order(game.seats.get(number=0), 99, {"role": "buyer"})


def test_a_seat_not_asked_in_a_phase_cannot_submit(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    # Day 1 planning: seat 0 sells, the others buy; the sale phase then asks only seat 0.
    for seat in game.seats.all():
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    sale = open_phase(game)
    assert sale.owed_seats == [0]
    with pytest.raises(orders.OrderRejected, match="owe no order"):
        orders.submit_order(game.seats.get(number=1), sale.number, {"cards": []})


def test_resolving_twice_resolves_once(make_game):
    game = make_game(humans=3)
    phase = submit_all(game)  # resolved by the last order
    events = Event.objects.filter(game=game).count()
    assert turns.resolve_phase(phase.pk) is False
    assert turns.resolve_phase(phase.pk, use_defaults=True) is False
    assert Event.objects.filter(game=game).count() == events
    assert Phase.objects.filter(game=game).count() == 2


def test_an_incomplete_phase_does_not_resolve_without_defaults(make_game):
    game = make_game(humans=3)
    phase = submit_all(game, except_seats=(2,))
    assert turns.resolve_phase(phase.pk) is False
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN


def test_the_sweep_resolves_an_overdue_phase_with_default_orders(make_game):
    game = make_game(humans=3)
    phase = submit_all(game, except_seats=(1, 2))
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    result = sweep.run()
    assert result.overdue == [phase.pk]
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and phase.used_defaults
    engine = get_engine("piraeus")
    defaults = Order.objects.filter(phase=phase, is_default=True).select_related("seat")
    assert sorted(o.seat.number for o in defaults) == [1, 2]
    assert all(o.data == engine.default_order(game.state, o.seat.number) for o in defaults)


def test_the_sweep_leaves_phases_before_their_deadline_alone(make_game):
    game = make_game(humans=3)
    assert sweep.run().overdue == []
    assert open_phase(game).number == 1


def test_a_reminder_goes_once_to_each_seat_still_owing(make_game):
    game = make_game(humans=3)
    phase = submit_all(game, except_seats=(1, 2))
    mail.outbox.clear()
    near = phase.deadline - timedelta(hours=1)
    assert sweep.run(now=near).reminders == [phase.pk]
    assert sweep.run(now=near + timedelta(minutes=5)).reminders == []
    reminders = OutboundEmail.objects.filter(phase=phase, kind="reminder")
    assert sorted(r.seat.number for r in reminders) == [1, 2]
    assert sorted(m.to[0] for m in mail.outbox) == ["player2@example.com", "player3@example.com"]
    assert all(headline(m).startswith("Reminder:") for m in mail.outbox)


def test_no_reminder_before_the_reminder_time(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    assert sweep.run(now=phase.opened_at + timedelta(hours=1)).reminders == []
    assert not OutboundEmail.objects.filter(phase=phase, kind="reminder").exists()


def test_a_paused_game_does_not_resolve_at_its_deadline_and_resumes_with_its_time_back(make_game):
    game = make_game(humans=3)
    phase = submit_all(game, except_seats=(2,))
    organise.pause_game(game)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert sweep.run().overdue == []
    Game.objects.filter(pk=game.pk).update(paused_at=timezone.now() - timedelta(hours=5))
    game.refresh_from_db()
    organise.resume_game(game)
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    assert phase.deadline > timezone.now() + timedelta(hours=4)


def test_orders_sent_while_paused_resolve_on_resume(make_game):
    game = make_game(humans=3)
    organise.pause_game(game)
    phase = submit_all(game)
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    organise.resume_game(Game.objects.get(pk=game.pk))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED


def test_extending_a_deadline_moves_it_and_rearms_the_reminder(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    Phase.objects.filter(pk=phase.pk).update(reminded=True)
    organise.extend_deadline(game, timedelta(hours=24))
    extended = open_phase(game)
    assert extended.deadline == phase.deadline + timedelta(hours=24) and not extended.reminded


def test_a_deadline_the_organiser_moves_is_emailed_to_each_seat_still_owing_an_order(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    orders.submit_order(game.seats.get(number=0), phase.number, {"role": "seller"})
    mail.outbox.clear()

    def told() -> list[tuple[str, str]]:
        sent = [(m.to[0], headline(m)) for m in mail.outbox]
        mail.outbox.clear()
        return sorted(sent)

    organise.extend_deadline(game, timedelta(hours=24))
    moved = open_phase(game).deadline.strftime("%a %-d %b %H:%M UTC")
    expected = f"{phase.name}: the deadline moved to {moved}"
    assert told() == [("player2@example.com", expected), ("player3@example.com", expected)]
    organise.extend_deadline(game, timedelta(hours=24))  # again: told again, of the newer deadline
    assert [to for to, _ in told()] == ["player2@example.com", "player3@example.com"]
    organise.pause_game(game)
    organise.extend_deadline(Game.objects.get(pk=game.pk), timedelta(hours=24))  # paused: heard of on resume
    assert told() == []
    organise.resume_game(Game.objects.get(pk=game.pk))
    assert [to for to, _ in told()] == ["player2@example.com", "player3@example.com"]


def test_a_moved_deadlines_email_asks_for_the_order_with_the_seats_link_and_the_new_deadline(make_game):
    game = make_game(humans=3)
    mail.outbox.clear()
    organise.extend_deadline(game, timedelta(hours=72))
    phase = open_phase(game)
    message = next(m for m in mail.outbox if m.to == ["player1@example.com"])
    text = str(message.body)
    assert "The organiser moved the deadline" in text and "your order is still owed" in text
    assert f"New deadline: {phase.deadline.strftime('%A %-d %B %Y, %H:%M')} (UTC)" in text
    assert "/l/" in text  # the seat's signed link
    assert "List-Unsubscribe" not in message.extra_headers  # it asks for an owed order: not declinable


def test_resolve_now_uses_defaults_for_every_missing_order(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    assert organise.resolve_now(game) is True
    assert Order.objects.filter(phase=phase, is_default=True).count() == 3


def test_bots_play_their_seats_so_a_game_moves_at_the_humans_pace(make_game):
    game = make_game(humans=1, bots=2)
    phase = open_phase(game)
    assert turns.submitted_seats(phase) == {1, 2}
    orders.submit_order(game.seats.get(number=0), phase.number, legal_order(game, 0))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED


def test_a_game_of_bots_plays_to_the_end(make_game):
    game = make_game(humans=0, bots=4)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert [r["rank"] for r in game.result] == sorted(r["rank"] for r in game.result)
    assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()


def test_replacing_a_player_gives_the_seat_to_the_new_address(make_game):
    game = make_game(humans=3)
    seat = game.seats.get(number=1)
    old_key = seat.link_key
    mail.outbox.clear()
    seat = organise.replace_player(seat, "newcomer@example.com", "Newcomer")
    assert seat.player.email == "newcomer@example.com" and seat.link_key != old_key
    assert [m.to for m in mail.outbox] == [["newcomer@example.com"]]


def test_a_player_cannot_take_a_second_seat_at_the_same_table(make_game):
    game = make_game(humans=3)
    with pytest.raises(ValueError, match="already sits"):
        organise.replace_player(game.seats.get(number=1), "player1@example.com")


def test_a_game_needs_a_valid_player_count(make_game):
    with pytest.raises(ValueError, match="3 to 6 players"):
        make_game(humans=2)


def resolution_queries(game: Game, monkeypatch) -> int:
    """Statements run by one resolution (the tasks it enqueues after commit are not part of it)."""
    phase = submit_all(game, except_seats=(0,))
    with monkeypatch.context() as patch:
        patch.setattr(turns, "after_commit", lambda *args: None)
        patch.setattr(turns, "wake_email_sender", lambda: None)
        with CaptureQueriesContext(connection) as queries:
            assert turns.resolve_phase(phase.pk, use_defaults=True)
    return len(queries)


def test_the_queries_of_a_resolution_do_not_grow_with_seats_or_log_length(make_game, monkeypatch):
    small = resolution_queries(make_game(humans=3, seed=7), monkeypatch)
    large = resolution_queries(make_game(humans=6, seed=7), monkeypatch)
    game = make_game(humans=4, seed=8)
    early = resolution_queries(game, monkeypatch)
    for _ in range(12):  # play on, so the log grows
        submit_all(game)
    late = resolution_queries(game, monkeypatch)
    assert small == large == early == late
