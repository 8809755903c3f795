"""Port of Piraeus, one rules case per test, the rule quoted in the docstring (rulebook:
../shared/rules/port-of-piraeus.txt; house defaults: FACTS.md; play-by-email changes:
games/engines/piraeus/RULES.md). Pure Python: no database, no Django."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from functools import cache
from itertools import combinations
from typing import Any

import pytest

from games.engines import get_engine
from games.engines.base import Event, OrderError
from games.engines.piraeus.data import GOODS, ORIGINS, country_deck, country_of, good_of
from games.engines.piraeus.flow import start_deal_round
from games.engines.piraeus.scoring import SET_VALUES, best_partition, final_score

ENGINE = get_engine("piraeus")
FOUR = ["Romans", "Barbarians", "Egyptians", "Indians"]
ROMANS, BARBARIANS, EGYPTIANS, INDIANS = range(4)


# --- tiny helpers ----------------------------------------------------------------------------------


def new_game(countries: list[str] | None = None, seed: int = 1) -> dict[str, Any]:
    return ENGINE.setup(len(countries or FOUR), {"countries": countries or FOUR}, random.Random(seed))


def play(state: dict[str, Any], orders: dict[int, dict[str, Any]]) -> tuple[dict[str, Any], list[Event]]:
    """Resolve the current step: every asked seat's order (validated), default for the ones not given."""
    owed = {
        seat: ENGINE.validate(state, seat, orders.get(seat, ENGINE.default_order(state, seat)))
        for seat in ENGINE.prompts(state)
    }
    return ENGINE.resolve(state, owed, random.Random(0))


def plan(state: dict[str, Any], sellers: tuple[int, ...] = ()) -> tuple[dict[str, Any], list[Event]]:
    return play(state, {seat: {"role": "seller" if seat in sellers else "buyer"} for seat in ENGINE.prompts(state)})


def at_deals(
    greek_row: list[str],
    sales: dict[int, list[str]] | None = None,
    cash: list[int] | None = None,
    prices: list[int] | None = None,
) -> dict[str, Any]:
    """A four-player game at deals round 1: `sales` maps each seller to the goods they put up."""
    state = new_game()
    state["greek_row"] = list(greek_row)
    state, _ = plan(state, sellers=tuple(sales or {}))
    if sales:
        state, _ = play(state, {seat: {"cards": goods} for seat, goods in sales.items()})
    state = json.loads(json.dumps(state))
    if cash is not None:
        state["cash"] = list(cash)
    if prices is not None:
        state["prices"] = list(prices)
    start_deal_round(state, 1, [])  # asks again, with the cash and prices just set
    return state


