"""Ports of Call, one rules case per test, the rule quoted in the docstring (rulebook:
../shared/rules/ports-of-call.txt; house defaults: FACTS.md; play-by-email changes:
games/engines/ports_of_call/RULES.md). Pure Python: no database, no Django.

Every state is built by the engine itself (setup, home choices and turns resolved through the engine);
a test then moves a ship, sets cash or a share value to reach the situation the rule is about."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engines import get_engine
from games.engines.base import Event, OrderError, ReadBack
from games.engines.ports_of_call.data import (
    NEWS,
    OFF_MAP_ROUTES,
    ORDER_CARDS,
    PRICES,
    ROUTES,
    START_CASH,
    route_between,
)
from games.engines.ports_of_call.flow import annual_result, standings_rows
from games.engines.ports_of_call.money import order_label, price

ENGINE = get_engine("ports-of-call")
State = dict[str, Any]
RED, BLUE = 0, 1


# --- tiny helpers ----------------------------------------------------------------------------------


def card(city: str, first: str, second: str) -> int:
    return next(i for i, (c, *goods) in enumerate(ORDER_CARDS) if c == city and set(goods) == {first, second})


def news(kind: str, **match: Any) -> int:
    return next(c["number"] for c in NEWS if c["kind"] == kind and all(c.get(k) == v for k, v in match.items()))


def take(state: State, wanted: int) -> int:
    """Take an order card out of wherever it is (deck, market, dealt hands) so a test can place it."""
    for pile in [state["order_deck"], state["market"], *state["dealt"]]:
        if wanted in pile:
            pile.remove(wanted)
    return wanted


def resolve(state: State, seat: int, order: dict[str, Any]) -> tuple[State, list[Event]]:
    checked = ENGINE.validate(state, seat, order)
    return ENGINE.resolve(state, {seat: checked}, random.Random(0))


def started(homes: tuple[str, ...] = ("Hong Kong", "Hamburg"), **options: Any) -> State:
    """A game after every seat chose its home city (in seat order) and kept its first dealt card."""
    state = ENGINE.setup(len(homes), options, random.Random(1))
    for city in homes:
        seat = state["queue"][0]
        state, _ = resolve(state, seat, {"home": city, "keep": str(state["dealt"][seat][0])})
    assert state["step"] == "turn"
    return state


def turn(state: State, text: str) -> tuple[State, list[Event]]:
    """The seat to play submits `text` and it resolves."""
    return resolve(state, state["queue"][0], {"actions": text})


def rejected(state: State, text: str) -> str:
    """The seat to play submits `text`: it is refused and the state is left exactly as it was."""
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(OrderError) as error:
        ENGINE.validate(state, state["queue"][0], {"actions": text})
    assert json.dumps(state, sort_keys=True) == before
    return str(error.value)


def to_next_quarter(state: State, news_card: int | None = None) -> tuple[State, list[Event]]:
    """Everyone still to play passes; `news_card` is made the card revealed at the quarter's end."""
    if news_card is not None:
        state["news_deck"].remove(news_card)
        state["news_deck"].insert(0, news_card)
    quarter, events = (state["year"], state["quarter"]), []
    while (state["year"], state["quarter"]) == quarter and not state["finished"]:
        state, more = turn(state, "")
        events += more
    return state, events


def ship(state: State, seat: int, ship_id: str) -> dict[str, Any]:
    return next(s for s in state["ships"][seat] if s["id"] == ship_id)


def dock(state: State, seat: int, ship_id: str, city: str, cargo: list[str] | None = None) -> None:
    """Put a ship in a port (as if it had sailed there in an earlier quarter)."""
    moved = ship(state, seat, ship_id)
    moved.update(port=city, route=None, pos=0)
    if cargo is not None:
        moved["cargo"] = list(cargo)


def texts(events: list[Event]) -> str:
    return " ".join(event.text for event in events)


# --- setup and home cities ---------------------------------------------------------------------------


def test_setup_lays_out_market_news_achievements_terminal_and_tracks() -> None:
    """ "Create the Order Market by placing 4 Order Cards face up." "Place the 3 Achievement Cards with
    black fronts ... draw a number of cards equal to the number of players." "position 3 containers of each
    colour ... so that they cover the values 170, 160, and 140." "Each player places 1 Large Marker ... on
    the 100 space of the Stock Exchange ... on the starting space of the Production Track." "Each player
    receives 3 Order Cards." The first 16 news cards "may either be revealed in numerical order or
    shuffled"; "If playing for 3 fiscal years, use cards 1–12. If playing for 5 fiscal years, use cards 1–20.\""""
    for players in (2, 3, 4):
        state = ENGINE.setup(players, {}, random.Random(players))
        assert len(state["market"]) == 4 and len(state["order_deck"]) == 90 - 4 - 3 * players
        assert len(state["achievements"]) == 3 + players
        assert {"most-orders", "most-factories", "most-cash"} <= set(state["achievements"])
        assert all(len(row) == 3 for row in state["terminal"].values())
        assert price(state, "wine") == 120
        assert state["stock"] == [100] * players and state["track"] == [0] * players
        assert [len(hand) for hand in state["dealt"]] == [3] * players
        assert state["news_deck"][:16] == list(range(1, 17)) and len(state["news_deck"]) == 50
    shuffled = ENGINE.setup(2, {"news_order": "shuffled"}, random.Random(3))
    assert sorted(shuffled["news_deck"][:16]) == list(range(1, 17)) != shuffled["news_deck"][:16]
    assert sorted(ENGINE.setup(2, {"years": 3}, random.Random(1))["news_deck"][:12]) == list(range(1, 13))
    assert sorted(ENGINE.setup(2, {"years": "5"}, random.Random(1))["news_deck"][:20]) == list(range(1, 21))


def test_home_cities_are_chosen_one_seat_at_a_time_in_start_marker_order() -> None:
    """ "Beginning with the player holding the Start Marker and proceeding clockwise, each player chooses a
    Home City and selects 1 of their 3 Order Cards as their starting order. The remaining 2 Order Cards
    are placed in a discard pile.\""""
    state = ENGINE.setup(3, {}, random.Random(2))
    assert list(ENGINE.prompts(state)) == [0]
    with pytest.raises(OrderError):
        ENGINE.validate(state, 1, {"home": "Tokyo", "keep": str(state["dealt"][1][0])})
    dealt = list(state["dealt"][0])
    state, _ = resolve(state, 0, {"home": "Tokyo", "keep": str(dealt[1])})
    assert list(ENGINE.prompts(state)) == [1]
    assert state["order_discard"] == [dealt[0], dealt[2]] and state["dealt"][0] == []
    with pytest.raises(OrderError, match="not a free home city"):
        ENGINE.validate(state, 1, {"home": "Tokyo", "keep": str(state["dealt"][1][0])})


