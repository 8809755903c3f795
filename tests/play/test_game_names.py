"""A game started without a title is called by its game's name in each reader's language (Game.name), in the
emails, pages, API and admin; an organiser's own title stays as typed (issue 40)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.core import mail
from django.utils import translation

from games.models import Game, Player
from games.play import organise
from tests.support.api import Api, token_for

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = {"en": "Genoa", "de": "Die Händler von Genua", "fr": "Les marchands de Gênes"}


def readers() -> dict[str, Player]:
    """make_game's players, made beforehand with their languages: seat 1 reads English, 2 German, 3 French."""
    return {
        language: Player.objects.create(email=f"player{n}@example.com", name=f"Player {n}", language=language)
        for n, language in enumerate(NAMES, start=1)
    }


def test_an_untitled_game_stores_no_title_and_each_reader_reads_its_games_name_in_their_language(make_game):
    people = readers()
    game = make_game(humans=3, engine="genoa")
    assert game.title == ""
    for _ in range(4):  # a turn of Genoa asks one merchant; some turns' news go to everyone
        organise.resolve_now(game)
    for language, player in people.items():
        mine = [m for m in mail.outbox if m.to == [player.email]]
        # One subject per reader, the same in every email of the game: their mail client threads them.
        assert mine and {m.subject for m in mine} == {f"{NAMES[language]} #{game.pk}"}
        assert all(f"{NAMES[language]} #{game.pk}" in m.body for m in mine)
        with translation.override(language):
            assert game.name == NAMES[language] and str(game) == f"#{game.pk} {NAMES[language]}"


def test_an_organisers_title_stays_as_typed_in_every_language(make_game):
    people = readers()
    game = make_game(humans=3, engine="genoa", title="Freitagsrunde")
    organise.resolve_now(game)
    assert {m.subject for m in mail.outbox} == {f"Freitagsrunde #{game.pk}"}
    assert {m.to[0] for m in mail.outbox} == {p.email for p in people.values()}
    for language in NAMES:
        with translation.override(language):
            assert game.name == "Freitagsrunde"


def test_the_api_gives_the_name_in_the_callers_language_and_the_title_as_typed(make_game):
    people = readers()
    untitled = make_game(humans=3, engine="genoa")
    for language, player in people.items():
        body = Api(token_for(player)).get(f"/games/{untitled.pk}").json()["game"]
        assert (body["title"], body["given_title"], body["engine"]) == (NAMES[language], "", "genoa")
        [row] = [r for r in Api(token_for(player)).get("/games").json() if r["game"]["id"] == untitled.pk]
        assert (row["game"]["title"], row["game"]["given_title"]) == (NAMES[language], "")


def test_the_admin_finds_an_untitled_game_by_its_games_name_in_english_or_the_organisers_language(
    make_game, admin_client
):
    untitled = make_game(humans=3, engine="genoa")
    titled = make_game(humans=3, engine="genoa", title="Friday")
    other = make_game(humans=3, engine="manila")
    for term, language in [("Genoa", "en"), ("Genua", "de"), ("gênes", "fr")]:
        page = admin_client.get("/admin/games/game/", {"q": term}, headers={"Accept-Language": language})
        found = {game.pk for game in page.context["cl"].result_list}
        assert untitled.pk in found and titled.pk not in found and other.pk not in found, (term, found)
    page = admin_client.get("/admin/games/game/", {"q": "Friday"})
    assert {game.pk for game in page.context["cl"].result_list} == {titled.pk}


def test_the_migration_clears_exactly_the_old_english_default(make_game):
    old_default = make_game(humans=3, engine="genoa", title="Genoa")
    typed = make_game(humans=3, engine="genoa", title="Genoa night")
    other_games_name = make_game(humans=3, engine="manila", title="Genoa")  # not this game's default
    migration = importlib.import_module("games.migrations.0026_untitled_games")
    migration.clear_defaults(apps, None)
    titles = dict(Game.objects.values_list("pk", "title"))
    assert (titles[old_default.pk], titles[typed.pk], titles[other_games_name.pk]) == ("", "Genoa night", "Genoa")
    migration.restore_defaults(apps, None)
    assert Game.objects.get(pk=old_default.pk).title == "Genoa"
