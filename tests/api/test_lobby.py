"""The lobby through the API (games/api/lobby_api.py): proposing a table through the page's form and caps, the open
tables, a table, the caller's tables and their ready check, taking an open seat and leaving it, answering an
invitation, inviting, cancelling, a rematch; with the lobby's own refusals as problem details that change nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from games.lobby import invitations
from games.lobby.models import Invitation, Table, TableSeat
from games.models import Game, Player
from tests.support.api import Api, token_for
from tests.support.lobby import creator, invitation_links, propose

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


def start_in(days: float = 2) -> str:
    return (timezone.now() + timedelta(days=days)).isoformat()


def a_table(**extra: Any) -> dict[str, Any]:
    return {"game": "genoa", "size": 3, "start_by": start_in(), "phase_hours": 24, **extra}


def test_a_player_proposes_a_table_with_invitations_and_reads_its_ready_check():
    host = creator()
    api = Api(token_for(host))
    games = {row["slug"]: row for row in Api().get("/lobby/games").json()}
    assert games["genoa"]["min_players"] == 2 and {o["name"] for o in games["genoa"]["options"]} >= {"press"}
    made = api.post("/lobby/tables", a_table(invite=["ann@example.com"], title="Friday", options={"press": "public"}))
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["title"] == "Friday" and "Table talk: " in " ".join(body["options"])
    # The creator's view: the invited address, their own seat; an invitation went out as from the page.
    assert [(s["state"], s["label"], s["you"]) for s in body["seats"]] == [
        ("taken", "Host", True),
        ("invited", "Invited: ann@example.com, waiting for an answer", False),
        ("open", "Open: anyone signed in may take it", False),
    ]
    assert invitation_links("ann@example.com")
    assert Api().get(f"/lobby/tables/{body['key']}").json()["seats"][1]["label"] == "Invited, waiting for an answer"

    ann = creator("ann@example.com", "Ann")
    ann_api = Api(token_for(ann))
    [waiting] = ann_api.get("/lobby/mine").json()
    assert waiting["key"] == body["key"] and waiting["invited"] is True
    accepted = ann_api.post(f"/lobby/tables/{body['key']}/accept", {"name": "Annie"})
    assert accepted.status_code == 200 and accepted.json()["seats"][1]["label"] == "Annie"
    [ready] = api.get("/lobby/mine").json()  # the creator's ready check: one seat left, open
    assert (ready["status"], ready["seats_left"], ready["open_seats"]) == ("open", 1, 1)
    assert [s["state"] for s in ready["seats"]] == ["taken", "taken", "open"]
    pat = Api(token_for(creator("pat@example.com", "Pat")))
    assert pat.post(f"/lobby/tables/{body['key']}/join").json()["status"] == "started"
    assert api.get("/lobby/mine").json() == []
    table = Table.objects.get(key=body["key"])
    assert table.game is not None and table.game.options["press"] == "public"


def test_an_invitee_declines_and_the_creator_may_not_invite_that_address_again():
    host = creator()
    api = Api(token_for(host))
    key = api.post("/lobby/tables", a_table(invite=["ann@example.com"])).json()["key"]
    ann = Api(token_for(creator("ann@example.com", "Ann")))
    assert ann.post(f"/lobby/tables/{key}/decline", {"everyone": False}).status_code == 204
    again = ann.post(f"/lobby/tables/{key}/decline", {})
    assert again.status_code == 422 and again.json()["detail"] == invitations.NO_INVITATION
    refused = api.post(f"/lobby/tables/{key}/invite", {"address": "ann@example.com"})
    assert refused.status_code == 422 and "declined an invitation of yours" in refused.json()["detail"]
    invited = api.post(f"/lobby/tables/{key}/invite", {"address": "bob@example.com"})
    assert invited.status_code == 200 and invited.json()["seats"][1]["state"] == "invited"
    assert Api(token_for(creator("bob@example.com"))).post(f"/lobby/tables/{key}/cancel").status_code == 422
    cancelled = api.post(f"/lobby/tables/{key}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"


def test_proposing_is_refused_as_the_page_refuses_it_and_stores_nothing(settings):
    settings.PBEM_LOBBY_INVITES_PER_DAY = 2
    api = Api(token_for(creator()))
    cases = [
        (a_table(size=9), "size", "Genoa takes 2 to 5 players."),
        (a_table(game="chess"), "game", "There is no game 'chess'"),
        (a_table(options={"colour": "red"}), "options.colour", "Genoa has no option called 'colour' here."),
        (a_table(options={"press": "loud"}), "options.press", "Select a valid choice."),
        (a_table(invite=["not an address"]), "invite", "'not an address' is not an email address."),
        (a_table(start_by=start_in(40)), "", "The start time must be between 10 minutes and 30 days from now."),
        (a_table(size=5, invite=["a@example.com", "b@example.com", "c@example.com"]), "", "may send at most 2"),
        (a_table(title="see www.spam.example"), "", "may not hold a web or email address"),
    ]
    for body, field, message in cases:
        response = api.post("/lobby/tables", body)
        assert response.status_code == 422 and response["Content-Type"] == "application/problem+json"
        problem = response.json()
        assert problem["type"] == "urn:pbem:problem:lobby-refused" and message in problem["detail"], problem
        if field:
            assert problem["errors"][0]["field"] == field, problem
    assert not Table.objects.exists() and not Invitation.objects.exists() and not mail.outbox


def test_a_table_proposed_with_easy_bots_seats_easy_bots_and_an_unknown_level_is_refused():
    api = Api(token_for(creator()))
    made = api.post("/lobby/tables", a_table(size=3, bots=2, bot_level="easy"))
    assert made.status_code == 201, made.content
    table = Table.objects.get()
    assert table.bot_level == "easy" and table.game is not None  # the creator and bots: it starts at once
    assert set(table.game.seats.filter(is_bot=True).values_list("bot_level", flat=True)) == {"easy"}
    refused = api.post("/lobby/tables", a_table(size=3, bots=2, bot_level="genius"))
    assert refused.status_code == 422 and Table.objects.count() == 1


def test_a_table_proposed_with_a_level_for_each_bot_seat_seats_each_bot_at_its_level():
    api = Api(token_for(creator()))
    made = api.post("/lobby/tables", a_table(size=4, bots=3, bot_levels=["strong", "easy", "random"]))
    assert made.status_code == 201, made.content
    table = Table.objects.get()
    bots = table.seats.filter(state=TableSeat.State.BOT).order_by("number")
    assert [(seat.number, seat.bot_level) for seat in bots] == [(1, "strong"), (2, "easy"), (3, "random")]
    assert table.game is not None  # the creator and bots: it starts at once, its seats dealt in a random order
    levels = table.game.seats.filter(is_bot=True).values_list("bot_level", flat=True)
    assert sorted(levels) == ["easy", "random", "strong"]
    one = api.post("/lobby/tables", a_table(size=3, bots=2, bot_level="random", bot_levels=["easy"]))
    assert one.status_code == 201, one.content  # one level on the list: every bot seat
    game = Table.objects.exclude(pk=table.pk).get().game
    assert list(game.seats.filter(is_bot=True).values_list("bot_level", flat=True)) == ["easy", "easy"]


@pytest.mark.parametrize(
    "levels, field, detail",
    [
        (["strong", "genius", "easy"], "bot_levels[1]", "'genius' is not a bot level: say strong, easy or random."),
        (["strong,easy", "easy", "easy"], "bot_levels[0]", "'strong,easy' is not a bot level"),
        (["strong", "easy"], "bot_levels", "Bot levels given: 2, bot seats: 3; give one level for them all or one"),
    ],
)
def test_bad_bot_levels_through_the_api_are_refused_and_store_nothing(levels, field, detail):
    host = creator()
    response = Api(token_for(host)).post("/lobby/tables", a_table(size=4, bots=3, bot_levels=levels))
    assert response.status_code == 422, response.content
    problem = response.json()
    assert problem["errors"][0]["field"] == field and detail in problem["detail"]
    assert not Table.objects.exists() and not TableSeat.objects.exists() and not Game.objects.exists()


def test_a_bad_bot_level_through_the_api_is_refused_in_the_callers_language():
    api = Api(token_for(creator()))
    response = api.post(
        "/lobby/tables", a_table(size=4, bots=3, bot_levels=["strong", "easy"]), HTTP_ACCEPT_LANGUAGE="de"
    )
    assert response.status_code == 422 and "Angegebene Bot-Stufen: 2, Bot-Plätze: 3" in response.json()["detail"]
    assert not Table.objects.exists()


def test_a_read_only_token_reads_the_lobby_but_proposes_and_answers_nothing():
    host = creator()
    table = propose(host, ["ann@example.com"], size=3)
    ann = creator("ann@example.com", "Ann")
    reader = Api(token_for(ann, scope="read"))
    assert reader.get("/lobby/mine").json()[0]["invited"] is True
    for path, body in [
        ("/lobby/tables", a_table()),
        (f"/lobby/tables/{table.key}/accept", {}),
        (f"/lobby/tables/{table.key}/decline", {}),
        (f"/lobby/tables/{table.key}/invite", {"address": "bob@example.com"}),
    ]:
        response = reader.post(path, body)
        assert response.status_code == 403 and response.json()["type"] == "urn:pbem:problem:read-only-token", path
    assert Table.objects.count() == 1 and Invitation.objects.get().answer == Invitation.Answer.PENDING


def test_a_rematch_after_the_game_ends_invites_the_same_players_once():
    host = creator()
    table = propose(host, ["ann@example.com"], size=2)
    invitations.accept(Invitation.objects.get().pk, None, "Ann")
    table.refresh_from_db()
    assert table.game is not None
    game = table.game
    ann = Api(token_for(Player.objects.get(email="ann@example.com")))
    early = ann.post(f"/games/{game.pk}/rematch")
    assert early.status_code == 422 and early.json()["detail"] == "A rematch can be offered once the game is over."
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    stranger = Api(token_for(creator("pat@example.com")))
    assert stranger.post(f"/games/{game.pk}/rematch").status_code == 403
    made = ann.post(f"/games/{game.pk}/rematch")
    assert made.status_code == 200 and made.json()["private"] is True
    assert made.json()["seats"][1]["label"] == "Invited: host@example.com, waiting for an answer"
    assert ann.post(f"/games/{game.pk}/rematch").json()["key"] == made.json()["key"]  # nobody invited twice
    rematch = Table.objects.get(rematch_of=game)
    assert list(rematch.invitations.values_list("address", flat=True)) == ["host@example.com"]


def test_a_table_read_with_a_token_is_the_table_as_its_player_sees_it():
    host = creator()
    table = propose(host, ["ann@example.com"], size=3)
    ann = creator("ann@example.com", "Ann")
    anonymous = Api().get(f"/lobby/tables/{table.key}").json()
    assert anonymous["invited"] is False and not any(seat["you"] for seat in anonymous["seats"])
    assert Api(token_for(ann, scope="read")).get(f"/lobby/tables/{table.key}").json()["invited"] is True
    own = Api(token_for(host, scope="read")).get(f"/lobby/tables/{table.key}").json()
    assert own["seats"][0]["you"] is True and "ann@example.com" in str(own["seats"])
    assert "ann@example.com" not in str(anonymous)
    unknown = Api("pbem_not-a-token").get(f"/lobby/tables/{table.key}")
    assert unknown.status_code == 401 and unknown.json()["type"] == "urn:pbem:problem:not-signed-in"


def test_a_start_time_keeps_its_seconds():
    start = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    start = start.replace(second=41 if start.second != 41 else 17)
    created = Api(token_for(creator())).post("/lobby/tables", a_table(start_by=start.isoformat()))
    assert created.status_code == 201, created.json()
    assert Table.objects.get().start_by == start