def end_the_day(state: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    """Everyone plays the default (buy nothing) until the next day starts."""
    day, events = state["day"], []
    while state["day"] == day and not state["finished"]:
        state, more = play(state, {})
        events += more
    return state, events


def slot_of(state: dict[str, Any], card: str) -> str:
    rows = {"G": state["greek_row"], "F": state["foreign_row"]}
    return next(f"{letter}{i}" for letter, row in rows.items() for i, c in enumerate(row, 1) if c == card)


def price(state: dict[str, Any], good: str) -> int:
    return int(state["prices"][GOODS.index(good)])


def texts(events: list[Event]) -> str:
    return "\n".join(event.text for event in events)


def finished_game(collected: list[list[str]], cash: list[int], hands: list[int]) -> dict[str, Any]:
    state = new_game()
    state.update(finished=True, step="over", asked=[], day=8, cash=cash, collected=collected)
    state["hands"] = [country_deck(country)[:count] for country, count in zip(FOUR, hands, strict=True)]
    return state


# --- setup ------------------------------------------------------------------------------------------


def test_each_merchant_starts_with_ten_drachmas_and_all_eight_cards_of_their_country() -> None:
    """Rule: "Each player chooses a merchant of the country they will represent in the game, and takes all the
    goods cards of that country, the buyer / seller token of the matching colour, and 10 drachmas"."""
    state = new_game()
    assert state["cash"] == [10, 10, 10, 10]
    assert [len(hand) for hand in state["hands"]] == [8, 8, 8, 8]
    assert all(country_of(card) == FOUR[seat] for seat, hand in enumerate(state["hands"]) for card in hand)


def test_country_i_holds_two_each_of_goods_i_and_i_plus_one_and_one_of_the_others() -> None:
    """HOUSE DEFAULT (FACTS.md): "country i holds 2 each of goods i and i+1 (mod 6) and 1 of each other good"."""
    persians = Counter(good_of(card) for card in country_deck("Persians"))
    assert persians == {"Fabrics": 2, "Furs": 2, "Tableware": 1, "Food": 1, "Jewelry": 1, "Spices": 1}


def test_the_greek_deck_holds_three_of_each_good_shuffled() -> None:
    """HOUSE DEFAULT (FACTS.md): "the Greek deck holds 3 of each good"; "Shuffle the deck of Greek goods"."""
    state = new_game()
    cards = state["greek_deck"] + state["greek_row"]
    assert Counter(cards) == {f"{good}/Greeks": 3 for good in GOODS}
    assert new_game(seed=2)["greek_deck"] != state["greek_deck"]


def test_all_goods_start_at_five_drachmas_on_day_one() -> None:
    """Rule: "Place the day marker on number 1 of the time track, and the price markers ... so that all goods
    have a starting price of 5 drachmas"."""
    state = new_game()
    assert state["prices"] == [5] * 6 and state["day"] == 1


def test_the_countries_option_gives_each_seat_its_country() -> None:
    """Rule: "Each player chooses a merchant of the country they will represent"."""
    state = ENGINE.setup(3, {"countries": ["persians", "Romans", ""]}, random.Random(3))
    assert state["countries"][:2] == ["Persians", "Romans"]
    assert state["countries"][2] in {"Barbarians", "Egyptians", "Indians", "Chinese"}
    assert ENGINE.seat_name(state, 0) == "Persians"


def test_without_the_option_countries_are_dealt_at_random_but_the_same_for_a_seed() -> None:
    """Play-by-email: nobody sits at the table to choose, so the seed deals the countries."""
    first = ENGINE.setup(5, {}, random.Random(9))["countries"]
    assert first == ENGINE.setup(5, {}, random.Random(9))["countries"]
    assert len(set(first)) == 5 and set(first) <= set(ORIGINS[:6])


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (3, {"countries": ["Romans", "Romans", "Indians"]}, "one seat only"),
        (3, {"countries": ["Romans", "Atlanteans", "Indians"]}, "Unknown country"),
        (3, {"countries": ["Romans", "Indians"]}, "2 countries for 3 seats"),
        (3, {"countries": ["Romans", "Greeks", "Indians"]}, "Greeks cannot be chosen"),
        (3, {"countries": "Romans"}, "one country per seat"),
        (3, {"colour": "red"}, "no option called"),
        (2, {}, "3 to 6 players"),
        (7, {}, "3 to 6 players"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(players: int, options: dict[str, Any], message: str) -> None:
    """Rule: "Greeks cannot be chosen; they are the local inhabitants and the owners of the market"."""
    with pytest.raises(ValueError, match=message):
        ENGINE.setup(players, options, random.Random(1))


# --- 1. start of the day ---------------------------------------------------------------------------


def test_the_day_starts_with_the_top_three_greek_cards_in_the_greek_row() -> None:
    """Rule: "The top three cards of the Greek deck are placed in the Greek trade row"."""
    state = new_game()
    assert len(state["greek_row"]) == 3 and len(state["greek_deck"]) == 15


def test_when_the_greek_deck_runs_out_fewer_cards_or_none_are_placed() -> None:
    """Rule: "If the Greek deck has run out of cards, no more are placed"."""
    state = new_game()
    state["greek_row"], state["greek_deck"] = [], ["Furs/Greeks"]
    state, _ = plan(state)  # nothing on the market: nobody can buy, the day ends
    assert state["day"] == 2 and state["greek_row"] == ["Furs/Greeks"] and state["greek_deck"] == []
    state, _ = plan(state)
    state, events = play(state, {ROMANS: {"card": "G1"}})
    assert state["day"] == 3 and state["greek_row"] == [] and "Greek deck has run out" in texts(events)


# --- 2. day planning -------------------------------------------------------------------------------


def test_every_merchant_chooses_in_secret_whether_to_buy_or_sell() -> None:
    """Rule: "All players choose secretly what they will do this day: buy goods or sell them"."""
    prompts = ENGINE.prompts(new_game())
    assert sorted(prompts) == [0, 1, 2, 3]
    assert {prompt.kind for prompt in prompts.values()} == {"plan"}
    (field,) = prompts[0].fields
    assert field.name == "role" and [c.value for c in field.choices] == ["buyer", "seller"]
    assert ENGINE.phase_name(new_game()) == "Day 1 — planning"


def test_the_tokens_are_revealed_together_and_roles_become_public() -> None:
    """Rule: "As soon as everyone has done this, the tokens are revealed and the number of buyers and sellers
    is counted"."""
    state, events = plan(new_game(), sellers=(ROMANS, INDIANS))
    assert "Sellers: Romans and Indians. Buyers: Barbarians and Egyptians." in texts(events)
    assert [player["role"] for player in ENGINE.view(state, BARBARIANS)["players"]] == [
        "seller",
        "buyer",
        "buyer",
        "seller",
    ]


def test_fewer_sellers_than_buyers_raise_each_greek_good_by_one_per_card() -> None:
    """Rule: "If there are fewer sellers than buyers, the price of each Greek-represented good rises by 1
    drachma for each card of that good"."""
    state = new_game()
    state["greek_row"] = ["Spices/Greeks", "Spices/Greeks", "Food/Greeks"]
    state, _ = plan(state, sellers=(ROMANS,))
    assert state["prices"] == [5, 5, 6, 5, 7, 5]


def test_more_sellers_than_buyers_lower_each_greek_good_by_one_per_card() -> None:
    """Rule: "If there are more sellers than buyers, the price of each Greek-represented good falls by 1
    drachma for each card of that good"."""
    state = new_game()
    state["greek_row"] = ["Spices/Greeks", "Spices/Greeks", "Food/Greeks"]
    state, _ = plan(state, sellers=(ROMANS, BARBARIANS, EGYPTIANS))
    assert state["prices"] == [5, 5, 4, 5, 3, 5]


def test_rulebook_example_of_the_first_price_change_with_two_sellers_and_two_buyers() -> None:
    """Rule: "If the number of sellers and buyers is equal, the price of each Greek-represented good rises by 1
    drachma for each card of that good, while goods not put up for sale fall by 1 drachma."
    "Example: Two players decided to sell goods and two to buy. The Greeks put up for sale the goods
    "Fabrics", "Furs" and "Furs". Therefore the price of "Fabrics" rises by 1 drachma, and the price of
    "Furs" rises by 2 drachmas. The prices of "Spices", "Food", "Tableware" and "Jewelry" fall by 1"."""
    state = new_game()
    state["greek_row"] = ["Fabrics/Greeks", "Furs/Greeks", "Furs/Greeks"]
    state, events = plan(state, sellers=(ROMANS, BARBARIANS))
    assert dict(zip(GOODS, state["prices"], strict=True)) == {
        "Furs": 7,
        "Tableware": 4,
        "Food": 4,
        "Jewelry": 4,
        "Spices": 4,
        "Fabrics": 6,
    }
    assert "First price change: Furs 5→7, Tableware 5→4" in texts(events)


def test_with_equal_numbers_and_an_empty_greek_row_every_good_falls_by_one() -> None:
    """Rule: "...goods not put up for sale fall by 1 drachma" (with no Greek card, no good is up for sale)."""
    state = new_game()
    state["greek_row"] = []
    state, _ = plan(state, sellers=(ROMANS, BARBARIANS))
    assert state["prices"] == [4] * 6


def test_prices_never_rise_above_nine_or_fall_below_one() -> None:
    """Rule: "Important! The price of goods cannot rise above 9 drachmas or fall below 1 drachma"."""
    state = new_game()
    state["greek_row"] = ["Furs/Greeks", "Furs/Greeks", "Furs/Greeks"]
    state["prices"] = [8, 5, 5, 5, 5, 5]
    rising, _ = plan(state)
    assert price(rising, "Furs") == 9
    state["prices"] = [2, 5, 5, 5, 5, 5]
    falling, _ = plan(state, sellers=(ROMANS, BARBARIANS, EGYPTIANS))
    assert price(falling, "Furs") == 1


# --- 3. putting goods up for sale ------------------------------------------------------------------


def test_only_sellers_choose_up_to_two_of_their_goods_to_sell() -> None:
    """Rule: "All seller players choose no more than two goods they want to sell today ... Sellers may choose not
    to put any goods up for sale"."""
    state, _ = plan(new_game(), sellers=(ROMANS, INDIANS))
    prompts = ENGINE.prompts(state)
    assert sorted(prompts) == [ROMANS, INDIANS] and prompts[ROMANS].kind == "sale"
    (field,) = prompts[ROMANS].fields
    assert (field.name, field.kind, field.min, field.max, field.repeat) == ("cards", "multichoice", 0, 2, True)
    assert [choice.value for choice in field.choices] == list(GOODS)
    assert ENGINE.phase_name(state) == "Day 1 — sale"
    assert ENGINE.validate(state, ROMANS, {"cards": []}) == {"cards": []}
    assert ENGINE.validate(state, ROMANS, {"cards": ["Furs", "Furs"]}) == {"cards": ["Furs", "Furs"]}


def test_sealed_sales_are_revealed_together_into_the_foreign_row() -> None:
    """Rule: "...place them face down in the foreign trade row ... When all sellers have made their choice, the
    cards are turned face up simultaneously"."""
    state, _ = plan(new_game(), sellers=(ROMANS, INDIANS))
    assert ENGINE.view(state, ROMANS)["foreign_row"] == []
    state, events = play(state, {ROMANS: {"cards": ["Tableware"]}, INDIANS: {"cards": ["Spices", "Jewelry"]}})
    assert state["foreign_row"] == ["Tableware/Romans", "Jewelry/Indians", "Spices/Indians"]
    assert len(state["hands"][ROMANS]) == 7 and len(state["hands"][INDIANS]) == 6
    assert "Goods for sale revealed: Romans: Tableware; Indians: Jewelry and Spices." in texts(events)


def test_rulebook_example_of_the_second_price_change_with_three_sellers() -> None:
    """Rule: "The price of each good put up for sale falls by 1 drachma for each card of that good. The price of
    each good not put up for sale rises by 1 drachma for each seller this day."
    "Example: Three sellers put up for sale the goods "Furs", "Tableware", "Spices", "Tableware" and
    "Spices". Accordingly, "Fabrics" and "Jewelry", not being represented, rise by 3 drachmas each (because
    there are three sellers). ... "Furs" [falls] by 1 drachma ... "Tableware" and "Spices" fall by 2
    drachmas each (two cards each)."
    The example also says "Food" falls by 1, but no Food card is listed: by the rule as written, Food is
    not for sale and rises by 3 (the next test adds the Food card the example seems to have lost)."""
    state, _ = plan(new_game(), sellers=(ROMANS, BARBARIANS, INDIANS))
    state["prices"] = [5] * 6
    state, _ = play(
        state,
        {
            ROMANS: {"cards": ["Furs", "Tableware"]},
            BARBARIANS: {"cards": ["Tableware"]},
            INDIANS: {"cards": ["Spices", "Spices"]},
        },
    )
    assert dict(zip(GOODS, state["prices"], strict=True)) == {
        "Furs": 4,
        "Tableware": 3,
        "Food": 8,
        "Jewelry": 8,
        "Spices": 3,
        "Fabrics": 8,
    }


def test_second_price_change_example_with_the_food_card_it_mentions() -> None:
    """Rule: "'Food' and 'Furs' fall by 1 drachma each (one card each). 'Tableware' and 'Spices' fall by 2
    drachmas each (two cards each)"; "Fabrics" and "Jewelry" rise by 3."""
    state, _ = plan(new_game(), sellers=(ROMANS, BARBARIANS, INDIANS))
    state["prices"] = [5] * 6
    state, _ = play(
        state,
        {
            ROMANS: {"cards": ["Furs", "Tableware"]},
            BARBARIANS: {"cards": ["Tableware", "Food"]},
            INDIANS: {"cards": ["Spices", "Spices"]},
        },
    )
    assert state["prices"] == [4, 3, 4, 8, 3, 8]


def test_with_no_sellers_the_sale_step_and_its_price_change_are_skipped() -> None:
    """Rule: "The price of each good not put up for sale rises by 1 drachma for each seller this day": with no
    seller that is +0 for every good, so the engine goes straight to the deals."""
    state = new_game()
    state["greek_row"] = ["Furs/Greeks", "Food/Greeks", "Spices/Greeks"]
    state, events = plan(state)
    assert state["step"] == "deal" and state["prices"] == [6, 5, 6, 5, 6, 5]
    assert "Second price change" not in texts(events)


# --- 4. conducting deals ---------------------------------------------------------------------------


def test_each_buyer_places_a_token_on_one_card_they_can_pay_for_or_keeps_it() -> None:
    """Rule: "All buyer players ... choose one goods card in either of the two trade rows and place their
    double-sided token on that card." "If a player cannot or does not want to buy anything, they keep the
    token for themselves"."""
    state = at_deals(["Furs/Greeks", "Food/Greeks", "Spices/Greeks"], sales={INDIANS: ["Jewelry"]})
    prompts = ENGINE.prompts(state)
    assert sorted(prompts) == [ROMANS, BARBARIANS, EGYPTIANS] and prompts[ROMANS].kind == "deal"
    (field,) = prompts[ROMANS].fields
    assert field.name == "card" and [c.value for c in field.choices] == ["G1", "G2", "G3", "F1", "none"]
    assert "Jewelry (Indians)" in field.choices[3].label
    assert ENGINE.phase_name(state) == "Day 1 — deals, round 1"


def test_a_buyer_may_not_choose_a_card_they_cannot_pay_for() -> None:
    """Rule: "Important! A buyer may not place a token on goods they cannot pay for"."""
    state = at_deals(["Furs/Greeks", "Food/Greeks"], cash=[5, 10, 10, 10], prices=[7, 5, 5, 5, 5, 5])
    (field,) = ENGINE.prompts(state)[ROMANS].fields
    assert [c.value for c in field.choices] == ["G2", "none"]
    with pytest.raises(OrderError, match=r"cannot pay for Furs \(Greeks\): it costs 7 and you have 5"):
        ENGINE.validate(state, ROMANS, {"card": "G1"})


def test_a_buyer_who_cannot_pay_for_anything_is_not_asked() -> None:
    """Rule: "If a player cannot ... buy anything, they keep the token for themselves"."""
    state = at_deals(["Furs/Greeks"], cash=[2, 10, 10, 10], prices=[7, 5, 5, 5, 5, 5])
    assert ROMANS not in ENGINE.prompts(state)
    with pytest.raises(OrderError, match="cannot pay for any card"):
        ENGINE.validate(state, ROMANS, {"card": "none"})


def test_a_lone_token_on_a_greek_card_buys_it_at_its_price_into_the_reserve() -> None:
    """Rule: "If there is only one buyer's token on a goods card, that buyer pays the owner of the goods the price
    marked on the game board, and takes the card ... Money paid for Greek goods goes to the reserve"."""
    state = at_deals(["Spices/Greeks"], prices=[5, 5, 5, 5, 6, 5])
    state["greek_deck"] = []
    before = sum(state["cash"])
    state, events = play(state, {ROMANS: {"card": "G1"}})
    assert state["collected"][ROMANS] == ["Spices/Greeks"] and state["greek_row"] == []
    assert state["cash"][ROMANS] == 4 and sum(state["cash"]) == before - 6
    assert "Romans bought Spices (Greeks) for 6, paid to the reserve." in texts(events)


def test_a_lone_token_on_a_foreign_card_pays_its_seller() -> None:
    """Rule: "...that buyer pays the owner of the goods the price marked on the game board"."""
    state = at_deals([], sales={INDIANS: ["Jewelry"]})
    jewelry = price(state, "Jewelry")
    state, events = play(state, {ROMANS: {"card": "F1"}})
    assert state["cash"][ROMANS] == 10 - jewelry and state["cash"][INDIANS] == 10 + jewelry
    assert state["collected"][ROMANS] == ["Jewelry/Indians"]
    assert f"Romans bought Jewelry (Indians) for {jewelry}, paid to the Indians." in texts(events)


def test_two_identical_greek_cards_chosen_by_two_buyers_are_both_sold() -> None:
    """Each token goes on one card; two Furs (Greeks) cards are two cards, not one contest."""
    state = at_deals(["Furs/Greeks", "Furs/Greeks"])
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G2"}})
    assert state["collected"][ROMANS] == state["collected"][BARBARIANS] == ["Furs/Greeks"]


def test_several_tokens_on_one_card_start_a_sealed_bid_among_them() -> None:
    """Rule: "If there are several tokens on a goods card, a bidding round is held among the buyers competing for
    that good: each of them holds in hand any sum of drachmas (not less than the cost of the goods)"."""
    state = at_deals(["Spices/Greeks", "Food/Greeks"])
    state, events = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}, EGYPTIANS: {"card": "G2"}})
    prompts = ENGINE.prompts(state)
    assert sorted(prompts) == [ROMANS, BARBARIANS] and prompts[ROMANS].kind == "bid"
    (field,) = prompts[ROMANS].fields
    assert (field.name, field.kind, field.min, field.max) == ("bid", "integer", 0, 10)
    assert "Barbarians also want Spices (Greeks)" in prompts[ROMANS].text
    assert state["collected"][EGYPTIANS] == ["Food/Greeks"]
    assert "Romans and Barbarians both want Spices (Greeks)" in texts(events)
    assert ENGINE.phase_name(state) == "Day 1 — deals, round 1, bidding"


