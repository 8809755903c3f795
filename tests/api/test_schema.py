"""schemathesis against the API's own OpenAPI schema (/api/v1/openapi.json), in-process through the WSGI app: for
every operation a bounded number of generated requests (valid and invalid) as a seated player with a play token,
who also created a lobby table and sits at a table with a vote open. No answer is a 5xx, every answer matches the
schema (status code, content type, body, headers), and a refused call (4xx) changes nothing: the orders,
messages, reports, phases, seats, lobby tables, invitations and votes read the same after it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from games.api.api import api
from games.lobby.models import Invitation, Table, TableSeat
from games.models import Game, Order, Phase, Seat
from games.talk.models import Message, Report
from games.votes import services as votes
from games.votes.models import Ballot, Proposal
from pbem.wsgi import application
from tests.support.api import token_for
from tests.support.lobby import propose

EXAMPLES = 12  # per operation: about 30 operations, a minute in all
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


# The schema the server serves at /api/v1/openapi.json, called in-process through the WSGI app (what
# schemathesis.openapi.from_wsgi does; its lazy fixture loader does not run under pytest 9).
schema = schemathesis.openapi.from_dict(api.get_openapi_schema())
schema.app = application


@pytest.fixture
def wsgi(settings: Any) -> Iterator[None]:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]  # schemathesis's WSGI client's host
    # Django closes the database connection after each request; inside a test's transaction it must stay open
    # (Django's own test client disconnects the same receiver).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def seated(make_game: Any, settings: Any, wsgi: None) -> tuple[Game, str]:
    settings.PBEM_API_RATE = settings.PBEM_API_BURST = 100_000  # the rate limit has its own test
    game = make_game(humans=3, options={"press": "full"})
    seat = Seat.objects.select_related("player").get(game=game, number=0)
    assert seat.player is not None
    propose(seat.player, ["invited@example.com"], size=4)  # the caller's own table, waiting for players
    other = Seat.objects.get(game=game, number=1)
    votes.propose(other.pk, other.player_id or 0, "draw")  # a vote open at the caller's table
    return game, token_for(seat.player)


def snapshot(game: Game) -> tuple[Any, ...]:
    return (
        sorted(Order.objects.values_list("seat_id", "revision", "data")),
        sorted(Message.objects.values_list("pk", "text")),
        Report.objects.count(),
        sorted(Phase.objects.filter(game=game).values_list("number", "status")),
        sorted(Seat.objects.values_list("pk", "player_id")),
        sorted(Table.objects.values_list("pk", "status")),
        sorted(TableSeat.objects.values_list("pk", "state", "player_id")),
        sorted(Invitation.objects.values_list("pk", "answer")),
        sorted(Proposal.objects.values_list("pk", "status")),
        sorted(Ballot.objects.values_list("pk", "yes")),
    )


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_answers_as_its_schema_says(case: Any, seated: tuple[Game, str]) -> None:
    game, token = seated
    first_table, first_vote = Table.objects.order_by("pk").first(), Proposal.objects.order_by("pk").first()
    assert first_table is not None and first_vote is not None
    real = {"game_id": game.pk, "key": first_table.key, "proposal_id": first_vote.pk}
    for name in set(case.path_parameters or {}) & set(real):
        case.path_parameters[name] = real[name]  # the caller's own game, table and vote: real answers, not only 404s
    before = snapshot(game)
    response = case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)
    if response.status_code >= 400:
        assert snapshot(game) == before, f"a refused {case.method} {case.path} changed something"
