"""Manila, one rules case per test, the rule quoted in the docstring (rulebook: ../shared/rules/manila.txt;
figures: FACTS.md; play-by-email changes: games/engines/manila/RULES.md). Pure Python: no database.

States are built by the engine itself (setup, then the orders of a voyage) and then set by hand where a
test needs a punt somewhere or a seat short of money; the dice are fixed by `Dice`."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engines import get_engine
from games.engines.base import Event, Order, OrderError, State
from games.engines.manila.decisions import advance
from games.engines.manila.flow import punt_of, voyage_stages

ENGINE = get_engine("manila")
RED, BLUE, GREEN, YELLOW = range(4)
LOAD = ("jade", "silk", "nutmeg")  # ginseng ashore: the cheapest paid spaces then cost 2


class Dice(random.Random):
    """A generator whose dice show the given faces, in order (one per punt still at sea, route order)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert self.faces, "the test rolled more dice than it set"
        return self.faces.pop(0)


# --- tiny helpers ----------------------------------------------------------------------------------


def new_game(players: int = 4, **options: Any) -> State:
    return ENGINE.setup(players, options, random.Random(1))


def play(state: State, orders: dict[int, Order] | None = None, dice: tuple[int, ...] = ()) -> tuple[State, list[Event]]:
    """Resolve the current step: the given orders (validated), the default order for every other asked seat."""
    given = orders or {}
    owed = {
        seat: ENGINE.validate(state, seat, given.get(seat, ENGINE.default_order(state, seat)))
        for seat in ENGINE.prompts(state)
    }
    return ENGINE.resolve(state, owed, Dice(*dice))


def texts(events: list[Event]) -> str:
    return "\n".join(event.text for event in events)


def duties(wares: tuple[str, ...] = LOAD, starts: tuple[int, ...] = (3, 3, 3), share: str = "none") -> Order:
    order: Order = {"share": share}
    for route, (ware, start) in enumerate(zip(wares, starts, strict=True), start=1):
        order[f"ware_{route}"] = ware
        order[f"start_{route}"] = start
    return order


def at_duties(players: int = 4, harbor_master: int = RED, **options: Any) -> State:
    """Voyage 1 after an auction nobody bid in: `harbor_master` (the opener) holds the office for free."""
    state = new_game(players, **options)
    state["opener"] = harbor_master
    state, _ = play(state)
    return state


def loaded(players: int = 4, harbor_master: int = RED, starts: tuple[int, ...] = (3, 3, 3), **options: Any) -> State:
    """Voyage 1 at the first placing round: jade, silk and nutmeg loaded on routes 1, 2, 3."""
    state = at_duties(players, harbor_master, **options)
    state, _ = play(state, {harbor_master: duties(starts=starts)})
    return state


def place(state: State, lists: dict[int, list[str]], dice: tuple[int, ...] = ()) -> tuple[State, list[Event]]:
    return play(state, {seat: {"wants": wants} for seat, wants in lists.items()}, dice)


def run_from(state: State, stage: str, nth: int = 1, dice: tuple[int, ...] = ()) -> list[Event]:
    """Jump the voyage to the nth `stage` (as set up by hand) and run on until someone is asked."""
    stages = voyage_stages(state["players"])
    index = [i for i, name in enumerate(stages) if name == stage][nth - 1]
    state.update(stage=index, moves=stages[:index].count("move"), asked=[])
    events: list[Event] = []
    advance(state, events, Dice(*dice))
    return events


def at(state: State, **positions: int) -> None:
    for ware, pos in positions.items():
        punt = punt_of(state, ware)
        assert punt is not None
        punt["pos"] = pos


def crew(state: State, ware: str) -> list[int | None]:
    punt = punt_of(state, ware)
    assert punt is not None
    return list(punt["crew"])


def berth(state: State, ware: str) -> str | None:
    punt = punt_of(state, ware)
    assert punt is not None
    return punt["berth"]


def berths(events: list[Event]) -> dict[str, str]:
    """Where each punt ended, from the log (the next voyage clears the board)."""
    return {event.data["ware"]: event.data["berth"] for event in events if event.data.get("kind") == "berth"}


def choices(state: State, seat: int, field: str) -> list[str]:
    prompt = ENGINE.prompts(state)[seat]
    return [c.value for f in prompt.fields if f.name == field for c in f.choices]


def field_names(state: State, seat: int) -> list[str]:
    return [f.name for f in ENGINE.prompts(state)[seat].fields]


# --- setup -----------------------------------------------------------------------------------------


def test_each_player_starts_with_30_pesos_two_hidden_shares_and_three_accomplices() -> None:
    """Rule: "Each player takes 30 pesos." "Each player takes three accomplices in his color." "Each player
    gets 2 of the well shuffled shares" "Place the four value indicators on space "0"."""
    state = new_game()
    assert state["cash"] == [30] * 4
    assert [len(hand) for hand in state["shares"]] == [2] * 4
    assert sum(state["supply"].values()) == 20 - 8
    assert set(state["values"].values()) == {0}
    assert state["left"] == [3] * 4


def test_with_three_players_each_takes_four_accomplices_and_places_twice_before_the_first_roll() -> None:
    """Rule: "When playing with just three, each player takes four accomplices." "In a game with three players
    there are 4 accomplice placing rounds and 3 punt movement rounds: after the first accomplice placing round,
    there is a second accomplice placing round. Then comes the first punt movement round." """
    state = loaded(players=3)
    assert state["left"] == [4] * 3
    state, events = place(state, {RED: ["punt:jade"], BLUE: ["punt:silk"], GREEN: ["punt:nutmeg"]})
    assert "Movement round" not in texts(events) and sorted(ENGINE.prompts(state)) == [RED, BLUE, GREEN]
    state, events = place(state, {RED: ["punt:jade"], BLUE: ["punt:silk"], GREEN: ["punt:nutmeg"]}, dice=(1, 1, 1))
    assert "Movement round 1" in texts(events)
    assert voyage_stages(3).count("place") == 4 and voyage_stages(4).count("place") == 3