def test_the_highest_bid_buys_the_card_and_pays_that_bid() -> None:
    """Rule: "...the buyer offering the highest price acquires the goods. The winner pays the money to the owner
    of the goods ... The bidders who lost keep the money they put up"."""
    state = at_deals([], sales={INDIANS: ["Spices"]})
    state, _ = play(state, {ROMANS: {"card": "F1"}, BARBARIANS: {"card": "F1"}, EGYPTIANS: {"card": "F1"}})
    state, events = play(state, {ROMANS: {"bid": 7}, BARBARIANS: {"bid": "9"}, EGYPTIANS: {"bid": 8}})
    assert state["collected"][BARBARIANS] == ["Spices/Indians"]
    assert state["cash"] == [10, 1, 10, 19]
    assert "Bids for Spices (Indians): Romans 7, Barbarians 9, Egyptians 8." in texts(events)


def test_equal_top_bids_sell_to_nobody_and_the_tokens_come_back_next_round() -> None:
    """Rule: "If the bids are equal, the goods are not sold to anyone; the money and the buyers' tokens are
    returned to their owners"."""
    state = at_deals(["Spices/Greeks"])
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}, EGYPTIANS: {"card": "G1"}})
    state, events = play(state, {ROMANS: {"bid": 8}, BARBARIANS: {"bid": 8}, EGYPTIANS: {"bid": 6}})
    assert "Equal top bids: nobody buys it; the tokens go back." in texts(events)
    assert state["greek_row"] == ["Spices/Greeks"] and state["cash"][:3] == [10, 10, 10]
    assert state["step"] == "deal" and state["round"] == 2
    assert sorted(ENGINE.prompts(state)) == [ROMANS, BARBARIANS, EGYPTIANS, INDIANS]


