"""Genoa, one rules case per test, the rule quoted in the docstring (rulebook: ../shared/rules/genoa.txt;
components and house defaults: FACTS.md; play-by-email changes: games/engines/genoa/RULES.md).
Pure Python: no database, no Django.

The rulebook's worked examples are played in the sealed-offer form: what Jeff "offers" at the table is
his sealed offer, what the merchant "accepts" is the route he sends."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engines.base import Event, OrderError, State
from games.engines.genoa.actions import action_gives
from games.engines.genoa.data import CONTRACTS, LARGE_ORDERS, MESSAGES, SMALL_ORDERS, TILE_OF_BUILDING
from games.engines.genoa.flow import begin_turn, finish
from games.engines.genoa.map import BUILDINGS, MARKET, neighbours, space_at
from games.engines.genoa.prompts import start_prompt
from tests.support.genoa import BLUE, ENGINE, GREEN, RED, give, table


class Dice(random.Random):
    """Rolls the dice given (blue, red, blue, red, ...), then blue 1, red 1 (Spices) for ever."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        return self.rolls.pop(0) if self.rolls else 1


# --- building a table ------------------------------------------------------------------------------


def deal(state: State, seat: int, *cards: str) -> None:
    for card in cards:
        state["decks"][card[0]].remove(card)
        state["hands"][seat].append(card)


def make_offers(
    state: State, offers: dict[int, str] | None = None, tiles: dict[int, str] | None = None
) -> tuple[State, list[Event]]:
    orders = {
        seat: ENGINE.validate(
            state, seat, {"offers": (offers or {}).get(seat, ""), "tiles": (tiles or {}).get(seat, "")}
        )
        for seat in state["asked"]
    }
    new_state, events = ENGINE.resolve(state, orders, Dice())
    assert new_state["step"] == "route"
    return new_state, events


def move(state: State, route: str, tiles: str = "", rng: random.Random | None = None) -> tuple[State, list[Event]]:
    merchant = state["turn"]["merchant"]
    order = ENGINE.validate(state, merchant, {"route": route, "tiles": tiles})
    return ENGINE.resolve(state, {merchant: order}, rng or Dice())


def acquire(state: State, street: str, buildings: list[str]) -> tuple[State, list[Event]]:
    seat = state["asked"][0]
    order = ENGINE.validate(state, seat, {"street": street, "buildings": buildings})
    return ENGINE.resolve(state, {seat: order}, Dice())


def texts(events: list[Event], seat: int | None = None) -> str:
    return "\n".join(event.text for event in events if event.seat == seat)


# --- setup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "rounds"), [(2, 12), (3, 10), (4, 8), (5, 6)])
def test_setup_gives_ducats_one_card_of_each_pile_and_no_markers_in_hand(players: int, rounds: int) -> None:
    """ "130 ducats" and "One card from each of the four piles"; markers start in the general supply
    (FACTS: "7 ownership markers per player, none in hand"); "The first player is the same throughout
    the game"; the round marker starts by the number of players (FACTS: 2 players 12 ... 5 players 6)."""
    state = ENGINE.setup(players, {}, random.Random(3))
    assert state["ducats"] == [130] * players
    assert [sorted(card[0] for card in hand) for hand in state["hands"]] == [["C", "L", "M", "S"]] * players
    assert state["markers"] == [0] * players and state["reserve"] == [7] * players
    assert state["first"] == RED and state["turn"]["merchant"] == RED
    assert state["rounds_total"] == rounds


# --- the rulebook's worked examples ----------------------------------------------------------------


def test_the_coach_house_deal() -> None:
    """ "Jeff offers 5 ducats to have the tower moved onto this building. The merchant refuses but says
    he will agree if a Commodity tile is added to the offer. Jeff accepts and gives the merchant 5
    ducats and one Commodity tile. The tower is then moved onto the Coach House and Jeff immediately
    benefits from this building's action." Sealed: Jeff (Blue) offers 5 ducats and silk at once."""
    state = table(start="4-2")
    give(state, BLUE, goods=("silk",))
    state, _ = make_offers(state, {BLUE: "Coach House: 5 ducats + silk"})
    state, events = move(state, "Coach House = Blue")
    assert state["ducats"][RED] == 135 and state["goods"][RED] == ["silk"]
    assert state["ducats"][BLUE] == 125 and state["goods"][BLUE] == []
    assert state["tiles"][BLUE] == ["start"]  # the Coach House's Starting space tile
    assert "Blue pays Red 5 ducats and silk as agreed for Coach House" in texts(events)


def test_a_refused_offer_costs_nothing() -> None:
    """ "The merchant is under no obligation to accept any offer. He can ignore every offer made by the
    other players and move the tower onto the space(s) of his choice.\""""
    state = table(start="4-2")
    state, _ = make_offers(state, {BLUE: "Coach House: 5 ducats"})
    state, _ = move(state, "5-2")
    assert state["ducats"][:2] == [130, 130] and state["tiles"][BLUE] == []


def test_the_harbor_case_an_offer_for_a_building_reached_without_a_deal_must_be_accepted() -> None:
    """ "The merchant moves the tower onto the Harbor without having made any deals. Jeff offers the
    small sum of 5 ducats for the building's action. No other offers are made. Since the merchant really
    wants the Villa Monetti action, he has to accept this offer." In this board the villa next to the
    Harbor is Villa Zasteri."""
    state = table(start="harbor")
    state, _ = make_offers(state, {BLUE: "Harbor: 5"})
    with pytest.raises(OrderError, match="Blue offered for this action"):
        move(state, "start = nobody")
    with pytest.raises(OrderError, match="Blue offered for this action"):
        move(state, "start; Villa Zasteri = me")
    state, _ = move(state, "start = Blue; Villa Zasteri = me")
    assert state["tiles"][BLUE] == ["choice"] and state["ducats"][BLUE] == 125
    assert state["ducats"][RED] == 135 and [card[0] for card in state["hands"][RED]] == ["C"]


