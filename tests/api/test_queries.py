"""The API's calls run a fixed number of SQL statements whatever the game's size: a table of 3 and one of 6 seats,
the larger one further on (more log lines, more earlier turns, more messages), cost the same statements per call."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game, Seat
from games.outgoing import links
from games.play import orders, turns
from games.talk import services as talk
from tests.support.api import Api, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def table(seats: int, phases: int, messages: int) -> tuple[Game, Api, dict[str, Any]]:
    """A game of `seats` played `phases` phases on (and on until seat 0 is asked beside others), seat 0's order in
    and `messages` messages of its at the table; a token of seat 0's, and another legal order of its."""
    players = [turns.player_for(f"q{seats}-{n}@example.com", f"Q{n}") for n in range(seats)]
    game = turns.create_game("piraeus", players, seed=seats)
    engine, rng = turns.engine_of(game), random.Random(seats)
    played = 0
    while True:
        game.refresh_from_db()
        phase = turns.current_phase(game)
        assert phase is not None
        if played >= phases and 0 in phase.owed_seats and len(phase.owed_seats) > 1:
            break
        for number in phase.owed_seats:
            order = engine.random_order(game.state, number, rng)
            orders.submit_order(Seat.objects.get(game=game, number=number), phase.number, order)
        played += 1
    first = Seat.objects.select_related("player").get(game=game, number=0)
    for n in range(messages):
        talk.post(first, first.player, f"message {n}")
    orders.submit_order(first, phase.number, engine.random_order(game.state, 0, rng))  # the calls below revise it
    return game, Api(token_for(first.player)), engine.random_order(game.state, 0, rng)  # type: ignore[arg-type]


def calls(game: Game, order: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [
        ("GET", "/games", None),
        ("GET", f"/games/{game.pk}", None),
        ("GET", f"/games/{game.pk}/prompt", None),
        ("GET", f"/games/{game.pk}/order", None),
        ("POST", f"/games/{game.pk}/order/check", {"phase": game.phase_number, "order": order}),
        ("PUT", f"/games/{game.pk}/order", {"phase": game.phase_number, "order": order}),
        ("GET", f"/games/{game.pk}/turns", None),
        ("GET", f"/games/{game.pk}/turns/1", None),
        ("GET", f"/games/{game.pk}/talk", None),
        ("POST", f"/games/{game.pk}/talk", {"text": "one more"}),
    ]


def counted(api: Api, method: str, path: str, body: Any) -> int:
    with CaptureQueriesContext(connection) as seen:
        response = api.call(method, path, body)
    assert response.status_code == 200, (path, response.content)
    return len(seen.captured_queries)


def test_each_call_costs_the_same_statements_on_a_small_and_a_large_table(
    django_assert_num_queries: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A message wakes table talk's email task after commit. With tasks inline (the tests' setting) it would run
    # inside the call, a statement or two per reader; with a broker it runs in a worker. Counted here: the call's
    # own statements, and that it asked for the task.
    woken: list[Any] = []
    monkeypatch.setattr(talk, "after_commit", lambda name, *args: woken.append(name))
    small, small_api, small_order = table(seats=3, phases=1, messages=1)
    large, large_api, large_order = table(seats=6, phases=5, messages=8)  # talk's own rate: 10 in 10 minutes
    pairs = zip(calls(small, small_order), calls(large, large_order), strict=True)
    for (method, path, body), (_, large_path, large_body) in pairs:
        expected = counted(small_api, method, path, body)
        with django_assert_num_queries(expected):
            assert large_api.call(method, large_path, large_body).status_code == 200, large_path
    assert woken[-2:] == [talk.SEND_TALK, talk.SEND_TALK]  # the last message of each table


def test_the_order_put_costs_the_statements_of_the_pages_order_post(make_game: Any) -> None:
    # The aim for speed: the API's order is no dearer than the page's. A token is found and its call counted
    # in one statement (the page's session read is one too); the rest is the same order service, one check each.
    game = make_game(humans=4)
    page_seat, api_seat = (Seat.objects.select_related("player").get(game=game, number=n) for n in (0, 1))
    for seat in (page_seat, api_seat):
        orders.submit_order(seat, 1, {"role": "buyer"})  # both calls below revise an order, as the bench does
    browser = Client()
    browser.get(reverse("games-link", args=[links.make_token(page_seat, game.phases.get(number=1))]))
    api = Api(token_for(api_seat.player))  # type: ignore[arg-type]
    with CaptureQueriesContext(connection) as page:
        assert browser.post(reverse("games-order", args=[game.pk]), {"phase": "1", "role": "seller"}).status_code == 302
    with CaptureQueriesContext(connection) as put:
        assert api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "seller"}}).status_code == 200
    # Six each: who calls (the session read; the token found and its use counted in one UPDATE), the seat with its
    # game, player and open turn in one read, then the store: BEGIN, the phase locked, the order's UPDATE, COMMIT.
    # The floor's POST runs five (bench/README.md): its one read is the phase's.
    assert [q["sql"].split()[0] for q in page.captured_queries] == [
        "SELECT",
        "SELECT",
        "BEGIN",
        "SELECT",
        "UPDATE",
        "COMMIT",
    ]
    assert [q["sql"].split()[0] for q in put.captured_queries] == [
        "UPDATE",
        "SELECT",
        "BEGIN",
        "SELECT",
        "UPDATE",
        "COMMIT",
    ]
    stored = dict(Seat.objects.filter(game=game).values_list("number", "orders__revision"))
    assert stored[0] == stored[1] == 2, "both calls revised their seat's order"