def test_a_contestant_may_withdraw_and_the_last_one_left_buys_at_their_bid() -> None:
    """Rule: "...the player who placed their token first on that card may change their decision" becomes, with
    sealed tokens: any contestant may withdraw (bid 0). If all but one withdraw, the last one buys."""
    state = at_deals(["Spices/Greeks"])
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}})
    state, events = play(state, {ROMANS: {"bid": 0}, BARBARIANS: {"bid": 6}})
    assert state["collected"][BARBARIANS] == ["Spices/Greeks"] and state["cash"][BARBARIANS] == 4
    assert "Bids for Spices (Greeks): Romans withdrew, Barbarians 6." in texts(events)


def test_when_every_contestant_withdraws_nobody_buys() -> None:
    """Rule: "If the bids are equal, the goods are not sold to anyone" (all withdrawn: nobody bid at all)."""
    state = at_deals(["Spices/Greeks"])
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}})
    state, events = play(state, {})
    assert state["greek_row"] == ["Spices/Greeks"] and "Nobody buys it" in texts(events)


def test_deals_last_three_rounds_so_a_buyer_buys_at_most_three_cards_a_day() -> None:
    """Rule: "Important! Note that the deal phase takes place in 3 rounds. Thus each player may buy from 0 to 3
    cards in one trading day"."""
    state = at_deals(["Furs/Greeks", "Food/Greeks", "Spices/Greeks"], sales={INDIANS: ["Jewelry"]}, cash=[40] * 4)
    for deal_round in (1, 2, 3):
        assert state["round"] == deal_round
        state, _ = play(state, {ROMANS: {"card": "G1" if state["greek_row"] else "F1"}})
    assert len(state["collected"][ROMANS]) == 3 and state["day"] == 2 and state["step"] == "plan"