def test_the_harbor_case_taking_the_action_himself_uses_the_merchants_action() -> None:
    """ "If he does not accept the offer, he will have to take the Harbor's action and will no longer be
    able to take an action this turn.\""""
    state = table(start="harbor")
    state, _ = make_offers(state, {BLUE: "Harbor: 5"})
    with pytest.raises(OrderError, match="You take 2 actions but may take 1"):
        move(state, "start = me; Villa Zasteri = me")
    state, _ = move(state, "start = me; Villa Zasteri")
    assert state["tiles"][RED] == ["choice"] and state["ducats"][BLUE] == 130 and state["hands"][RED] == []


def test_a_building_nobody_offered_for_may_be_left_unused() -> None:
    """ "If no offers are made, the merchant does not have to take the action himself. It is simply left
    unused for this turn.\""""
    state = table(start="harbor")
    state, _ = make_offers(state)
    state, events = move(state, "start = nobody; Villa Zasteri")
    assert state["tiles"] == [[], [], []] and state["hands"] == [[], [], []]
    assert "takes the action" not in texts(events)


def test_an_offer_for_a_space_not_yet_reachable_can_be_accepted_later_in_the_turn() -> None:
    """ "He can, however, offer the merchant 15 ducats once the tower moves there. The merchant keeps this
    proposition in mind and can decide to move accordingly or not." (Movement A: from the street by the
    Guild Hall, four moves reach Villa Colini.)"""
    state = table(start="4-2")
    assert "colini" not in neighbours("4-2")
    state, _ = make_offers(state, {BLUE: "Villa Colini: 15 ducats"})
    state, _ = move(state, "5-2; 6-2; Metals; Villa Colini = Blue")
    assert state["ducats"][BLUE] == 115 and [card[0] for card in state["hands"][BLUE]] == ["C"]


def _acquisition_table() -> State:
    """Red (merchant) with 2 markers, Blue (Matt) 3, Green 2; the tower went Street 3-2, Street 4-2,
    Guild Hall: one disc on each street."""
    state = table(start="3-2")
    give(state, RED, markers=2)
    give(state, BLUE, markers=3)
    give(state, GREEN, markers=2)
    state, _ = make_offers(state)
    state, _ = move(state, "4-2; Guild Hall")
    assert state["step"] == "acquire" and state["asked"] == [RED]
    assert state["turn"]["discs"] == {"3-2": 1, "4-2": 1, "guild_hall": 3}
    return state


def test_acquisition_example_the_merchant_places_two_markers() -> None:
    """ "The merchant is the first player to be able to place one or two Ownership markers. He chooses
    the street space adjacent to the Guild Hall and the Coach House (a disc can be found there). The
    merchant chooses to put one Ownership marker on the Guild Hall and another one on the Coach House;
    he is now the owner of these two buildings. He must then remove the disc from the chosen street
    space.\""""
    state = _acquisition_table()
    state, _ = acquire(state, "Street 4-2", ["Guild Hall", "Coach House"])
    assert state["owners"] == {"guild_hall": RED, "coach_house": RED}
    assert state["markers"][RED] == 0 and "4-2" not in state["turn"]["discs"]
    assert state["step"] == "acquire" and state["asked"] == [BLUE]


def test_acquisition_example_removing_a_rivals_marker_costs_a_marker() -> None:
    """ "Matt removes one marker from his supply in order to remove the Ownership marker on the Coach
    House. These two markers are put back in the general supply. Finally, he becomes the owner of the
    Spices warehouse and the Coach House by putting Ownership markers on both buildings. Even though
    other players have Ownership markers in their personal supply, they are unable to place them on the
    board since there are no more discs on street spaces.\""""
    state = _acquisition_table()
    state, _ = acquire(state, "4-2", ["Guild Hall", "Coach House"])
    state, events = acquire(state, "3-2", ["Coach House", "Spices"])
    assert state["owners"] == {"guild_hall": RED, "coach_house": BLUE, "spices": BLUE}
    assert state["markers"][BLUE] == 0 and state["reserve"][BLUE] == 5  # 7 - 3 taken + 1 sacrificed
    assert state["reserve"][RED] == 6  # 7 - 2 taken + the one removed from the Coach House
    assert state["markers"][GREEN] == 2 and state["reserve"][GREEN] == 5
    # Green holds markers but is never asked: the turn is over, Blue is the next merchant.
    assert state["turn"]["merchant"] == BLUE and state["step"] == "offers"
    assert "Blue chooses Street 3-2, removes Red's marker from Coach House" in texts(events)


def test_removing_a_marker_without_placing_one_and_what_it_costs() -> None:
    """ "It is possible to remove another player's Ownership marker. To do so, a player must sacrifice a
    marker from his supply. ... The player can then, if he wants, become the owner of this building.\""""
    state = _acquisition_table()
    state, _ = acquire(state, "4-2", ["Guild Hall", "Coach House"])
    state["markers"][BLUE] = 1
    with pytest.raises(OrderError, match="needs 2 ownership markers"):
        acquire(state, "3-2", ["Coach House"])
    state, _ = acquire(state, "3-2", ["remove Coach House"])
    assert state["owners"] == {"guild_hall": RED} and state["markers"][BLUE] == 0


