"""Issue 27 in a real browser: what a player types is what is stored. For each game whose orders have a typed
syntax (Genoa, Phoenician Sea Trader, Ports of Call), a player at a table of bots plays turn after turn from a
freshly loaded game page, each turn through another of the page's inputs:

- "Type it instead" on a fresh page (the typed form's hidden "how" read "builder" there, and the typed
  order was thrown away: an empty order stored, and the one-seat turn resolved on it);
- the typed form after a step was added in the builder;
- the typed form after an order the game refused (the error shown, the typed form open with the text), then
  "Change" on the review page, which reopens the typed form with the reviewed order;
- the builder alone: "Add a step" twice, "Remove the last step", then the order submitted;
- the radio buttons of a phase without steps (a starting place), where the game asks for one.

Every turn is asked of this seat alone, so each ends on the review page, whose read-back must be the order
meant, and Confirm; the order stored must then be exactly it, and the earlier-turns page must read it back the
same. Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from playwright.sync_api import Page, expect

from games import engines, words
from games.engines.base import OrderError, ReadBack
from games.incoming import review
from games.models import Game, Order, Phase, Player
from games.outgoing.links import make_token
from games.play import orders, turns
from tests.support.browser import PHONE, Findings, check, link_in, new_context, picture
from tests.support.browser_player import ORDER_FORM, fill_choices, is_review
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
TYPED_FORM = "details form.order"
TYPED_GAMES = ["genoa", "phoenician", "ports-of-call"]
NONSENSE = "sail to the moon"


@dataclass(frozen=True)
class Meant:
    """The order a turn means, as the game reads it in the state it was played in."""

    phase: int
    order: dict[str, Any]
    read: ReadBack


def meant(game: Game, order: dict[str, Any]) -> Meant:
    game.refresh_from_db()
    number = open_phase(game).number
    checked = orders.check_order(game.seats.get(number=0), number, order)
    return Meant(number, checked.order, checked.read_back)


def steps_fields(game: Game) -> list[str]:
    prompt = open_phase(game).prompt_for(0)
    assert prompt is not None, "the player is not asked anything"
    return [spec["name"] for spec in prompt["fields"] if spec["kind"] == "steps"]


def read_back_on(page: Page) -> list[str]:
    return [line.strip() for line in page.locator(".readback > p:not(.small)").all_inner_texts()]


def open_typed(page: Page) -> None:
    if not page.locator("details:has(form.order)").evaluate("d => d.open"):
        page.get_by_text("Type it instead").click()


def type_order(page: Page, game: Game, order: dict[str, Any]) -> None:
    """Open "Type it instead" and type each steps field of `order` into its box, as a player would."""
    open_typed(page)
    for name in steps_fields(game):
        box = page.locator(f"{TYPED_FORM} textarea[name='{name}']")
        box.fill("")
        box.press_sequentially(str(order.get(name, "")), delay=0)


def submit(page: Page, form: str) -> None:
    with page.expect_navigation():
        page.locator(f"{form} >> button.primary").click()


def add_step(page: Page, field: str, option: int) -> None:
    """Choose option `option` (1: the first after the blank) of the field's last drop-down, "Add a step"."""
    fieldset = page.locator(f"#steps-{field}")
    fieldset.locator("select").last.select_option(index=option)
    with page.expect_navigation():
        fieldset.locator("button[name=add]").click()


def confirm(page: Page, wanted: Meant) -> None:
    """On the review page: it reads back the order meant; Confirm."""
    assert is_review(page), f"not the review page: {page.locator('.errorlist').all_inner_texts()}"
    assert read_back_on(page) == [*wanted.read.lines], "the review does not read back the order meant"
    with page.expect_navigation():
        page.get_by_role("button", name="Confirm").click()
    assert page.locator(".errorlist, .error-summary").count() == 0


def stored(game: Game, wanted: Meant) -> list[str]:
    """How the order stored for the turn differs from the order meant (empty: it is exactly it)."""
    order = Order.objects.get(phase__game=game, phase__number=wanted.phase, seat__number=0)
    problems = [] if order.data == wanted.order else [f"stored {order.data}, meant {wanted.order}"]
    problems += ["stored as a default"] * order.is_default
    resolved = Phase.objects.get(game=game, number=wanted.phase).status == Phase.Status.RESOLVED
    return problems + ([] if resolved else ["the turn did not resolve"])


# --- One turn per input -------------------------------------------------------------------------------------------


def typed_fresh(page: Page, game: Game, engine: Any, findings: Findings) -> Meant:
    wanted = meant(game, engine.example_order(game.state, 0))
    type_order(page, game, wanted.order)
    submit(page, TYPED_FORM)
    return wanted