def test_at_most_two_home_cities_in_one_production_region() -> None:
    """ "A maximum of 2 Home Cities may be located within the same production region. For example, if 2
    players have already chosen cities that produce wine, a third player may not choose the remaining
    wine-producing city as their Home City.\""""
    state = ENGINE.setup(3, {}, random.Random(4))
    for city in ("Sydney", "Cape Town"):
        state, _ = resolve(state, state["queue"][0], {"home": city, "keep": str(state["dealt"][state["queue"][0]][0])})
    choices = [c.value for c in ENGINE.prompts(state)[2].fields[0].choices]
    assert "Buenos Aires" not in choices and "Hamburg" in choices
    with pytest.raises(OrderError, match="not a free home city"):
        ENGINE.validate(state, 2, {"home": "Buenos Aires", "keep": str(state["dealt"][2][0])})


def test_the_home_city_gets_a_factory_a_reserved_site_and_two_loaded_ships() -> None:
    """ "Place 1 Factory in the player's colour on 1 of the Home City's building sites and 1 Large Marker
    in the same colour on the other building site. No other player may build on that reserved building
    site." "if Hamburg is chosen as the Home City, the player's 2 ships are loaded with 1 and 2 light blue
    containers, respectively.\""""
    state = started(("Hamburg", "Tokyo"))
    factory, reserved = state["sites"]["Hamburg"]
    assert factory == {"seat": RED, "factories": 1, "used": 0} and reserved["seat"] == RED
    assert reserved["factories"] == 0
    assert [(s["size"], s["cargo"], s["port"]) for s in state["ships"][RED]] == [
        ("small", ["turbines"], "Hamburg"),
        ("large", ["turbines", "turbines"], "Hamburg"),
    ]
    # Blue's ship in Hamburg cannot build on Red's reserved site.
    state, _ = turn(state, "")
    dock(state, BLUE, "S1", "Hamburg")
    assert "taken" in rejected(state, "build Hamburg")


def test_a_missed_home_choice_takes_the_first_free_city_and_the_first_dealt_card() -> None:
    """House default for a missed deadline (RULES.md): the first free city in map order and the first card."""
    state = ENGINE.setup(2, {}, random.Random(5))
    state, _ = resolve(state, 0, {"home": "Hamburg", "keep": str(state["dealt"][0][0])})
    first = state["dealt"][1][0]
    state, _ = ENGINE.resolve(state, {}, random.Random(0))
    assert state["home"] == ["Hamburg", "Rotterdam"] and state["orders"][1][0]["card"] == first


# --- secrecy -------------------------------------------------------------------------------------------


def test_dealt_order_cards_stay_secret_until_every_home_city_is_chosen() -> None:
    """ "Each player receives 3 Order Cards, which remain secret until all players have chosen their Home
    City." "Once all players have chosen their Home Cities, they place their selected Order Card face up.\""""
    state = ENGINE.setup(2, {}, random.Random(6))
    red_labels = [order_label(c) for c in state["dealt"][RED]]
    assert ENGINE.view(state, RED)["me"]["dealt"] == red_labels
    for viewer in (BLUE, None):
        assert all(label not in json.dumps(ENGINE.view(state, viewer)) for label in red_labels)
        assert all(label not in ENGINE.prompts(state)[RED].text for label in map(order_label, state["dealt"][BLUE]))
    kept = state["dealt"][RED][2]
    state, events = resolve(state, RED, {"home": "Tokyo", "keep": str(kept)})
    public = [e for e in events if e.seat is None]
    private = [e for e in events if e.seat == RED]
    assert private and order_label(kept) in private[0].text
    assert all(order_label(kept) not in e.text for e in public)
    assert order_label(kept) not in json.dumps(ENGINE.view(state, BLUE))
    assert ENGINE.view(state, BLUE)["players"][RED]["orders"] == []
    assert ENGINE.view(state, RED)["me"]["kept"]
    state, events = resolve(state, BLUE, {"home": "Hamburg", "keep": str(state["dealt"][BLUE][0])})
    assert [o["card"] for o in state["orders"][RED]] == [kept]
    assert ENGINE.view(state, BLUE)["players"][RED]["orders"][0]["city"] == ORDER_CARDS[kept][0]
    assert any("reveals" in e.text and e.seat is None for e in events)


def test_completed_orders_lie_face_down_so_others_cannot_count_them() -> None:
    """ "Completed Order Cards are placed face down next to the Office Board, so that the other players
    cannot count them.\""""
    state = started()
    none_done = ENGINE.view(state, BLUE)
    state["completed"][RED] = state["order_deck"][:2]  # the deck is hidden too, so no view changes by it
    assert ENGINE.view(state, BLUE) == none_done
    assert ENGINE.view(state, None) == ENGINE.view({**state, "completed": [[], []]}, None)
    assert ENGINE.view(state, RED)["me"]["completed_count"] == 2


# --- Keld's two turns (the rulebook's worked example) -------------------------------------------------