def test_acquisition_needs_a_street_with_discs_next_to_the_buildings() -> None:
    """ "He then chooses a street space occupied by at least one of the tower's discs" and "may put one
    or two Ownership markers on buildings orthogonally adjacent to the designated street space.\""""
    state = _acquisition_table()
    with pytest.raises(OrderError, match="not a street with a disc"):
        acquire(state, "5-2", ["Palace"])
    with pytest.raises(OrderError, match="not next to"):
        acquire(state, "4-2", ["Palace"])
    with pytest.raises(OrderError, match="one or two"):
        acquire(state, "4-2", ["Guild Hall", "Coach House", "Spices"])


def test_a_market_roll_moves_the_round_marker_down() -> None:
    """ "If the Market is obtained with the dice roll at the beginning of the round (the four squares
    that constitute the Market are: 4-4, 4-5, 5-5, 5-4), the round marker is moved down one space on the
    track. This reduces the total number of rounds played.\""""
    assert {space_at(x, y) for x in (4, 5) for y in (4, 5)} == {MARKET}
    state = table(players=4)
    state, _ = make_offers(state)
    state, events = move(state, "", rng=Dice(4, 5))
    assert state["turn"]["merchant"] == BLUE and state["turn"]["start"] == MARKET
    assert state["rounds_left"] == 7
    assert "The round marker moves down" in texts(events)


def test_the_last_round_is_played_in_full_even_after_another_market_roll() -> None:
    """ "Phil is the first player and he begins a new round. He rolls ... a Red 4 and a Blue 4. He then
    puts the tower on the Market and moves the round marker down one space; it is now on the last space,
    meaning it is the last round of the game. This round will be completed and even if another player
    obtains the Market's coordinates as a starting space, the round marker will not leave the track.\""""
    state = table(players=3, merchant=GREEN)  # the last turn of round 1
    state["rounds_left"] = 3
    state, _ = make_offers(state)
    rng = Dice(4, 4, 5, 5)
    state, _ = move(state, "", rng=rng)
    assert (state["round"], state["turn"]["merchant"], state["rounds_left"]) == (2, RED, 1)
    played = []
    for _ in range(10):
        if state["finished"]:
            break
        played.append(state["turn"]["merchant"])
        state, events = ENGINE.resolve(state, {}, rng)  # no offers
        state, events = ENGINE.resolve(state, {}, rng)  # the merchant stops at the start
        if not state["finished"]:
            assert state["rounds_left"] == 1
    assert played == [RED, BLUE, GREEN] and state["finished"]


def test_the_game_ends_when_the_marker_leaves_the_last_space() -> None:
    """ "When the marker leaves the last space of the track, the game is over and the players count
    their ducats to determine the winner.\""""
    state = table(players=2, merchant=BLUE)
    state["rounds_left"] = 1
    state, _ = make_offers(state)
    state, events = move(state, "")
    assert state["finished"] and ENGINE.outcome(state) is not None
    assert any(event.text.startswith("Final ranking") for event in events)


# --- each building action (FACTS.md) ----------------------------------------------------------------

ACTIONS = {
    "guild_hall": ("cards", ["L"]),
    "city_hall": ("cards", ["S", "S"]),
    "post_office": ("cards", ["M", "M"]),
    "cathedral": ("markers", 2),
    **{building: ("tiles", [tile]) for building, tile in TILE_OF_BUILDING.items()},
    "drinks": ("goods", ["ale", "wine"]),
    "metals": ("goods", ["silver", "copper"]),
    "fabric": ("goods", ["linen", "silk"]),
    "spices": ("goods", ["pepper", "saffron"]),
    **{villa: ("cards", ["C"]) for villa in ("colini", "monetti", "ricci", "zasteri")},
}


def holding(state: State, seat: int, kind: str) -> Any:
    if kind == "cards":
        return [card[0] for card in state["hands"][seat]]
    return state[kind][seat]


@pytest.mark.parametrize("building", BUILDINGS)
def test_each_building_action(building: str) -> None:
    """FACTS.md: "Guild Hall (draw 1 large order), City Hall (draw 2 small orders), Post Office (draw 2
    messages), Cathedral (take 2 of your ownership markers); Palace, Park, Coach House, Harbor, Tavern,
    Inn (take that building's special tile); warehouses ... take one of each of the two; villas ...
    (draw 1 contract, or deliver a large order naming this villa).\""""
    assert set(ACTIONS) == set(BUILDINGS)
    kind, expected = ACTIONS[building]
    state = table(start=building)
    state, _ = make_offers(state)
    state, events = move(state, "start = me")
    assert holding(state, RED, kind) == expected
    assert holding(state, BLUE, kind) == ([] if kind != "markers" else 0)
    assert "Red takes the action of" in texts(events)


def test_a_short_supply_gives_what_is_left_and_the_action_is_still_used() -> None:
    """FACTS.md: "If the supply is short, take what is left; the action is still used.\""""
    state = table(start="drinks")
    state["supply"]["ale"] = 0
    state["tile_supply"]["extra"] = 0
    state, _ = make_offers(state, {BLUE: "Drinks: 5"})
    state, _ = move(state, "start = Blue; Street 6-7")
    assert state["goods"][BLUE] == ["wine"] and state["ducats"][BLUE] == 125


