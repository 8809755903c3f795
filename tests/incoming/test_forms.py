"""The order form generated from a prompt, for the field kinds engines may use."""

from __future__ import annotations

from django.http import QueryDict

from games import words
from games.engines import get_engine
from games.engines.base import Choice, Field, NextSteps, Prompt, StepChoice
from games.incoming import ranked
from games.incoming.forms import OrderForm, StepsSource
from games.incoming.mail.replies import parse_order
from tests.support.genoa import BLUE, give
from tests.support.genoa import table as genoa_table

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


def test_a_fields_help_shows_as_it_is_written_not_as_html() -> None:
    """A game's help is plain text: its placeholders ("move <ship> <city>") are shown, not taken for tags (Django's
    field templates write a help text as HTML; Ports of Call's help read "move [spaces]" on the page)."""
    prompt = Prompt(
        kind="actions",
        text="Your turn.",
        fields=(Field(name="actions", kind="text", label="Actions", min=0, max=400, help="move <ship> <city> & <b>"),),
    ).to_json()
    html = str(OrderForm(prompt, typed=True)["actions"].as_field_group())
    assert "move &lt;ship&gt; &lt;city&gt; &amp; &lt;b&gt;" in html and "<ship>" not in html


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


# --- "steps" fields: the order builder ---------------------------------------------------------------

MOVES = Prompt(
    kind="turn",
    text="Move.",
    fields=(Field(name="moves", kind="steps", label="Your moves", help="wait; go N (1 to 3 spaces); rest"),),
).to_json()


def _next(name: str, steps: list[str]) -> NextSteps:
    """A tiny game: at most three steps; "rest" only after "wait"; "go N" takes 1 to 3 spaces."""
    if len(steps) >= 3:
        return NextSteps((), True)
    choices = [StepChoice("wait", "Wait a turn"), StepChoice("go {n}", "Go forward", (1, 3), "spaces")]
    if steps and steps[-1] == "wait":
        choices.append(StepChoice("rest", "Rest"))
    return NextSteps(tuple(choices), True)


def values(form: OrderForm, name: str) -> list[str]:
    """The values a drop-down of the form offers, as rendered."""
    return [str(option.data["value"]) for option in form[name].subwidgets]


SOURCE = StepsSource(_next, lambda name, text: [part.strip() for part in text.split(";") if part.strip()])


def test_a_stored_order_shows_as_builder_rows_then_a_row_for_the_next_step() -> None:
    form = OrderForm(MOVES, initial={"phase": 3, "moves": "wait; go 2"}, source=SOURCE)
    (field,) = form.steps_rows()
    assert [row["select"].initial for row in field["rows"]] == ["wait", "go {n}", None]
    # A number box only under the step that takes one: not under "wait", nor under the next step's row, which
    # offers "wait" too (a page without JavaScript cannot show it for "go" alone).
    amounts = [row["amount"] and row["amount"].initial for row in field["rows"]]
    assert amounts == [None, 2, None]
    assert field["can_add"] and values(form, "moves__2") == ["", "wait", "go {n}"]


def test_the_builders_rows_make_the_typed_order_and_a_blank_row_ends_it() -> None:
    data = {"phase": "3", "moves__0": "wait", "moves__1": "go {n}", "moves__1__n": "2", "moves__2": ""}
    form = OrderForm(MOVES, data=data, source=SOURCE)
    assert form.is_valid(), form.errors
    assert form.order() == {"moves": "wait; go 2"}


def test_removing_the_last_step_shows_the_rows_without_it() -> None:
    data = {"phase": "3", "moves__0": "wait", "moves__1": "go {n}", "moves__1__n": "2"}
    form = OrderForm(MOVES, data=data, source=SOURCE, remove="moves")
    assert form.is_valid() and form.order() == {"moves": "wait"}
    assert form.data["moves__1"] == "" and "moves__1__n" not in form.fields and "moves__2" not in form.fields
    assert values(form, "moves__1") == ["", "wait", "go {n}", "rest"]


def test_a_step_no_longer_possible_after_the_ones_before_it_is_refused_and_the_rest_dropped() -> None:
    """The player changed step 1 from "wait" to "go" without the page updating step 2's choices."""
    data = {"phase": "3", "moves__0": "go {n}", "moves__0__n": "1", "moves__1": "rest", "moves__2": "wait"}
    form = OrderForm(MOVES, data=data, source=SOURCE)
    assert not form.is_valid()
    assert form.errors["moves__1"] == [
        "That step is not possible after the steps before it; choose again.",
        "The step after it was taken away.",
    ]
    assert "moves__2" not in form.fields and "moves__2" not in form.data


def test_a_step_taking_a_number_needs_one_in_its_range() -> None:
    data = {"phase": "3", "moves__0": "go {n}", "moves__0__n": "7"}
    form = OrderForm(MOVES, data=data, source=SOURCE)
    assert not form.is_valid() and form.errors["moves__0__n"] == ["Enter a whole number from 1 to 3."]
    assert form.order()["moves"] == ""


HOW_MANY = "How many spaces? Type a whole number from 1 to 3 in this box."


def test_a_row_for_the_next_step_has_a_number_box_only_when_every_step_it_offers_takes_one() -> None:
    def only_go(name: str, steps: list[str]) -> NextSteps:
        return NextSteps(() if steps else (StepChoice("go {n}", "Go forward", (1, 3), "spaces"),), True)

    form = OrderForm(MOVES, initial={"phase": 3}, source=StepsSource(only_go, SOURCE.builder_steps))
    (field,) = form.steps_rows()
    box = field["rows"][0]["amount"]
    assert box is not None and box.label == "Spaces for this step" and box.initial == 1
    (mixed,) = OrderForm(MOVES, initial={"phase": 3}, source=SOURCE).steps_rows()
    assert [row["amount"] for row in mixed["rows"]] == [None]