def test_keld_first_and_second_turns_on_the_house_map() -> None:
    """ "Keld's First Turn": he buys the San Francisco order "for $50M and 1 AP", "also buys a face-down Order
    Card for $20M and 1 AP", "sails both ships south-east. The Small Ship moves 3 spaces, while the Large
    Ship moves 2 spaces", and "boosts the Large Ship for 1 AP, so that it ends its movement on the same space
    as the Small Ship. He has now used all 3 Action Points." "Keld's Second Turn": "sails his Large Ship
    south and boosts it to reach Sydney. There, he sells one container for $120M ... plus a $30M Port Bonus,
    for a total of $150M", "builds a Factory in Sydney for $50M and 1 AP. He then produces 1 Wine Container
    for $20M and 1 AP", "This causes the price of Wine to fall", and his marker "advances 1 space on the
    Production Track". His small ship "sails east off the edge of the map and continues north to San
    Francisco, where he sells the Electronics Container for $120M + $30M = $150M" as a partial delivery.
    "Keld buys a Wine Container for his Large Ship in Sydney and sails west and then north to Kolkata (over
    the course of 2 turns using boosts), where he sells both containers and advances 2 spaces".

    Adapted to the house map (RULES.md): no house route leads from Tokyo towards Sydney, so Keld's home is
    Hong Kong, Tokyo's neighbour in the electronics region, 5 spaces from Sydney. His ships meet 3 spaces
    out; the large ship, boosted, reaches Sydney in turn 2. No route passes Sydney, so the small ship also
    enters Sydney in turn 2 and sails the off-map route to San Francisco in turns 3 and 4, while the large
    ship takes wine to Kolkata in the same two turns. The rulebook's "removes the Wine Container" for the
    San Francisco order (electronics + oil) is read as the electronics container just sold there."""
    state = ENGINE.setup(2, {}, random.Random(7))
    kolkata = take(state, card("Kolkata", "electronics", "wine"))
    san_francisco = take(state, card("San Francisco", "electronics", "oil"))
    hamburg = take(state, card("Hamburg", "steel", "oil"))
    state["dealt"][RED] = [kolkata, *state["dealt"][RED][:2]]
    state["market"] = [san_francisco, *state["market"][:3]]
    state["order_deck"].insert(1, hamburg)  # under the card that refills the market after his purchase
    state, _ = resolve(state, RED, {"home": "Hong Kong", "keep": str(kolkata)})
    state, _ = resolve(state, BLUE, {"home": "Hamburg", "keep": str(state["dealt"][BLUE][0])})
    cash = state["cash"][RED]

    first = "order San Francisco oil electronics; order hidden; move S1 Sydney 3; move L1 Sydney 2; boost L1"
    first += "; move L1 Sydney 1"
    too_many = rejected(state, first + "; boost S1")
    assert too_many.startswith("Step 7 (boost S1)") and "you have 0 left" in too_many
    state, _ = turn(state, first)
    assert state["cash"][RED] == cash - 50 - 20
    assert [o["card"] for o in state["orders"][RED]] == [kolkata, san_francisco, hamburg]
    to_sydney = route_between("Hong Kong", "Sydney")
    assert [(s["route"], s["pos"]) for s in state["ships"][RED]] == [(to_sydney, 3), (to_sydney, 3)]
    state, _ = to_next_quarter(state)

    cash = state["cash"][RED]
    second = "boost L1; move L1 Sydney; sell L1 electronics; build Sydney; produce Sydney; move S1 Sydney"
    assert "0 left" in rejected(state, second + "; order hidden")
    assert price(state, "wine") == 120
    state, events = turn(state, second)
    assert "for $150M" in texts(events)
    assert state["cash"][RED] == cash + 150 - 50 - 20
    assert ship(state, RED, "L1")["cargo"] == ["electronics"] and ship(state, RED, "L1")["port"] == "Sydney"
    assert price(state, "wine") == 100 and state["terminal"]["wine"][0] == RED
    assert state["track"][RED] == 1 and state["sites"]["Sydney"][0] == {"seat": RED, "factories": 1, "used": 1}
    state, _ = to_next_quarter(state)

    cash = state["cash"][RED]
    state, events = turn(state, "buy wine L1; move L1 Kolkata 2; boost L1; move L1 Kolkata 1; move S1 San Francisco 3")
    assert state["cash"][RED] == cash - 100  # wine bought at the fallen price, from the bank
    off_map = route_between("Sydney", "San Francisco")
    assert off_map is not None and ROUTES[off_map][:2] in OFF_MAP_ROUTES
    assert (ship(state, RED, "S1")["route"], ship(state, RED, "S1")["pos"]) == (off_map, 3)
    drawn = next(r for r in ENGINE.view(state, RED)["routes"] if r["off_map"])
    assert drawn["segments"][0]["x2"] == 1000 and drawn["segments"][1]["x1"] == 0
    state, _ = to_next_quarter(state)

    cash, stock = state["cash"][RED], state["stock"][RED]
    state, events = turn(state, "boost L1; move L1 Kolkata; sell L1; move S1 San Francisco; sell S1")
    assert state["cash"][RED] == cash + (120 + 30) + (120 + 30) + (120 + 30)
    assert state["stock"][RED] == stock + 20  # the Kolkata order, both goods on one large ship: 2 steps
    assert state["completed"][RED] == [kolkata]
    assert state["orders"][RED][0] == {"card": san_francisco, "delivered": ["electronics"]}


# --- moving and boosting -------------------------------------------------------------------------------


def test_a_ship_moves_three_spaces_a_large_ship_with_two_containers_two() -> None:
    """ "A Small or Large Ship carrying up to 1 container may move up to 3 spaces during a turn. A Large Ship
    carrying 2 containers may move up to 2 spaces during a turn.\""""
    state = started()
    assert "may move only 2 more spaces" in rejected(state, "move L1 Sydney 3")
    assert "may move only 3 more spaces" in rejected(state, "move S1 Sydney 4")
    ship(state, RED, "L1")["cargo"] = ["electronics"]
    state, _ = turn(state, "move L1 Sydney 3; move S1 Sydney 3")
    assert [s["pos"] for s in state["ships"][RED]] == [3, 3]


def test_a_move_is_continuous_unless_the_ship_is_boosted() -> None:
    """ "A ship's movement must be completed as a single continuous action and cannot be split up. You may
    not move a ship, perform another action, and then continue its movement. The only exception is if the
    ship is boosted later in the turn.\""""
    state = started()
    assert "already made its move" in rejected(state, "move S1 Sydney 1; order hidden; move S1 Sydney 1")
    state, _ = turn(state, "move S1 Sydney 1; order hidden; boost S1; move S1 Sydney")
    assert ship(state, RED, "S1")["pos"] == 4  # 1, then the 2 left and the boost's 1


def test_entering_a_port_ends_the_move() -> None:
    """ "Once a ship enters a port, it may not be moved any further during that turn.\""""
    state = started()
    assert "already made its move" in rejected(state, "move S1 Tokyo; move S1 San Francisco")
    assert "is in port" in rejected(state, "move S1 Tokyo; boost S1")
    assert "only 2 spaces away" in rejected(state, "move S1 Tokyo 3")
    state, _ = turn(state, "move S1 Tokyo")
    assert ship(state, RED, "S1")["port"] == "Tokyo"


def test_canal_fees_are_paid_per_ship_and_a_closed_canal_cannot_be_crossed() -> None:
    """ "When passing through the Panama Canal or the Suez Canal, a player must pay $20M per ship to the
    Bank." News: "When ... the Panama Canal or the Suez Canal are closed, place the large grey wooden discs
    on the affected spaces until the closure ends.\""""
    state = started(("New York", "Hamburg"))
    closed = json.loads(json.dumps(state))
    closed["closures"]["canals"] = ["Panama"]
    assert "Panama Canal is closed" in rejected(closed, "move S1 San Francisco 2")
    state, events = turn(state, "move S1 San Francisco 1; move L1 San Francisco 2")
    assert state["cash"] == [START_CASH - 20, START_CASH]  # one ship crossed; the bank is paid
    state, _ = to_next_quarter(state)
    state, _ = turn(state, "move S1 San Francisco 2")
    assert state["cash"][RED] == START_CASH - 40  # the fee again, for the other ship


def test_entering_another_players_home_city_pays_that_player_port_fees() -> None:
    """ "If you move a ship into a port that is another player's home city, you must pay that player $20M in
    port fees.\""""
    state = started(("Hong Kong", "Tokyo"))
    state, _ = turn(state, "move S1 Tokyo; move L1 Sydney 1; boost L1; move L1 Hong Kong")
    assert state["cash"] == [START_CASH - 20, START_CASH + 20]  # back into its own home: no fee
    assert ship(state, RED, "L1")["port"] == "Hong Kong"


