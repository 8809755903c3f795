"""A value per seat (Port of Piraeus' country of each seat, which the admin's Add game form takes as a list in
seat order) is offered by the lobby's form too: one drop-down per seat of the table, checked by the game's own
setup as the admin's form is, and kept with each seat's player when the game deals its playing order; a seat
left out at the start time takes its value with it; a rematch deals them again. The API takes the same list."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import words
from games.lobby import invitations, ready, tables
from games.lobby.forms import LOCAL_FORMAT
from games.lobby.models import Invitation, Table
from games.models import Game, Player, Seat
from tests.support.accounts import sign_in_by_email
from tests.support.api import Api, token_for
from tests.support.lobby import creator, propose

pytestmark = pytest.mark.django_db(transaction=True)


def form(seats: dict[int, str], size: int = 3, invite: str = "") -> dict[str, Any]:
    """What the page's form posts for a table of Port of Piraeus; `seats`: a country by seat (from 1)."""
    start = (timezone.now() + timedelta(days=2)).strftime(LOCAL_FORMAT)  # the host's zone is UTC
    data = {"game": "piraeus", "name": "Host", "title": "", "size": str(size), "invite": invite, "bots": "0"}
    data |= {"deadline": "length", "phase_hours": "48", "daily_at": "", "start_by": start}
    data |= {"option_press": "full", "option_publish_press": "no"}
    return data | {f"seat_option_countries_{n}": country for n, country in seats.items()}


def countries_by_player(game: Game) -> dict[str, str]:
    seats = Seat.objects.filter(game=game).select_related("player").order_by("number")
    return {
        seat.player.email if seat.player else f"bot {seat.number}": game.state["countries"][seat.number]
        for seat in seats
    }


def test_the_creator_chooses_a_country_per_seat_and_each_stays_with_its_player() -> None:
    creator()
    host = sign_in_by_email(Client(), "host@example.com")
    first = host.get(reverse("lobby-new"), {"game": "piraeus"}).content.decode()
    assert "Seats at the table, yours included" in first and "Country of seat" not in first  # the size first
    page = host.get(reverse("lobby-new"), {"game": "piraeus", "size": "3"}).content.decode()
    assert "Country of seat 1 (yours)" in page and "Country of seat 3" in page and "Dealt at random" in page
    assert page.count("Country of seat") == 3  # one drop-down per seat of the table, not one per seat possible
    posted = host.post(reverse("lobby-new"), form({1: "Romans", 2: "Persians"}, invite="ann@example.com"))
    assert posted.status_code == 302, posted.content.decode()[:2000]
    table = Table.objects.get()
    assert table.options["countries"] == ["Romans", "Persians", None]
    shown = host.get(reverse("lobby-table", args=[table.key])).content.decode()
    assert "Country of each seat: seat 1 Romans, seat 2 Persians, the others dealt at random" in shown
    invitations.accept(Invitation.objects.get().pk, None, "Ann")
    tables.join(table.pk, creator("pat@example.com", "Pat"))
    table.refresh_from_db()
    assert table.game is not None
    chosen = countries_by_player(table.game)  # the playing order is dealt at random; the countries follow
    assert (chosen["host@example.com"], chosen["ann@example.com"]) == ("Romans", "Persians")
    assert chosen["pat@example.com"] not in ("Romans", "Persians")


def test_the_game_refuses_a_country_twice_and_a_seat_the_table_does_not_have() -> None:
    creator()
    host = sign_in_by_email(Client(), "host@example.com")
    twice = host.post(reverse("lobby-new"), form({1: "Romans", 3: "Romans"}))
    assert twice.status_code == 400 and "Each country can be chosen by one seat only." in twice.content.decode()
    beyond = host.post(reverse("lobby-new"), form({5: "Romans"}))
    assert beyond.status_code == 400 and "The table has 3 seats: seat 5 is not one of them." in beyond.content.decode()
    greeks = host.post(reverse("lobby-new"), form({1: "Greeks"}))
    assert greeks.status_code == 400 and "Select a valid choice" in greeks.content.decode()
    assert not Table.objects.exists()


