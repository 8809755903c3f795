"""Every game's board reads on a phone: at the stops of a seeded random game of each engine (the start, the first
resolution, the first phase of each prompt kind, every few phases and the end: tests/support/game_renders.py), the game
page of every seat and of a spectator, drawn in Chromium at 390 px, shows no board text smaller than 11 CSS
pixels (an SVG's text counted at the size its picture's scale draws it), no text out of the tile it stands on, and does
not scroll sideways; on the boards in LEGENDED, every number, symbol and colour is explained by the board's legend
(tests/support/browser.py unexplained_marks); and every
email sent at those stops, drawn at 360 px, shows no text under 11 px and breaks no word inside itself
("Hambu|rg"). Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

from typing import Any

import pytest

from games.engines import all_engines
from tests.support.browser import (
    PHONE,
    broken_words,
    horizontal_overflow,
    small_text,
    texts_out_of_tiles,
    unexplained_marks,
)
from tests.support.game_renders import PLAYERS, emails_due, pages, points, seat_clients

EMAIL_WIDTH = 360  # a small phone's mail app
# The boards whose every number, symbol and colour a legend explains (tests/support/browser.py unexplained_marks).
LEGENDED = {"piraeus", "manila", "genoa", "ports-of-call", "phoenician"}


@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_every_board_reads_at_390_px_and_every_email_at_360(chromium, make_game, slug):
    game = make_game(humans=PLAYERS, engine=slug, seed=47)
    clients = seat_clients(game)
    problems: list[str] = []
    boards = emails = 0
    page_view: Any = chromium.new_page(viewport={"width": PHONE, "height": 844})
    mail_view: Any = chromium.new_page(viewport={"width": EMAIL_WIDTH, "height": 740})
    try:
        for stop, phase in enumerate(points(game, seed=f"phone:{slug}")):
            at = phase.name if phase is not None else "the end"
            for read in pages(game, phase, clients):
                page_view.set_content(read.content)
                who = "a spectator" if read.seat is None else f"seat {read.seat}"
                problems += [f"{at}, {who}'s board: {text}" for text in small_text(page_view, ".board")]
                out = texts_out_of_tiles(page_view, ".board")
                problems += [f"{at}, {who}'s board: {text} out of its tile" for text in out]
                if slug in LEGENDED:
                    problems += [f"{at}, {who}'s board: {mark}" for mark in unexplained_marks(page_view)]
                if (extra := horizontal_overflow(page_view)) > 0:
                    problems.append(f"{at}, {who}'s page: {extra} px wider than the phone")
                boards += 1
            for read in emails_due(game, phase, remind=stop == 0):
                if read.what.endswith("(HTML)"):
                    mail_view.set_content(read.content)
                    where = f"{at}, {read.what} to seat {read.seat}"
                    problems += [f"{where}: {text}" for text in small_text(mail_view, "body")]
                    problems += [f"{where}: '{word}' broken inside" for word in broken_words(mail_view)]
                    emails += 1
    finally:
        page_view.close()
        mail_view.close()
    assert boards >= 12 and emails >= 6, (boards, emails)
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(dict.fromkeys(problems))


def test_the_legend_check_finds_what_no_legend_explains(chromium, make_game):
    """unexplained_marks can fail: on a real Manila board with its punt's line taken out of the legend it finds the
    punt; on a made-up board it finds an unkeyed coloured dot, a number alone and a coloured border, and not a
    band that names itself, a number in a table cell or a keyed mark its legend explains."""
    game = make_game(humans=PLAYERS, engine="manila", seed=47)
    clients = seat_clients(game)
    view: Any = chromium.new_page(viewport={"width": PHONE, "height": 844})
    try:
        for phase in points(game, seed="legend"):
            content = pages(game, phase, clients)[0].content
            if 'data-key="punt"' in content:
                break
        view.set_content(content)
        assert unexplained_marks(view) == []
        view.evaluate("document.querySelector('.legend [data-keys=punt]').remove()")
        assert unexplained_marks(view) and all("key 'punt' not in the legend" in m for m in unexplained_marks(view))
        view.set_content(
            '<div class="board"><svg><circle r="5" fill="#c0392b"/><g data-key="dice"><circle r="5" fill="#2b6cb0"/>'
            '<text>3</text></g></svg><p><span>7</span> <span style="border:2px solid #2b6cb0">Blue</span>'
            ' <span style="background:#c0392b;color:#fff">Furs</span></p><table><tr><td>8</td></tr></table>'
            '<ul class="legend"><li data-keys="dice">The dice.</li></ul></div>'
        )
        assert sorted(unexplained_marks(view)) == [
            "circle coloured rgb(192, 57, 43) (no key)",
            "number '7' (no key)",
            "span 'Blue' bordered in rgb(43, 108, 176) (no key)",
        ]
    finally:
        view.close()