def test_ships_sail_off_the_map_south_of_san_francisco_and_reappear_north_of_australia() -> None:
    """ "Note that ships may sail off the map south of San Francisco and reappear north of Australia.\""""
    state = started(("San Francisco", "Hamburg"))
    state, _ = turn(state, "move S1 Sydney 3")
    route = ship(state, RED, "S1")["route"]
    assert ROUTES[route][:2] in OFF_MAP_ROUTES and ship(state, RED, "S1")["pos"] == 3
    state, _ = to_next_quarter(state)
    state, _ = turn(state, "move S1 Sydney")
    assert ship(state, RED, "S1")["port"] == "Sydney"


def test_closed_ports_and_bad_weather_last_the_following_quarter() -> None:
    """ "Cards with a white title bar affect the entire following quarter, for example when port cities are
    closed or adverse weather affects ship movement.\""""
    state = started(("Hong Kong", "Hamburg"))
    state, events = to_next_quarter(state, news("close-port", city="Tokyo"))
    assert state["closures"]["ports"] == ["Tokyo"]
    assert "Tokyo is closed" in rejected(state, "move S1 Tokyo")
    state, _ = turn(state, "move S1 Tokyo 1")
    state, _ = to_next_quarter(state, news("weather", ocean="Pacific"))
    assert state["closures"] == {"ports": [], "canals": [], "weather": ["Pacific"]}
    assert "may move only 1 more space" in rejected(state, "move L1 Sydney 2")  # laden: 2, less 1
    state, _ = turn(state, "move S1 Tokyo")
    assert ship(state, RED, "S1")["port"] == "Tokyo"


def test_boost_costs_one_action_point_once_per_ship_and_not_in_port() -> None:
    """ "A ship may be boosted to move 1 additional space during the same turn. This costs 1 Action Point.
    Any ship that is not currently in port may be boosted ... However, each ship may only be boosted once
    per turn.\""""
    state = started()
    assert "is in port" in rejected(state, "boost S1")
    assert "already been boosted" in rejected(state, "move S1 Sydney 1; boost S1; boost S1")
    over = "move S1 Sydney 1; move L1 Sydney 1; boost S1; boost L1; order hidden; order hidden"
    assert "Step 6" in rejected(state, over) and "you have 0 left" in rejected(state, over)
    state, _ = turn(state, "move S1 Sydney 1; boost S1; move S1 Sydney")
    assert ship(state, RED, "S1")["pos"] == 4


# --- order cards -------------------------------------------------------------------------------------


def test_order_cards_hidden_for_20_open_for_50_and_the_market_refills() -> None:
    """ "Purchasing a face-up Order Card costs $50M and 1 Action Point. After purchase, a new card is
    immediately drawn from the Order Deck and placed on the Order Market. Purchasing a face-down Order Card
    directly from the Order Deck costs just $20M and 1 Action Point.\""""
    state = started()
    top, second_slot, market = state["order_deck"][0], state["market"][1], list(state["market"])
    state, _ = turn(state, "order hidden; order 2")
    assert state["cash"][RED] == START_CASH - 20 - 50
    assert [o["card"] for o in state["orders"][RED]][1:] == [top, second_slot]
    assert len(state["market"]) == 4 and second_slot not in state["market"]
    assert state["market"][:1] + state["market"][1:3] == [market[0], market[2], market[3]]


def test_at_most_five_active_orders() -> None:
    """ "A player may have a maximum of 5 active orders at any one time.\""""
    state = started()
    state["cash"][RED] = 1000
    sixth = rejected(state, "extra; ship small; order hidden; order hidden; order hidden; order hidden; order 1")
    assert sixth.startswith("Step 7") and "5 active orders" in sixth
    state, _ = turn(state, "extra; order hidden; order hidden; order hidden; order 1")
    assert len(state["orders"][RED]) == 5


# --- ships -------------------------------------------------------------------------------------------


def test_buying_ships_limits_home_placement_and_an_action_point_at_once() -> None:
    """ "A Small Ship costs $50M and 1 Action Point. A Large Ship costs $200M and 1 Action Point. Newly
    purchased ships are placed in your home city and may depart immediately." "You may own a maximum of 3
    Small Ships and 2 Large Ships." "Whenever you purchase an additional ship, you immediately gain 1
    additional Action Point, which may be used during the same turn.\""""
    state = started()
    state["cash"][RED] = 1000
    assert "at most 3 small" in rejected(state, "ship small; ship small; ship small")
    assert "at most 2 large" in rejected(state, "ship large; ship large")
    assert "Step 5" in rejected(state, "ship small; order hidden; order hidden; order hidden; order hidden")
    state, _ = turn(state, "ship small; order hidden; order hidden; move S2 Sydney 3; order hidden")
    assert state["cash"][RED] == 1000 - 50 - 3 * 20
    new = ship(state, RED, "S2")
    assert new["size"] == "small" and new["cargo"] == [] and new["route"] == route_between("Hong Kong", "Sydney")


# --- containers ----------------------------------------------------------------------------------------


def test_buying_takes_the_rightmost_container_at_the_price_right_of_it_and_the_price_rises() -> None:
    """ "When purchasing a container, you take the container furthest to the right ... The purchase price is
    shown to the right of that container. In addition, each container costs 1 Action Point" "the market
    price increases whenever a container is purchased.\""""
    state = started()
    for s in state["ships"][RED]:
        s["cargo"] = []
    state, events = turn(state, "buy electronics S1; buy electronics L1")
    assert state["cash"][RED] == START_CASH - 120 - 140 and price(state, "electronics") == PRICES[1] == 160
    assert len(state["terminal"]["electronics"]) == 1


def test_several_containers_bought_at_once_cost_the_first_ones_price_each() -> None:
    """ "If you purchase multiple containers from the same container row in a single transaction, each
    container is purchased at the price of the first container. You may purchase containers for multiple
    ships" "each container purchased costs 1 Action Point, even when several containers are purchased at
    the same time.\""""
    state = started()
    for s in state["ships"][RED]:
        s["cargo"] = []
    state["cash"][RED] = 1000
    assert "needs 3 action points; you have 2" in rejected(state, "order hidden; buy electronics S1 L1 L1")
    state, _ = turn(state, "buy electronics S1 L1 L1")
    assert state["cash"][RED] == 1000 - 3 * 120 and state["terminal"]["electronics"] == []
    assert [s["cargo"] for s in state["ships"][RED]] == [["electronics"], ["electronics", "electronics"]]


