"""Ending a game early through the API (games/api/votes_api.py): proposing, voting and conceding through
games.votes.services with the page's words and refusals, and reading the votes as the game page's panel shows
them: the caller's own ballot of the open vote, never anyone else's nor who proposed; a read-only token reads
but neither proposes, votes nor concedes."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Seat
from games.votes import services, views
from games.votes.models import Ballot, Proposal
from tests.support.api import Api, token_for
from tests.support.votes import page, player_at

pytestmark = pytest.mark.django_db(transaction=True)


def seat_api(game: Game, number: int, scope: str = "play") -> Api:
    seat = Seat.objects.select_related("player").get(game=game, number=number)
    assert seat.player is not None
    return Api(token_for(seat.player, scope))


def refused(response: Any, status: int, kind: str) -> str:
    assert response.status_code == status, response.content
    assert response.json()["type"] == f"urn:pbem:problem:{kind}"
    return str(response.json()["detail"])


def test_a_table_draws_by_vote_through_the_api_and_nobody_reads_another_ballot(make_game: Any) -> None:
    game = make_game(humans=3)
    one, two, three = (seat_api(game, n) for n in range(3))
    before = one.get(f"/games/{game.pk}/votes").json()
    assert before == {
        "open": None,
        "closed": [],
        "player": True,
        "may_propose": ["draw", "cancel"],
        "not_now": "",
        "concede": "",
    }
    proposed = one.post(f"/games/{game.pk}/votes", {"kind": "draw"})
    assert proposed.status_code == 200 and proposed.json()["message"] == views.PROPOSED
    vote = proposed.json()["votes"]["open"]
    assert (vote["kind"], vote["status"], vote["proposed_by_me"], vote["my_vote"]) == ("draw", "open", True, "yes")
    # Another seat sees the vote, not who proposed it nor anyone's ballot.
    seen = two.get(f"/games/{game.pk}/votes/{vote['id']}").json()
    assert (seen["proposed_by_me"], seen["my_vote"]) == (False, "")
    voted = two.post(f"/games/{game.pk}/votes/{vote['id']}/ballot", {"vote": "yes"})
    assert voted.json()["message"] == "Your vote is in: yes. Nobody else sees it."
    assert three.get(f"/games/{game.pk}/votes").json()["open"]["my_vote"] == ""
    again = two.post(f"/games/{game.pk}/votes/{vote['id']}/ballot", {"vote": "yes"})
    assert refused(again, 422, "vote-refused") == "You have voted yes already. Nothing was changed."
    last = three.post(f"/games/{game.pk}/votes/{vote['id']}/ballot", {"vote": "yes"})
    assert last.json()["message"] == "Every player agreed: the game ended in a draw."
    closed = one.get(f"/games/{game.pk}/votes").json()
    assert closed["open"] is None and closed["player"] is False
    assert [(c["status"], c["why"], c["my_vote"], c["proposed_by_me"]) for c in closed["closed"]] == [
        ("passed", "every player agreed", "", False)
    ]
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and sorted(row["rank"] for row in game.result) == [1, 1, 1]


def test_a_no_closes_the_vote_and_the_outcome_names_nobody(make_game: Any) -> None:
    game = make_game(humans=3)
    one, two = seat_api(game, 0), seat_api(game, 1)
    vote = one.post(f"/games/{game.pk}/votes", {"kind": "cancel"}).json()["votes"]["open"]
    no = two.post(f"/games/{game.pk}/votes/{vote['id']}/ballot", {"vote": "no"})
    assert no.json()["message"] == "The proposal failed. Nobody is told who voted how."
    shown = [one.get(f"/games/{game.pk}/votes").json(), two.get(f"/games/{game.pk}/votes").json()]
    assert shown[0] == shown[1]  # the proposer and the refuser read the same: nothing of either
    assert shown[0]["closed"][0]["why"] == "a player voted no" and shown[0]["may_propose"] == ["draw"]
    late = seat_api(game, 2).post(f"/games/{game.pk}/votes/{vote['id']}/ballot", {"vote": "yes"})
    assert refused(late, 422, "vote-refused") == "This vote has closed (a player voted no): your vote was not counted."
    assert refused(one.get(f"/games/{game.pk}/votes/999999"), 404, "no-vote")


def test_the_api_reads_what_the_page_shows(make_game: Any) -> None:
    game = make_game(humans=3)
    proposer = Seat.objects.get(game=game, number=0)
    assert proposer.player_id is not None
    services.propose(proposer.pk, proposer.player_id, "draw")
    shown = page(player_at(game, 1), game)
    read = seat_api(game, 1).get(f"/games/{game.pk}/votes").json()
    assert "A player proposes a draw" in shown and read["open"]["what"] == "a draw"
    assert (read["not_now"], read["may_propose"]) == ("One vote at a time.", [])


def test_a_player_concedes_through_the_api_and_a_bot_takes_the_seat(make_game: Any) -> None:
    game = make_game(humans=3)
    two = seat_api(game, 1)
    unconfirmed = two.post(f"/games/{game.pk}/concede", {"confirm": False})
    assert "Tick the box" in refused(unconfirmed, 422, "vote-refused")
    conceded = two.post(f"/games/{game.pk}/concede", {"confirm": True})
    assert conceded.status_code == 200, conceded.content
    assert conceded.json()["message"].startswith("You have left this game")
    assert conceded.json()["votes"]["player"] is False
    seat = Seat.objects.get(game=game, number=1)
    assert seat.player_id is None and seat.is_bot
    assert refused(two.post(f"/games/{game.pk}/votes", {"kind": "draw"}), 403, "not-your-seat")


def test_a_read_only_token_reads_the_votes_but_acts_on_none(make_game: Any) -> None:
    game = make_game(humans=3)
    seat_api(game, 0).post(f"/games/{game.pk}/votes", {"kind": "draw"})
    proposal = Proposal.objects.get()
    reader = seat_api(game, 1, scope="read")
    assert reader.get(f"/games/{game.pk}/votes").json()["open"]["id"] == proposal.pk
    for path, body in [
        (f"/games/{game.pk}/votes", {"kind": "cancel"}),
        (f"/games/{game.pk}/votes/{proposal.pk}/ballot", {"vote": "no"}),
        (f"/games/{game.pk}/concede", {"confirm": True}),
    ]:
        refused(reader.post(path, body), 403, "read-only-token")
    assert Ballot.objects.count() == 1 and Proposal.objects.get().status == Proposal.Status.OPEN
    assert Seat.objects.get(game=game, number=1).player_id is not None
    assert refused(Api().get(f"/games/{game.pk}/votes"), 401, "not-signed-in")