def test_the_deals_end_early_when_no_buyer_can_pay_for_anything() -> None:
    """Rule: "Each buyer player is allowed to take part in trade deals three times, provided goods are available
    on the market"."""
    state = at_deals(["Furs/Greeks"])
    state, _ = play(state, {ROMANS: {"card": "G1"}})
    assert state["day"] == 2 and state["step"] == "plan"


# --- 5. end of the day -----------------------------------------------------------------------------


def test_unsold_foreign_goods_go_to_the_locals_and_their_owner_is_paid_the_price() -> None:
    """Rule: "All foreign goods that the participants did not buy are sold to local residents: the owners of these
    cards receive money from the reserve according to the price of these goods, and the goods cards leave
    the game"."""
    state = at_deals([], sales={INDIANS: ["Jewelry", "Spices"]})
    jewelry, spices = price(state, "Jewelry"), price(state, "Spices")
    state, events = end_the_day(state)
    assert state["cash"][INDIANS] == 10 + jewelry + spices
    assert state["foreign_row"] == [] and len(state["hands"][INDIANS]) == 6
    assert not any("Indians" in card for card in state["greek_deck"] + sum(state["collected"], []))
    assert f"locals buy the unsold Jewelry for {jewelry} and Spices for {spices} from the Indians" in texts(events)


def test_unsold_greek_goods_go_back_under_the_greek_deck_in_row_order() -> None:
    """Rule: "Greek goods return to the warehouse (to the bottom of the Greek deck)"."""
    state = at_deals(["Food/Greeks", "Furs/Greeks", "Spices/Greeks"])
    deck = list(state["greek_deck"])
    state, _ = play(state, {ROMANS: {"card": "G2"}})
    state, _ = end_the_day(state)
    assert state["greek_row"] == deck[:3]
    assert state["greek_deck"] == deck[3:] + ["Food/Greeks", "Spices/Greeks"]


def test_after_the_eighth_day_the_game_is_over() -> None:
    """Rule: "The game lasts eight trading days." "The game ends at the end of the 8th trading day"."""
    state = new_game()
    days = [state["day"]]
    while ENGINE.prompts(state):
        state, events = play(state, {})
        days.append(state["day"])
    assert sorted(set(days)) == list(range(1, 9))
    assert state["finished"] and ENGINE.phase_name(state) == "Game over" and ENGINE.outcome(state)
    assert "Final ranking: 1." in texts(events)
    with pytest.raises(OrderError, match="game is over"):
        ENGINE.validate(state, ROMANS, {"role": "buyer"})


# --- end of the game: scoring ----------------------------------------------------------------------


