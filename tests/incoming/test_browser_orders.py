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
RED, BLUE = 0, 1


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


def test_a_genoa_offer_is_built_with_a_number_box_only_under_steps_that_take_ducats(
    chromium: Any, live_server: Any, make_game: Any
) -> None:
    """Issue 39, at 390 px from a fresh page (which, like every page, runs no script: the builder is its posts):
    the first offer item (every one offered is a new offer) has its ducats box; what is added to an offer has
    none, nor has the next row, which offers both kinds; a new offer chosen there comes back with its box and
    the question at it, and the order as built is stored."""
    game = make_game(humans=3, engine="genoa", seed=5)
    phase = open_phase(game)
    game_page = live_server.url + reverse("games-game", args=[game.pk])
    findings, looking_at = Findings(), [""]
    context = new_context(chromium, PHONE)
    page = context.new_page()
    watch_console(page, looking_at, findings)
    builder = page.locator("#steps-offers")

    def press(name: str, what: str) -> None:
        with page.expect_navigation():
            page.get_by_role("button", name=name).click()
        assert page.url.startswith(game_page), f"{what}: the address is {page.url}, not the game page"
        looking_at[0] = f"the offer builder after {what}"
        check(page, looking_at[0], findings)

    def boxes() -> list[str]:
        return [str(box.get_attribute("name")) for box in builder.locator("input[type=number]").all()]

    def choose(row: int, kind: str) -> str:
        select = builder.locator(f"select[name=offers__{row}]")
        values = select.locator("option").evaluate_all("options => options.map(o => o.value)")
        value = next(
            value for value in values if (value.endswith(": {n} ducats") if kind == "offer" else value.startswith("+ "))
        )
        select.select_option(value)
        return str(value)

    try:
        page.goto(live_server.url + reverse("games-link", args=[make_token(game.seats.get(number=BLUE), phase)]))
        check(page, "the fresh game page", findings)
        assert page.locator("script").count() == 0, "the order builder needs no script"
        assert boxes() == ["offers__0__n"], "every first offer item is a new offer, which takes ducats"
        assert builder.get_by_label("Ducats for this offer item").is_visible()
        first = choose(0, "offer")
        builder.get_by_label("Ducats for this offer item").fill("13")
        press("Add this offer item", "the first offer")
        assert boxes() == ["offers__0__n"], "the next row offers items as well as new offers: no box"
        item = choose(1, "item")
        press("Add this offer item", f"adding {item}")
        assert boxes() == ["offers__0__n"]
        other = choose(2, "offer")
        press("Add this offer item", "a new offer chosen without its ducats")
        assert boxes() == ["offers__0__n", "offers__2__n"]
        most = game.state["ducats"][BLUE]
        question = f"How many ducats? Type a whole number from 0 to {most} in this box."
        row = builder.locator("li").nth(2)
        assert row.get_by_text(question).is_visible() and row.locator("input[type=number]").input_value() == ""
        picture(page, "genoa", PHONE, "offer-ducats-asked")  # with PBEM_SCREENSHOTS
        assert not Order.objects.filter(phase=phase, seat__number=BLUE).exists()
        row.locator("input[type=number]").fill("4")
        press("Add this offer item", "the second offer's ducats")
        assert boxes() == ["offers__0__n", "offers__2__n"] and not page.locator(".errorlist").count()
        press("Submit sealed order", "submitting")
        stored = Order.objects.get(phase=phase, seat__number=BLUE).data["offers"]
        spaces = [value.partition(":")[0] for value in (first, other)]
        assert stored == f"{spaces[0]}: 13 ducats {item}; {spaces[1]}: 4 ducats"
    finally:
        context.close()
    findings.assert_none()