def test_with_four_players_the_first_roll_follows_the_first_placing_round() -> None:
    """Rule: "This phase has three accomplice placing rounds, each followed by a punt movement round." """
    state, events = place(loaded(), {RED: ["punt:jade"]}, dice=(1, 1, 1))
    assert "Movement round 1" in texts(events)


# --- 1. the auction --------------------------------------------------------------------------------


def test_the_highest_sealed_bid_wins_the_office_and_is_paid_to_the_cash_box() -> None:
    """Rule: "This player has won the auction. He pays his last bid amount to the harbor cash box and is now
    the new harbor master." (Play-by-email: one round of sealed bids.)"""
    state, events = play(new_game(), {RED: {"bid": 4}, BLUE: {"bid": 9}, GREEN: {"bid": 0}, YELLOW: {"bid": 8}})
    assert state["harbor_master"] == BLUE and state["cash"] == [30, 21, 30, 30]
    assert "Red 4, Blue 9, Green 0, Yellow 8" in texts(events)  # every bid is revealed afterwards
    assert list(ENGINE.prompts(state)) == [BLUE] and ENGINE.prompts(state)[BLUE].kind == "duties"


@pytest.mark.parametrize(("opener", "winner"), [(GREEN, YELLOW), (RED, BLUE)])
def test_equal_top_bids_go_to_the_first_of_them_clockwise_from_the_previous_harbor_master(
    opener: int, winner: int
) -> None:
    """Rule: "For subsequent voyages, the player who was harbor master for the previous voyage, starts the
    bidding. If the starting player passes, his left neighbor begins, and so forth around the table, in
    clockwise order." (Play-by-email: a tie goes to the tied bidder who would have bid first.)"""
    state = new_game()
    state["opener"] = state["harbor_master"] = opener
    state, _ = play(state, {BLUE: {"bid": 10}, YELLOW: {"bid": 10}, RED: {"bid": 5}})
    assert state["harbor_master"] == winner and state["cash"][winner] == 20


def test_if_nobody_bids_the_previous_harbor_master_keeps_the_office_for_nothing() -> None:
    """Rule: "If no player bids in the auction, the previous harbor master retains the office for this
    voyage." """
    state = new_game()
    state["opener"] = state["harbor_master"] = GREEN
    state, events = play(state)
    assert state["harbor_master"] == GREEN and state["cash"] == [30] * 4
    assert "Nobody bids: Green is harbor master" in texts(events)


def test_on_the_first_voyage_nobody_bidding_gives_the_office_to_the_opener_for_free() -> None:
    """Rule: "For the first voyage, the oldest player starts the auction with a bid of at least 1 peso (or
    passes)." (Play-by-email: seat 1 opens; if all pass, the opener takes the office without paying.)"""
    state, _ = play(new_game())
    assert state["harbor_master"] == RED and state["cash"] == [30] * 4


def test_a_bid_is_bounded_by_cash_plus_loans_and_the_winner_takes_the_fewest_loans_needed() -> None:
    """Rule: "No player may bid more than he is able to pay. A player may take a loan by encumbering any of
    his shares, to get the money he needs to pay his bid." "For each share, the harbor cash box will loan 12
    pesos." """
    state = new_game()
    bid_field = next(f for f in ENGINE.prompts(state)[RED].fields if f.name == "bid")
    assert bid_field.max == 30 + 2 * 12
    with pytest.raises(OrderError, match="between 0 and 54"):
        ENGINE.validate(state, RED, {"bid": 55})
    state, events = play(state, {RED: {"bid": 31}})
    assert state["loans"][RED] == 1 and state["cash"][RED] == 30 + 12 - 31
    assert "Red takes 1 loan (12 pesos) to pay the bid" in texts(events)


def test_a_seat_that_can_raise_nothing_is_not_asked_to_bid() -> None:
    """Rule: "he may not bid for the office of harbor master with an amount higher than he could raise with
    his current cash and available loans." (Such a seat could only pass.)"""
    state = new_game()
    state["cash"][BLUE], state["loans"][BLUE] = 0, 2
    state["stage"] = 0
    advance(state, [], Dice())
    assert sorted(ENGINE.prompts(state)) == [RED, GREEN, YELLOW]


# --- 2. the harbor master's duties -----------------------------------------------------------------


def test_the_three_start_spaces_must_add_up_to_exactly_nine() -> None:
    """Rule: "Note, however, that the sum of the numbers of the 3 start position MUST always add to exactly
    9"."""
    state = at_duties()
    with pytest.raises(OrderError, match="exactly 9; 3 \\+ 3 \\+ 4 is 10"):
        ENGINE.validate(state, RED, duties(starts=(3, 3, 4)))
    state, events = play(state, {RED: duties(starts=(0, 4, 5))})
    assert [punt["pos"] for punt in state["punts"]] == [0, 4, 5]
    assert "ginseng stays ashore" in texts(events)


def test_no_punt_starts_beyond_space_five() -> None:
    """Rule: "He must not place any punt in a position higher than space 5"."""
    with pytest.raises(OrderError, match="between 0 and 5; you gave 6"):
        ENGINE.validate(at_duties(), RED, duties(starts=(0, 3, 6)))


def test_each_punt_carries_a_different_ware_on_its_own_route() -> None:
    """Rule: "Now the harbor master loads one ware on each of the three punts." "The harbor master places
    each punt on one of the sea routes, but never two punts on the same sea route." """
    with pytest.raises(OrderError, match="three different wares"):
        ENGINE.validate(at_duties(), RED, duties(wares=("jade", "jade", "silk")))