def test_rulebook_set_example_spices_of_three_countries() -> None:
    """Rule: "A set is 3 or more cards in which one of two characteristics (type or country of origin) matches
    and the other differs." "the "Spices (Persians)", "Spices (Egyptians)" and "Spices (Greeks)" cards
    form a set." For each set of 3: 27 drachmas."""
    value, sets, singles = best_partition(["Spices/Persians", "Spices/Egyptians", "Spices/Greeks"])
    assert (value, len(sets), singles) == (27, 1, [])


def test_rulebook_set_example_three_goods_of_the_barbarians() -> None:
    """Rule: "The "Food (Barbarians)", "Tableware (Barbarians)" and "Fabrics (Barbarians)" cards also form a set"."""
    value, sets, singles = best_partition(["Food/Barbarians", "Tableware/Barbarians", "Fabrics/Barbarians"])
    assert (value, len(sets), singles) == (27, 1, [])


def test_cards_repeating_both_characteristics_are_not_a_set() -> None:
    """Rule: "...one of two characteristics ... matches and the other differs": two Spices (Persians) differ in
    nothing, so they cannot share a set."""
    assert best_partition(["Spices/Persians", "Spices/Persians", "Spices/Greeks"])[0] == 18
    assert best_partition(["Spices/Persians", "Food/Greeks", "Furs/Indians"])[0] == 18


@pytest.mark.parametrize(("size", "value"), [(3, 27), (4, 40), (5, 55), (6, 70)])
def test_sets_pay_by_the_table(size: int, value: int) -> None:
    """Rule: "Number of cards in the set / Drachmas per set: 3 27, 4 40, 5 55, 6 70"."""
    assert best_partition([f"{good}/Greeks" for good in GOODS[:size]])[0] == value


def test_each_foreign_good_outside_a_set_pays_six() -> None:
    """Rule: "For each foreign good not taking part in a set, the player receives 6 drachmas"."""
    assert best_partition(["Furs/Greeks", "Food/Romans"])[0] == 12


def test_the_best_split_beats_taking_the_largest_set_first() -> None:
    """Rule: "Goods are sold individually or in sets": the merchant sells them the best way. Taking the Spices
    set of 4 first leaves 4 singles (40 + 24 = 64); two sets of 3 plus 2 singles pay 66."""
    cards = [
        "Spices/Persians",
        "Spices/Egyptians",
        "Spices/Greeks",
        "Spices/Indians",
        "Food/Persians",
        "Furs/Persians",
        "Food/Egyptians",
        "Furs/Egyptians",
    ]
    value, sets, singles = best_partition(cards)
    assert value == 66 and sorted(len(group) for group in sets) == [3, 3] and len(singles) == 2