def typed_after_a_builder_step(page: Page, game: Game, engine: Any, findings: Findings) -> Meant:
    wanted = meant(game, engine.example_order(game.state, 0))
    first = steps_fields(game)[0]
    options = page.locator(f"#steps-{first} select").last.locator("option").count()
    add_step(page, first, 2 if options > 2 else 1)  # another step than the example's first, where there is one
    type_order(page, game, wanted.order)
    submit(page, TYPED_FORM)
    return wanted


def typed_after_an_error_then_changed(page: Page, game: Game, engine: Any, findings: Findings) -> Meant:
    wanted = meant(game, engine.example_order(game.state, 0))
    first = steps_fields(game)[0]
    type_order(page, game, {first: NONSENSE})
    submit(page, TYPED_FORM)
    assert not is_review(page)
    expect(page.locator("details:has(form.order)")).to_have_attribute("open", "")
    refusal = page.locator(f"{TYPED_FORM} .error-summary li").all_inner_texts()
    assert refusal, "the refusal is not shown by the typed form"
    assert page.locator(f"{TYPED_FORM} textarea[name='{first}']").input_value() == NONSENSE
    check(page, f"{engine.slug}: the typed form with an error", findings)
    assert not Order.objects.filter(phase__game=game, phase__number=wanted.phase, seat__number=0).exists()
    type_order(page, game, wanted.order)
    submit(page, TYPED_FORM)
    assert read_back_on(page) == [*wanted.read.lines]
    with page.expect_navigation():
        page.get_by_role("button", name="Change").click()
    expect(page.locator("details:has(form.order)")).to_have_attribute("open", "")
    for name in steps_fields(game):
        assert page.locator(f"{TYPED_FORM} textarea[name='{name}']").input_value() == wanted.order.get(name, "")
    submit(page, TYPED_FORM)
    return wanted


def built_with_a_step_removed(page: Page, game: Game, engine: Any, findings: Findings) -> Meant:
    """The first step offered each time until the order is complete; the last one removed and chosen again."""
    field = steps_fields(game)[0]
    source = review.steps_source(game, 0)
    chain: list[str] = []
    while not (chain and source.next_steps(field, chain).complete):
        chain.append(source.next_steps(field, chain).choices[0].spelled())
    for _ in chain:
        add_step(page, field, 1)
    with page.expect_navigation():
        page.locator(f"#steps-{field} button[name=remove]").click()
    chosen = page.locator(f"#steps-{field} select").evaluate_all("selects => selects.map(s => s.value)")
    assert len([value for value in chosen if value]) == len(chain) - 1, chosen
    add_step(page, field, 1)
    wanted = meant(game, {**engine.default_order(game.state, 0), field: "; ".join(chain)})
    submit(page, ORDER_FORM)
    return wanted


def chosen_by_buttons(page: Page, game: Game, engine: Any, findings: Findings) -> Meant:
    """A phase without steps: its radio buttons (and number boxes), the first offered each time."""
    fill_choices(page)
    values = page.locator(f"{ORDER_FORM} >> input[type=radio]:checked").evaluate_all(
        "radios => Object.fromEntries(radios.map(r => [r.name, r.value]))"
    )
    wanted = meant(game, values)
    submit(page, ORDER_FORM)
    return wanted


WAYS: list[tuple[str, Callable[..., Meant]]] = [
    ("typed on a fresh page", typed_fresh),
    ("typed after a builder step", typed_after_a_builder_step),
    ("typed after an error, then changed on the review", typed_after_an_error_then_changed),
    ("built, a step removed", built_with_a_step_removed),
]


@pytest.mark.parametrize("slug", TYPED_GAMES)
def test_what_a_player_types_or_builds_is_what_is_stored(chromium, live_server, make_game, slug):
    engine = engines.get_engine(slug)
    game = make_game(humans=1, bots=engine.min_players - 1, engine=slug)
    findings = Findings()
    context = new_context(chromium, PHONE)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(live_server.url + reverse("games-link", args=[make_token(game.seats.get(number=0), open_phase(game))]))
    game_url = live_server.url + reverse("games-game", args=[game.pk])
    played: dict[str, Meant] = {}
    wrong: dict[str, list[str]] = {}
    ways = list(WAYS)
    try:
        while ways:
            page.goto(game_url)  # a fresh page each turn
            # A phase without steps (a starting place) through its buttons; the others each another way.
            name, way = ways.pop(0) if steps_fields(game) else ("chosen by its buttons", chosen_by_buttons)
            wanted = way(page, game, engine, findings)
            confirm(page, wanted)
            played[name] = wanted
            wrong[name] = stored(game, wanted)
    finally:
        context.close()
    seat = Client()
    seat.get(reverse("games-link", args=[make_token(game.seats.get(number=0), open_phase(game))]))
    for name, wanted in played.items():  # the earlier-turns page reads the stored order back the same
        html = seat.get(reverse("games-history", args=[game.pk]), {"phase": wanted.phase}).content.decode()
        missing = [line for line in wanted.read.lines if escape(line) not in html]
        wrong[name] += [f"the earlier turn's page does not read back {missing}"] * bool(missing)
    assert {name: problems for name, problems in wrong.items() if problems} == {}
    assert set(played) >= {name for name, _ in WAYS}
    findings.assert_none()


