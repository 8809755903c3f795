"""Issue 39: Genoa's whole city reads on a 390 × 844 phone without a swipe. At every stop of a seeded random game
(tests/support/game_renders.py: the start, the first resolution, the first phase of each prompt kind, every few
phases and the end), every seat's and a spectator's game page, drawn in Chromium at 390 px with the site's sheet,
shows all eight columns inside the window, its map's frame does not scroll sideways, no text of the map is under
11 px (the board's smallest, as issue 29 asks), and no text runs out of the square or building it names. Below
379 px the map keeps its 11 px text and its frame scrolls, with the hint that says so. Skips without Chromium
unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

from typing import Any

from games.engines.genoa.map import BUILDING_NAMES
from tests.support.browser import (
    HEIGHT,
    PHONE,
    SCREENSHOTS,
    frames_scrolling,
    outside_window,
    small_text,
    text_sizes,
    texts_out_of_tiles,
)
from tests.support.game_renders import PLAYERS, pages, points, seat_clients

CITY = ".board svg.city"
COLUMNS = f"{CITY} text.column"


def test_genoas_whole_city_reads_on_a_390_px_phone_without_a_swipe(chromium, make_game):
    game = make_game(humans=PLAYERS, engine="genoa", seed=47)
    clients = seat_clients(game)
    problems: list[str] = []
    drawn: set[str] = set()
    view: Any = chromium.new_page(viewport={"width": PHONE, "height": HEIGHT[PHONE]})
    try:
        for stop, phase in enumerate(points(game, seed="phone:city")):
            at = phase.name if phase is not None else "the end"
            for read in pages(game, phase, clients):
                view.set_content(read.content)
                who = f"{at}, {'a spectator' if read.seat is None else f'seat {read.seat}'}"
                columns = view.locator(COLUMNS).all_text_contents()
                if columns != [str(x) for x in range(1, 9)]:
                    problems.append(f"{who}: the map's columns are {columns}")
                outside = outside_window(view, f"{CITY}, {COLUMNS}")
                problems += [f"{who}: {what} is not wholly shown" for what in outside]
                problems += [f"{who}: {frame} scrolls sideways" for frame in frames_scrolling(view, ".board .pan")]
                problems += [f"{who}: {text} is under 11 px" for text in small_text(view, CITY)]
                problems += [f"{who}: {text} runs out of its tile" for text in texts_out_of_tiles(view, ".board")]
                drawn |= {text for text, _ in text_sizes(view, CITY)}
                if SCREENSHOTS and read.seat == 0:  # the map as a phone shows it, at each stop
                    view.locator(".board").screenshot(path=f"{SCREENSHOTS}/genoa-phone-city-{stop}.png")
    finally:
        view.close()
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(dict.fromkeys(problems))
    # What was measured: every building's name, and the tower's route and discs on some stop.
    assert set(BUILDING_NAMES.values()) | {"Market"} <= drawn, sorted(drawn)
    assert "#1" in drawn and "#2" in drawn, sorted(drawn)


def test_a_narrower_phone_swipes_the_city_rather_than_shrink_its_text(chromium, make_game):
    game = make_game(humans=PLAYERS, engine="genoa", seed=47)
    view: Any = chromium.new_page(viewport={"width": 360, "height": 740})
    try:
        view.set_content(pages(game, None, {None: seat_clients(game)[None]})[0].content)
        assert small_text(view, CITY) == []
        assert frames_scrolling(view, ".board .pan"), "the frame should scroll at 360 px"
        assert outside_window(view, CITY), "the map should need a swipe at 360 px"
        assert view.locator(".board .pan-hint").is_visible()
    finally:
        view.close()
