"""The order form's posts in a real browser (tests/support/browser.py), at 390 px: a ranked choice (Manila's list of
wanted spaces) is one list the player builds and orders with its buttons, without script; after every button
and every order post the address is a page to read again (Post/Redirect/Get), so a reload shows the same form
and stores nothing. Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from games.models import Order
from games.outgoing.links import make_token
from tests.support.browser import PHONE, Findings, check, new_context, picture, watch_console
from tests.support.manila import submit
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
RED = 0


def listed(page: Any) -> list[str]:
    return page.locator("fieldset.ranked li .pick").all_inner_texts()


def test_a_ranked_list_is_built_and_ordered_with_its_buttons_and_a_reload_posts_nothing(
    chromium: Any, live_server: Any, make_game: Any
) -> None:
    game = make_game(humans=4, engine="manila", seed=11)
    for seat in range(4):
        submit(game, seat, {"bid": 0})  # nobody bids: Red takes the office for free
    duties = {"share": "none", "ware_1": "jade", "start_1": 3, "ware_2": "silk", "start_2": 3}
    submit(game, RED, {**duties, "ware_3": "nutmeg", "start_3": 3})
    phase = open_phase(game)
    game_page = live_server.url + reverse("games-game", args=[game.pk])
    findings, looking_at = Findings(), [""]
    context = new_context(chromium, PHONE)
    page = context.new_page()
    watch_console(page, looking_at, findings)

    def press(button: Any, what: str) -> None:
        with page.expect_navigation():
            button.click()
        assert page.url == game_page + "#order", f"{what}: the address is {page.url}, not the game page"
        looking_at[0] = f"the ranked list after {what}"
        check(page, looking_at[0], findings)

    try:
        page.goto(live_server.url + reverse("games-link", args=[make_token(game.seats.get(number=RED), phase)]))
        assert page.locator("fieldset.ranked select").count() == 1  # one drop-down, not six
        for value in ("pilot:large", "insurance", "port:A"):
            page.locator("fieldset.ranked select").select_option(value)
            press(page.get_by_role("button", name="Add to my list"), f"adding {value}")
        first, insurance, third = listed(page)
        assert (first, third) == ("The large pilot for 5 pesos", "Port space A for 4 pesos")
        assert insurance.startswith("The insurance office")
        press(page.get_by_role("button", name="Move up: Port space A for 4 pesos"), "moving port A up")
        assert listed(page) == ["The large pilot for 5 pesos", "Port space A for 4 pesos", insurance]
        press(page.get_by_role("button", name="Take off the list: The large pilot for 5 pesos"), "taking the pilot off")
        assert listed(page) == ["Port space A for 4 pesos", insurance]
        picture(page, "manila", PHONE, "ranked-list")  # with PBEM_SCREENSHOTS
        options = page.locator("fieldset.ranked select option").all_inner_texts()
        assert "Port space A for 4 pesos" not in options and "The large pilot for 5 pesos" in options
        page.reload()  # a GET: the same list, and nothing is stored
        assert listed(page) == ["Port space A for 4 pesos", insurance]
        assert not Order.objects.filter(phase=phase, seat__number=RED).exists()
        with page.expect_navigation():
            page.get_by_role("button", name="Submit sealed order").click()
        assert page.url == game_page
        page.reload()
        assert Order.objects.get(phase=phase, seat__number=RED).data["wants"] == ["port:A", "insurance"]
    finally:
        context.close()
    findings.assert_none()
