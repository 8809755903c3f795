"""Races of the ending votes on PostgreSQL, with real separate connections: two proposals at once, the last
two yes votes at once, the last yes against the organiser resolving the turn. Each time one proposal is
open, and the game ends once, whichever comes first."""

from __future__ import annotations

import pytest

from games.models import Event, Game, OutboundEmail, Phase
from games.play import orders, organise
from games.votes import services
from games.votes.models import Proposal
from tests.support.phases import open_phase
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


def holder(game: Game, number: int) -> tuple[int, int]:
    seat = game.seats.get(number=number)
    assert seat.player_id is not None
    return seat.pk, seat.player_id


def test_two_proposals_at_once_open_one_vote(postgres, make_game):
    for attempt in range(3):
        game = make_game(humans=3, seed=attempt)
        results = run_together(
            lambda game=game: services.propose(*holder(game, 0), "draw"),
            lambda game=game: services.propose(*holder(game, 1), "cancel"),
        )
        assert sum(isinstance(r, services.Outcome) for r in results) == 1, results
        assert sum(isinstance(r, services.Refused) for r in results) == 1, results
        assert Proposal.objects.filter(game=game, status="open").count() == 1


def test_the_last_two_yes_votes_at_once_end_the_game_once(postgres, make_game):
    for attempt in range(3):
        game = make_game(humans=3, seed=attempt)
        proposal = services.propose(*holder(game, 0), "draw").proposal_id
        results = run_together(
            lambda game=game, proposal=proposal: services.vote(*holder(game, 1), proposal, True),
            lambda game=game, proposal=proposal: services.vote(*holder(game, 2), proposal, True),
        )
        assert [isinstance(r, services.Outcome) for r in results] == [True, True], results
        assert sorted(r.status for r in results if isinstance(r, services.Outcome)) == ["open", "passed"]
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        assert Event.objects.filter(game=game, data__ended="early").count() == 1
        assert OutboundEmail.objects.filter(game=game, kind="game-over").count() == 3


def test_the_last_yes_and_the_organisers_resolve_now_end_the_game_once(postgres, make_game):
    for attempt in range(3):
        game = make_game(humans=3, seed=attempt)
        proposal = services.propose(*holder(game, 0), "cancel").proposal_id
        services.vote(*holder(game, 1), proposal, True)
        results = run_together(
            lambda game=game, proposal=proposal: services.vote(*holder(game, 2), proposal, True),
            lambda game=game: organise.resolve_now(Game.objects.get(pk=game.pk)),
        )
        assert isinstance(results[0], services.Outcome) and results[0].status == "passed", results
        game.refresh_from_db()
        assert (game.status, game.result) == (Game.Status.FINISHED, [])
        assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()
        assert Event.objects.filter(game=game, data__ended="early").count() == 1


def test_the_last_ballot_and_the_last_order_at_once_end_the_game_once_without_a_deadlock(postgres, make_game):
    """The last order resolves the turn (inline, as `make run` runs tasks) and opens the next, whose votes re-count
    (votes.tasks.settle) locks it; the last ballot ends the game. Before one lock order for every path that ends a
    game or a phase (games/play/endings.py), the ballot could lock the game alone behind the resolution, then the
    new phase behind the re-count holding it: a deadlock, 1 in 6 bursts."""
    for attempt in range(12):  # it deadlocked within 40 tries before; each is about 1 s
        game = make_game(humans=3, seed=attempt)
        phase = open_phase(game)
        proposal = services.propose(*holder(game, 0), "draw").proposal_id
        services.vote(*holder(game, 2), proposal, True)
        seats = list(game.seats.order_by("number"))
        for seat in seats[:2]:
            orders.submit_order(seat, phase.number, {"role": "buyer"})
        results = run_together(
            lambda game=game, proposal=proposal: services.vote(*holder(game, 1), proposal, True),
            lambda seat=seats[2], number=phase.number: orders.submit_order(seat, number, {"role": "seller"}),
        )
        ballot, order = results
        assert isinstance(ballot, services.Outcome) and ballot.status == "passed", results
        assert isinstance(order, orders.Stored | orders.OrderRejected), results
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and len(game.result) == 3
        assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()
        assert Event.objects.filter(game=game, data__ended="early").count() == 1
        assert OutboundEmail.objects.filter(game=game, kind="game-over").count() == 3