def test_the_owner_gets_ten_ducats_when_someone_else_uses_the_building() -> None:
    """ "During the game, when a player uses a building's action where an Ownership marker is placed, the
    owner receives 10 ducats from the bank. The owner never gets these 10 ducats when he takes the action
    himself.\""""
    state = table(start="metals")
    state["owners"] = {"metals": GREEN, "palace": RED}
    state, _ = make_offers(state, {BLUE: "Metals: 5"})
    state, events = move(state, "start = Blue; Palace = me")
    assert state["ducats"] == [135, 125, 140]
    assert "Green owns Metals and receives 10 ducats from the bank" in texts(events)


def test_the_merchant_using_a_rivals_building_pays_the_owner_too() -> None:
    """ "when a player uses a building's action where an Ownership marker is placed, the owner receives 10
    ducats from the bank.\""""
    state = table(start="metals")
    state["owners"] = {"metals": BLUE}
    state, _ = make_offers(state)
    state, _ = move(state, "start = me")
    assert state["ducats"] == [130, 140, 130]


# --- actions and offers ------------------------------------------------------------------------------


def test_an_offered_for_building_may_go_to_either_offerer_but_not_to_nobody() -> None:
    """ "If at least one player makes an offer for the building's action, it has to be accepted. However,
    the merchant can also decide to take the action himself.\""""
    state = table(start="palace")
    state, _ = make_offers(state, {BLUE: "Palace: 20", GREEN: "Palace: 5"})
    with pytest.raises(OrderError, match="Blue or Green offered"):
        move(state, "")
    state, _ = move(state, "start = Green")
    assert state["tiles"][GREEN] == ["build"] and state["ducats"] == [135, 130, 125]


def test_an_offerer_who_cannot_act_any_more_does_not_bind_the_merchant() -> None:
    """ "Each player can only take one action per turn": an offer from a player who already acts this
    turn cannot be accepted, so the building may stay unused."""
    state = table(start="4-2")
    state, _ = make_offers(state, {BLUE: "Coach House: 5; Palace: 5"})
    state, _ = move(state, "Coach House = Blue; Palace")
    assert state["tiles"][BLUE] == ["start"] and state["ducats"][BLUE] == 125


def test_a_player_takes_at_most_one_action_per_turn() -> None:
    """ "Each player can only take one action per turn. It is also possible to abstain from doing an
    action during one turn.\""""
    state = table(start="4-2")
    state, _ = make_offers(state, {BLUE: "Coach House: 5; Palace: 5"})
    with pytest.raises(OrderError, match="Blue can take only one action"):
        move(state, "Coach House = Blue; Palace = Blue")


def test_only_one_player_uses_a_building_each_turn() -> None:
    """ "Only one player can use the action of a given building each turn" and "A space may never be
    visited twice in the same turn": the Building action tile cannot take an action the tower gave."""
    state = table(start="palace")
    give(state, RED, tiles=("build",))
    state, _ = make_offers(state, {BLUE: "Palace: 5"})
    with pytest.raises(OrderError, match="already given on your route"):
        move(state, "start = Blue", tiles="build Palace")
    with pytest.raises(OrderError, match="never visits a space twice"):
        move(state, "start = Blue; 5-2; 4-2; Coach House; Palace")


def test_an_extra_action_tile_gives_the_merchant_a_second_action() -> None:
    """FACTS.md: "Extra action: one more action this turn." Tiles are single use."""
    state = table(start="harbor")
    give(state, RED, tiles=("extra",))
    state, _ = make_offers(state)
    state, events = move(state, "start = me; Villa Zasteri = me")
    assert state["tiles"][RED] == ["choice"] and [card[0] for card in state["hands"][RED]] == ["C"]
    assert state["tile_supply"]["extra"] == 5  # played, back on its supply space
    assert "Red plays an Extra action tile" in texts(events)


def test_an_offerer_with_an_extra_action_tile_may_be_given_two_buildings() -> None:
    """FACTS.md: "Extra action: one more action this turn.\""""
    state = table(start="4-2")
    give(state, BLUE, tiles=("extra",))
    state, _ = make_offers(state, {BLUE: "Coach House: 5; Palace: 5"})
    state, _ = move(state, "Coach House = Blue; Palace = Blue")
    assert state["tiles"][BLUE] == ["start", "build"] and state["ducats"][BLUE] == 120


def test_a_gained_payment_is_handed_over_after_the_action() -> None:
    """ "a player can include in his offer any good that he will obtain by taking the negotiated action.
    In these cases, the player only gives the goods to the merchant once the action is taken.\""""
    state = table(start="spices")
    state, _ = make_offers(state, {BLUE: "Spices: 3 + gained"})
    state, _ = move(state, "start = Blue")
    assert state["goods"][RED] == ["pepper", "saffron"] and state["goods"][BLUE] == []
    assert state["ducats"][:2] == [133, 127]


def test_ownership_markers_traded_go_to_the_supply_and_the_merchant_takes_his_own() -> None:
    """ "When Ownership markers are traded, the offering player puts his marker(s) back in the general
    supply and the recipient takes the same number of his color.\""""
    state = table(start="palace")
    give(state, BLUE, markers=2)
    state, _ = make_offers(state, {BLUE: "Palace: 1 marker"})
    state, _ = move(state, "start = Blue")
    assert (state["markers"][BLUE], state["reserve"][BLUE]) == (1, 6)
    assert (state["markers"][RED], state["reserve"][RED]) == (1, 6)