# --- In the player's language -------------------------------------------------------------------------------------

# A step the game cannot read, typed in the player's words: a street that is not on the map.
MISTYPED = {"de": "Straße 9-9 = ich", "fr": "Rue 9-9 = moi"}


@pytest.mark.parametrize("language", ["de", "fr"])
def test_a_player_types_their_order_in_their_own_language(chromium, live_server, language):
    """Issue 40 item 3 in a real browser: a player whose language is German (or French) opens the signed link of
    their turn email on a fresh page at 390 px (the browser asks for English: the player's choice wins), types
    Genoa's route in the words their email teaches, is refused in their language for a street that is not on the
    map (nothing stored), then reads their order back in their language and confirms: the order stored is the
    game's canonical (English) one, the same as an English player's."""
    engine = engines.get_engine("genoa")
    player = turns.player_for("player1@example.com", "Player 1")
    Player.objects.filter(pk=player.pk).update(language=language)
    game = turns.create_game("genoa", [player, None], seed=1234, phase_length=timedelta(hours=48))
    assert steps_fields(game) == ["route", "tiles"], "seat 0 is not the merchant at the start"
    wanted = meant(game, engine.example_order(game.state, 0))
    with translation.override(language):
        vocabulary = words.vocabulary("genoa")
        typed = {name: vocabulary.write(str(wanted.order.get(name, ""))) for name in steps_fields(game)}
        read_back = [*meant(game, wanted.order).read.lines]  # the game's read-back, in the language
        email = next(m for m in reversed(mail.outbox) if m.to == [player.email])
        refused = words.refusal(refusal_of(game, vocabulary.read(MISTYPED[language])))
    assert typed["route"] != wanted.order["route"], f"the example has no word to write in {language}: {typed}"
    assert read_back != [*wanted.read.lines], f"the read-back is not in {language}"
    assert "Street" not in refused, f"the refusal quotes the step as the game read it, in English: {refused}"
    assert all(word in str(email.body) for word in typed["route"].replace(";", " ").split() if word.isalpha())
    findings = Findings()
    context = new_context(chromium, PHONE, locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + link_in(player.email, r"/l/\S+/"))
        assert page.locator("html").get_attribute("lang") == language
        page.locator("details:has(form.order) > summary").click()
        page.locator(f"{TYPED_FORM} textarea[name='route']").press_sequentially(MISTYPED[language], delay=0)
        submit(page, TYPED_FORM)
        assert page.locator(f"{TYPED_FORM} .error-summary li").all_inner_texts() == [refused]
        check(page, f"genoa in {language}: the typed form with a refusal", findings)
        picture(page, "genoa", PHONE, f"typed-refused-{language}")
        assert not Order.objects.filter(phase__game=game, phase__number=wanted.phase).exists()
        box = page.locator(f"{TYPED_FORM} textarea[name='route']")
        box.fill("")
        box.press_sequentially(typed["route"], delay=0)
        submit(page, TYPED_FORM)
        assert read_back_on(page) == read_back, "the review does not read the order back in the player's words"
        check(page, f"genoa in {language}: the review", findings)
        picture(page, "genoa", PHONE, f"typed-review-{language}")
        with page.expect_navigation():
            page.locator("form[action$='/confirm/'] button.primary").click()
        assert page.locator(".errorlist, .error-summary").count() == 0
    finally:
        context.close()
    assert stored(game, wanted) == []
    findings.assert_none()


def refusal_of(game: Game, route: str) -> Exception:
    """The game's refusal of seat 0's route `route` (in the engine's English)."""
    engine = engines.get_engine(game.engine)
    try:
        engine.validate(game.state, 0, {**engine.default_order(game.state, 0), "route": route})
    except OrderError as error:
        return error
    raise AssertionError(f"the game takes the route {route!r}")