@pytest.mark.parametrize(("value", "price"), [(0, 5), (5, 5), (10, 10), (20, 20)])
def test_the_harbor_master_may_buy_one_share_at_its_value_but_at_least_five(value: int, price: int) -> None:
    """Rule: "The cost of a share is determined by the current value of the ware on the black market. It is at
    least 5 pesos." """
    state = at_duties()
    state["values"]["silk"] = value
    supply, held = state["supply"]["silk"], state["shares"][RED].count("silk")
    state, events = play(state, {RED: duties(share="silk")})
    assert state["cash"][RED] == 30 - price
    assert state["supply"]["silk"] == supply - 1 and state["shares"][RED].count("silk") == held + 1
    assert f"Red buys a silk share for {price} pesos" in texts(events)


def test_only_the_harbor_master_is_asked_the_duties() -> None:
    """Rule: "The harbor master is also the only one able to buy a new share"."""
    state = at_duties(harbor_master=BLUE)
    assert list(ENGINE.prompts(state)) == [BLUE]
    with pytest.raises(OrderError, match="Nothing is asked of you"):
        ENGINE.validate(state, RED, duties(share="jade"))


# --- 3. placing accomplices ------------------------------------------------------------------------


def test_lists_resolve_clockwise_from_the_harbor_master_and_a_taken_list_is_not_out() -> None:
    """Rule: "Beginning with the harbor master, and continuing in clockwise order, each player takes turns
    placing one of his accomplices on any vacant accomplice space". (Play-by-email: sealed ranked lists; a
    player whose whole list was taken places nothing this round but is not out.)"""
    state = loaded(harbor_master=BLUE)
    wants = ["insurance", "pilot:large"]
    state, events = place(state, {seat: wants for seat in range(4)}, dice=(1, 1, 1))
    assert state["spaces"]["insurance"] == BLUE and state["spaces"]["pilot:large"] == GREEN
    assert state["left"] == [3, 2, 2, 3] and state["stopped"] == [False] * 4
    log = texts(events)
    assert "Yellow's list: the insurance office, the large pilot." in log
    assert "Every space on Yellow's list was taken: Yellow places nothing this round." in log
    assert log.index("Blue takes the insurance") < log.index("Green places an accomplice on the large pilot")
    assert sorted(ENGINE.prompts(state)) == [RED, BLUE, GREEN, YELLOW]  # the next round asks everyone again


def test_a_punt_wish_takes_the_cheapest_free_space_on_that_punt() -> None:
    """Rule: "When a player wants to place an accomplice on one of the 3 loaded wares, he should choose the
    lowest-priced empty space of the desired ware." (Jade: 3, 4, 5, 5.)"""
    state, _ = place(loaded(), {RED: ["punt:jade"], BLUE: ["punt:jade"]}, dice=(1, 1, 1))
    assert crew(state, "jade") == [RED, BLUE, None, None]
    assert state["cash"][RED] == 30 - 3 and state["cash"][BLUE] == 30 - 4


def test_the_first_free_space_of_a_list_is_taken_and_the_rest_ignored() -> None:
    """Play-by-email: "each gets the first listed space still free that they can pay for"."""
    state, _ = place(loaded(), {RED: ["port:A"], BLUE: ["port:A", "yard:B", "port:C"]}, dice=(1, 1, 1))
    assert state["spaces"]["port:A"] == RED and state["spaces"]["yard:B"] == BLUE
    assert state["spaces"]["port:C"] is None and state["cash"][BLUE] == 30 - 3


def test_the_first_pirate_is_captain_and_the_next_takes_the_second_space() -> None:
    """Rule: "The first to use the pirate boat will take the front space and become the captain. If the
    captain space is occupied, the player places his accomplice in the second space." """
    state, _ = place(loaded(), {RED: ["pirate"], BLUE: ["pirate"]}, dice=(1, 1, 1))
    assert state["spaces"]["pirate:captain"] == RED and state["spaces"]["pirate:crew"] == BLUE
    assert state["cash"][RED] == state["cash"][BLUE] == 30 - 5


def test_no_accomplice_may_board_a_punt_that_has_docked() -> None:
    """Rule: "Punts already docking at the port cannot take any new accomplices." """
    state = loaded()
    at(state, jade=13)
    run_from(state, "move", 1, dice=(1, 1, 1))  # jade passes 13 and docks
    assert berth(state, "jade") == "port:A"
    assert "punt:jade" not in choices(state, RED, "wants") and "punt:silk" in choices(state, RED, "wants")
    with pytest.raises(OrderError, match="The jade punt is not free"):
        ENGINE.validate(state, RED, {"wants": ["punt:jade"]})


def test_a_player_who_stops_places_no_more_accomplices_this_voyage() -> None:
    """Rule: "At any time, a player may choose to refrain from placing an accomplice on his turn. However,
    once a player has done so, he may place no further accomplices for this voyage." """
    state, events = place(loaded(), {RED: ["stop"], BLUE: ["punt:silk"], GREEN: ["punt:silk"]}, dice=(1, 1, 1))
    assert "Red stops placing for this voyage." in texts(events)
    assert RED not in ENGINE.prompts(state) and BLUE in ENGINE.prompts(state)
    assert state["left"][RED] == 3


def test_insurance_costs_nothing_and_pays_ten_pesos_at_once() -> None:
    """Rule: "The player who places an accomplice here, pays nothing, but immediately receives an "insurance"
    payment of 10 pesos from the harbor cash box." """
    state, events = place(loaded(), {GREEN: ["insurance"]}, dice=(1, 1, 1))
    assert state["cash"][GREEN] == 40 and state["spaces"]["insurance"] == GREEN
    assert "Green takes the insurance office and receives 10 pesos." in texts(events)