def test_an_offer_may_pay_with_cards_and_tiles() -> None:
    """ "An offer may include any quantity or combination of goods that are available within the game
    (commodity, cards, special tiles, Ownership markers or ducats).\""""
    state = table(start="palace")
    deal(state, BLUE, "C1")
    give(state, BLUE, tiles=("trade",))
    state, _ = make_offers(state, {BLUE: "Palace: C1 + trade tile"})
    state, events = move(state, "start = Blue")
    assert state["hands"][RED] == ["C1"] and state["tiles"][RED] == ["trade"]
    assert state["hands"][BLUE] == [] and state["tiles"][BLUE] == ["build"]
    assert "You receive C1 from Blue" in texts(events, RED)


def test_an_offer_the_player_cannot_pay_is_refused() -> None:
    """ "The player making an offer must indicate the space ... and specify what he is willing to pay in
    return": he must hold what he offers."""
    state = table(start="palace")
    with pytest.raises(OrderError, match="cannot pay 200 ducats"):
        ENGINE.validate(state, BLUE, {"offers": "Palace: 200"})
    with pytest.raises(OrderError, match="cannot pay 1 silk"):
        ENGINE.validate(state, BLUE, {"offers": "Palace: silk"})


def test_a_street_offer_is_valid_and_paid_when_the_tower_goes_there() -> None:
    """ "A request to have the tower moved onto an empty street space is a valid offer.\""""
    state = table(start="4-2")
    state, _ = make_offers(state, {BLUE: "Street 5-2: 7"})
    state, _ = move(state, "5-2 = Blue")
    assert state["ducats"][:2] == [137, 123]


def test_a_street_deal_uses_no_action() -> None:
    """RULES.md house reading: "paying for the tower to visit a street leaves the offerer free to be
    given a building too" (only "Each visited building allows one player to take one action")."""
    state = table(start="4-2")
    state, _ = make_offers(state, {BLUE: "Street 5-2: 3; Palace: 4"})
    state, _ = move(state, "5-2 = Blue; Palace = Blue")
    assert state["tiles"][BLUE] == ["build"] and state["ducats"][:2] == [137, 123]


def test_the_merchant_himself_makes_no_offers() -> None:
    """ "Negotiations always involve the merchant": only the other players are asked for offers."""
    state = table(start="4-2")
    assert state["asked"] == [BLUE, GREEN]
    with pytest.raises(OrderError, match="You are the merchant"):
        ENGINE.validate(state, RED, {"offers": "Palace: 5"})


# --- two players -----------------------------------------------------------------------------------


def test_two_players_an_offer_must_include_a_good() -> None:
    """ "Offers made to the merchant must always include at least one good; they cannot be solely
    monetary.\""""
    state = table(players=2, start="palace")
    give(state, BLUE, goods=("wine",))
    with pytest.raises(OrderError, match="at least one good"):
        ENGINE.validate(state, BLUE, {"offers": "Palace: 10"})
    assert ENGINE.validate(state, BLUE, {"offers": "Palace: 10 + wine"})["offers"] == "Palace: 10 ducats + wine"


def test_two_players_the_merchant_acts_twice_when_the_other_player_acts() -> None:
    """ "The merchant gets two actions if the other player takes at least one action.\""""
    state = table(players=2, start="4-2")
    give(state, BLUE, goods=("wine",))
    state, _ = make_offers(state, {BLUE: "Coach House: wine"})
    with pytest.raises(OrderError, match="You take 2 actions but may take 1"):
        move(state, "Coach House = me; Palace = me")
    state, _ = move(state, "Coach House = Blue; Palace = me; Metals = me")
    assert state["tiles"] == [["build"], ["start"]] and state["goods"][RED] == ["wine", "silver", "copper"]


# --- the tower's route ------------------------------------------------------------------------------


def test_the_tower_moves_up_to_four_times_to_adjacent_spaces() -> None:
    """ "the tower can move up to four spaces each turn. Counting the starting space, the tower can visit
    a total of 5 spaces per turn" and "The tower is moved orthogonally (never diagonally)\""""
    state = table(start="4-2")
    state, _ = make_offers(state)
    with pytest.raises(OrderError, match="at most 4 times"):
        move(state, "5-2; 6-2; 6-3; 7-3; Villa Colini")
    with pytest.raises(OrderError, match="not next to Street 4-2"):
        move(state, "Street 6-3")
    move(state, "5-2; 6-2; 6-3; 7-3")


def test_a_space_is_never_visited_twice() -> None:
    """ "A space may never be visited twice in the same turn.\""""
    state = table(start="4-2")
    state, _ = make_offers(state)
    with pytest.raises(OrderError, match="never visits a space twice"):
        move(state, "5-2; 4-2")


def test_a_disc_is_left_on_every_space_the_tower_visits() -> None:
    """ "The merchant must leave a disc behind on each space that the tower visits.\""""
    state = table(start="4-2")
    give(state, BLUE, markers=1)
    state, _ = make_offers(state)
    state, _ = move(state, "5-2; 6-2")
    assert state["turn"]["discs"] == {"4-2": 1, "5-2": 1, "6-2": 3}
    assert state["step"] == "acquire" and state["asked"] == [BLUE]


def test_the_merchant_may_leave_the_tower_on_the_start() -> None:
    """ "The merchant may, at any moment, decide to stop moving the tower. He can even leave it on the
    starting space.\""""
    state = table(start="4-2")
    give(state, GREEN, markers=1)
    state, _ = make_offers(state)
    state, events = move(state, "")
    assert state["turn"]["discs"] == {"4-2": 5} and "Red moves the tower: Street 4-2." in texts(events)


# --- cards ------------------------------------------------------------------------------------------


