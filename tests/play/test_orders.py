"""The order service, one call per intent (games/play/orders.py): plain data in, a plain result or a typed
refusal out, the same for the web form, an email reply, a bot and the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.engines import get_engine
from games.models import Game, Order, Seat, with_open_phase
from games.play import orders
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def roles_in(game: Game) -> None:
    """Piraeus's first turn played: seat 0 sells, the others buy; the next turn (the sale) asks seat 0 alone."""
    phase = open_phase(game)
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})


def test_open_turn_tells_a_seat_what_it_is_asked_and_whether_the_turn_is_its_alone(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    turn = orders.open_turn(game.seats.get(number=1), phase.number)
    assert (turn.game_id, turn.phase_number, turn.phase_name) == (game.pk, phase.number, phase.name)
    assert turn.prompt == phase.prompt_for(1) and turn.deadline == phase.deadline
    assert not turn.alone and turn.example is None
    roles_in(game)
    sale = open_phase(game)
    turn = orders.open_turn(game.seats.get(number=0), sale.number, with_example=True)
    assert turn.alone and turn.example is not None
    game.refresh_from_db()
    # The example is a legal order of this very turn: the engine takes it as it is.
    assert get_engine(game.engine).validate(game.state, 0, turn.example) == turn.example


@pytest.mark.parametrize("case", ["resolved", "not asked", "no such turn", "game over"])
def test_open_turn_refuses_a_turn_not_open_to_the_seat(make_game, case: str) -> None:
    game = make_game(humans=3)
    first = open_phase(game)
    number, seat = first.number, game.seats.get(number=1)
    if case == "resolved":
        roles_in(game)
    elif case == "not asked":
        roles_in(game)
        number = open_phase(game).number  # the sale asks seat 0 only
    elif case == "no such turn":
        number = 99
    else:
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    with pytest.raises(orders.TurnClosed):
        orders.open_turn(seat, number)


@pytest.mark.parametrize("case", ["open", "resolved", "not asked", "no such turn", "game over"])
def test_a_seat_read_with_its_open_phase_opens_its_turn_without_a_statement(
    make_game, django_assert_num_queries, case: str
) -> None:
    # The order POST and PUT read the seat with its open turn (one statement); open_turn then reads nothing more for
    # that turn, and any other turn as before, so each refusal is the same.
    game = make_game(humans=3)
    number = open_phase(game).number
    if case in ("resolved", "not asked"):
        roles_in(game)
        number = open_phase(game).number if case == "not asked" else number  # the sale asks seat 0 only
    elif case == "no such turn":
        number = 99
    elif case == "game over":
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    seat = with_open_phase(Seat.objects.filter(game=game, number=1)).get()
    if case != "open":
        with pytest.raises(orders.TurnClosed):
            orders.open_turn(seat, number)
        return
    with django_assert_num_queries(0):
        turn = orders.open_turn(seat, number)
    phase = open_phase(game)
    assert (turn.phase_number, turn.prompt, turn.deadline) == (phase.number, phase.prompt_for(1), phase.deadline)


def test_check_order_reads_an_order_back_and_stores_nothing(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    checked = orders.check_order(seat, phase.number, {"role": "seller"})
    assert checked.order == {"role": "seller"} and checked.read_back.lines
    with pytest.raises(orders.IllegalOrder) as refused:
        orders.check_order(seat, phase.number, {"role": "pirate"})
    assert str(refused.value)  # the engine's reason, for the player
    assert not Order.objects.filter(phase=phase).exists()


def test_submit_order_stores_and_reads_the_order_back_as_check_order_does(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    checked = orders.check_order(seat, phase.number, {"role": "buyer"})
    stored = orders.submit_order(seat, phase.number, {"role": "buyer"}, read_back=True)
    assert stored == orders.Stored(revised=False, complete=False, read_back=checked.read_back)
    assert orders.submit_order(seat, phase.number, {"role": "seller"}).read_back is None


def test_an_illegal_order_is_refused_as_such_and_changes_nothing(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    orders.submit_order(seat, phase.number, {"role": "buyer"})
    with pytest.raises(orders.IllegalOrder):
        orders.submit_order(seat, phase.number, {"role": "pirate"})
    assert Order.objects.get(phase=phase, seat=seat).data == {"role": "buyer"}
    assert issubclass(orders.IllegalOrder, orders.OrderRejected) and issubclass(orders.TurnClosed, orders.OrderRejected)


def test_an_order_written_before_the_one_that_stands_is_superseded(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    now = timezone.now()
    orders.submit_order(seat, phase.number, {"role": "seller"}, written_at=now)
    with pytest.raises(orders.Superseded):
        orders.open_turn(seat, phase.number, written_at=now - timedelta(minutes=5))
    with pytest.raises(orders.Superseded):
        orders.submit_order(seat, phase.number, {"role": "buyer"}, written_at=now - timedelta(minutes=5))
    assert Order.objects.get(phase=phase, seat=seat).data == {"role": "seller"}
    # Written later, it replaces the order; without a time (the web form), it always does.
    orders.open_turn(seat, phase.number, written_at=now + timedelta(minutes=5))
    assert orders.submit_order(seat, phase.number, {"role": "buyer"}, written_at=now + timedelta(minutes=5)).revised
    assert orders.submit_order(seat, phase.number, {"role": "seller"}).revised