def test_a_blind_passenger_boards_a_punt_for_free_and_may_take_no_other_space() -> None:
    """Rule: "When a player has no cash (and has no unencumbered shares with which to take out loans), he
    becomes a "Blind Passenger", he may place an accomplice as a blind passenger on any vacant place of any
    punt for no cost. All other spaces are not available to him until he has cash once more." """
    state = loaded()
    state["cash"][YELLOW], state["loans"][YELLOW] = 0, 2
    assert set(choices(state, YELLOW, "wants")) == {"punt:jade", "punt:silk", "punt:nutmeg", "stop"}
    with pytest.raises(OrderError, match="Port space A is not open to you"):
        ENGINE.validate(state, YELLOW, {"wants": ["port:A"]})
    state, events = place(state, {RED: ["punt:jade"], YELLOW: ["punt:jade"]}, dice=(1, 1, 1))
    assert crew(state, "jade") == [RED, YELLOW, None, None] and state["cash"][YELLOW] == 0
    assert "Yellow boards the jade punt as a blind passenger, for nothing." in texts(events)


def test_a_player_short_of_the_cheapest_space_may_take_it_for_all_he_has() -> None:
    """Rule: "If after adding all cash and loans, the player still comes short of paying for the least
    expensive space, he can still place his accomplice on this space but must pay all his remaining cash to
    the harbor cash box." (Ginseng ashore: the cheapest spaces cost 2.)"""
    state = loaded()
    state["cash"][YELLOW], state["loans"][YELLOW] = 1, 2
    open_to_yellow = set(choices(state, YELLOW, "wants"))
    assert {"punt:nutmeg", "port:C", "pilot:small"} <= open_to_yellow
    assert not {"punt:jade", "port:A", "pilot:large", "pirate"} & open_to_yellow
    state, events = place(state, {YELLOW: ["port:C"]}, dice=(1, 1, 1))
    assert state["spaces"]["port:C"] == YELLOW and state["cash"][YELLOW] == 0
    assert "Yellow places an accomplice on port space C for 1 peso." in texts(events)


def test_a_player_with_no_accomplice_left_is_not_asked() -> None:
    """Rule: "Each player takes three accomplices in his color." (Three placed: nothing left to place.)"""
    state = loaded()
    state["left"][GREEN] = 0
    run_from(state, "place", 1)
    assert GREEN not in ENGINE.prompts(state)


# --- movement, docking and shipwrecks --------------------------------------------------------------


def test_punts_passing_13_dock_at_port_a_then_b_and_spare_movement_is_lost() -> None:
    """Rule: "Each punt which travels past space 13, reaches its destination port of Manila. The first punt to
    reach Manila is placed in port space A, the second is placed in port space B". "When a punt reaches its
    destination port with movement points remaining, these are "discarded"." """
    state = loaded()
    at(state, jade=12, silk=11, nutmeg=2)
    events = run_from(state, "move", 1, dice=(6, 3, 1))
    assert (berth(state, "jade"), berth(state, "silk"), berth(state, "nutmeg")) == ("port:A", "port:B", None)
    assert punt_of(state, "jade")["pos"] == 14 and punt_of(state, "nutmeg")["pos"] == 3  # type: ignore[index]
    assert "The jade punt reaches Manila and docks at port space A." in texts(events)
    run_from(state, "move", 2, dice=(2,))  # only the nutmeg punt is still at sea: one die
    assert punt_of(state, "nutmeg")["pos"] == 5  # type: ignore[index]


def test_punts_short_of_manila_after_three_rolls_go_to_shipyard_a_b_c() -> None:
    """Rule: "When only one punt fails to reach Manila, it is placed on shipyard space A. A second punt failing
    to reach Manila is placed on shipyard space B. If all three punts fail to reach Manila, the last is placed
    on shipyard space C"."""
    state = loaded()
    at(state, jade=5, silk=6, nutmeg=7)
    events = run_from(state, "finish")
    assert berths(events) == {"jade": "yard:A", "silk": "yard:B", "nutmeg": "yard:C"}
    assert "The jade punt failed to reach Manila and goes to shipyard space A." in texts(events)


# --- the pilots ------------------------------------------------------------------------------------


def test_the_small_pilot_moves_one_punt_one_space_forward_or_back() -> None:
    """Rule: "The "small pilot" (on the space costing 2 pesos) goes first. He may move one punt either forward
    or backward by one space." """
    state = loaded()
    state["spaces"]["pilot:small"], state["spaces"]["pilot:large"] = BLUE, GREEN
    at(state, jade=8, silk=9, nutmeg=10)
    run_from(state, "pilot:small")
    assert list(ENGINE.prompts(state)) == [BLUE]
    moves = choices(state, BLUE, "move")
    assert {"none", "jade+1", "jade-1", "nutmeg-1"} <= set(moves)
    assert not any("+2" in move or " " in move for move in moves)
    with pytest.raises(OrderError, match="not a possible choice"):
        ENGINE.validate(state, BLUE, {"move": "jade+2"})
    state, events = play(state, {BLUE: {"move": "silk-1"}})
    assert "The small pilot (Blue) moves the silk punt 1 space back." in texts(events)
    assert [punt["pos"] for punt in state["punts"]] == [8, 8, 10]


def test_the_large_pilot_moves_one_punt_up_to_two_spaces_or_two_punts_one_space_each() -> None:
    """Rule: "Next, the "large pilot" takes his turn. He may move one punt up to two spaces or two punts each
    by one space. He decides for each separately whether to move it forward or backward." """
    state = loaded()
    state["spaces"]["pilot:large"] = GREEN
    at(state, jade=8, silk=9, nutmeg=10)
    run_from(state, "pilot:small")  # no small pilot: the large pilot is asked at once
    moves = set(choices(state, GREEN, "move"))
    assert {"jade+2", "jade-2", "silk+1", "jade+1 silk-1", "silk-1 nutmeg-1"} <= moves
    assert "jade+2 silk+1" not in moves
    state, events = play(state, {GREEN: {"move": "jade+2"}}, dice=(1, 1, 1))
    assert "The large pilot (Green) moves the jade punt 2 spaces forward." in texts(events)
    assert "Movement round 3: the dice show jade 1, silk 1, nutmeg 1." in texts(events)
    assert berths(events) == {"jade": "yard:A", "silk": "yard:B", "nutmeg": "yard:C"}  # 11, 10, 11: wrecks


