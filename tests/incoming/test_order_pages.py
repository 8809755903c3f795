"""Orders on the game page, issue 15: built a step at a time without JavaScript (each step a drop-down of
what the engine says may come next, "Add a step" and "Remove the last step" storing nothing), typed
instead if the player likes, read back in words; in a one-seat turn looked at and confirmed before it
counts, the confirmation carrying exactly the reviewed order; and a success message that is true."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse

from games.incoming import forms, review
from games.models import Game, Order, Phase
from games.play import orders, turns
from tests.support.accounts import signed_in
from tests.support.phases import open_phase
from tests.support.phoenician import phoenician

pytestmark = pytest.mark.django_db(transaction=True)
BLUE = 1


def post(client: Client, game: Game, data: dict[str, Any]) -> Any:
    """Post the order form as its buttons do, and follow where it sends the browser: every post answers with a
    redirect (Post/Redirect/Get), to the game page or, in a one-seat turn, to the review page."""
    url = reverse("games-order", args=[game.pk])
    response = client.post(url, {"phase": open_phase(game).number, **data}, follow=True)
    assert response.redirect_chain and response.request["PATH_INFO"] != url, "a post answered without a redirect"
    return response


def first_choice(response: Any, name: str) -> str:
    found = re.search(
        rf'<select name="{name}"[^>]*>\s*<option value=""[^>]*>[^<]*</option>\s*<option value="([^"]+)"',
        response.content.decode(),
    )
    assert found, f"no choice in {name}"
    return found.group(1).replace("&#x27;", "'")


def test_a_one_seat_turn_is_built_step_by_step_reviewed_and_confirmed(client: Client, make_game: Any) -> None:
    """Before issue 15 a one-seat order resolved the turn the moment it was posted."""
    game, seat = phoenician(make_game)
    signed_in(client, game, seat)
    page = client.get(reverse("games-game", args=[game.pk]))
    html = page.content.decode()
    assert '<fieldset class="steps" id="steps-steps">' in html and "<legend>Your turn</legend>" in html
    assert '<label for="id_steps__0">Step 1:</label>' in html and "<summary>Type it instead</summary>" in html
    assert "Check my order" in html
    step = first_choice(page, "steps__0")
    added = post(client, game, {"how": "builder", "steps__0": step, "add": "steps"})
    assert added.status_code == 200 and 'name="steps__1"' in added.content.decode()
    removed = post(client, game, {"how": "builder", "steps__0": step, "steps__1": "", "remove": "steps"})
    assert removed.status_code == 200 and 'name="steps__1"' not in removed.content.decode()
    assert not Order.objects.filter(phase=open_phase(game)).exists()

    reviewed = post(client, game, {"how": "builder", "steps__0": step, "steps__1": ""})
    assert reviewed.status_code == 200 and b"Check your order" in reviewed.content
    checked = orders.check_order(game.seats.get(number=seat), open_phase(game).number, {"steps": step})
    order, expected = checked.order, checked.read_back
    assert all(line in reviewed.content.decode() for line in expected.lines)
    assert not Order.objects.filter(phase=open_phase(game)).exists(), "nothing is stored before Confirm"
    token, phase_number = reviewed.context["token"], open_phase(game).number
    confirmed = client.post(reverse("games-order-confirm", args=[game.pk]), {"order": token}, follow=True)
    stored = Order.objects.get(seat__number=seat, phase__game=game, phase__number=phase_number)
    assert stored.data == order
    assert b"Every order is in: the turn has been resolved." in confirmed.content
    assert Phase.objects.get(pk=stored.phase_id).status != Phase.Status.OPEN


def test_change_reopens_the_form_with_the_reviewed_order_and_stores_nothing(client: Client, make_game: Any) -> None:
    game, seat = phoenician(make_game)
    signed_in(client, game, seat)
    reviewed = post(client, game, {"how": "typed", "steps": "pass"})
    assert b"You do nothing this turn" in reviewed.content  # the warning, before it counts
    changed = post(client, game, {"change": reviewed.context["token"]})
    assert changed.status_code == 200 and changed.context["typed_open"]
    assert changed.context["typed_form"]["steps"].value() == "pass"
    assert not Order.objects.filter(phase=open_phase(game)).exists()


def test_a_confirmation_that_was_tampered_with_or_is_another_seats_stores_nothing(make_game: Any) -> None:
    game, seat = phoenician(make_game)
    client = signed_in(Client(), game, seat)
    token = post(client, game, {"how": "typed", "steps": "pass"}).context["token"]
    forged = signing.dumps(
        {**signing.loads(token, salt=review.SALT), "o": {"steps": "storm A1"}}, salt="another salt", compress=True
    )
    url = reverse("games-order-confirm", args=[game.pk])
    refused = client.post(url, {"order": forged}, follow=True)
    assert b"too old or not yours" in refused.content
    other = signed_in(Client(), game, 1 - seat)
    assert b"too old or not yours" in other.post(url, {"order": token}, follow=True).content
    assert not Order.objects.filter(phase=open_phase(game)).exists()


def test_the_builder_and_the_typed_syntax_store_the_same_order(make_game: Any) -> None:
    game = make_game(humans=3, engine="genoa", seed=5)
    assert game.state["asked"] == [1, 2] and len(open_phase(game).prompts) == 2  # sealed offers
    space = "Harbor"
    blue = signed_in(Client(), game, BLUE)
    built = post(blue, game, {"how": "builder", "offers__0": f"{space}: {{n}} ducats", "offers__0__n": "13"})
    assert b"Order stored and sealed" in built.content
    by_builder = Order.objects.get(seat__number=BLUE).data
    post(blue, game, {"how": "typed", "offers": "harbor: 13", "tiles": ""})
    assert Order.objects.get(seat__number=BLUE).data == by_builder == {"offers": "Harbor: 13 ducats", "tiles": ""}
    html = blue.get(reverse("games-game", args=[game.pk])).content.decode()
    assert "Your stored order, as the game reads it" in html
    assert "You will offer Red 13 ducats for the Harbor action (it gives a Commodity of your choice tile)." in html


def test_the_last_sealed_order_says_the_turn_has_been_resolved_when_it_has(client: Client, make_game: Any) -> None:
    """Tasks run inline after the commit (as with no broker): the turn is resolved before the page answers."""
    game = make_game(humans=3)
    phase = open_phase(game)
    for number in (1, 2):
        orders.submit_order(game.seats.get(number=number), phase.number, {"role": "buyer"})
    signed_in(client, game, 0)
    response = client.post(
        reverse("games-order", args=[game.pk]), {"phase": phase.number, "role": "buyer"}, follow=True
    )
    assert b"Every order is in: the turn has been resolved." in response.content
    assert b"being resolved" not in response.content


def test_a_chosen_step_too_long_for_a_phones_drop_down_is_written_out_under_it(client: Client, make_game: Any) -> None:
    """A phone's drop-down shows only the start of its chosen text: a step whose label is longer than that is
    also written out in full beside it (hidden from screen readers, which read the whole choice anyway)."""
    game, seat = phoenician(make_game)
    signed_in(client, game, seat)
    page = client.get(reverse("games-game", args=[game.pk]))
    prompt_choices = page.context["form"].fields["steps__0"].choices[1:]
    long = next((value, label) for value, label in prompt_choices if len(label) > forms.DROP_DOWN_SHOWS)
    short = next((value, label) for value, label in prompt_choices if len(label) <= forms.DROP_DOWN_SHOWS)
    assert '<span class="chosen' not in page.content.decode(), "nothing is chosen yet"
    added = post(client, game, {"how": "builder", "steps__0": long[0], "add": "steps"}).content.decode()
    written = re.findall(r'<span class="chosen small muted" aria-hidden="true">([^<]*)</span>', added)
    assert [html.unescape(text) for text in written] == [long[1]]
    added = post(client, game, {"how": "builder", "steps__0": short[0], "add": "steps"}).content.decode()
    assert '<span class="chosen' not in added, "a short step shows whole in its drop-down"


def typed_form_fields(response: Any) -> dict[str, str]:
    """The hidden fields of the page's "Type it instead" form, as a browser posts them."""
    typed = response.content.decode().partition("<summary>Type it instead</summary>")[2].partition("</details>")[0]
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', typed))


