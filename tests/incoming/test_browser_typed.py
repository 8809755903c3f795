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

import re
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
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

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


@dataclass(frozen=True)
class Mistyped:
    """A step a player of each language types in the words their email teaches, which the game cannot read."""

    why: str
    steps: dict[str, str]  # language: the step, in its words


# Per game: a step the game refuses, typed in the player's words, so the refusal must quote those words.
MISTYPED = {
    "genoa": Mistyped("a street that is not on the map", {"de": "Straße 9-9 = ich", "fr": "Rue 9-9 = moi"}),
    # The compass's letters are the same in every language (docs/glossary-phoenician.md): O (Ost, Ouest) is none.
    "phoenician": Mistyped("a direction in the player's language", {"de": "rudere O", "fr": "ramer O"}),
    "ports-of-call": Mistyped(
        "a port that is not on the map", {"de": "fahre S1 Atlantis", "fr": "déplacer S1 Atlantide"}
    ),
}
# Per game: how many phases seat 0 plays by buttons (a starting place) before its first turn with typed steps, and
# that turn's steps fields (Genoa's seat 0 is the merchant at the start).
FIRST_TYPED_TURN = {"genoa": (0, ["route", "tiles"]), "phoenician": (1, ["steps"]), "ports-of-call": (1, ["actions"])}


def to_first_typed_turn(game: Game) -> int:
    """Seat 0 plays its default order (through the service layer, as its buttons would) in each phase it owes
    without steps until it owes one with steps; the bots play theirs as they open. How many it played."""
    engine = engines.get_engine(game.engine)
    played = 0
    while not steps_fields(game) and played < 5:
        orders.submit_order(game.seats.get(number=0), open_phase(game).number, engine.default_order(game.state, 0))
        played += 1
    return played


def whole_words(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"\w+", text)}


@pytest.mark.parametrize("language", ["de", "fr"])
@pytest.mark.parametrize("slug", TYPED_GAMES)
def test_a_player_types_their_order_in_their_own_language(
    chromium: Browser, live_server: LiveServer, slug: str, language: str
) -> None:
    """Issue 40 item 3 in a real browser: a player whose language is German (or French) opens the signed link of
    their turn email on a fresh page at 390 px (the browser asks for English: the player's choice wins), types
    the game's steps in the words their email teaches, is refused in their language for a step the game cannot
    read (MISTYPED; nothing stored), then reads their order back in their language and confirms: the order
    stored is the game's canonical (English) one, the same as an English player's. Phoenician Sea Trader and
    Ports of Call first ask for a starting place by buttons: seat 0 chooses it through the service layer."""
    engine = engines.get_engine(slug)
    mistyped = MISTYPED[slug].steps[language]
    player = turns.player_for("player1@example.com", "Player 1")
    Player.objects.filter(pk=player.pk).update(language=language)
    players: list[Player | None] = [player, *[None] * (engine.min_players - 1)]
    game = turns.create_game(slug, players, seed=1234, phase_length=timedelta(hours=48))
    opening = to_first_typed_turn(game)
    fields = steps_fields(game)
    assert (opening, fields) == FIRST_TYPED_TURN[slug], "seat 0 is not at its first typed turn"
    wanted = meant(game, engine.example_order(game.state, 0))
    with translation.override(language):
        vocabulary = words.vocabulary(slug)
        typed = {name: vocabulary.write(str(wanted.order.get(name, ""))) for name in fields}
        read_back = [*meant(game, wanted.order).read.lines]  # the game's read-back, in the language
        email = next(m for m in reversed(mail.outbox) if m.to == [player.email])
        prompt = open_phase(game).prompt_for(0)
        assert prompt is not None
        helps = [" ".join(spec["help"].split()) for spec in prompt["fields"] if spec["name"] in fields]
        english = vocabulary.read(mistyped)
        refused = words.refusal(refusal_of(game, fields[0], english))
    assert typed[fields[0]] != wanted.order[fields[0]], f"the example has no word to write in {language}: {typed}"
    assert read_back != [*wanted.read.lines], f"the read-back is not in {language}"
    # The words of the mistyped step that are the language's (not the English the game reads them as) are quoted
    # in the refusal, and their English is not.
    theirs, its = whole_words(mistyped) - whole_words(english), whole_words(english) - whole_words(mistyped)
    assert theirs and its, f"{mistyped!r} has no word of {language} to quote"
    why = MISTYPED[slug].why
    assert theirs <= whole_words(refused), f"the refusal of {why} does not quote the player's words: {refused}"
    assert not its & whole_words(refused), f"the refusal quotes the step as the game read it, in English: {refused}"
    taught = [word for text in typed.values() for word in text.replace(";", " ").split() if word.isalpha()]
    assert taught and all(word in str(email.body) for word in taught), f"the turn email does not teach {taught}"
    findings = Findings()
    context = new_context(chromium, PHONE, locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + link_in(player.email, r"/l/\S+/"))
        assert page.locator("html").get_attribute("lang") == language
        page.locator("details:has(form.order) > summary").click()
        # The typed form's help is the game's, in the language, as written (its placeholders, "<Schiff>", too).
        shown = [" ".join(text.split()) for text in page.locator(f"{TYPED_FORM} .helptext").all_inner_texts()]
        assert shown == helps, "the typed form does not show the game's help as it is written"
        page.locator(f"{TYPED_FORM} textarea[name='{fields[0]}']").press_sequentially(mistyped, delay=0)
        submit(page, TYPED_FORM)
        assert page.locator(f"{TYPED_FORM} .error-summary li").all_inner_texts() == [refused]
        check(page, f"{slug} in {language}: the typed form with a refusal", findings)
        picture(page, slug, PHONE, f"typed-refused-{language}")
        assert not Order.objects.filter(phase__game=game, phase__number=wanted.phase).exists()
        for name in fields:
            box = page.locator(f"{TYPED_FORM} textarea[name='{name}']")
            box.fill("")
            box.press_sequentially(typed[name], delay=0)
        submit(page, TYPED_FORM)
        assert read_back_on(page) == read_back, "the review does not read the order back in the player's words"
        check(page, f"{slug} in {language}: the review", findings)
        picture(page, slug, PHONE, f"typed-review-{language}")
        with page.expect_navigation():
            page.locator("form[action$='/confirm/'] button.primary").click()
        assert page.locator(".errorlist, .error-summary").count() == 0
    finally:
        context.close()
    assert stored(game, wanted) == []
    findings.assert_none()


def refusal_of(game: Game, field: str, steps: str) -> Exception:
    """The game's refusal of seat 0's `steps` (in the engine's English) in its steps field `field`."""
    engine = engines.get_engine(game.engine)
    try:
        engine.validate(game.state, 0, {**engine.default_order(game.state, 0), field: steps})
    except OrderError as error:
        return error
    raise AssertionError(f"the game takes the steps {steps!r}")