def test_pilots_act_small_then_large_just_before_the_third_roll() -> None:
    """Rule: "At the end of the last accomplice placing round (just before the last punt movement round) the
    pilots may use their influence on the movement of the punts." "The harbor master may only roll the dice to
    move the punts in the third movement round after he has given the pilots the opportunity"."""
    state = loaded()
    state["spaces"]["pilot:small"], state["spaces"]["pilot:large"] = BLUE, GREEN
    at(state, jade=8, silk=9, nutmeg=10)
    events = run_from(state, "place", 3)
    assert "Movement round" not in texts(events)
    state, events = play(state, {}, dice=())  # the last placing round (all stop): no roll yet
    assert list(ENGINE.prompts(state)) == [BLUE] and ENGINE.prompts(state)[BLUE].kind == "pilot"
    state, events = play(state, {BLUE: {"move": "jade+1"}})
    assert list(ENGINE.prompts(state)) == [GREEN] and "Movement round" not in texts(events)
    state, events = play(state, {GREEN: {"move": "jade+1 silk+1"}}, dice=(1, 1, 1))
    log = texts(events)
    assert log.index("The large pilot (Green) moves the jade punt") < log.index("Movement round 3")


def test_a_pilot_moving_a_punt_past_13_docks_it_and_docked_punts_are_beyond_the_pilots() -> None:
    """Rule: "When a pilot moves a punt past space 13, it has arrived at its port destination and he places it
    on the next vacant port space." "Pilots may not influence punts which have already reached Manila." """
    state = loaded()
    state["spaces"]["pilot:small"], state["spaces"]["pilot:large"] = BLUE, GREEN
    at(state, jade=13, silk=9, nutmeg=10)
    run_from(state, "pilot:small")
    state, events = play(state, {BLUE: {"move": "jade+1"}})
    assert berth(state, "jade") == "port:A"
    assert "reaches Manila with the pilot's help and docks at port space A" in texts(events)
    assert not any("jade" in move for move in choices(state, GREEN, "move"))


def test_pilots_are_not_asked_when_nobody_took_their_spaces() -> None:
    """Rule: "Each pilot decides independently whether to use his influence or not." (No pilot, no prompt.)"""
    state = loaded()
    events = run_from(state, "pilot:small", dice=(1, 1, 1))
    assert "Movement round 3" in texts(events)


# --- the pirates -----------------------------------------------------------------------------------


def pirates_ready(captain: int = BLUE, second: int | None = GREEN, **options: Any) -> State:
    state = loaded(**options)
    state["spaces"]["pirate:captain"], state["spaces"]["pirate:crew"] = captain, second
    return state


def test_after_the_second_roll_the_captain_boards_first_and_the_second_pirate_moves_up() -> None:
    """Rule: "Punts standing after the second movement round on space 13, are boarded by the pirates." "The
    pirate captain (forward space in the pirate boat) may board first." "When the pirate captain boards a
    punt, the second pirate immediately becomes the pirate captain, moving to the forward position"."""
    state = pirates_ready()
    at(state, jade=11, silk=2, nutmeg=2)
    state["punts"][0]["crew"] = [RED, None, None, None]
    run_from(state, "move", 2, dice=(2, 1, 1))
    assert list(ENGINE.prompts(state)) == [BLUE]
    assert choices(state, BLUE, "board") == ["none", "board:jade"]
    state, events = play(state, {BLUE: {"board": "board:jade"}})
    assert crew(state, "jade") == [RED, BLUE, None, None]
    assert state["spaces"]["pirate:captain"] == GREEN and state["spaces"]["pirate:crew"] is None
    assert list(ENGINE.prompts(state)) == [GREEN] and "now captain" in ENGINE.prompts(state)[GREEN].text
    state, events = play(state, {GREEN: {"board": "none"}})
    assert "Green's pirate stays on the pirate boat." in texts(events)
    assert ENGINE.prompts(state)[RED].kind == "place"


def test_a_punt_on_13_after_the_first_roll_is_not_boarded() -> None:
    """Rule: "Punts standing after the second movement round on space 13, are boarded by the pirates."
    (Only after the second.)"""
    state = pirates_ready()
    at(state, jade=11, silk=2, nutmeg=2)
    run_from(state, "move", 1, dice=(2, 1, 1))
    assert {prompt.kind for prompt in ENGINE.prompts(state).values()} == {"place"}


def test_without_pirates_a_punt_on_13_after_the_second_roll_is_not_attacked() -> None:
    """Rule: "If there are no pirates on the pirate boat at the time of the punt's arrival on space 13, the
    punt is not attacked." """
    state = loaded()
    at(state, jade=11, silk=2, nutmeg=2)
    events = run_from(state, "move", 2, dice=(2, 1, 1))
    assert "No pirate waits to board the jade punt on space 13." in texts(events)
    assert {prompt.kind for prompt in ENGINE.prompts(state).values()} == {"place"}


def test_a_full_punt_cannot_be_boarded_in_the_basic_game() -> None:
    """Rule: "To board the punt, the player moves his pirate to a vacant space on the punt. If there is no
    vacant space in the punt, it cannot be boarded"."""
    state = pirates_ready()
    at(state, jade=11, silk=2, nutmeg=2)
    state["punts"][0]["crew"] = [RED, RED, YELLOW, YELLOW]
    run_from(state, "move", 2, dice=(2, 1, 1))
    assert {prompt.kind for prompt in ENGINE.prompts(state).values()} == {"place"}


