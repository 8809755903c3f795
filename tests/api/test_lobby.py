"""The lobby through the API (games/api/lobby_api.py): the open tables, a table, taking an open seat and leaving
it, with the lobby's own refusals as problem details that change nothing."""

from __future__ import annotations

import pytest

from games.lobby.models import Table, TableSeat
from tests.support.api import Api, token_for
from tests.support.lobby import creator, propose

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_lists_open_tables_takes_a_seat_and_leaves_it():
    table = propose(creator(), [], size=3)
    private = propose(creator("other@example.com", "Other"), [], size=3, private=True)
    listed = Api().get("/lobby/tables").json()
    assert [row["key"] for row in listed] == [table.key]  # the private one is reached by its key only
    assert Api().get(f"/lobby/tables/{private.key}").json()["private"] is True
    assert Api().get("/lobby/tables/nope").status_code == 404

    pat = creator("pat@example.com", "Pat")
    api = Api(token_for(pat))
    joined = api.post(f"/lobby/tables/{table.key}/join")
    assert joined.status_code == 200 and joined.json()["seats"][1]["label"] == "Pat"
    again = api.post(f"/lobby/tables/{table.key}/join")
    assert again.status_code == 422 and again.json()["detail"] == "You sit at this table already."
    assert api.post(f"/lobby/tables/{table.key}/leave").status_code == 204
    assert not TableSeat.objects.filter(table=table, player=pat).exists()
    refused = api.post(f"/lobby/tables/{table.key}/leave")
    assert refused.status_code == 422 and "do not sit" in refused.json()["detail"]


def test_the_last_open_seat_taken_through_the_api_starts_the_game():
    table = propose(creator(), [], size=2)
    api = Api(token_for(creator("pat@example.com", "Pat")))
    assert api.post(f"/lobby/tables/{table.key}/join").json()["status"] == "started"
    table.refresh_from_db()
    assert table.status == Table.Status.STARTED and table.game is not None
    assert Api(token_for(creator("late@example.com"))).post(f"/lobby/tables/{table.key}/join").status_code == 422


def test_a_read_only_token_or_no_token_takes_no_seat():
    table = propose(creator(), [], size=3)
    pat = creator("pat@example.com", "Pat")
    assert Api(token_for(pat, scope="read")).post(f"/lobby/tables/{table.key}/join").status_code == 403
    assert Api().post(f"/lobby/tables/{table.key}/join").status_code == 401
    assert not TableSeat.objects.filter(table=table, player=pat).exists()
