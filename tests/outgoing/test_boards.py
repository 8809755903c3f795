"""Every game's board, in the game's own folder, shows on the game page and in both bodies of every kind
of email, for a seat that owes an order, a seat that does not and a spectator, at the start, along the
way (the first phase of each prompt kind, every few phases) and at the end of a seeded random game. The
toy game of tests/support/toy_game, registered only here, renders through the same path: a new game is a folder."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape

from games import words
from games.engines import all_engines, board_templates
from games.play import turns
from tests.support.game_renders import PLAYERS, board, emails_due, pages, points, seat_clients

pytestmark = pytest.mark.usefixtures("toy_game")
GAMES = [engine.slug for engine in all_engines()] + ["toy"]


@pytest.mark.parametrize("slug", GAMES)
def test_the_board_shows_on_every_page_and_in_both_bodies_of_every_email(slug, make_game):
    game = make_game(humans=PLAYERS, engine=slug, seed=31)
    clients = seat_clients(game)
    readers: set[tuple[str, bool | None]] = set()
    kinds: set[str] = set()
    stops = 0
    for phase in points(game, seed=f"boards:{slug}"):
        stops += 1
        for read in pages(game, phase, clients):
            assert board(game, read.seat, "page") in read.content, (phase, read.seat)
            readers.add(("spectator" if read.seat is None else "player", read.owes))
            if read.owes:
                assert escape(phase.prompt_for(read.seat)["text"]) in read.content
        for read in emails_due(game, phase, remind=stops == 1):
            kinds.add(read.what.split()[0])
            if read.what.endswith("(HTML)"):
                assert board(game, read.seat, "email_html") in read.content, read.what
            elif read.what.endswith("(text)"):
                assert board(game, read.seat, "email_text") in read.content, read.what
    game.refresh_from_db()
    assert game.status == "finished" and stops >= 3
    assert {("player", True), ("player", False), ("spectator", False)} <= readers
    assert {"turn-started", "reminder", "game-over"} <= kinds


@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_each_email_board_names_its_game_as_the_readers_edition_does(slug, make_game):
    """The boards' headings named the game in English ("Genoa" in a German email); they take the catalogue's name,
    as every page does: the German and French editions' names where they differ."""
    game = make_game(humans=PLAYERS, engine=slug, seed=31)
    view = turns.engine_of(game).view(game.state, 0)
    templates = board_templates(slug)

    def heading(name: str) -> str:  # the email board's first line, as its reader sees it
        shown = render_to_string(name, {"view": view})
        return shown.split("\n</tr>")[0] if name.endswith(".html") else shown.strip().split("\n")[0]

    for language in ("en", "de", "fr"):
        with translation.override(language):
            name = words.engine_name(slug)
            assert escape(name) in heading(templates.email_html)
            assert name.upper() in heading(templates.email_text).upper()
    with translation.override("de"):
        assert ("Die Händler von Genua" in heading(templates.email_html)) == (slug == "genoa")