def test_variant_pirates_displace_an_accomplice_of_a_full_punt_but_not_the_captain_who_just_boarded() -> None:
    """Variant: "The pirates are allowed to board a punt even if there are no vacant spaces on them. The
    boarding player removes one of the accomplices on the punt". "If both pirates board the same punt, the
    second pirate may not displace the pirate captain who just boarded the punt." """
    state = pirates_ready(displacing_pirates="yes")
    at(state, jade=11, silk=2, nutmeg=2)
    state["punts"][0]["crew"] = [RED, RED, YELLOW, YELLOW]
    run_from(state, "move", 2, dice=(2, 1, 1))
    assert "displace:jade:3" in choices(state, BLUE, "board")
    state, events = play(state, {BLUE: {"board": "displace:jade:3"}})
    assert crew(state, "jade") == [RED, RED, YELLOW, BLUE]
    assert "Yellow's accomplice on the jade punt is sent home." in texts(events)
    second = choices(state, GREEN, "board")
    assert "displace:jade:0" in second and "displace:jade:3" not in second


def test_variant_pirates_must_fill_vacant_spaces_first() -> None:
    """Variant: "If, however, there are vacant spaces on any punt on space 13, these must be filled first by
    the pirates. Only when there are no vacant spaces can a pirate displace an accomplice on a punt." """
    state = pirates_ready(displacing_pirates="yes")
    at(state, jade=11, silk=12, nutmeg=2)
    state["punts"][0]["crew"] = [RED, RED, YELLOW, YELLOW]
    run_from(state, "move", 2, dice=(2, 1, 1))
    assert choices(state, BLUE, "board") == ["none", "board:silk"]


@pytest.mark.parametrize(("fate", "rises"), [("port", True), ("yard", False)])
def test_after_the_third_roll_pirates_plunder_and_the_captain_chooses_port_or_shipyard(fate: str, rises: bool) -> None:
    """Rule: "Punts standing after the third movement round on space 13, are plundered by the pirates." "All
    accomplices on the punt are removed and returned to their players." "Now, the pirate captain decides for
    each plundered punt separately whether it lands at the port or the shipyard. If he chooses the port for a
    punt, the value of the plundered ware rises in value"."""
    state = pirates_ready()
    at(state, jade=12, silk=12, nutmeg=0)
    state["punts"][0]["crew"] = [RED, YELLOW, None, None]
    state["punts"][1]["crew"] = [YELLOW, None, None]
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    assert "The pirates plunder the jade punt on space 13; Red and Yellow go home empty-handed." in texts(events)
    assert list(ENGINE.prompts(state)) == [BLUE]
    assert field_names(state, BLUE)[:2] == ["fate_jade", "fate_silk"]
    before = list(state["cash"])
    state, events = play(state, {BLUE: {"fate_jade": fate, "fate_silk": "port"}})
    expected = {"jade": "port:A", "silk": "port:B"} if rises else {"jade": "yard:A", "silk": "port:A"}
    assert {ware: where for ware, where in berths(events).items() if ware != "nutmeg"} == expected
    assert state["values"]["jade"] == (5 if rises else 0) and state["values"]["silk"] == 5
    # The pirates share both loads: (36 + 30) / 2 each; the plundered accomplices get nothing.
    assert state["cash"][BLUE] - before[BLUE] == 33 and state["cash"][GREEN] - before[GREEN] == 33
    assert state["cash"][RED] == before[RED] and state["cash"][YELLOW] == before[YELLOW]


def test_a_lone_pirate_takes_the_whole_plundered_load() -> None:
    """Rule: "If only one pirate is on the pirate boat, he receives the entire profits from the plundered
    punts." """
    state = pirates_ready(captain=BLUE, second=None)
    at(state, jade=12, silk=2, nutmeg=0)
    run_from(state, "move", 3, dice=(1, 1, 1))
    before = state["cash"][BLUE]
    state, events = play(state, {BLUE: {"fate_jade": "port"}})
    assert state["cash"][BLUE] - before == 36
    assert "Blue receives 36 pesos as a pirate from the jade load." in texts(events)


def test_without_pirates_a_punt_on_13_after_the_third_roll_docks_at_the_next_port_space() -> None:
    """Rule: "When a punt stands on space 13 after the third movement round and there are no pirates on the
    pirate boat, it is placed on the next vacant port space. and is treated as if it arrived"."""
    state = loaded()
    at(state, jade=12, silk=13, nutmeg=0)
    state["punts"][0]["crew"] = [RED, None, None, None]
    before = state["cash"][RED]
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    assert berths(events) == {"silk": "port:A", "jade": "port:B", "nutmeg": "yard:A"}
    assert state["cash"][RED] - before == 36 and state["values"]["jade"] == 5
    assert "from space 13 (no pirates on the boat)" in texts(events)


# --- 4. profit distribution and 5. values ----------------------------------------------------------


def test_accomplices_on_a_punt_in_port_share_its_load_and_port_spaces_pay_from_the_cash_box() -> None:
    """Rule: "On each ware load is the amount of profit to be earned, which the accomplices share equally
    among themselves" "The profit for port spaces is paid, in each case, from the harbor cash box." "All
    accomplices on a punt that was damaged and sent to the shipyard, go home empty-handed." """
    state = loaded()
    crews = ([RED, BLUE, None, None], [GREEN, None, None], [YELLOW, None, None])
    for punt, seats in zip(state["punts"], crews, strict=True):
        punt["crew"] = seats
    state["spaces"].update({"port:A": GREEN, "port:B": YELLOW, "port:C": RED})
    state["cash"] = [0, 0, 0, 0]
    at(state, jade=13, silk=12, nutmeg=0)
    run_from(state, "move", 3, dice=(1, 2, 1))
    # Jade (36) to Red and Blue, silk (30) to Green; port A 6 to Green, B 8 to Yellow, C empty: Red gets 0.
    # The nutmeg punt is wrecked: Yellow gets nothing for it.
    assert state["cash"] == [18, 18, 30 + 6, 8]