def _brute_force(cards: list[str]) -> int:
    @cache
    def best(rest: tuple[str, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        value = best(others) + 6
        for size in (2, 3, 4, 5):
            for picked in combinations(range(len(others)), size):
                group = [first, *(others[i] for i in picked)]
                goods, origins = {good_of(c) for c in group}, {country_of(c) for c in group}
                if (len(goods), len(origins)) in {(1, len(group)), (len(group), 1)}:
                    left = tuple(card for i, card in enumerate(others) if i not in picked)
                    value = max(value, best(left) + SET_VALUES[len(group)])
        return value

    return best(tuple(sorted(cards)))


def test_the_best_split_agrees_with_a_brute_force_search() -> None:
    """Rule: "Goods are sold individually or in sets" — checked against trying every split of small collections."""
    rng = random.Random(7)
    pool = [f"{good}/{origin}" for good in GOODS for origin in ORIGINS[1:] for _ in range(2)]
    for _ in range(150):
        cards = rng.sample(pool, rng.randint(0, 10))
        value, sets, singles = best_partition(cards)
        assert Counter(sum(sets, []) + singles) == Counter(cards)
        assert value == _brute_force(cards)


def test_the_best_split_of_twenty_four_cards_is_quick() -> None:
    """A merchant can buy 3 cards a day for 8 days: 24 cards, split exactly (the bench measures it; this
    only guards against a search that explodes)."""
    rng = random.Random(3)
    pool = [f"{good}/{origin}" for good in GOODS for origin in ORIGINS[1:]]
    started = time.perf_counter()
    for _ in range(5):
        best_partition(rng.sample(pool, 24))
    assert time.perf_counter() - started < 5


def test_own_goods_left_pay_one_each_and_the_score_adds_cash() -> None:
    """Rule: "Important! For each of their own goods remaining unsold, the player receives 1 drachma." "...and add
    the money left over"."""
    score, detail = final_score(12, ["Spices/Persians", "Spices/Egyptians", "Spices/Greeks", "Food/Greeks"], 3)
    assert score == 12 + 27 + 6 + 3
    assert detail == "cash 12 + Spices set of 3 (27) + 1 single card (6) + 3 own goods left (3) = 48"


def test_the_richest_merchant_wins() -> None:
    """Rule: "The richest merchant wins"."""
    state = finished_game([["Furs/Greeks"], [], [], []], cash=[10, 20, 5, 0], hands=[0, 0, 0, 0])
    standings = ENGINE.outcome(state)
    assert standings is not None
    assert [(s.seat, s.score, s.rank) for s in standings] == [(1, 20, 1), (0, 16, 2), (2, 5, 3), (3, 0, 4)]


def test_equal_money_goes_to_the_merchant_with_fewer_own_goods_left() -> None:
    """Rule: "If two or more players have an equal amount of money, the winner is the one who has fewer of their
    own goods left"."""
    state = finished_game([[], [], [], []], cash=[18, 17, 0, 0], hands=[2, 3, 0, 0])
    standings = ENGINE.outcome(state)
    assert standings is not None
    assert [(s.seat, s.score, s.rank) for s in standings[:2]] == [(0, 20, 1), (1, 20, 2)]


def test_a_tie_in_money_and_own_goods_is_a_shared_win() -> None:
    """Rule: "If it is still a tie, the youngest of them wins. If the leader cannot be determined, these players
    celebrate the victory together." HOUSE DEFAULT (FACTS.md): age is unknown, so they share the rank."""
    state = finished_game([[], [], [], []], cash=[18, 18, 5, 0], hands=[2, 2, 0, 0])
    standings = ENGINE.outcome(state)
    assert standings is not None
    assert [(s.seat, s.rank) for s in standings] == [(0, 1), (1, 1), (2, 3), (3, 4)]
    assert "cash 18" in standings[0].detail


# --- orders: validation ----------------------------------------------------------------------------


def test_selling_a_good_you_do_not_hold_is_refused() -> None:
    """Rule: "All seller players choose ... goods they want to sell": only their own cards."""
    state, _ = plan(new_game(), sellers=(ROMANS,))
    state["hands"][ROMANS] = ["Furs/Romans"]
    with pytest.raises(OrderError, match="no Spices card left"):
        ENGINE.validate(state, ROMANS, {"cards": ["Spices"]})
    with pytest.raises(OrderError, match="only 1 Furs card left, not 2"):
        ENGINE.validate(state, ROMANS, {"cards": ["Furs", "Furs"]})
    with pytest.raises(OrderError, match="no good called 'Silk'"):
        ENGINE.validate(state, ROMANS, {"cards": ["Silk"]})


def test_selling_three_cards_is_refused() -> None:
    """Rule: "All seller players choose no more than two goods"."""
    state, _ = plan(new_game(), sellers=(ROMANS,))
    with pytest.raises(OrderError, match="at most two cards"):
        ENGINE.validate(state, ROMANS, {"cards": ["Furs", "Food", "Spices"]})


def test_a_buyer_cannot_put_goods_up_for_sale() -> None:
    """Rule: "All seller players choose ... goods they want to sell today": buyers wait."""
    state, _ = plan(new_game(), sellers=(ROMANS,))
    with pytest.raises(OrderError, match="You are a buyer today"):
        ENGINE.validate(state, BARBARIANS, {"cards": ["Food"]})


def test_a_seller_cannot_make_deals() -> None:
    """Rule: "All buyer players ... choose one goods card"."""
    state = at_deals(["Furs/Greeks"], sales={INDIANS: []})
    with pytest.raises(OrderError, match="You are a seller today"):
        ENGINE.validate(state, INDIANS, {"card": "G1"})


def test_a_bid_below_the_price_or_above_your_cash_is_refused() -> None:
    """Rule: "...each of them holds in hand any sum of drachmas (not less than the cost of the goods)"."""
    state = at_deals(["Spices/Greeks"], prices=[5, 5, 5, 5, 6, 5])
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}})
    with pytest.raises(OrderError, match="at least 6, the price of Spices"):
        ENGINE.validate(state, ROMANS, {"bid": 5})
    with pytest.raises(OrderError, match="more than the 10 drachmas you have"):
        ENGINE.validate(state, ROMANS, {"bid": 11})
    with pytest.raises(OrderError, match="not in a contest"):
        ENGINE.validate(state, EGYPTIANS, {"bid": 6})
    assert ENGINE.validate(state, ROMANS, {"bid": " 7 "}) == {"bid": 7}
    assert ENGINE.validate(state, ROMANS, {"bid": "withdraw"}) == {"bid": 0}


def test_form_input_is_normalised() -> None:
    """Play-by-email: orders arrive from forms and emails as text."""
    state = new_game()
    assert ENGINE.validate(state, ROMANS, {"role": " Seller "}) == {"role": "seller"}
    assert ENGINE.validate(state, ROMANS, {"role": ["buyer"]}) == {"role": "buyer"}
    state, _ = plan(state, sellers=(ROMANS,))
    assert ENGINE.validate(state, ROMANS, {"cards": "food"}) == {"cards": ["Food"]}
    assert ENGINE.validate(state, ROMANS, {"cards": "Tableware, furs"}) == {"cards": ["Furs", "Tableware"]}
    assert ENGINE.validate(state, ROMANS, {}) == {"cards": []}
    deals = at_deals(["Furs/Greeks"])
    assert ENGINE.validate(deals, ROMANS, {"card": "g1"}) == {"card": "G1"}
    assert ENGINE.validate(deals, ROMANS, {"card": "Furs/Greeks"}) == {"card": "G1"}
    assert ENGINE.validate(deals, ROMANS, {"card": "NONE"}) == {"card": "none"}


@pytest.mark.parametrize(
    "order",
    [
        {},
        {"role": None},
        {"role": 3},
        {"role": ["buyer", "seller"]},
        {"role": {"x": 1}},
        {"role": 10**30},
        {"role": "pirate"},
        None,
        "buyer",
        ["role"],
    ],
)
def test_garbage_orders_raise_order_errors_only(order: Any) -> None:
    """Play-by-email: a malformed order is refused with a message, never a crash."""
    with pytest.raises(OrderError):
        ENGINE.validate(new_game(), ROMANS, order)


GARBAGE_BIDS = [None, "", "seven", 6.5, True, [1, 2], {"a": 1}, 10**30, "9" * 5000, -3, float("nan"), "+-5", "²", "1e3"]


@pytest.mark.parametrize("bid", GARBAGE_BIDS)
def test_garbage_bids_raise_order_errors_only(bid: Any) -> None:
    """Play-by-email: a malformed bid is refused with a message, never a crash."""
    state = at_deals(["Spices/Greeks"])
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}})
    with pytest.raises(OrderError):
        ENGINE.validate(state, ROMANS, {"bid": bid})