def test_the_typed_form_of_a_fresh_page_stores_what_was_typed(client: Client, make_game: Any) -> None:
    """Issue 27: the builder's form, built after the typed one from the same initial values, made the typed
    form's hidden "how" read "builder", and the typed order was read as an empty build ("end your turn
    without a move"), which a one-seat turn then resolved on."""
    game, seat = phoenician(make_game)
    signed_in(client, game, seat)
    page = client.get(reverse("games-game", args=[game.pk]))
    hidden = typed_form_fields(page)
    assert hidden["how"] == "typed" and page.context["form"]["how"].value() == "builder"
    example = turns.engine_of(game).example_order(game.state, seat)
    reviewed = client.post(reverse("games-order", args=[game.pk]), {**hidden, "steps": example["steps"]}, follow=True)
    expected = orders.check_order(game.seats.get(number=seat), open_phase(game).number, example).read_back
    assert [line for line in expected.lines if line in reviewed.content.decode()] == list(expected.lines)


def test_a_typed_order_posted_as_from_the_builder_is_still_read_as_typed(client: Client, make_game: Any) -> None:
    """A page served before the fix (its typed form saying "builder") still stores the text: a steps field's own
    name is only ever the typed form's box."""
    game, seat = phoenician(make_game)
    signed_in(client, game, seat)
    example = turns.engine_of(game).example_order(game.state, seat)
    reviewed = post(client, game, {"how": "builder", "steps": example["steps"]})
    checked = orders.check_order(game.seats.get(number=seat), open_phase(game).number, example)
    assert reviewed.context["read_back"] == checked.read_back