def test_a_players_container_is_paid_to_that_player_and_ones_own_is_free() -> None:
    """ "If you purchase a container containing a coloured player marker ..., payment is made to that player
    instead. If it is your own container, no payment is required.\""""
    state = started(("Hong Kong", "Tokyo"))
    for s in state["ships"][RED]:
        s["cargo"] = []
    state["terminal"]["electronics"] = [None, RED, BLUE]
    state, _ = turn(state, "buy electronics L1 L1")
    assert state["cash"] == [START_CASH - 120, START_CASH + 120]
    assert state["terminal"]["electronics"] == [None]


def test_containers_are_bought_only_in_a_port_that_produces_them() -> None:
    """ "To purchase containers for a ship, your ship must be located in a port city that produces the
    relevant trade good." "Containers may only be purchased if there are containers available.\""""
    state = started()
    ship(state, RED, "S1")["cargo"] = []
    assert "not in a port that produces wine" in rejected(state, "buy wine S1")
    assert "not in a port that produces electronics" in rejected(state, "move S1 Sydney 1; buy electronics S1")
    assert "no room" in rejected(state, "buy electronics L1")
    state["terminal"]["electronics"] = []
    assert "holds only 0" in rejected(state, "buy electronics S1")


# --- selling and deliveries ---------------------------------------------------------------------------


def test_the_selling_price_is_the_sales_bonus_plus_the_market_price() -> None:
    """ "The total selling price is calculated by adding the city's sales bonus to the trade good's current
    market price" "Cape Town ... wind turbines can be sold with a sales bonus of $60M, while steel,
    electronics and oil can be sold with a sales bonus of $30M." A city's own good: "The goods can then be
    sold in the remaining cities.\""""
    state = started()
    assert "cannot be sold in Hong Kong" in rejected(state, "sell S1")
    dock(state, RED, "S1", "Cape Town", ["turbines"])
    dock(state, RED, "L1", "Cape Town", ["electronics", "wine"])
    assert "cannot be sold in Cape Town" in rejected(state, "sell L1 wine")
    state, _ = turn(state, "sell S1; sell L1 electronics")
    assert state["cash"][RED] == START_CASH + (60 + 120) + (30 + 120)
    assert price(state, "turbines") == 120  # selling leaves the terminal as it is


def test_both_goods_of_an_order_sold_at_once_from_one_large_ship_advance_two_spaces() -> None:
    """ "If both containers required for an order are delivered to the city on the same large ship and sold
    simultaneously, the player immediately advances 2 spaces on the Stock Exchange.\""""
    state = started()
    state["orders"][RED] = []  # the kept starting order must not take the containers
    order = take(state, card("Sydney", "oil", "electronics"))
    state["orders"][RED].append({"card": order, "delivered": []})
    dock(state, RED, "L1", "Sydney", ["oil", "electronics"])
    separately = json.loads(json.dumps(state))
    state, _ = turn(state, "sell L1")
    assert state["stock"][RED] == 120 and state["completed"][RED] == [order]
    separately, _ = turn(separately, "sell L1 oil; sell L1 electronics")
    assert separately["stock"][RED] == 110 and separately["completed"][RED] == [order]


def test_a_partial_delivery_marks_the_card_and_the_second_completes_it_for_one_space() -> None:
    """ "When the 2 containers are delivered using separate ships, the player advances only 1 space on the
    Stock Exchange. After the first delivery, place the sold container on top of the matching trade good
    ... After the second delivery, the order is completed, and the player immediately advances 1
    additional space.\""""
    state = started()
    state["orders"][RED] = []  # the kept starting order must not take the containers
    order = take(state, card("Sydney", "oil", "electronics"))
    state["orders"][RED].append({"card": order, "delivered": []})
    dock(state, RED, "S1", "Sydney", ["electronics"])
    dock(state, RED, "L1", "Sydney", ["oil"])
    state, events = turn(state, "sell S1")
    assert state["stock"][RED] == 100 and state["orders"][RED][-1] == {"card": order, "delivered": ["electronics"]}
    assert "partial delivery" in texts(events)
    state, _ = to_next_quarter(state)
    state, _ = turn(state, "sell L1")
    assert state["stock"][RED] == 110 and state["completed"][RED] == [order]
    assert order not in [o["card"] for o in state["orders"][RED]]


# --- factories and production --------------------------------------------------------------------------


def test_factories_one_site_per_region_three_per_site_first_needs_a_ship() -> None:
    """ "A player may build on only 1 building site in each production region." "Up to 3 factories may be
    built on each building site." "To build the first factory in a new production region, you must move a
    ship into one of the port cities within that production region." "When later building the second or
    third factory on the same site, you do not need to have a ship in the city.\""""
    state = started(("Hong Kong", "Sydney"))
    state["cash"][RED] = 1000
    assert "already holds 3" in rejected(state, "build Hong Kong; build Hong Kong; build Hong Kong")
    dock(state, RED, "S1", "Tokyo")
    assert "already build on a site in the electronics region" in rejected(state, "build Tokyo")
    assert "needs one of your ships in Cape Town" in rejected(state, "build Cape Town")
    dock(state, RED, "L1", "Sydney")
    assert "both building sites in Sydney are taken" in rejected(state, "build Sydney")
    dock(state, RED, "L1", "Cape Town")
    state, _ = turn(state, "build Cape Town; move L1 Sydney 1; build Cape Town; build Hong Kong")
    assert state["cash"][RED] == 1000 - 3 * 50
    assert state["sites"]["Cape Town"][0] == {"seat": RED, "factories": 2, "used": 0}
    assert state["sites"]["Hong Kong"][0]["factories"] == 2
    state, _ = to_next_quarter(state)
    dock(state, RED, "S1", "Buenos Aires")
    assert "already build on a site in the wine region" in rejected(state, "build Buenos Aires")


def test_producing_costs_20_and_an_action_point_and_the_price_falls() -> None:
    """ "Producing a container costs $20M and requires 1 Action Point." "Insert it from the left so that all
    other containers in the row are pushed one position to the right." "Please note that market prices fall
    when containers are produced." "Move your token one space forward on the Production Track.\""""
    state = started()
    state, _ = turn(state, "produce Hong Kong")
    assert state["cash"][RED] == START_CASH - 20
    assert state["terminal"]["electronics"] == [RED, None, None, None] and price(state, "electronics") == 100
    assert state["track"][RED] == 1 and state["sites"]["Hong Kong"][0]["used"] == 1


def test_each_factory_produces_once_per_fiscal_year() -> None:
    """ "Each factory may produce one container per fiscal year." At the new year: "Remove all markers from
    factories and ships.\""""
    state = started()
    assert "has produced this year" in rejected(state, "produce Hong Kong; produce Hong Kong")
    state, _ = turn(state, "produce Hong Kong")
    for _ in range(3):
        state, _ = to_next_quarter(state)
        assert "has produced this year" in rejected(state, "produce Hong Kong")
    state, _ = to_next_quarter(state)
    assert (state["year"], state["quarter"]) == (2, 1)
    assert state["queue"][0] == BLUE  # the start marker passed left
    state, _ = turn(state, "")
    state, _ = turn(state, "produce Hong Kong")
    assert state["sites"]["Hong Kong"][0]["used"] == 1