def test_a_message_pays_when_the_tower_visits_both_its_buildings() -> None:
    """FACTS.md: "A message asks the tower to visit the two buildings it names in one turn" (house
    default: pays 40), whoever holds it."""
    card = next(card for card, pair in MESSAGES.items() if set(pair) == {"palace", "metals"})
    state = table(start="palace")
    deal(state, BLUE, card)
    state, _ = make_offers(state)
    state, events = move(state, "start; Metals")
    assert state["ducats"][BLUE] == 170 and state["hands"][BLUE] == []
    assert f"Blue delivers message {card}" in texts(events)


def test_a_small_order_is_delivered_when_taking_its_buildings_action() -> None:
    """FACTS.md: "Small order: a non-villa building and 1 commodity, delivered when taking that
    building's action, pays 30.\""""
    card = next(card for card, (building, _) in SMALL_ORDERS.items() if building == "palace")
    good = SMALL_ORDERS[card][1]
    state = table(start="palace")
    deal(state, BLUE, card)
    give(state, BLUE, goods=(good,))
    state, _ = make_offers(state, {BLUE: f"Palace: 5 + deliver {card}"})
    state, _ = move(state, "start = Blue")
    assert state["ducats"][BLUE] == 155 and state["goods"][BLUE] == [] and state["hands"][BLUE] == []
    assert state["tiles"][BLUE] == ["build"] and state["supply"][good] == 5


def test_every_small_order_for_the_building_is_delivered_with_one_action() -> None:
    """RULES.md house reading: "every small order naming the building whose action a player takes may be
    delivered with that one action, one commodity each.\""""
    by_building: dict[str, list[str]] = {}
    for card, (building, _) in SMALL_ORDERS.items():
        by_building.setdefault(building, []).append(card)
    building, cards = next((building, cards) for building, cards in by_building.items() if len(cards) == 2)
    state = table(start=building)
    deal(state, RED, *cards)
    give(state, RED, goods=tuple(SMALL_ORDERS[card][1] for card in cards))
    state, _ = make_offers(state)
    state, _ = move(state, f"start = me deliver {cards[0]} deliver {cards[1]}")
    assert state["ducats"][RED] == 190 and not set(cards) & set(state["hands"][RED])
    assert state["supply"] == {good: 5 for good in state["supply"]}  # both commodities went back


def test_a_large_order_is_delivered_at_its_villa_for_100_and_a_tile() -> None:
    """FACTS.md: "A large order pays 100 ducats plus a special tile of your choice", delivered at the
    villa it names instead of drawing a contract."""
    villa, goods = LARGE_ORDERS["L1"]
    state = table(start=villa)
    elsewhere = next(card for card, (other, _) in LARGE_ORDERS.items() if other != villa)
    deal(state, RED, "L1", elsewhere)
    give(state, RED, goods=goods)
    state, _ = make_offers(state)
    with pytest.raises(OrderError, match="delivered at another building"):
        move(state, f"start = me deliver {elsewhere}")
    state, _ = move(state, "start = me deliver L1 reward build")
    assert state["ducats"][RED] == 230 and state["goods"][RED] == [] and state["hands"][RED] == [elsewhere]
    assert state["tiles"][RED] == ["build"]


def test_contracts_pay_at_the_end_if_you_own_the_building() -> None:
    """FACTS.md: "Contract: a building, pays 30 at the end if you own it." and "The players then reveal
    their Contract cards and receive the corresponding sum from the bank.\""""
    owned, unowned = "C1", "C2"
    state = table()
    deal(state, RED, owned, unowned)
    state["owners"] = {CONTRACTS[owned]: RED}
    finish(state, [])
    assert state["ducats"][RED] == 130 + 10 + 30


# --- special tiles ----------------------------------------------------------------------------------


def test_a_starting_space_tile_chooses_the_start_but_not_the_market() -> None:
    """FACTS.md: "Starting space: choose the start (not the market)." Single use."""
    state = table()
    give(state, RED, tiles=("start",))
    begin_turn(state, Dice(), [])
    assert state["step"] == "start" and state["asked"] == [RED]
    with pytest.raises(OrderError, match="cannot put the tower on the Market"):
        ENGINE.validate(state, RED, {"start": "Market"})
    new_state, _ = ENGINE.resolve(state, {RED: ENGINE.validate(state, RED, {"start": "Villa Colini"})}, Dice())
    assert new_state["turn"]["start"] == "colini" and new_state["tiles"][RED] == []
    rolled, _ = ENGINE.resolve(state, {RED: {"start": "roll"}}, Dice(3, 2))
    assert rolled["turn"]["start"] == "3-2" and rolled["tiles"][RED] == ["start"]


def test_a_trade_tile_swaps_a_commodity_with_the_supply() -> None:
    """FACTS.md: "Trade 1:1: swap a commodity with the supply.\""""
    state = table()
    give(state, BLUE, goods=("wine",), tiles=("trade",))
    state, _ = make_offers(state, tiles={BLUE: "trade wine for silk"})
    assert state["goods"][BLUE] == ["silk"] and state["tiles"][BLUE] == []
    assert state["supply"]["wine"] == 5 and state["supply"]["silk"] == 4


def test_a_commodity_of_your_choice_tile_takes_one() -> None:
    """FACTS.md: "Commodity of your choice: take one.\""""
    state = table()
    give(state, GREEN, tiles=("choice",))
    state, _ = make_offers(state, tiles={GREEN: "choose pepper"})
    assert state["goods"][GREEN] == ["pepper"] and state["tiles"][GREEN] == []