def amount_box(response: Any, row: str) -> bool:
    return f'name="{row}__n"' in response.content.decode()


def test_a_genoa_offer_item_has_a_number_box_only_where_it_takes_ducats(make_game: Any) -> None:
    """Issue 39: "Ducats for this offer item" stood under every row of the offer builder, "+ gained" too. A new
    offer takes ducats; what is added to it does not. A row changed from such an item to a new offer, where
    there was no box, comes back with its box and a question at it (it crashed while the box was drawn only
    for steps that take a number); nothing is stored until the ducats are given."""
    game = make_game(humans=3, engine="genoa", seed=5)
    blue = signed_in(Client(), game, BLUE)
    page = blue.get(reverse("games-game", args=[game.pk]))
    first = first_choice(page, "offers__0")
    assert first.endswith(": {n} ducats") and amount_box(page, "offers__0"), "every first step is a new offer"
    offer = {"how": "builder", "offers__0": first, "offers__0__n": "13"}
    added = post(blue, game, {**offer, "add": "offers"})
    choices = dict(added.context["form"].fields["offers__1"].choices)
    item = next(value for value in choices if value.startswith("+ "))
    other = next(value for value in choices if value.endswith(": {n} ducats"))
    assert amount_box(added, "offers__0") and not amount_box(added, "offers__1"), "the next row offers both"
    added = post(blue, game, {**offer, "offers__1": item, "offers__2": "", "add": "offers"})
    assert not amount_box(added, "offers__1") and not amount_box(added, "offers__2")

    changed = post(blue, game, {**offer, "offers__1": other, "offers__2": "", "add": "offers"})
    assert changed.status_code == 200 and amount_box(changed, "offers__1")
    most = game.state["ducats"][BLUE]
    question = f"How many ducats? Type a whole number from 0 to {most} in this box."
    assert changed.context["form"].errors == {"offers__1__n": [question]}
    text = changed.content.decode()
    box = text.index('name="offers__1__n"')
    assert text.index(question, box) > box and "Ducats for this offer item" in text
    assert not Order.objects.filter(phase=open_phase(game)).exists()

    stored = post(blue, game, {**offer, "offers__1": other, "offers__1__n": "4", "offers__2": ""})
    assert b"Order stored and sealed" in stored.content
    spaces = [value.partition(":")[0] for value in (first, other)]
    assert Order.objects.get(seat__number=BLUE).data["offers"] == f"{spaces[0]}: 13 ducats; {spaces[1]}: 4 ducats"