def test_one_container_of_each_good_per_quarter_two_with_both_large_ships() -> None:
    """ "During the same quarter, you may produce only 1 container of each trade good. However, if you own 2
    large ships, you may produce 2 containers of each trade good per quarter.\""""
    state = started()
    state["cash"][RED] = 1000
    assert "only 1 electronics container" in rejected(state, "build Hong Kong; produce Hong Kong; produce Hong Kong")
    state, _ = turn(state, "ship large; build Hong Kong; produce Hong Kong; produce Hong Kong")
    assert state["terminal"]["electronics"][:2] == [RED, RED] and state["track"][RED] == 2


def test_a_container_is_produced_only_into_a_row_with_room() -> None:
    """ "A container may only be produced if there is space available in the relevant container row.\""""
    state = started()
    state["terminal"]["electronics"] = [None] * 10
    assert "row of the Container Terminal is full" in rejected(state, "produce Hong Kong")


@pytest.mark.parametrize(
    ("space", "cash", "orders", "stock"),
    [(3, START_CASH - 20 + 100, 1, 100), (5, START_CASH - 20, 2, 100), (9, START_CASH - 20, 1, 110)]
    + [(13, START_CASH - 20 + 200, 1, 100), (15, START_CASH - 20, 1, 110), (20, START_CASH - 20, 1, 110)],
)
def test_production_track_bonuses_are_resolved_at_once(space: int, cash: int, orders: int, stock: int) -> None:
    """ "Landing on a space containing an icon grants the corresponding bonus" "Stock Exchange Bonus — You
    advance 1 space" "Order Card Bonus — Draw a face-down Order Card from the deck" "Cash Bonus — Receive the
    amount shown from the Bank, for instance $100M or $200M." Spaces: house default (FACTS.md)."""
    state = started()
    state["track"][RED] = space - 1
    state, _ = turn(state, "produce Hong Kong")
    assert state["track"][RED] == space
    assert (state["cash"][RED], len(state["orders"][RED]), state["stock"][RED]) == (cash, orders, stock)


def test_the_order_card_bonus_is_lost_with_five_active_orders() -> None:
    """ "Order Card Bonus — ... If you already have 5 active orders, you do not receive the card.\""""
    state = started()
    state["track"][RED] = 4
    state["orders"][RED] += [{"card": c, "delivered": []} for c in state["order_deck"][:4]]
    state, events = turn(state, "produce Hong Kong")
    assert len(state["orders"][RED]) == 5 and "no order card" in texts(events)


@pytest.mark.parametrize("space", [7, 17])
def test_the_action_point_bonus_is_usable_this_turn_only(space: int) -> None:
    """ "Action Point Bonus — Gain 1 additional Action Point this turn. ... The additional Action Point may
    only be used during the current turn.\""""
    state = started()
    state["track"][RED], state["cash"][RED] = space - 1, 1000
    four = "produce Hong Kong; order hidden; order hidden; order hidden"
    assert "Step 4" in rejected(json.loads(json.dumps({**state, "track": [0, 0]})), four)
    assert "Step 5" in rejected(state, four + "; order hidden")
    state, _ = turn(state, four)
    state, _ = to_next_quarter(state)
    state["orders"][RED] = state["orders"][RED][:1]
    assert "Step 4" in rejected(state, "order hidden; order hidden; order hidden; order hidden")


def test_the_container_bonus_places_a_container_of_any_good_anywhere_in_its_row() -> None:
    """ "Container Bonus — You may place a new container of any trade good at any position in that trade
    good's container row in the Container Terminal. Place a marker in your player colour inside the
    container.\""""
    state = started()
    state["track"][RED] = 10
    chosen, _ = turn(json.loads(json.dumps(state)), "produce Hong Kong bonus wine left")
    assert chosen["terminal"]["wine"] == [RED, None, None, None]
    default, _ = turn(state, "produce Hong Kong")
    assert default["terminal"]["electronics"] == [RED, None, None, None, RED]  # house default: right end
    assert "Container Bonus" in rejected(started(), "produce Hong Kong bonus wine left")


# --- shares and extra action points --------------------------------------------------------------------


def test_buying_shares_costs_1000_and_two_action_points() -> None:
    """ "Buy Shares — Cost: $1,000M and 2 Action Points. You immediately advance 1 space on the Stock
    Exchange.\""""
    state = started()
    assert "costs $1000M" in rejected(state, "shares buy")
    state["cash"][RED] = 2000
    assert "Step 3" in rejected(state, "shares buy; order hidden; order hidden")
    state, _ = turn(state, "buy shares; order hidden")
    assert state["stock"][RED] == 110 and state["cash"][RED] == 2000 - 1000 - 20


def test_selling_shares_once_per_quarter_for_100() -> None:
    """ "Move 1 space down on the Stock Exchange and receive $100M from the Bank. You may sell shares only
    once per quarter\""""
    state = started()
    assert "only once per quarter" in rejected(state, "shares sell; shares sell")
    state, _ = turn(state, "sell shares")
    assert state["stock"][RED] == 90 and state["cash"][RED] == START_CASH + 100
    state, _ = to_next_quarter(state)
    state["stock"][RED] = 60
    assert "lowest space" in rejected(state, "shares sell")


def test_an_additional_action_point_costs_250_once_per_turn() -> None:
    """ "Purchase an Additional Action Point — Cost: $250M. You can only perform this action once in each of
    your turns." "Additional Action Points may only be used during the turn in which they are purchased.\""""
    state = started()
    state["cash"][RED] = 1000
    assert "only once per turn" in rejected(state, "extra; extra")
    state, _ = turn(state, "extra; order hidden; order hidden; order hidden; order hidden")
    assert state["cash"][RED] == 1000 - 250 - 4 * 20
    state, _ = to_next_quarter(state)
    state["orders"][RED] = state["orders"][RED][:1]
    assert "Step 4" in rejected(state, "order hidden; order hidden; order hidden; order hidden")


# --- a whole order ----------------------------------------------------------------------------------


def test_an_illegal_step_rejects_the_whole_order_naming_the_step() -> None:
    """Issue 5: "An illegal step rejects the whole order with a message naming the step; nothing is
    applied." A stale order (no longer legal when the phase resolves) counts as a missed deadline."""
    state = started()
    message = rejected(state, "order hidden; move S1 Atlantis; order hidden")
    assert message.startswith("Step 2 (move S1 Atlantis)") and "no port called" in message
    legal = ENGINE.validate(state, RED, {"actions": "order hidden; order 1"})
    state["cash"][RED] = 30
    after, events = ENGINE.resolve(state, {RED: legal}, random.Random(0))
    assert after["cash"][RED] == 30 and len(after["orders"][RED]) == 1
    assert "takes no actions" in texts(events)


