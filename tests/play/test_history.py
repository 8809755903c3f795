"""Earlier turns rebuilt by replay, as each seat saw them (the guide the game page links:
tests/outgoing/test_guides.py)."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.engines import all_engines
from games.models import Event, Game, Phase, Seat
from games.outgoing.links import make_token
from games.play import history, orders, organise, turns
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def play(game: Game, phases: int, seed: str = "history") -> None:
    """Resolve `phases` phases with random legal orders (the bots' own)."""
    engine = turns.engine_of(game)
    rng = random.Random(seed)
    for _ in range(phases):
        phase = open_phase(game)
        for number in phase.owed_seats:
            order = engine.random_order(game.state, number, rng)
            orders.submit_order(Seat.objects.get(game=game, number=number), phase.number, order)
        turns.resolve_phase(phase.pk)


def as_seat(client, game: Game, number: int):
    seat = game.seats.get(number=number)
    assert client.get(reverse("games-link", args=[make_token(seat, open_phase(game))])).status_code == 302
    return client


def test_the_game_page_links_its_history_once_a_turn_resolved(client, make_game):
    game = make_game(humans=3)
    page = client.get(reverse("games-game", args=[game.pk])).content.decode()
    assert reverse("games-history", args=[game.pk]) not in page
    assert client.get(reverse("games-history", args=[game.pk])).status_code == 302  # nothing to look back at
    organise.resolve_now(game)
    page = client.get(reverse("games-game", args=[game.pk])).content.decode()
    assert f'href="{reverse("games-history", args=[game.pk])}"' in page


def test_each_earlier_turn_shows_its_board_its_log_and_the_readers_own_order(client, make_game):
    game = make_game(humans=3, engine="piraeus", seed=11)
    states = {}
    for _ in range(4):
        game.refresh_from_db()
        states[game.phase_number] = game.state
        play(game, 1)
    Event.objects.create(game=game, phase_number=2, seq=9000, seat=1, text="Only seat 2 reads this.")
    Event.objects.create(game=game, phase_number=2, seq=9001, seat=0, text="Only seat 1 reads this.")
    as_seat(client, game, 1)
    url = reverse("games-history", args=[game.pk])

    latest = client.get(url)  # without ?phase: the latest resolved turn
    assert latest.context["shown"].number == 4 and latest.context["later"] is None
    response = client.get(url, {"phase": 2})
    context = response.context
    assert context["view"] == turns.engine_of(game).view(states[2], 1)
    assert (context["earlier"].number, context["later"].number) == (1, 3)
    assert [p.number for p in context["phases"]] == [1, 2, 3, 4]
    logged = list(game.events.filter(phase_number=2).exclude(seat=0).order_by("seq").values_list("text", flat=True))
    assert [line.text for line in context["events"]] == logged
    body = response.content.decode()
    assert "Only seat 2 reads this." in body and "Only seat 1 reads this." not in body
    assert context["read_back"] is not None and "Your order, as the game read it" in body
    assert context["read_back"].lines[0] in body
    assert 'href="?phase=1" rel="prev"' in body and 'href="?phase=3" rel="next"' in body


def test_a_spectator_sees_the_public_board_and_log_and_no_order(client, make_game):
    game = make_game(humans=3, engine="piraeus", seed=11)
    first = dict(game.state)
    play(game, 2)
    Event.objects.create(game=game, phase_number=1, seq=9000, seat=0, text="A private line.")
    response = client.get(reverse("games-history", args=[game.pk]), {"phase": 1})
    assert response.context["view"] == turns.engine_of(game).view(first, None)
    assert response.context["read_back"] is None and response.context["seat"] is None
    assert "A private line." not in response.content.decode()


@pytest.mark.parametrize("asked", ["0", "99", "x", "-1"])
def test_a_turn_that_is_not_an_earlier_one_is_not_found(client, make_game, asked):
    game = make_game(humans=3)
    play(game, 2)
    assert client.get(reverse("games-history", args=[game.pk]), {"phase": asked}).status_code == 404
    assert client.get(reverse("games-history", args=[game.pk]), {"phase": "3"}).status_code == 404  # still open


def test_a_turn_the_replay_cannot_rebuild_says_so_and_keeps_its_log(client, make_game):
    game = make_game(humans=3, engine="piraeus", seed=11)
    play(game, 3)
    # As if the rules had changed since phase 2 was played: the replay reaches another phase there.
    Phase.objects.filter(game=game, number=2).update(name="Day 1 — a phase the rules no longer have")
    assert history.replay(game, 1).state is not None
    assert history.replay(game, 2).state is None and history.replay(game, 3).state is None
    response = client.get(reverse("games-history", args=[game.pk]), {"phase": 3})
    assert response.status_code == 200 and response.context["view"] is None
    body = response.content.decode()
    assert "can no longer be rebuilt" in body
    assert all(line.text in body for line in response.context["events"]) and response.context["events"]


@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_the_replay_rebuilds_the_state_every_phase_was_played_in(make_game, slug):
    game = make_game(humans=3, engine=slug, seed=23)
    states = {}
    for _ in range(8):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        states[game.phase_number] = game.state
        play(game, 1, seed=slug)
    for number, state in states.items():
        assert history.replay(game, number).state == state, number


def test_a_game_with_table_talk_options_shows_its_earlier_turns(client, make_game):
    # The press options are the server's, not the engine's: the replay sets the game up without them, as
    # turns.create_game did (the engine refuses an option it does not know).
    game = make_game(humans=3, engine="piraeus", options={"press": "public", "publish_press": "yes"})
    play(game, 1)
    as_seat(client, game, 0)
    response = client.get(reverse("games-history", args=[game.pk]), {"phase": 1})
    assert response.status_code == 200
    assert response.context["view"] is not None