def test_the_games_refusal_of_an_option_reads_in_the_organisers_language() -> None:
    """The engine's refusal is a message (games/words.py refusal): the page's form and the API's problem detail
    render it in the reader's language, not in English."""
    Player.objects.filter(pk=creator().pk).update(language="de")
    host = sign_in_by_email(Client(), "host@example.com")
    twice = host.post(reverse("lobby-new"), form({1: "Romans", 3: "Romans"}))
    assert twice.status_code == 400 and "Jedes Land kann nur von einem Platz gewählt werden." in twice.content.decode()
    api = Api(token_for(Player.objects.get(email="host@example.com")))
    body = {"game": "piraeus", "size": 3, "start_by": (timezone.now() + timedelta(days=2)).isoformat()}
    refused = api.post("/lobby/tables", body | {"options": {"countries": ["Romans", None, "Romans"]}})
    assert refused.status_code == 422 and refused["Content-Language"] == "de", refused.content
    assert "Jedes Land kann nur von einem Platz gewählt werden." in refused.json()["detail"]
    french = api.post(
        "/lobby/tables",
        body | {"options": {"countries": ["Romans", None, "Romans"]}},
        headers={"Accept-Language": "fr"},
    )
    assert "Chaque pays ne peut être choisi que par une place." in french.json()["detail"]
    assert not Table.objects.exists()


def test_the_lobby_form_names_the_options_in_the_readers_language() -> None:
    """Table talk's options and a per-seat option's item (Piraeus' country) are messages, rendered in the form."""
    Player.objects.filter(pk=creator().pk).update(language="de")
    host = sign_in_by_email(Client(), "host@example.com")
    page = host.get(reverse("lobby-new"), {"game": "piraeus", "size": "3"}).content.decode()
    assert "Land von Platz 1 (deiner)" in page and "nur der Tisch" in page
    assert "Country of seat" not in page and "the table only" not in page
    with translation.override("fr"):
        assert words.game_title("Genoa") == "Les marchands de Gênes"
    with translation.override("de"):
        assert words.game_title("Genoa") == "Die Händler von Genua" and words.game_title("Manila") == "Manila"


def test_a_seat_left_out_at_the_start_time_takes_its_country_with_it() -> None:
    options = {"countries": ["Romans", None, "Chinese", "Persians"]}
    table = propose(creator(), ["ann@example.com", "bob@example.com"], engine="piraeus", size=4, options=options)
    invitations.accept(Invitation.objects.get(address="bob@example.com").pk, None, "Bob")  # seat 3
    tables.join(table.pk, creator("pat@example.com", "Pat"))  # seat 4, the open one
    assert ready.settle(table.pk, table.start_by + timedelta(minutes=1))  # Ann (seat 2) never answered
    table.refresh_from_db()
    assert table.game is not None
    assert countries_by_player(table.game) == {
        "host@example.com": "Romans",
        "bob@example.com": "Chinese",
        "pat@example.com": "Persians",
    }
    assert ready.game_options("piraeus", options, [3, 0]) == {"countries": ["Persians", "Romans"]}


def test_a_rematch_deals_the_countries_again() -> None:
    table = propose(creator(), [], engine="piraeus", size=3, bots=2, options={"countries": ["Romans", None, None]})
    table.refresh_from_db()
    assert table.game is not None
    Game.objects.filter(pk=table.game.pk).update(status=Game.Status.FINISHED)
    again = tables.rematch(Game.objects.get(pk=table.game.pk), Player.objects.get(email="host@example.com"))
    assert "countries" not in again.options


def test_the_api_takes_the_countries_as_a_list_per_seat() -> None:
    api = Api(token_for(creator()))
    offered = {row["slug"]: row for row in Api().get("/lobby/games").json()}["piraeus"]["options"]
    countries = next(option for option in offered if option["name"] == "countries")
    assert countries["kind"] == "seat-list" and countries["item"] == "country" and len(countries["choices"]) == 6
    body = {"game": "piraeus", "size": 3, "start_by": (timezone.now() + timedelta(days=2)).isoformat()}
    made = api.post("/lobby/tables", body | {"options": {"countries": [None, "Indians"]}})
    assert made.status_code == 201, made.content
    assert Table.objects.get().options["countries"] == [None, "Indians", None]
    beyond = api.post("/lobby/tables", body | {"options": {"countries": [None, None, None, "Romans"]}})
    assert beyond.status_code == 422 and beyond.json()["errors"][0]["field"] == "options.countries[3]"
    shape = api.post("/lobby/tables", body | {"options": {"countries": "Romans"}})
    assert shape.status_code == 422 and shape.json()["errors"][0]["field"] == "options.countries"
    assert Table.objects.count() == 1