def test_a_missed_turn_takes_no_actions_and_the_ships_stay() -> None:
    """Issue 5: "Default order on a missed deadline: no actions (ships stay).\""""
    state = started()
    ships, cash = json.dumps(state["ships"]), list(state["cash"])
    assert ENGINE.default_order(state, RED) == {"actions": ""}
    state, _ = ENGINE.resolve(state, {}, random.Random(0))
    assert json.dumps(state["ships"]) == ships and state["cash"] == cash and state["queue"] == [BLUE]


# --- news ------------------------------------------------------------------------------------------


def test_news_changes_the_terminal_at_the_right_end() -> None:
    """ "When containers are added, place them on the right-hand side of the appropriate container row" "When
    containers are removed, they are likewise removed from the right-hand side.\""""
    state = started()
    state, _ = turn(state, "produce Hong Kong")
    state, _ = to_next_quarter(state, news("terminal", good="electronics", delta=2))
    assert state["terminal"]["electronics"] == [RED, None, None, None, None, None]
    state, _ = to_next_quarter(state, news("terminal", good="electronics", delta=-2))
    assert state["terminal"]["electronics"] == [RED, None, None, None]


def test_news_money_goes_through_the_bank_and_forces_share_sales() -> None:
    """ "If a player receives or pays money as a result of a News Card, the transaction is handled through
    the Bank." "If, during the game, you incur unexpected expenses as a result of a News Card ... and do not
    have sufficient cash to pay them, you must sell additional shares until you have enough money.\""""
    state = started()
    state["cash"] = [10, 200]
    state, events = to_next_quarter(state, news("cash-all", amount=-50))
    assert state["cash"] == [10 + 100 - 50, 150] and state["stock"] == [90, 100]
    assert "must sell shares" in texts(events)


@pytest.mark.parametrize("option", ["eliminate", "sell-assets"])
def test_a_news_payment_at_60_bankrupts_or_sells_assets(option: str) -> None:
    """ "If you are already on the lowest Stock Exchange space (Value 60) and are required to move down one or
    more spaces, you go bankrupt and are eliminated from the game." "Alternative Rule: ... the affected player
    may instead sell factories or ships to the Bank ... The Bank pays the original purchase price.\""""
    state = started(bankruptcy=option)
    state["cash"][RED], state["stock"][RED] = 0, 60
    state, events = to_next_quarter(state, news("cash-all", amount=-30))
    if option == "eliminate":
        assert state["bankrupt"][RED] and state["ships"][RED] == [] and state["queue"] == [BLUE]
    else:
        assert not state["bankrupt"][RED] and state["cash"][RED] == 50 - 30
        assert state["sites"]["Hong Kong"][0]["factories"] == 0 and "sells a factory" in texts(events)


def test_forecast_news_shows_the_next_two_cards() -> None:
    """ "Optional Rule: Forecast News ... Players therefore always know the next two upcoming News Cards.\""""
    plain = started()
    assert ENGINE.view(plain, BLUE)["news"]["forecast"] == []
    forecast = started(forecast="on")
    assert [c["number"] for c in ENGINE.view(forecast, BLUE)["news"]["forecast"]] == forecast["news_deck"][:2]
    after, _ = to_next_quarter(forecast)
    assert [c["number"] for c in ENGINE.view(after, BLUE)["news"]["forecast"]] == [2, 3]


# --- annual accounts -------------------------------------------------------------------------------


def to_year_end(state: State, news_card: int = news("refresh-market")) -> tuple[State, list[Event]]:
    """Pass to the end of the 4th quarter, with a harmless news card last."""
    events: list[Event] = []
    while state["quarter"] < 4:
        state, more = to_next_quarter(state)
        events += more
    state, more = to_next_quarter(state, news_card)
    return state, events + more


def test_annual_accounts_example_pays_20() -> None:
    """ "If a player's shipping company has a Stock Exchange value of 140 and the player owns 2 Small Ships and
    1 Large Ship, the annual result is calculated as follows: $140M – (2 × $30M) – $100M = –$20M The player
    must therefore pay $20M to the Bank.\""""
    state = started()
    state["quarter"] = 4
    state["stock"][RED] = 140
    state, _ = turn(state, "ship small")
    assert annual_result(state, RED) == -20
    cash = list(state["cash"])
    state, events = to_year_end(state)
    assert state["cash"] == [cash[RED] - 20, cash[BLUE] + 100 - 130]
    assert "Annual accounts: Red pays $20M" in texts(events)


def test_financial_difficulty_moves_down_a_space_and_recalculates() -> None:
    """ "If a player's annual result is negative and they cannot afford to pay, they may move 1 space down on
    the Stock Exchange and receive $100M from the Bank. Note that the annual result must then be recalculated
    using the lower Stock Exchange value.\""""
    state = started()
    state["quarter"] = 4
    state["stock"][RED], state["cash"][RED] = 140, 60
    state, _ = turn(state, "ship small")
    state["cash"][RED] = 10
    state, _ = to_year_end(state)
    assert state["stock"][RED] == 130 and state["cash"][RED] == 10 + 100 - 30


@pytest.mark.parametrize("option", ["eliminate", "sell-assets"])
def test_bankruptcy_at_60_or_the_no_elimination_rule(option: str) -> None:
    """ "If a player is already on the lowest space of the Stock Exchange (value 60) and would need to move
    down another space, they are bankrupt and eliminated from the game. Alternative Rule: ... the affected
    player may instead sell factories or ships to the Bank ... The Bank pays the same amount as the player
    originally paid." "Please note that selling ships reduces the number of Action Points available.\""""
    state = started(bankruptcy=option)
    state["quarter"] = 4
    state["stock"][RED], state["cash"][RED] = 60, 0
    state, events = to_year_end(state)
    if option == "eliminate":
        assert state["bankrupt"][RED] and "bankrupt" in texts(events)
        last = standings_rows(state)[-1]
        assert state["queue"] == [BLUE] and last["seat"] == RED
        assert last["score"] == 0 and last["detail"] == "bankrupt"  # not its last share value of 60
        return
    # -70 due: the factory ($50M), then the small ship ($50M); without it the result is 60 - 100 = -40.
    assert not state["bankrupt"][RED] and [s["id"] for s in state["ships"][RED]] == ["L1"]
    assert state["cash"][RED] == 50 + 50 - 40
    state, _ = turn(state, "")
    assert "you have 0 left" in rejected(state, "order hidden; order hidden; order hidden")  # 2 AP now


def test_the_year_end_refreshes_the_order_market_and_passes_the_start_marker() -> None:
    """ "Clear the Order Market and place 4 new Order Cards face up." "Pass the Start Marker left to the next
    player.\""""
    state = started()
    market = list(state["market"])
    state, _ = to_year_end(state, news("cash-all", amount=30))
    assert len(state["market"]) == 4 and not set(market) & set(state["market"])
    assert state["start"] == BLUE and list(ENGINE.prompts(state)) == [BLUE]


