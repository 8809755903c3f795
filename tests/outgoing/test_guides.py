"""Each game's player's guide at /rules/<slug>/ (games/outgoing/guides.py): written for a player, with the sections a
newcomer needs and pictures drawn by the game page's own board template; its worked example says what its
picture shows and plays an order the game accepts, read back as the guide says; the game page and every game
email link it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.urls import reverse
from django.utils.html import escape
from django.utils.text import slugify

from games.engines import all_engines, get_engine, guide_file
from games.models import OutboundEmail
from games.outgoing import emails
from games.outgoing.guides import MARKDOWN, PICTURE, example_state
from tests.support.phases import open_phase

SECTIONS = ("The goal", "How it is played here", "What the board shows", "A worked example", "Scoring")
# What a player should never have to read: the developers' files and words.
DEVELOPERS = ("RULES.md", "FACTS", "tests/", "engine", "rulebook", "`", "seed")


@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_every_game_has_a_players_guide_with_its_board_at_its_rules_address(client: Any, slug: str) -> None:
    engine = get_engine(slug)
    page = client.get(reverse("games-rules", args=[slug]))
    assert page.status_code == 200
    body = page.content.decode()
    assert f"<h1>How to play {escape(engine.title)}</h1>" in body
    # Each section's heading carries its id (its words as GitHub spells them), so a link lands on it.
    assert all(f'<h2 id="{slugify(section)}">{section}</h2>' in body for section in SECTIONS)
    article = body.split("<article>", 1)[1].split("</article>", 1)[0]
    assert not [word for word in DEVELOPERS if word in re.sub(r"<[^>]+>", " ", article)]
    # The picture is the game page's board, drawn for the guide's example game as its first seat sees it.
    found = re.search(r"\[board: (\d+) players, seed (\d+), after (\d+) turns?\]", guide_file(slug).read_text())
    assert found, "a guide shows at least one board"
    players, seed, played = (int(group) for group in found.groups())
    state = example_state(engine, players, seed, played)
    assert '<figure class="card board"' in article and escape(engine.phase_name(state)) in article
    assert "[board:" not in article


def test_a_guide_renders_its_html_as_text() -> None:
    html = MARKDOWN.render('A <script>alert(1)</script> and <img src=x onerror="x()"> [x](javascript:alert(1))')
    assert "<script" not in html and "<img" not in html and "<a" not in html  # text, not elements nor a link
    assert "&lt;script&gt;" in html
    assert PICTURE.fullmatch("<p>[board: 3 players, seed 8, after 1 turn]</p>")


def test_no_guide_for_an_unknown_game(client: Any) -> None:
    assert client.get(reverse("games-rules", args=["chess"])).status_code == 404


def example(slug: str, players: int, seed: int, played: int) -> tuple[Any, Any, dict[str, Any]]:
    """The guide's example game, checked to be the one its picture draws; its engine, state and seat 0's view."""
    assert f"[board: {players} players, seed {seed}, after {played} turn" in guide_file(slug).read_text()
    engine = get_engine(slug)
    state = example_state(engine, players, seed, played)
    return engine, state, engine.view(state, 0)


def read_back(engine: Any, state: Any, order: dict[str, Any]) -> str:
    read = engine.read_back(state, 0, engine.validate(state, 0, order))
    return " ".join(read.lines + read.warnings)


def test_the_piraeus_example_is_what_its_picture_shows() -> None:
    engine, state, view = example("piraeus", 3, 8, 2)
    assert (view["country"], view["cash"], view["role"]) == ("Indians", 10, "buyer")
    greek_row = [(card["good"], card["price"]) for card in view["greek_row"]]
    assert greek_row == [("Spices", 8), ("Jewelry", 7), ("Spices", 8)]
    assert view["foreign_row"] == [] and sorted(view["prices"]) == [6, 6, 6, 6, 7, 8]
    others = [(p["country"], p["role"]) for p in view["players"][1:]]
    assert others == [("Egyptians", "seller"), ("Barbarians", "buyer")]
    assert "Jewelry" in read_back(engine, state, {"card": "G2"})


def test_the_manila_example_is_what_its_picture_shows() -> None:
    engine, state, view = example("manila", 3, 8, 2)
    assert view["harbor_master"]["name"] == "Blue"
    routes = [(r["number"], r["ware"], r["pos"]) for r in view["routes"]]
    assert routes == [(1, "silk", 4), (2, "jade", 1), (3, "ginseng", 4)]
    assert (view["you"]["cash"], view["you"]["left"]) == (30, 4)
    assert [share["ware"] for share in view["you"]["shares"]] == ["nutmeg", "ginseng"]
    wants = {"wants": ["punt:ginseng", "punt:silk", "port:C"], "take_loans": 0}
    said = read_back(engine, state, wants)
    assert said.startswith("You want the ginseng punt, then the silk punt, then port space C")


def test_the_genoa_example_is_what_its_picture_shows() -> None:
    engine, state, view = example("genoa", 3, 8, 1)
    assert (view["merchant"], view["start"], view["roll"], view["ducats"]) == ("Red", "Park", [8, 4], 130)
    assert [(o["from"], o["text"]) for o in view["offers"]] == [
        ("Blue", "Villa Monetti: 14 ducats"),
        ("Green", "Street 7-6: 13 ducats"),
        ("Green", "Metals: 4 ducats + gained"),
        ("Green", "City Hall: 3 ducats"),
    ]
    route = "Park; Villa Monetti = Blue; Street 7-6 = Green; Drinks = me"
    said = read_back(engine, state, {"route": route, "tiles": ""})
    assert "Blue takes the action (it delivers a large order naming it" in said and "pays you 14 ducats" in said
    assert "accept Green's offer of 13 ducats" in said
    assert "Drinks: you take the action (it gives ale and wine)" in said  # what the guide says it gives


def test_the_ports_of_call_example_is_what_its_picture_shows() -> None:
    engine, state, view = example("ports-of-call", 3, 8, 3)
    assert (view["players"][0]["home"], view["me"]["action_points"]) == ("New York", 3)
    assert [(s["id"], s["cargo_text"], s["where"]) for s in view["my_ships"]] == [
        ("S1", "steel", "in New York"),
        ("L1", "steel, steel", "in New York"),
    ]
    assert [o["label"] for o in view["players"][0]["orders"]] == ["Quebec (wind turbines + electronics)"]
    said = read_back(engine, state, {"actions": "move S1 London 3; move L1 London 2; produce New York"})
    assert "2 of 5 spaces from London" in said and "3 of 5 spaces from London" in said
    assert "$280M" in said and "2 action points unused" in said


def test_the_phoenician_example_is_what_its_picture_shows() -> None:
    engine, state, view = example("phoenician", 3, 8, 5)
    me = next(player for player in view["players"] if player["is_viewer"])
    assert (me["square"], me["centre"], me["gold"], me["hold_text"]) == ("G1", "Egypt", 10, "empty")
    assert view["drawn"] == "Grain, Sail South, Sail NE"
    assert view["hand_text"] == "Grain, Wine, Row, 2 Sail South, Sail East, Sail NE, Sail SE"
    assert next(cell for row in view["rows"] for cell in row["cells"] if cell["square"] == "G3")["kind"] == "land"
    said = read_back(engine, state, {"steps": "buy; sail SE 1; sail S 2; row SW; sell grain"})
    assert "row south-west to G5 (Greece)" in said and "sell Grain for 3 gold (you will have 12)" in said


@pytest.mark.django_db
def test_the_game_page_and_every_game_email_link_the_guide(client: Any, make_game: Any) -> None:
    game = make_game(humans=3)
    guide = reverse("games-rules", args=["piraeus"])
    page = client.get(reverse("games-game", args=[game.pk])).content.decode()
    assert f'<a href="{guide}">How to play</a>' in page
    seat = game.seats.select_related("player").get(number=0)
    OutboundEmail.objects.create(  # a reminder beside the turn emails: every game email has the same foot
        game=game, phase=open_phase(game), seat=seat, kind="reminder", to=seat.player.email, events_upto=0
    )
    mail.outbox.clear()
    emails.send_pending(game.pk)
    assert len(mail.outbox) == 4
    message: Any  # Django's outbox holds the messages the backend was given
    for message in mail.outbox:
        html = message.alternatives[0][0]
        assert f"How to play Port of Piraeus: https://pbem.example{guide}" in message.body
        assert re.search(rf'href="https://pbem.example{guide}" style="[^"]*">How to play Port of Piraeus</a>', html)


def test_a_guide_is_read_in_the_readers_language_where_it_is_written_in_it(client: Any) -> None:
    """GUIDE.de.md beside GUIDE.md is the German guide (the apps' sections likewise), kept per language; a game
    without one falls back to its English guide. A translated heading keeps the id pages link to."""
    german = client.get(reverse("games-rules", args=["piraeus"]), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<h1>So spielst du Port of Piraeus</h1>" in german and '<h2 id="das-ziel">Das Ziel</h2>' in german
    assert '<h2 id="ending-a-game-early">Ein Spiel vorzeitig beenden</h2>' in german  # the votes' own section
    assert '<h2 id="starting-a-game-of-your-own">Ein eigenes Spiel starten</h2>' in german
    assert "Tag 1 — Handel, Runde 1" in german  # the board drawn in the reader's language too
    assert "How to play" not in german
    french = client.get(reverse("games-rules", args=["manila"]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "<h1>Comment jouer à Manila</h1>" in french and "Finir une partie avant terme" in french
    english = client.get(reverse("games-rules", args=["piraeus"])).content.decode()
    assert "<h1>How to play Port of Piraeus</h1>" in english and "So spielst du" not in english
    assert '<h2 id="ending-a-game-early">Ending a game early</h2>' in english


def test_a_game_without_a_guide_in_the_readers_language_shows_its_english_one(client: Any) -> None:
    untranslated = [
        engine.slug for engine in all_engines() if not guide_file(engine.slug, "de").name.endswith(".de.md")
    ]
    for slug in untranslated:
        page = client.get(reverse("games-rules", args=[slug]), HTTP_ACCEPT_LANGUAGE="de").content.decode()
        assert f"<h1>How to play {escape(get_engine(slug).title)}</h1>" in page
        assert "Ein Spiel vorzeitig beenden" in page  # the apps' sections are German all the same
    # Whichever games are translated by now, the fallback itself: a language no game has a guide in.
    assert guide_file("piraeus", "xx") == guide_file("piraeus")
    assert guide_file("piraeus", "de").name == "GUIDE.de.md"
