"""The order form generated from a prompt, for the field kinds engines may use."""

from __future__ import annotations

from games.engines.base import Field, Prompt
from games.forms import OrderForm
from games.inbound import parse_order

ROUTE = Prompt(
    kind="route",
    text="Your turn.",
    fields=(Field(name="steps", kind="text", label="Steps", min=1, max=40, help="e.g. row N; sell 2"),),
).to_json()


def test_a_text_field_takes_the_players_steps_as_written() -> None:
    form = OrderForm(ROUTE, data={"phase": "3", "steps": "  row N; sell 2\n"})
    assert form.is_valid(), form.errors
    assert form.order() == {"steps": "row N; sell 2"}


def test_a_required_text_field_left_empty_or_too_long_is_refused() -> None:
    assert not OrderForm(ROUTE, data={"phase": "3", "steps": ""}).is_valid()
    too_long = OrderForm(ROUTE, data={"phase": "3", "steps": "row N; " * 10})
    assert not too_long.is_valid() and "at most 40 characters" in str(too_long.errors)


def test_a_text_field_by_email_reply_is_the_line_after_its_label() -> None:
    assert parse_order(ROUTE, "Steps: row N; sell 2\n\nOn Monday the server wrote:\n> Steps:") == {
        "steps": "row N; sell 2"
    }


BID = Prompt(
    kind="bid",
    text="Bid.",
    fields=(
        Field(name="bid", kind="integer", label="Bid", min=0, max=9),
        Field(name="loans", kind="integer", label="Loans", min=0, max=2, optional=True),
    ),
).to_json()


def test_an_optional_integer_field_may_be_left_blank_and_a_plain_one_may_not() -> None:
    blank = OrderForm(BID, data={"phase": "3", "bid": "4", "loans": ""})
    assert blank.is_valid(), blank.errors
    assert blank.order() == {"bid": 4, "loans": None}
    assert not OrderForm(BID, data={"phase": "3", "bid": "", "loans": "1"}).is_valid()
    assert not OrderForm(BID, data={"phase": "3", "bid": "4", "loans": "3"}).is_valid()


def test_an_out_of_range_or_missing_number_is_refused_in_the_games_words() -> None:
    too_high = OrderForm(BID, data={"phase": "3", "bid": "12"})
    assert not too_high.is_valid() and too_high.errors["bid"] == ["Enter a whole number from 0 to 9."]
    blank = OrderForm(BID, data={"phase": "3", "bid": ""})
    assert not blank.is_valid() and blank.errors["bid"] == ["Please fill this in."]