def test_three_fiscal_years_as_an_option() -> None:
    """ "Tip: For a shorter or longer game, play 3 or 5 fiscal years instead.\""""
    state = started(years=3)
    quarters = 0
    while not state["finished"]:
        state, _ = to_next_quarter(state)
        quarters += 1
    assert quarters == 12 and state["year"] == 3 and ENGINE.outcome(state)


# --- achievements ----------------------------------------------------------------------------------


def test_achievements_are_claimed_at_once_during_the_turn() -> None:
    """ "Whenever a player fulfils the requirement shown on a card, they immediately claim it — even if it is
    not currently their turn." "Each Achievement Card grants an increase of one step ... counted during
    final scoring.\""""
    state = started()
    state["achievements"] = ["most-cash", "five-ships"]
    state, events = turn(state, "ship small; ship small; ship large")
    assert state["claimed"][RED] == ["five-ships"] and state["achievements"] == ["most-cash"]
    lines = [e.text for e in events]
    assert lines.index(next(t for t in lines if "claims" in t)) == len(lines) - 1  # right after the 5th ship


def test_achievements_are_claimed_off_turn_and_only_once() -> None:
    """ "Whenever a player fulfils the requirement shown on a card, they immediately claim it, even if it is
    not currently their turn.\""""
    state = started()
    state["achievements"] = ["stock-150"]
    state["stock"] = [140, 140]
    state, _ = turn(state, "")
    state, events = to_next_quarter(state, news("stock-all"))
    assert state["claimed"][RED] == ["stock-150"] and state["claimed"][BLUE] == []
    assert state["stock"] == [150, 150] and state["achievements"] == []


# --- the end of the game --------------------------------------------------------------------------


def test_end_scoring_orders_achievements_and_ties() -> None:
    """ "For each Order Card that has not been completed, move 1 space down on the Stock Exchange. Award any
    remaining Achievement Cards. If multiple players fulfil the requirement for the same card, they each
    immediately move up 1 space on the Stock Exchange, and the card is discarded. For each Achievement Card a
    player has earned during the game, they move 1 space up on the Stock Exchange.\""""
    state = started()
    state["year"], state["quarter"] = 4, 4
    state["achievements"] = ["most-orders", "most-factories", "most-cash"]
    state["claimed"][RED] = ["five-produced"]
    state["completed"][RED] = [take(state, card("Sydney", "oil", "steel"))]
    state["cash"] = [100, 500]
    state, events = to_year_end(state)
    assert state["finished"] and ENGINE.prompts(state) == {}
    # Red: 100 - 1 open order + 1 shared factories + most orders + five produced = 120.
    # Blue: 100 - 1 open order + 1 shared factories + most cash = 110.
    assert state["stock"] == [120, 110]
    assert state["claimed"] == [["five-produced", "most-orders"], ["most-cash"]]
    assert state["tied_awards"] == [["most-factories"], ["most-factories"]]
    assert [(s.seat, s.rank) for s in ENGINE.outcome(state) or []] == [(RED, 1), (BLUE, 2)]


@pytest.mark.parametrize("decider", ["stock", "ships", "factories", "achievements", "cash", "none"])
def test_the_winner_and_tie_breaks(decider: str) -> None:
    """ "The winner is the player whose shipping company has the highest value on the Stock Exchange. If two or
    more players are tied ... Most ships, Most factories, Most Achievement Cards, Most cash. If the players
    are still tied for the win, they share the victory.\""""
    state = started()
    state["cash"] = [100, 100]
    # Both seats start equal in everything; one figure is raised for Blue, every earlier one stays equal.
    if decider == "stock":
        state["stock"][BLUE] = 110
    elif decider == "ships":
        state["ships"][BLUE].append({**ship(state, BLUE, "S1"), "id": "S2"})
    elif decider == "factories":
        state["sites"]["Hamburg"][0]["factories"] = 2
    elif decider == "achievements":
        state["claimed"][BLUE] = ["five-ships"]
    elif decider == "cash":
        state["cash"][BLUE] = 101
    ranks = {row["seat"]: row["rank"] for row in standings_rows(state)}
    assert ranks == ({RED: 1, BLUE: 1} if decider == "none" else {BLUE: 1, RED: 2})


# --- the turn prompt, the builder and the read-back (issue 15) ----------------------------------------


def test_a_company_with_one_action_point_is_told_so_in_the_singular() -> None:
    state = started()
    seat = state["queue"][0]
    state["ships"][seat] = []  # every ship sold (the no-elimination rule): one action point is left
    assert "with 1 action point (AP)" in ENGINE.prompts(state)[seat].text
    state = started()
    assert "with 3 action points (AP)" in ENGINE.prompts(state)[state["queue"][0]].text


def test_the_builder_offers_moves_along_the_ships_routes_and_nothing_without_action_points() -> None:
    state = started()
    seat = state["queue"][0]
    first = {choice.value for choice in ENGINE.next_steps(state, seat, "actions", []).choices}
    assert {"move S1 Tokyo 2", "move S1 Incheon 1", "move S1 Incheon 2", "order hidden"} <= first
    assert "move S1 Tokyo 3" not in first and "boost S1" not in first  # 2 spaces away; in port
    spent = ["order hidden", "order hidden", "order hidden"]  # all 3 action points
    after = {choice.value for choice in ENGINE.next_steps(state, seat, "actions", spent).choices}
    assert "order hidden" not in after and "build Hong Kong" not in after and "move S1 Tokyo 2" in after


def test_a_turn_reads_back_its_actions_and_a_boost_without_a_move_is_a_warning() -> None:
    state = started()
    seat = state["queue"][0]
    cash = state["cash"][seat]
    order = ENGINE.validate(state, seat, {"actions": "move S1 Kolkata 2; boost S1; order hidden"})
    read = ENGINE.read_back(state, seat, order)
    assert read.lines[0] == (
        "You will move S1 2 spaces towards Kolkata: it is then at sea between Kolkata and Hong Kong, "
        "2 of 4 spaces from Kolkata."
    )
    assert read.lines[1:] == (
        "Then you will boost S1 by 1 space (1 action point).",
        "Then you will buy a face-down order card (paying $20M, 1 action point).",
        f"You end the quarter with ${cash - 20}M.",
    )
    assert read.warnings == (
        "S1 is boosted but does not move after the boost: that action point buys nothing.",
        "You leave 1 action point unused.",
    )
    nothing = ENGINE.read_back(state, seat, ENGINE.validate(state, seat, {"actions": ""}))
    assert nothing == ReadBack(("You will take no actions this quarter.",), ("You do nothing this quarter.",))