def test_a_step_taking_a_number_chosen_where_there_was_no_box_asks_for_it_at_its_box() -> None:
    """The next step's row offers "wait" and "go", so it has no box: "go" chosen and added comes back with
    its box, a question at it, and the Add button still there to press once it is filled in."""
    data = {"phase": "3", "moves__0": "wait", "moves__1": "go {n}"}
    form = OrderForm(MOVES, data=data, source=SOURCE)
    assert not form.is_valid() and form.errors == {"moves__1__n": [HOW_MANY]}
    (field,) = form.steps_rows()
    assert [row["amount"] is not None for row in field["rows"]] == [False, True] and field["can_add"]
    assert form.data["moves__1"] == "go {n}" and form.order()["moves"] == "wait"
    filled = OrderForm(MOVES, data={**data, "moves__1__n": "2"}, source=SOURCE)
    assert filled.is_valid() and filled.order() == {"moves": "wait; go 2"}


def test_a_row_changed_to_a_step_taking_a_number_asks_for_it_and_drops_the_steps_after_it() -> None:
    """Step 1 was "wait" (no box) and the player changed it to "go" without the page updating."""
    data = {"phase": "3", "moves__0": "go {n}", "moves__1": "wait", "moves__2": ""}
    form = OrderForm(MOVES, data=data, source=SOURCE)
    assert not form.is_valid()
    assert form.errors == {"moves__0__n": [HOW_MANY], "moves__0": ["The step after it was taken away."]}
    assert "moves__0__n" in form.fields and "moves__1" not in form.fields and "moves__1" not in form.data


def test_typed_instead_a_steps_field_is_the_syntax_as_text() -> None:
    form = OrderForm(MOVES, data={"phase": "3", "how": "typed", "moves": "wait; go 2"}, source=SOURCE, typed=True)
    assert form.is_valid() and form.order() == {"moves": "wait; go 2"} and not form.steps_rows()
    shown = OrderForm(MOVES, initial={"phase": 3, "moves": "wait; go 2"}, typed=True)
    assert shown["moves"].value() == "wait; go 2"


def test_a_genoa_offer_built_in_the_form_is_the_order_typed() -> None:
    state = genoa_table(start="palace")
    give(state, BLUE, goods=("silk",))
    engine = get_engine("genoa")
    prompt = words.prompt(engine.prompts(state)[BLUE].to_json())  # as the page has it (Phase.prompt_for)
    source = StepsSource(
        lambda name, steps: engine.next_steps(state, BLUE, name, steps),
        lambda name, text: engine.builder_steps(state, BLUE, name, text),
    )
    data = {"phase": "3", "offers__0": "Palace: {n} ducats", "offers__0__n": "20", "offers__1": "+ silk"}
    form = OrderForm(prompt, data=data, source=source)
    assert form.is_valid(), form.errors
    typed = engine.validate(state, BLUE, {"offers": "Palace: 20 + silk", "tiles": ""})
    assert engine.validate(state, BLUE, form.order()) == typed == {"offers": "Palace: 20 ducats + silk", "tiles": ""}
    again = OrderForm(prompt, initial={"phase": 3, **typed}, source=source)
    assert [row["select"].initial for row in again.steps_rows()[0]["rows"]] == ["Palace: {n} ducats", "+ silk", None]


WISHES = Prompt(
    kind="place",
    text="List the spaces you want, best first.",
    fields=(
        Field(
            name="wants",
            kind="multichoice",
            label="Spaces I want, best first",
            choices=tuple(Choice(value, value.capitalize()) for value in ("jade", "silk", "port", "stop")),
            max=4,
            repeat=True,
            ranked=True,
        ),
    ),
).to_json()


def posted(**fields: str) -> QueryDict:
    data = QueryDict(mutable=True)
    data.update({"phase": "2", **fields})
    return data


def test_a_ranked_lists_buttons_move_a_pick_up_and_take_one_off_and_nothing_else() -> None:
    """Manila's list of wanted spaces is one list the player orders: its buttons post the form
    (games/incoming/ranked.py)."""
    listed = {"wants__0": "jade", "wants__1": "silk", "wants__2": "port"}
    assert ranked.picks(ranked.rearranged(posted(**listed, rank_up="wants:2"), WISHES), "wants", 4) == [
        "jade",
        "port",
        "silk",
    ]
    assert ranked.picks(ranked.rearranged(posted(**listed, rank_drop="wants:0"), WISHES), "wants", 4) == [
        "silk",
        "port",
    ]
    for nothing in ({"rank_up": "wants:0"}, {"rank_up": "wants:7"}, {"rank_drop": "cards:1"}, {"rank_up": "wants:x"}):
        assert ranked.picks(ranked.rearranged(posted(**listed, **nothing), WISHES), "wants", 4) == [
            "jade",
            "silk",
            "port",
        ]


def test_a_ranked_list_offers_each_place_only_what_is_not_listed_above_and_orders_the_picks() -> None:
    form = OrderForm(WISHES, data=posted(wants__0="silk", wants__1="jade", wants__2=""))
    (shown,) = form.ranked_lists()
    assert [item["label"] for item in shown.items] == ["Silk", "Jade"] and shown.next.name == "wants__2"
    assert [value for value, _ in form.fields["wants__2"].choices] == ["", "port", "stop"]  # type: ignore[attr-defined]
    assert not [field.name for field in form.other_fields() if field.name.startswith("wants")]
    assert form.is_valid() and form.order() == {"wants": ["silk", "jade"]}
    again = OrderForm(WISHES, data=posted(wants__0="silk", wants__1="silk"))
    assert not again.is_valid() and "wants__1" in again.errors  # listed twice