def test_a_building_action_tile_takes_an_action_without_the_tower() -> None:
    """FACTS.md: "Building action: take any building's action without the tower (still your one action;
    owner paid).\""""
    state = table(start="4-2")
    state["owners"] = {"guild_hall": GREEN}
    give(state, BLUE, tiles=("build",))
    state, _ = make_offers(state, tiles={BLUE: "build Guild Hall"})
    state, _ = move(state, "")
    assert [card[0] for card in state["hands"][BLUE]] == ["L"] and state["tiles"][BLUE] == []
    assert state["ducats"][GREEN] == 140


def test_a_building_action_tile_fails_when_the_player_already_acted() -> None:
    """FACTS.md: "Building action: ... (still your one action ...)": a player who took an offered action
    keeps the tile."""
    state = table(start="4-2")
    give(state, BLUE, tiles=("build",))
    state, _ = make_offers(state, {BLUE: "Coach House: 5"}, tiles={BLUE: "build Guild Hall"})
    state, events = move(state, "Coach House = Blue")
    assert state["tiles"][BLUE] == ["start", "build"] and state["hands"][BLUE] == []
    assert "you have no action left" in texts(events, BLUE)


# --- end of the game --------------------------------------------------------------------------------


def test_end_scoring_markers_on_buildings_most_ducats_wins_ties_by_goods() -> None:
    """ "each player receives 10 ducats from the bank for every one of his Ownership markers on buildings
    (not those in the general supply)" ... "The wealthiest player wins the game. In case of a tie, the
    winner is the tied-player with the most goods (cards, commodities and special tiles).\""""
    state = table()
    state["owners"] = {"palace": RED, "park": RED, "metals": BLUE}
    state["markers"] = [3, 0, 4]  # markers in hand are worth nothing
    state["ducats"] = [100, 110, 120]
    give(state, BLUE, goods=("wine",))
    finish(state, [])
    assert state["ducats"] == [120, 120, 120]
    standings = ENGINE.outcome(state)
    assert standings is not None
    assert [(row.seat, row.rank) for row in standings] == [(BLUE, 1), (RED, 2), (GREEN, 2)]


# --- default orders ---------------------------------------------------------------------------------


def test_missing_offers_are_no_offers() -> None:
    """RULES.md default: a player who misses the offers deadline makes no offers."""
    state = table(start="palace")
    state, _ = ENGINE.resolve(state, {BLUE: ENGINE.validate(state, BLUE, {"offers": "Palace: 9"})}, Dice())
    assert [offer["seat"] for offer in state["turn"]["offers"]] == [BLUE]


def test_a_missed_route_stops_at_the_start_and_takes_no_action() -> None:
    """RULES.md default: "the tower stops on its start space and the merchant takes no action".
    ("If no offers are made, the merchant does not have to take the action himself.")"""
    state = table(start="palace")
    state, _ = make_offers(state)
    state, events = ENGINE.resolve(state, {}, Dice())
    assert "Red moves the tower: Palace." in texts(events) and "takes the action" not in texts(events)
    assert state["tiles"] == [[], [], []] and state["turn"]["merchant"] == BLUE


def test_a_missed_route_still_gives_an_offered_for_start_to_the_best_offer() -> None:
    """ "If at least one player makes an offer for the building's action, it has to be accepted.\""""
    state = table(start="palace")
    state, _ = make_offers(state, {BLUE: "Palace: 5", GREEN: "Palace: 8"})
    state, _ = ENGINE.resolve(state, {}, Dice())
    assert state["tiles"] == [[], [], ["build"]] and state["ducats"] == [138, 130, 122]


def test_a_missed_acquisition_places_nothing_and_leaves_the_discs() -> None:
    """RULES.md default: a missed acquisition passes."""
    state = _acquisition_table()
    state, events = ENGINE.resolve(state, {}, Dice())
    assert state["owners"] == {} and state["markers"][RED] == 2
    assert state["asked"] == [BLUE] and "3-2" in state["turn"]["discs"] and "4-2" in state["turn"]["discs"]
    assert "Red acquires nothing." in texts(events)


def test_the_merchants_route_help_gives_its_example_with_another_players_colour() -> None:
    state, _ = make_offers(table(merchant=RED), {BLUE: "Street 3-2: 1"})
    prompt = ENGINE.prompts(state)[RED]
    route_help = prompt.fields[0].help
    assert "'= Blue' gives it to Blue's offer" in route_help and "= Red" not in route_help
    assert "You received 1 offer, listed under the board" in prompt.text  # the board lists it, in the singular
    assert ENGINE.view(state, RED)["offers"] == [{"from": "Blue", "text": "Street 3-2: 1 ducat"}]


# --- typing, building and reading back an order (issue 15) -------------------------------------------


def test_route_errors_count_steps_as_typed_when_the_start_is_not_named() -> None:
    """The first step typed is step 1, though the engine puts the start space before it."""
    state = table(start="4-2")
    state, _ = make_offers(state)
    with pytest.raises(OrderError, match=r"^Route step 1 \(Street 6-3\): not next to Street 4-2"):
        move(state, "Street 6-3")
    with pytest.raises(OrderError, match=r"^Route step 2 \(Street 4-2\): the tower never visits a space twice"):
        move(state, "5-2; 4-2")
    with pytest.raises(OrderError, match=r"^Route step 2 \(Street 6-3\): not next to Street 4-2"):
        move(state, "start; Street 6-3")


def test_an_unused_offered_start_is_named_as_the_start_space() -> None:
    state = table(start="palace")
    state, _ = make_offers(state, {BLUE: "Palace: 20"})
    with pytest.raises(OrderError, match=r"^The start space \(Palace\): Blue offered .* \(e\.g\. start = Blue\)"):
        move(state, "Street 5-2")


