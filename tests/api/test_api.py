"""The JSON API (/api/v1/, games/api/) played the way a client plays it: a token from its player, the prompt as a
JSON Schema, orders checked, stored, revised and confirmed through the same service layer as the page, with the
page's refusals as RFC 9457 problem details; tokens act for their player's seats only, read-only tokens read,
sessions keep CSRF, and a token over its rate is told when to come back."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from openapi_spec_validator import validate

from games.api import tokens
from games.api.models import Token
from games.models import Game, Order, Player, Seat
from games.play import orders, organise, turns
from games.talk.models import Message, Report
from tests.support.accounts import signed_in
from tests.support.api import Api, token_for
from tests.support.phases import open_phase
from tests.support.phoenician import phoenician

pytestmark = pytest.mark.django_db(transaction=True)
PROBLEM = "application/problem+json"


def seat_api(game: Game, number: int, scope: str = "play") -> Api:
    seat = Seat.objects.select_related("player").get(game=game, number=number)
    assert seat.player is not None
    return Api(token_for(seat.player, scope))


def refused(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["type"].startswith("urn:pbem:problem:") and body["detail"]
    return body


def orders_of(game: Game) -> list[tuple[int, int, Any]]:
    return sorted(Order.objects.filter(phase__game=game).values_list("seat__number", "revision", "data"))


def test_my_games_lists_my_seats_owed_first(make_game: Any) -> None:
    first, second = make_game(humans=3), make_game(humans=3, seed=5)
    api = seat_api(first, 0)
    orders.submit_order(Seat.objects.get(game=first, number=0), 1, {"role": "buyer"})
    rows = api.get("/games").json()
    assert [(row["game"]["id"], row["owes"], row["seat"]["submitted"]) for row in rows] == [
        (second.pk, True, False),
        (first.pk, False, True),
    ]
    me = Seat.objects.get(game=first, number=0).player_id
    assert api.get("/me").json() == {"id": me, "name": "Player 1", "bot": False, "scope": "play"}


def test_a_game_as_my_seat_sees_it(make_game: Any) -> None:
    game = make_game(humans=3)
    engine = turns.engine_of(game)
    body = seat_api(game, 1).get(f"/games/{game.pk}").json()
    assert body["seat"]["number"] == 1 and body["view"] == engine.view(game.state, 1)
    assert [row["number"] for row in body["table"]] == [0, 1, 2] and body["own_order"] is None
    assert body["phase"]["number"] == 1 and body["game"]["engine"] == "piraeus"


def test_the_prompt_is_a_json_schema_and_an_order_is_checked_stored_and_revised(make_game: Any) -> None:
    game = make_game(humans=3)
    api = seat_api(game, 0)
    prompt = api.get(f"/games/{game.pk}/prompt").json()
    schema = prompt["order_schema"]
    assert schema["$schema"].endswith("2020-12/schema") and schema["required"] == ["role"]
    assert {c["const"] for c in schema["properties"]["role"]["oneOf"]} == {"buyer", "seller"}
    checked = api.post(f"/games/{game.pk}/order/check", {"phase": 1, "order": {"role": "buyer"}})
    assert checked.status_code == 200 and not checked.json()["needs_confirmation"]
    assert not Order.objects.filter(phase__game=game).exists(), "a check stores nothing"
    stored = api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}}).json()
    assert stored["message"] == "Order stored and sealed. You can change it until the turn resolves."
    revised = api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "seller"}}).json()
    assert revised["revised"] and revised["message"].startswith("Order changed.")
    assert orders_of(game) == [(0, 2, {"role": "seller"})]
    assert api.get(f"/games/{game.pk}/order").json()["order"] == {"role": "seller"}


def test_refusals_carry_the_pages_messages_and_store_nothing(client: Client, make_game: Any) -> None:
    """The same wrong order through the page and through the API: the same words, and nothing stored."""
    game = make_game(humans=2, engine="genoa", seed=4)
    phase = open_phase(game)
    number = int(next(iter(phase.prompts)))
    prompt = phase.prompt_for(number)
    assert prompt is not None
    typed = {spec["name"]: "fly to the moon" if spec["kind"] == "steps" else "" for spec in prompt["fields"]}
    api = seat_api(game, number)
    body = refused(api.put(f"/games/{game.pk}/order", {"phase": phase.number, "order": typed}), 422)
    signed_in(client, game, number)
    page = client.post(
        reverse("games-order", args=[game.pk]), {"phase": phase.number, "how": "typed", **typed}, follow=True
    )
    assert body["detail"] in page.content.decode().replace("&#x27;", "'").replace("&quot;", '"')
    shape = refused(api.put(f"/games/{game.pk}/order", {"phase": phase.number, "order": {"nonsense": 1}}), 422)
    assert "has no field 'nonsense'" in shape["detail"]
    malformed = refused(api.put(f"/games/{game.pk}/order", {"phase": "one"}), 422)
    assert malformed["type"] == "urn:pbem:problem:request-shape"
    # A field is named as the caller wrote it, not by where django-ninja found it (body.body.phase)
    assert {error["field"] for error in malformed["errors"]} == {"phase", "order"}
    assert malformed["detail"].startswith(("phase: ", "order: "))
    assert orders_of(game) == []


def test_an_order_for_a_turn_that_moved_on_is_refused(make_game: Any) -> None:
    game = make_game(humans=3)
    api = seat_api(game, 0)
    for number in range(3):
        orders.submit_order(Seat.objects.get(game=game, number=number), 1, {"role": "buyer"})
    assert open_phase(game).number == 2
    before = orders_of(game)
    body = refused(api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "seller"}}), 409)
    assert body["detail"] == "That turn is no longer open, so nothing was stored."
    assert orders_of(game) == before


def test_a_one_seat_turn_is_read_back_then_confirmed(make_game: Any) -> None:
    game, number = phoenician(make_game)
    api = seat_api(game, number)
    phase = open_phase(game)
    body = {"phase": phase.number, "order": {"steps": "pass"}}
    assert refused(api.put(f"/games/{game.pk}/order", body), 409)["type"].endswith("confirmation-needed")
    checked = api.post(f"/games/{game.pk}/order/check", body).json()
    assert checked["needs_confirmation"] and "You do nothing this turn" in " ".join(checked["read_back"]["warnings"])
    assert not Order.objects.filter(phase=phase).exists()
    other = seat_api(game, 1 - number)
    stolen = other.post(f"/games/{game.pk}/order/confirm", {"confirmation": checked["confirmation"]})
    assert refused(stolen, 409)["detail"].startswith("That confirmation is too old or not yours")
    stored = api.post(f"/games/{game.pk}/order/confirm", {"confirmation": checked["confirmation"]}).json()
    assert stored["complete"] and stored["message"] == "Order stored. Every order is in: the turn has been resolved."
    assert open_phase(game).number == phase.number + 1
    again = api.post(f"/games/{game.pk}/order/confirm", {"confirmation": checked["confirmation"]})
    refused(again, 409)


def test_steps_are_offered_one_at_a_time(make_game: Any) -> None:
    game, number = phoenician(make_game)
    api = seat_api(game, number)
    first = api.get(f"/games/{game.pk}/prompt/steps", data={"field": "steps"}).json()
    assert first["choices"] and first["steps"] == []
    step = first["choices"][0]["value"].replace("{n}", str((first["choices"][0]["amount"] or [0])[0]))
    after = api.get(f"/games/{game.pk}/prompt/steps", data={"field": "steps", "steps": step}).json()
    assert after["steps"] == [step]
    refused(api.get(f"/games/{game.pk}/prompt/steps", data={"field": "nothing"}), 422)


def test_a_read_only_token_reads_and_changes_nothing(make_game: Any) -> None:
    game = make_game(humans=3)
    api = seat_api(game, 0, scope="read")
    assert api.get(f"/games/{game.pk}/prompt").status_code == 200
    body = refused(api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}}), 403)
    assert "read only" in body["detail"]
    refused(api.post(f"/games/{game.pk}/talk", {"text": "hello"}), 403)
    assert orders_of(game) == [] and not Message.objects.exists()


def test_a_token_acts_for_its_players_seats_only(make_game: Any) -> None:
    game = make_game(humans=3)
    api = seat_api(game, 0)
    other = make_game(humans=0, bots=3, seed=9)
    refused(api.put(f"/games/{other.pk}/order", {"phase": 1, "order": {"role": "buyer"}}), 403)
    refused(api.get(f"/games/{game.pk + 1000}/prompt"), 404)
    organise.replace_player(Seat.objects.get(game=game, number=0), "newcomer@example.com", "Newcomer")
    body = refused(api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}}), 403)
    assert "no longer yours" in body["detail"]
    assert api.get("/games").json() == []
    assert orders_of(game) == []


def test_a_revoked_or_unknown_token_is_not_signed_in(make_game: Any) -> None:
    game = make_game(humans=3)
    seat = Seat.objects.select_related("player").get(game=game, number=0)
    assert seat.player is not None
    made = tokens.make(seat.player, "phone", "play")
    assert Token.objects.get().digest != made.secret and made.secret not in str(list(Token.objects.values()))
    assert Api(made.secret).get("/games").status_code == 200
    tokens.revoke(seat.player, made.token.pk)
    body = refused(Api(made.secret).get("/games"), 401)
    assert "Bearer" in Api(made.secret).get("/games")["WWW-Authenticate"] and body["title"] == "Not signed in"
    refused(Api("pbem_" + "x" * 43).get("/games"), 401)
    refused(Api().get("/games"), 401)
    # Every method: a token the server does not know is not signed in, never a CSRF refusal (the session's)
    for secret in (made.secret, "pbem_" + "x" * 43):
        unknown = Api(secret, client=Client(enforce_csrf_checks=True))
        order = {"phase": 1, "order": {"role": "buyer"}}
        for response in (
            unknown.put(f"/games/{game.pk}/order", order),
            unknown.post(f"/games/{game.pk}/order/check", order),
            unknown.post(f"/games/{game.pk}/talk", {"text": "hello"}),
            unknown.get(f"/games/{game.pk}"),
        ):
            assert refused(response, 401)["type"] == "urn:pbem:problem:not-signed-in"
    assert orders_of(game) == []


def test_a_token_over_its_rate_is_told_when_to_come_back(make_game: Any, settings: Any) -> None:
    settings.PBEM_API_RATE, settings.PBEM_API_BURST = 6, 3  # one call every 10 s, three at once
    game = make_game(humans=3)
    api = seat_api(game, 0)
    assert [api.get("/me").status_code for _ in range(3)] == [200, 200, 200]
    limited = api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}})
    body = refused(limited, 429)
    assert 1 <= int(limited["Retry-After"]) <= 10 and "6 calls a minute" in body["detail"]
    assert orders_of(game) == [], "a refused call changes nothing"
    other = seat_api(game, 1)  # each token has its own rate
    assert other.get("/me").status_code == 200


def test_sessions_keep_csrf_and_tokens_do_not_need_it(make_game: Any) -> None:
    game = make_game(humans=3)
    browser = signed_in(Client(enforce_csrf_checks=True), game, 0)
    session = Api(client=browser)
    assert session.get(f"/games/{game.pk}/prompt").status_code == 200
    body = refused(session.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}}), 403)
    assert "CSRF" in body["detail"] and orders_of(game) == []
    page = browser.get(reverse("games-game", args=[game.pk])).content.decode()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found is not None
    headers = {"X-CSRFToken": found.group(1)}
    assert (
        session.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "buyer"}}, headers=headers).status_code
        == 200
    )
    token = Api(token_for(Seat.objects.get(game=game, number=1).player), client=Client(enforce_csrf_checks=True))  # type: ignore[arg-type]
    assert token.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "seller"}}).status_code == 200
    assert [row[0] for row in orders_of(game)] == [0, 1]


def test_earlier_turns_as_my_seat_saw_them(make_game: Any) -> None:
    game = make_game(humans=3)
    for number in range(3):
        orders.submit_order(Seat.objects.get(game=game, number=number), 1, {"role": ("buyer", "seller")[number % 2]})
    api = seat_api(game, 1)
    assert api.get(f"/games/{game.pk}/turns").json() == [{"number": 1, "name": "Day 1 — planning"}]
    turn = api.get(f"/games/{game.pk}/turns/1").json()
    assert turn["read_back"]["lines"] and turn["view"] is not None and turn["log"]
    refused(api.get(f"/games/{game.pk}/turns/7"), 404)


def test_each_log_line_comes_as_text_and_as_the_engines_message(make_game: Any) -> None:
    game = make_game(humans=3)
    for number in range(3):
        orders.submit_order(Seat.objects.get(game=game, number=number), 1, {"role": ("buyer", "seller")[number % 2]})
    api = seat_api(game, 1)
    log = api.get(f"/games/{game.pk}").json()["log"]
    tokens = next(line for line in log if line["text"].startswith("Tokens revealed."))
    assert tokens["message"]["id"] == "Tokens revealed. Sellers: {sellers}. Buyers: {buyers}."
    # The sellers are a people's name (a term, with its context), a list of them, or "nobody".
    assert tokens["message"]["params"]["sellers"]["context"] in ("piraeus people", "list", "piraeus")
    german = api.get(f"/games/{game.pk}", headers={"Accept-Language": "de"}).json()["log"]
    assert any(line["text"].startswith("Marker aufgedeckt.") for line in german), german
    assert [line["message"] for line in german] == [line["message"] for line in log]
    assert all(line["message"] and line["message"]["id"] for line in log)


def test_a_token_answers_in_its_players_language_unless_the_request_asks_for_another(make_game: Any) -> None:
    """docs/api.md, "Words": Accept-Language naming a language we speak wins; else the token's player's language
    (My games); else English. The player's language comes with the token's own statement (tests/api/test_queries.py
    counts the order PUT's)."""
    game = make_game(humans=3)
    Player.objects.filter(seats__game=game, seats__number=1).update(language="de")
    api = seat_api(game, 1)
    german = api.get(f"/games/{game.pk}")
    assert german["Content-Language"] == "de" and german.json()["phase"]["name"] == "Tag 1 — Planung"
    refused = api.put(f"/games/{game.pk}/order", {"phase": 1, "order": {"role": "pirate"}})
    assert refused.status_code == 422 and refused["Content-Language"] == "de", refused.content
    french = api.get(f"/games/{game.pk}", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert french["Content-Language"] == "fr" and french.json()["phase"]["name"] == "Jour 1 — préparation"
    unspoken = api.get(f"/games/{game.pk}", headers={"Accept-Language": "ja"})
    assert unspoken["Content-Language"] == "de"  # a language we do not speak asks for none: the player's
    english = seat_api(game, 2).get(f"/games/{game.pk}")  # a player who chose no language
    assert english["Content-Language"] == "en" and english.json()["phase"]["name"] == "Day 1 — planning"


def test_table_talk_within_the_games_options(make_game: Any) -> None:
    game = make_game(humans=3, options={"press": "public"})
    writer, reader = seat_api(game, 0), seat_api(game, 1)
    body = refused(writer.post(f"/games/{game.pk}/talk", {"text": "psst", "to": [1]}), 422)
    assert body["detail"] == "In this game messages go to the whole table; private messages are not allowed."
    sent = writer.post(f"/games/{game.pk}/talk", {"text": "Good luck, all"}).json()
    talk = reader.get(f"/games/{game.pk}/talk").json()
    assert [m["text"] for m in talk["messages"]] == ["Good luck, all"] and not talk["private_allowed"]
    assert reader.post(f"/games/{game.pk}/talk/{sent['id']}/report", {"reason": "rude"}).status_code == 204
    refused(writer.post(f"/games/{game.pk}/talk/{sent['id']}/report", {}), 422)  # one's own message
    assert Report.objects.count() == 1 and Message.objects.count() == 1
    silent = make_game(humans=3, seed=8, options={"press": "none"})
    refused(seat_api(silent, 0).get(f"/games/{silent.pk}/talk"), 404)


def test_the_schema_is_openapi_3_1_with_problem_details_and_browsable_docs() -> None:
    schema = Client().get("/api/v1/openapi.json").json()
    assert schema["openapi"].startswith("3.1")
    validate(schema)  # what SDK generators check first: among others, every operationId unique
    ids = [operation["operationId"] for path in schema["paths"].values() for operation in path.values()]
    assert len(ids) == len(set(ids)) and {"propose", "propose_vote"} <= set(ids)
    put = schema["paths"]["/api/v1/games/{game_id}/order"]["put"]
    assert put["operationId"] == "put_order" and PROBLEM in put["responses"]["422"]["content"]
    docs = Client().get("/api/v1/docs")
    assert docs.status_code == 200 and b"swagger-ui-bundle.js" in docs.content and b"cdn" not in docs.content