def test_the_insurance_agent_pays_repairs_after_taking_his_profits_borrowing_as_needed() -> None:
    """Rule: "The insurance agent player may first take his profits for the voyage before paying for the punt
    repairs. If he does not have enough cash to make the payments, he must take out loans to cover the
    missing amounts"."""
    state = loaded()
    state["punts"][0]["crew"] = [YELLOW, None, None, None]
    state["spaces"].update({"insurance": YELLOW, "yard:A": RED, "yard:B": BLUE})
    state["cash"][YELLOW], state["loans"][YELLOW] = 0, 0
    at(state, jade=13, silk=2, nutmeg=2)
    before = list(state["cash"])
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    # Yellow takes 36 for jade, then pays 6 (yard A) and 8 (yard B) out of it: no loan needed.
    assert state["cash"][YELLOW] == 36 - 6 - 8 and state["loans"][YELLOW] == 0
    assert state["cash"][RED] - before[RED] == 6 and state["cash"][BLUE] - before[BLUE] == 8
    assert "Yellow, the insurance agent, pays 8 pesos for shipyard space B (to Blue)." in texts(events)

    state = loaded()
    state["spaces"].update({"insurance": YELLOW, "yard:A": RED})
    state["cash"][YELLOW], state["loans"][YELLOW] = 2, 0
    at(state, jade=2, silk=2, nutmeg=13)
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    # Two wrecks: 6 + 8 = 14 from 2 pesos takes the fewest loans: one (12).
    assert state["loans"][YELLOW] == 1 and state["cash"][YELLOW] == 2 + 12 - 14
    assert "Yellow takes 1 loan (12 pesos) to pay for repairs." in texts(events)


def test_the_cash_box_pays_what_the_insurance_agent_cannot_raise_even_with_loans() -> None:
    """Rule: "If he cannot raise enough cash, even with loans, to pay the entire amount, he pays all that he
    can and the rest comes from the harbor cash box. The player does not have to repay the amount paid by the
    harbor cash box in this case." """
    state = loaded()
    state["spaces"].update({"insurance": YELLOW, "yard:A": RED, "yard:B": BLUE, "yard:C": GREEN})
    state["cash"][YELLOW], state["loans"][YELLOW] = 3, 1  # one share still free: 12 more
    before = list(state["cash"])
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    assert state["loans"][YELLOW] == 2 and state["cash"][YELLOW] == 0
    assert [state["cash"][seat] - before[seat] for seat in (RED, BLUE, GREEN)] == [6, 8, 15]
    assert "the cash box covers the other" in texts(events)


def test_without_an_insurance_agent_the_cash_box_pays_the_shipyard_spaces() -> None:
    """Rule: "The profit for the shipyard spaces is paid by the insurance agent (if there is no insurance
    agent, it is paid by the harbor cash box)." """
    state = loaded()
    state["spaces"]["yard:B"] = BLUE
    before = state["cash"][BLUE]
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    assert state["cash"][BLUE] - before == 8
    assert "The cash box pays 8 pesos for shipyard space B to Blue." in texts(events)


def test_only_wares_that_reached_manila_rise_one_step_on_the_black_market() -> None:
    """Rule: "All wares, which were delivered on this voyage to the destination port of Manila, rise in value.
    To do this, move the value markers for these wares on the black market table up by one space (e.g. from 0
    to 5). Wares that did not reach the harbor remain the same in value." """
    state = loaded()
    state["values"].update({"jade": 5, "silk": 10, "nutmeg": 0})
    at(state, jade=13, silk=13, nutmeg=0)
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    assert state["values"] == {"jade": 10, "silk": 20, "nutmeg": 0, "ginseng": 0}
    assert "Black market: jade to 10 and silk to 20." in texts(events)
    assert state["voyage"] == 2 and ENGINE.prompts(state)[RED].kind == "bid"


# --- loans -----------------------------------------------------------------------------------------


def test_a_payment_the_cash_cannot_cover_takes_the_fewest_loans_of_12() -> None:
    """Rule: "For each share, the harbor cash box will loan 12 pesos. When a player must make a payment and
    does not have enough cash, he must take out a loan, so that he may settle his commitments." """
    state = loaded()
    state["cash"][BLUE] = 2
    state, events = place(state, {BLUE: ["pilot:large"]}, dice=(1, 1, 1))
    assert state["loans"][BLUE] == 1 and state["cash"][BLUE] == 2 + 12 - 5
    assert "Blue takes 1 loan (12 pesos) to place an accomplice." in texts(events)


def test_every_prompt_offers_to_take_loans_and_to_repay_them_for_15() -> None:
    """Rule: "Each player who has unencumbered shares, can, at any time, take out a loan" "Each encumbered
    share may be made unencumbered by repaying the loan, plus interest, for a total of 15 pesos"."""
    state = loaded()
    assert "take_loans" in field_names(state, RED) and "repay_loans" not in field_names(state, RED)
    state["loans"][RED] = 1
    assert {"take_loans", "repay_loans"} <= set(field_names(state, RED))
    orders = {RED: {"wants": ["stop"], "repay_loans": 1}, BLUE: {"wants": ["insurance"], "take_loans": 2}}
    state, events = play(state, orders, dice=(1, 1, 1))
    assert state["loans"][RED] == 0 and state["cash"][RED] == 30 - 15
    assert state["loans"][BLUE] == 2 and state["cash"][BLUE] == 30 + 24 + 10
    assert "Red repays 1 loan (15 pesos)." in texts(events)
    assert "Blue takes 2 loans (24 pesos) by choice." in texts(events)