def test_an_offer_may_be_written_a_payment_at_a_time() -> None:
    state = table(start="palace")
    give(state, BLUE, goods=("silk", "wine"))
    spread = ENGINE.validate(state, BLUE, {"offers": "Palace: 20 ducats; + silk; + wine; Street 5-2: 0 ducats; + 3"})
    assert spread == ENGINE.validate(state, BLUE, {"offers": "Palace: 20 + silk + wine; Street 5-2: 3"})
    with pytest.raises(OrderError, match="adds to the offer before it"):
        ENGINE.validate(state, BLUE, {"offers": "+ silk; Palace: 20"})


def test_an_offer_a_builder_begins_is_incomplete_not_wrong_until_it_has_a_good() -> None:
    """With two players an offer of ducats only is not legal yet: the builder still offers the space,
    then the good that makes it legal."""
    state = table(players=2, start="palace")
    give(state, BLUE, goods=("wine",))
    begun = ENGINE.next_steps(state, BLUE, "offers", ["Palace: 10 ducats"])
    assert not begun.complete and "at least one good" in begun.problem
    assert [c.value for c in begun.choices] == ["+ wine", "+ gained"]
    done = ENGINE.next_steps(state, BLUE, "offers", ["Palace: 10 ducats", "+ wine"])
    assert done.complete and ENGINE.validate(state, BLUE, {"offers": "Palace: 10 ducats; + wine"})


def test_the_route_builder_asks_first_what_happens_on_the_start() -> None:
    state = table(start="palace")
    state, _ = make_offers(state, {BLUE: "Palace: 20"})
    first = ENGINE.next_steps(state, RED, "route", [])
    assert not first.complete and "Blue offered" in first.problem
    assert [c.value for c in first.choices] == ["Palace = Red", "Palace = Blue"]
    after = ENGINE.next_steps(state, RED, "route", ["Palace = Blue"])
    assert after.complete and {c.value for c in after.choices} >= {"Street 5-2", "Street 6-2"}
    assert all(not c.value.startswith("Palace") for c in after.choices)


def test_offers_read_back_in_words_and_an_empty_form_is_a_warning() -> None:
    state = table(start="palace")
    give(state, BLUE, goods=("silk",))
    read = ENGINE.read_back(state, BLUE, ENGINE.validate(state, BLUE, {"offers": "Palace: 20 + silk; Street 5-2: 0"}))
    assert read.lines == (
        "You will offer Red 20 ducats and 1 silk for the Palace action (it gives a Building action tile).",
        "You will offer Red nothing for a visit of the tower to Street 5-2.",
    )
    assert read.warnings == ("Your offer for Street 5-2 pays nothing.",)
    empty = ENGINE.read_back(state, BLUE, ENGINE.validate(state, BLUE, {"offers": "", "tiles": ""}))
    assert empty.warnings == ("With no offers, Red can give you no action this turn.",)


def test_every_building_says_what_its_action_gives_and_no_name_takes_an_s() -> None:
    """A newcomer reads what each action gives where they choose it; 'Drinks's action' is no English."""
    gives = {building: action_gives(building) for building in BUILDINGS}
    assert gives["drinks"] == "gives ale and wine" and gives["cathedral"] == "gives 2 ownership markers"
    assert gives["city_hall"] == "draws 2 small order cards" and gives["guild_hall"] == "draws 1 large order card"
    assert gives["harbor"] == "gives a Commodity of your choice tile"
    assert gives["colini"].startswith("delivers a large order naming it (100 ducats")
    state = table(start="tavern")
    give(state, BLUE, tiles=("build",))
    labels = [c.label for c in ENGINE.next_steps(state, BLUE, "tiles", []).choices]
    assert "Building action tile: the action of Drinks" in labels and not [t for t in labels if "s's" in t]


def test_a_new_offer_and_a_starting_space_say_what_their_space_is_for() -> None:
    """A newcomer choosing where to offer, or where the tower starts, reads what a building's action gives and
    which buildings a street is next to (its disc is for buying them), as the route and the buying turn say."""
    state = table(start="palace")
    labels = [c.label for c in ENGINE.next_steps(state, BLUE, "offers", []).choices]
    assert "New offer: Palace (its action gives a Building action tile)" in labels
    assert "New offer: Street 5-2 (next to Guild Hall, Palace)" in labels
    assert all("(" in label for label in labels if label.startswith("New offer:")), labels
    start = {c.value: c.label for c in start_prompt(state, RED).fields[0].choices}
    assert start["palace"] == "Palace (its action gives a Building action tile)"
    assert start["2-3"] == "Street 2-3 (next to Spices, Villa Ricci)" and start["roll"] == "Roll the dice"


def test_a_route_reads_back_step_by_step_and_a_tower_that_stays_is_a_warning() -> None:
    state = table(start="4-2")
    state, _ = make_offers(state, {BLUE: "Coach House: 5"})
    route = ENGINE.validate(state, RED, {"route": "Coach House = Blue; Palace = me"})
    assert ENGINE.read_back(state, RED, route).lines == (
        "The tower starts on Street 4-2: no deal there.",
        "Then it moves to Coach House: Blue takes the action (it gives a Starting space tile) and pays you 5 ducats.",
        "Then it moves to Palace: you take the action (it gives a Building action tile).",
    )
    stays = ENGINE.read_back(state, RED, ENGINE.validate(state, RED, {"route": ""}))
    assert stays.lines == ("The tower starts on Street 4-2: no deal there.",)
    assert stays.warnings == (
        "The tower does not move: it stays on Street 4-2.",
        "You take no action yourself this turn.",
    )
