"""A phase whose orders are all in resolves whatever happened to its wake-up call: a broker that refuses or
hangs when the last order commits, a resolution or a bots' task lost with its worker. The database row is
the truth; the sweep finds what a lost task should have done (tests/play/test_worker.py kills a real worker)."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.models import Max
from django.urls import reverse

from games.models import Game, Order, Phase
from games.play import bots, orders, organise, sweep, turns
from tests.support.accounts import signed_in
from tests.support.faults import complete_but_unresolved, piraeus_roles
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def last_order_at(phase: Phase) -> datetime:
    return Order.objects.filter(phase=phase).aggregate(last=Max("submitted_at"))["last"]


def test_revising_an_order_of_a_complete_phase_enqueues_its_resolution_again(make_game, lost):
    game = make_game(humans=3)
    phase = complete_but_unresolved(game, lost)
    # The player retries (the page or the email reply): a revision, which finds the phase complete.
    result = orders.submit_order(game.seats.get(number=2), phase.number, {"role": "buyer"})
    assert result.revised and result.complete
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert Phase.objects.filter(game=game).count() == 2


def test_the_sweep_resolves_a_complete_phase_whose_resolution_was_lost_once_it_has_settled(make_game, lost, settings):
    settings.PBEM_SETTLE_SECONDS = 30
    game = make_game(humans=3)
    phase = complete_but_unresolved(game, lost)
    early = sweep.run(now=last_order_at(phase) + timedelta(seconds=10))
    assert early.complete == []
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN  # the normal path may still be on its way
    settled = sweep.run(now=last_order_at(phase) + timedelta(seconds=31))
    assert settled.complete == [phase.pk] and settled.overdue == []
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and not phase.used_defaults
    assert sweep.run(now=last_order_at(phase) + timedelta(seconds=90)).complete == []


def test_the_sweep_leaves_a_complete_phase_of_a_paused_game_for_its_resume(make_game):
    game = make_game(humans=3)
    organise.pause_game(game)
    phase = open_phase(game)
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, piraeus_roles(seat.number))
    assert sweep.run(now=last_order_at(phase) + timedelta(minutes=5)).complete == []
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    organise.resume_game(Game.objects.get(pk=game.pk))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED


def test_the_sweep_plays_bots_whose_task_was_lost_so_a_bot_table_moves_on(make_game, lost, settings):
    settings.PBEM_SETTLE_SECONDS = 30
    dropped = lost.start("games.tasks.play_bots")
    game = make_game(humans=1, bots=2)
    lost.stop()
    phase = open_phase(game)
    assert dropped == [("games.tasks.play_bots", phase.pk)]
    orders.submit_order(game.seats.get(number=0), phase.number, piraeus_roles(0))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN and turns.submitted_seats(phase) == {0}  # owing only bots' orders
    sweep.run(now=phase.opened_at + timedelta(seconds=10))
    assert turns.submitted_seats(phase) == {0}
    sweep.run(now=phase.opened_at + timedelta(seconds=31))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert Order.objects.filter(phase=phase).count() == 3


def test_bots_played_again_only_play_the_seats_still_owing(make_game):
    game = make_game(humans=1, bots=2)
    phase = open_phase(game)
    orders = {o.seat_id: (o.revision, o.data) for o in Order.objects.filter(phase=phase)}
    assert len(orders) == 2
    assert bots.play_bots(phase.pk) == 0
    assert {o.seat_id: (o.revision, o.data) for o in Order.objects.filter(phase=phase)} == orders
    # Played: the sweep does not ask again.
    assert sweep.run(now=phase.opened_at + timedelta(minutes=5)).bots == []


# --- The broker is unreachable when the last order commits ------------------------------------------------


@pytest.fixture
def silent_broker() -> Iterator[str]:
    """A port that accepts connections and never answers: a broker that hangs (not one that is down)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)  # connections complete in the backlog and are never read
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"


def post_last_order(client, game: Game) -> Any:
    for seat in game.seats.filter(number__in=[0, 1]):
        orders.submit_order(seat, 1, piraeus_roles(seat.number))
    signed_in(client, game, 2)
    return client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "buyer"}, follow=True)


def assert_stored_and_logged(response, game: Game, caplog) -> None:
    assert response.status_code == 200
    assert b"Order stored" in response.content
    phase = Phase.objects.get(game=game, number=1)
    assert phase.status == Phase.Status.OPEN
    assert Order.objects.get(phase=phase, seat__number=2).data == {"role": "buyer"}
    lost = [r.getMessage() for r in caplog.records if "could not enqueue games.tasks.resolve_phase" in r.getMessage()]
    assert len(lost) == 1 and f"({phase.pk},)" in lost[0]
    # The log names rows, never an order's content.
    assert not any("buyer" in r.getMessage() or "seller" in r.getMessage() for r in caplog.records)


def test_the_last_order_is_stored_and_the_player_told_so_when_the_broker_refuses(client, make_game, broker_at, caplog):
    game = make_game(humans=3)
    broker_at("redis://127.0.0.1:1/0")  # nothing listens there
    caplog.set_level(logging.INFO, logger="games")
    assert_stored_and_logged(post_last_order(client, game), game, caplog)


def test_a_broker_that_hangs_holds_the_last_order_for_a_bounded_time(
    client, make_game, broker_at, silent_broker, caplog
):
    game = make_game(humans=3)
    broker_at(silent_broker)
    caplog.set_level(logging.INFO, logger="games")
    outcome: dict[str, Any] = {}

    def post() -> None:
        started = time.monotonic()
        try:
            outcome["response"] = post_last_order(client, game)
        finally:
            outcome["seconds"] = time.monotonic() - started
            connection.close()

    request = threading.Thread(target=post, daemon=True)
    request.start()
    request.join(timeout=30)
    assert not request.is_alive(), "the request is still waiting for the broker"
    assert outcome["seconds"] < 10  # the settings allow 1 s to connect and 2 s for a reply
    assert_stored_and_logged(outcome["response"], game, caplog)