def test_a_loan_cannot_be_repaid_without_the_cash_nor_taken_and_repaid_at_once() -> None:
    """Rule: "Each encumbered share may be made unencumbered by repaying the loan, plus interest, for a total
    of 15 pesos to the harbor cash box." """
    state = loaded()
    state["loans"][RED], state["cash"][RED] = 1, 14
    with pytest.raises(OrderError, match="Loans to repay must be between 0 and 0"):
        ENGINE.validate(state, RED, {"wants": ["stop"], "repay_loans": 1})
    state["cash"][RED] = 20
    with pytest.raises(OrderError, match="not both"):
        ENGINE.validate(state, RED, {"wants": ["stop"], "repay_loans": 1, "take_loans": 1})


# --- the end ---------------------------------------------------------------------------------------


def test_the_game_ends_when_a_ware_reaches_30_and_fortunes_subtract_15_per_encumbered_share() -> None:
    """Rule: "As soon as the value marker for at least one ware reaches 30 on the black market table, the game
    ends." "Each player counts his cash (pesos) and adds to this the value of his shares ... From this sum, he
    subtracts 15 pesos for each encumbered share"."""
    state = loaded()
    state["values"].update({"jade": 20, "silk": 5})
    state["shares"] = [["jade", "silk"], ["silk"], ["ginseng", "nutmeg"], ["jade"]]
    state["loans"] = [1, 0, 2, 0]
    state["cash"] = [10, 20, 50, 0]
    at(state, jade=13, silk=2, nutmeg=2)
    events = run_from(state, "move", 3, dice=(1, 1, 1))
    assert state["finished"] and state["values"]["jade"] == 30 and ENGINE.prompts(state) == {}
    standings = {row.seat: (row.score, row.rank) for row in ENGINE.outcome(state) or []}
    # Red 10 + 30 + 5 - 15; Blue 20 + 5; Green 50 + 0 + 0 - 30; Yellow 0 + 30.
    assert standings == {RED: (30, 1), YELLOW: (30, 1), BLUE: (25, 3), GREEN: (20, 4)}
    assert "Black market: jade to 30." in texts(events)


def test_the_game_goes_on_while_no_ware_stands_at_30() -> None:
    """Rule: "The game ends as soon as one ware value reaches 30." (Not before.)"""
    state = loaded()
    state["values"].update({"jade": 10, "silk": 20})
    at(state, jade=13, silk=2, nutmeg=2)
    run_from(state, "move", 3, dice=(1, 1, 1))
    assert not state["finished"] and state["values"]["jade"] == 20 and ENGINE.outcome(state) is None


# --- default orders on a missed deadline -----------------------------------------------------------


def test_missed_deadlines_bid_nothing_load_the_documented_default_and_stop_placing() -> None:
    """Play-by-email (RULES.md, missed deadlines): bid 0; no share, jade, silk and nutmeg from space 3; stop."""
    state, _ = play(new_game())
    assert state["harbor_master"] == RED and state["cash"] == [30] * 4
    state, events = play(state)
    assert [(punt["ware"], punt["pos"]) for punt in state["punts"]] == [("jade", 3), ("silk", 3), ("nutmeg", 3)]
    assert state["cash"][RED] == 30
    state, events = play(state, dice=(1, 1, 1) * 3)  # everyone stops: three rolls, three wrecks
    assert "Red stops placing for this voyage." in texts(events) and "Movement round 3" in texts(events)
    assert state["voyage"] == 2 and state["cash"] == [30] * 4


def test_missed_deadlines_leave_pilots_and_pirates_idle_and_send_plunder_into_port() -> None:
    """Play-by-email (RULES.md, missed deadlines): pilots and pirates do nothing; plundered punts go to port."""
    state = pirates_ready()
    state["spaces"]["pilot:small"] = RED
    at(state, jade=8, silk=2, nutmeg=2)
    assert ENGINE.default_order(state, RED)["wants"] == ["stop"]
    run_from(state, "pilot:small")
    assert ENGINE.default_order(state, RED)["move"] == "none"
    at(state, jade=12)
    run_from(state, "move", 3, dice=(1, 1, 1))
    assert ENGINE.default_order(state, BLUE)["fate_jade"] == "port"
    state, events = play(state)
    assert berths(events)["jade"] == "port:A"


# --- reading an order back (issue 15) ----------------------------------------------------------------


def test_orders_read_back_in_words_with_their_loans_first() -> None:
    state = new_game()
    read = ENGINE.read_back(state, RED, ENGINE.validate(state, RED, {"bid": 35, "take_loans": 1}))
    assert read.lines == (
        "First you will take 1 loan (+12 pesos).",
        "You will bid 35 pesos for the office of harbor master.",
    )
    assert read.warnings == ()
    over = ENGINE.read_back(state, RED, ENGINE.validate(state, RED, {"bid": 31}))
    assert over.warnings == ("Your bid is more than your 30 pesos in cash: if it wins, loans are taken to pay it.",)


def test_stopping_to_place_accomplices_is_a_warning() -> None:
    state = loaded()
    seat = next(iter(ENGINE.prompts(state)))
    stop = ENGINE.read_back(state, seat, ENGINE.validate(state, seat, {"wants": []}))
    assert stop.lines == ("You will stop placing accomplices for this voyage.",)
    assert stop.warnings[0].startswith("You place no more accomplices this voyage, though you have")
    listed = ENGINE.read_back(state, seat, ENGINE.validate(state, seat, {"wants": ["punt:jade", "insurance"]}))
    assert listed.lines == (
        "You want the jade punt, then the insurance office: you will get the first one still free when your turn "
        "comes.",
    )