def test_an_unknown_card_is_refused() -> None:
    """Rule: "...choose one goods card in either of the two trade rows"."""
    state = at_deals(["Furs/Greeks"])
    with pytest.raises(OrderError, match="no card 'G7' on the market"):
        ENGINE.validate(state, ROMANS, {"card": "G7"})
    with pytest.raises(OrderError, match="no such seat"):
        ENGINE.validate(state, 9, {"card": "G1"})


# --- missed deadlines, bots and the contract -------------------------------------------------------


def test_default_orders_buy_nothing_sell_nothing_and_withdraw() -> None:
    """RULES.md: a missed deadline means buyer, no cards for sale, keep the token, withdraw from a bid."""
    state = new_game()
    assert ENGINE.default_order(state, ROMANS) == {"role": "buyer"}
    state, _ = plan(state, sellers=(ROMANS,))
    assert ENGINE.default_order(state, ROMANS) == {"cards": []}
    state = at_deals(["Furs/Greeks"])
    assert ENGINE.default_order(state, ROMANS) == {"card": "none"}
    state, _ = play(state, {ROMANS: {"card": "G1"}, BARBARIANS: {"card": "G1"}})
    assert ENGINE.default_order(state, ROMANS) == {"bid": 0}
    assert ENGINE.validate(state, ROMANS, ENGINE.default_order(state, ROMANS)) == {"bid": 0}


def test_resolve_does_not_change_the_state_it_is_given() -> None:
    """The contract: resolve returns a new state."""
    state = new_game()
    before = json.dumps(state, sort_keys=True)
    plan(state, sellers=(ROMANS,))
    assert json.dumps(state, sort_keys=True) == before


def test_the_state_survives_a_json_round_trip_at_every_step() -> None:
    """The contract: state is plain JSON."""
    rng = random.Random(4)
    state = new_game()
    while ENGINE.prompts(state):
        assert json.loads(json.dumps(state)) == state
        orders = {seat: ENGINE.random_order(state, seat, rng) for seat in ENGINE.prompts(state)}
        state, _ = play(json.loads(json.dumps(state)), orders)


def test_a_view_never_shows_other_hands_or_sealed_choices() -> None:
    """Rule: "Each player ... hiding it with a palm": tokens, sales and bids stay sealed until revealed; hands
    are private."""
    state, _ = plan(new_game(), sellers=(ROMANS, INDIANS))
    view = ENGINE.view(state, ROMANS)
    assert view["seat"] == ROMANS and view["country"] == "Romans"
    assert [card["country"] for card in view["hand"]] == ["Romans"] * 8
    assert [player["hand_count"] for player in view["players"]] == [8, 8, 8, 8]
    assert "Indians" not in json.dumps(view["hand"]) and "hands" not in view
    spectator = ENGINE.view(state, None)
    assert spectator["hand"] is None and spectator["seat"] is None and spectator["cash"] is None
    assert spectator["foreign_row"] == []
    for seat in (None, ROMANS, BARBARIANS):
        concealed = ENGINE.conceal(state, seat, random.Random(5))
        assert ENGINE.view(concealed, seat) == ENGINE.view(state, seat)


def test_random_orders_are_legal_varied_and_deterministic_for_a_seed() -> None:
    """Bots play by the rules: every random order passes validation, and a seed replays the same game."""

    def game(seed: int, players: int) -> tuple[str, Counter[str]]:
        rng = random.Random(seed)
        state = ENGINE.setup(players, {}, random.Random(seed))
        seen: Counter[str] = Counter()
        while prompts := ENGINE.prompts(state):
            orders = {}
            for seat, prompt in prompts.items():
                orders[seat] = ENGINE.validate(state, seat, ENGINE.random_order(state, seat, rng))
                seen[prompt.kind] += 1
            state, _ = ENGINE.resolve(state, orders, random.Random(0))
        return json.dumps(state, sort_keys=True), seen

    kinds: Counter[str] = Counter()
    for seed in range(12):
        first, seen = game(seed, 3 + seed % 4)
        assert first == game(seed, 3 + seed % 4)[0]
        kinds += seen
    assert set(kinds) == {"plan", "sale", "deal", "bid"}


def test_the_engine_is_registered_under_its_slug() -> None:
    """The registry: get_engine("piraeus")."""
    assert (ENGINE.slug, ENGINE.title, ENGINE.min_players, ENGINE.max_players) == (
        "piraeus",
        "Port of Piraeus",
        3,
        6,
    )
    assert [option.name for option in ENGINE.options] == ["countries"]


# --- reading an order back (issue 15) ----------------------------------------------------------------


def test_orders_read_back_in_words_and_selling_nothing_is_a_warning() -> None:
    state = new_game()
    assert ENGINE.read_back(state, 0, {"role": "buyer"}).lines == ("You will buy goods today.",)
    state["hands"][1] = []
    seller = ENGINE.read_back(state, 1, {"role": "seller"})
    assert seller.warnings == ("You have no goods in hand, so you will have nothing to sell today.",)
    state, _ = plan(new_game(), sellers=(2,))
    good = state["hands"][2][0].split("/")[0]
    assert ENGINE.read_back(state, 2, ENGINE.validate(state, 2, {"cards": [good]})).lines == (
        f"You will put a {good} card up for sale: each card lowers its good's price by 1.",
    )
    nothing = ENGINE.read_back(state, 2, ENGINE.validate(state, 2, {"cards": []}))
    assert nothing.warnings == ("You chose to sell today but put no goods up for sale.",)
