"""Phoenician Sea Trader, one rules case per test, the rule quoted in the docstring (rulebook:
../shared/rules/phoenician-sea-trader.txt; house defaults: FACTS.md; play-by-email changes:
games/engines/phoenician/RULES.md). Pure Python: no database, no Django.

The rulebook text has no worked examples (no numbers beyond the components and prices), so every price
and move below is worked out by hand from the rule quoted."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.engines import board_templates, get_engine
from games.engines.base import Event, OrderError
from games.engines.phoenician.data import full_deck, parse_square

ENGINE = get_engine("phoenician")
RED, BLUE, GREEN = 0, 1, 2
# A fixed map for the rules cases: centres spread out, no land unless a test adds it, pirates in corners.
CENTRES = {"Rome": "B2", "Egypt": "F2", "Greece": "B6", "Persia": "F6", "Carthage": "D4", "Crete": "H4"}
ROME, CARTHAGE = "B2", "D4"


# --- tiny helpers ----------------------------------------------------------------------------------


def sq(name: str) -> int:
    square = parse_square(name)
    assert square is not None
    return square


def table(
    hands: list[list[str]],
    ships: list[str],
    holds: list[list[str]] | None = None,
    gold: list[int] | None = None,
    land: tuple[str, ...] = (),
    pirates: tuple[str, ...] = ("A8", "H8"),
    storms: tuple[tuple[str, int, int], ...] = (),
) -> dict[str, Any]:
    """A game at Red's turn in round 1 (Red first in turn order), with the map and cards given. The deck
    holds every other card of the 58, so cards are never created or lost."""
    players = len(hands)
    state = ENGINE.setup(players, {}, random.Random(1))
    holds = holds or [[] for _ in hands]
    deck = Counter(full_deck()) - Counter(card for cards in [*hands, *holds] for card in cards)
    state.update(
        land=[sq(s) for s in land],
        centres=[sq(s) for s in CENTRES.values()],
        pirates=[sq(s) for s in pirates],
        storms=[[sq(s), seat, placed] for s, seat, placed in storms],
        ships=[sq(s) for s in ships],
        hands=[list(cards) for cards in hands],
        holds=[list(cards) for cards in holds],
        gold=list(gold or [10] * players),
        deck=sorted(deck.elements()),
        discard=[],
        order=list(range(players)),
        turn_index=0,
        round=1,
        step="turn",
        active=RED,
        part=1,
        drawn=[],
    )
    return state


def turn(state: dict[str, Any], steps: str, seat: int = RED) -> tuple[dict[str, Any], list[Event]]:
    order = ENGINE.validate(state, seat, {"steps": steps})
    return ENGINE.resolve(state, {seat: order}, random.Random(0))


def answer(state: dict[str, Any], reply: str) -> tuple[dict[str, Any], list[Event]]:
    seat = state["offer"]["to"]
    return ENGINE.resolve(state, {seat: ENGINE.validate(state, seat, {"answer": reply})}, random.Random(0))


def rejected(state: dict[str, Any], steps: str, seat: int = RED) -> str:
    with pytest.raises(OrderError) as error:
        ENGINE.validate(state, seat, {"steps": steps})
    return str(error.value)


def at(state: dict[str, Any], seat: int) -> str:
    square = state["ships"][seat]
    return "ABCDEFGH"[square % 8] + str(square // 8 + 1)


def all_cards(state: dict[str, Any]) -> Counter[str]:
    return Counter(state["deck"] + state["discard"] + [c for pile in state["hands"] + state["holds"] for c in pile])


# --- the board -------------------------------------------------------------------------------------


def _reachable(sea: set[int], start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        square = todo.pop()
        row, col = divmod(square, 8)
        for d_row in (-1, 0, 1):
            for d_col in (-1, 0, 1):
                r, c = row + d_row, col + d_col
                other = r * 8 + c
                if 0 <= r < 8 and 0 <= c < 8 and other in sea and other not in seen:
                    seen.add(other)
                    todo.append(other)
    return seen


def test_generated_boards_meet_the_constraints_for_1000_seeds():
    """ "Use an 8x8 square grid. ... In 10 randomly scattered spaces put land. ... In 6 randomly scattered
    spaces put trade centers. ... Try to separate Trade centers by at least 1 or 2 spaces. Do not completely
    block trade centers in by land spaces. In 2 randomly scattered spaces put Pirate ships." HOUSE DEFAULT:
    centres at least 2 apart, every sea space reachable. Checked here independently of map.py."""
    layouts = set()
    for seed in range(1000):
        state = ENGINE.setup(2, {}, random.Random(seed))
        land, centres, pirates = state["land"], state["centres"], state["pirates"]
        assert (len(land), len(centres), len(pirates)) == (10, 6, 2)
        markers = land + centres + pirates
        assert len(set(markers)) == 18 and all(0 <= s < 64 for s in markers)
        for i, a in enumerate(centres):
            for b in centres[i + 1 :]:
                assert max(abs(a // 8 - b // 8), abs(a % 8 - b % 8)) >= 2, f"seed {seed}: centres touch"
        sea = set(range(64)) - set(land) - set(centres)
        assert _reachable(sea, min(sea)) == sea, f"seed {seed}: a sea space cannot be reached"
        for centre in centres:
            assert _reachable(sea | {centre}, centre) - {centre}, f"seed {seed}: a centre is walled in"
        layouts.add(tuple(markers))
    assert len(layouts) > 990  # scattered at random, not one fixed map


def test_the_same_seed_gives_the_same_board():
    """The map is generated from the game's seed, so a replay sees the same sea."""
    first, second = (ENGINE.setup(3, {}, random.Random(42)) for _ in range(2))
    assert (first["land"], first["centres"], first["pirates"]) == (second["land"], second["centres"], second["pirates"])


def test_the_map_shows_the_compass_and_every_marker():
    """ "Indicate the directions of North, South, East, and West on the Board." The view names each square
    (A1 north-west) and tells the pictures where the land, centres, pirates, storms and ships are."""
    state = table([[], []], ["C3", "C3"], land=("E5",), storms=(("G7", BLUE, 1),))
    view = ENGINE.view(state, RED)
    cells = {cell["square"]: cell for row in view["rows"] for cell in row["cells"]}
    assert view["rows"][0]["cells"][0]["square"] == "A1" and view["rows"][7]["cells"][7]["square"] == "H8"
    assert cells["E5"]["kind"] == "land" and cells["B2"]["centre"] == "Rome" and cells["A8"]["pirate"] == 1
    assert cells["B2"]["sells"] == "Wine" and cells["B2"]["desires"] == "Silk"
    assert cells["G7"]["storm"] == "Blue" and [s["name"] for s in cells["C3"]["ships"]] == ["Red", "Blue"]
    from django.template.loader import render_to_string

    board = board_templates("phoenician")
    for template in (board.page, board.email_html, board.email_text):
        page = render_to_string(template, {"view": view})
        assert all(letter in page for letter in ("N", "S", "E", "W")) and "Rome" in page


def test_the_board_shows_hand_and_hold_apart_and_where_each_good_can_be_bought_and_sold():
    """ "To buy a commodity card from that trade center you must have that type of Commodity card in your hand
    ... Commodity cards you buy go into your ships hold." "When at a trade center you may sell cards in your
    hold." A newcomer at Carthage with 2 Wine in hand could not sell them: the board says why and where."""
    from django.template.loader import render_to_string

    state = table([["Wine", "Wine", "Spices", "Row"], []], [CARTHAGE, ROME], holds=[["Oil", "Spices"], []])
    view = ENGINE.view(state, RED)
    assert view["here"] == {"centre": "Carthage", "sell": "Oil for 2", "buy": "1 Spices from your hand, 1 gold each"}
    assert view["hold_goods"] == [
        {"good": "Oil", "count": 1, "best": "Persia (F6)", "never": "Greece"},
        {"good": "Spices", "count": 1, "best": "Crete (H4)", "never": "Carthage"},
    ]
    assert view["hand_goods"] == [
        {"good": "Spices", "count": 1, "buy_at": "Carthage (D4)", "best": "Crete (H4)"},
        {"good": "Wine", "count": 2, "buy_at": "Rome (B2)", "best": "Carthage (D4)"},
    ]
    with pytest.raises(OrderError):  # the Wine in hand cannot be sold, as the board says
        ENGINE.validate(state, RED, {"steps": "sell wine"})
    assert ENGINE.view(state, None)["hand_goods"] == [] and ENGINE.view(state, BLUE)["here"] == {
        "centre": "Rome",
        "sell": "nothing from your hold",
        "buy": "no Wine (you hold no Wine card in your hand)",
    }
    board = board_templates("phoenician")
    for template in (board.page, board.email_html, board.email_text):
        shown = " ".join(render_to_string(template, {"view": view}).split())
        assert "2 Wine: buy at Rome (B2), then sell for 3 at Carthage (D4)" in shown
        assert "a good in your hand cannot be sold, only bought into your hold" in shown.lower()


def test_land_and_trade_centres_never_move_but_pirates_do():
    """ "Land & Trade centers cannot move, however Pirate ships can." A whole random game of four bots."""
    rng = random.Random(8)
    state = ENGINE.setup(4, {}, random.Random(8))
    land, centres, pirates = list(state["land"]), list(state["centres"]), list(state["pirates"])
    pirate_squares = set(pirates)
    while not state["finished"]:
        (seat,) = ENGINE.prompts(state)
        state, _ = ENGINE.resolve(state, {seat: ENGINE.random_order(state, seat, rng)}, rng)
        assert state["land"] == land and state["centres"] == centres
        pirate_squares.update(state["pirates"])
    assert len(pirate_squares) > 2


# --- setup -----------------------------------------------------------------------------------------


def test_two_to_six_ships_may_play():
    """ "Card & Board game for 2+ players. ... Each player controls a trading vessel." Issue 7: "2 to 6
    players" (six centres, one each to start on)."""
    for players in range(2, 7):
        state = ENGINE.setup(players, {}, random.Random(players))
        assert len(state["hands"]) == len(state["ships"]) == len(state["gold"]) == players
        assert sorted(state["order"]) == list(range(players))
    for players in (1, 7):
        with pytest.raises(ValueError, match="2 to 6 players"):
            ENGINE.setup(players, {}, random.Random(0))


def test_the_deck_is_the_58_cards_listed():
    """ "Silk 4, Obsidian 4, Grain 4, Oil 4, Wine 4, Spices 4, Row 6, Sail North 3, Sail South 3, Sail East 3,
    Sail West 3, Sail NE 3, Sail SE 3, Sail NW 3, Sail SW 3, Storm 4.\""""
    deck = Counter(full_deck())
    assert sum(deck.values()) == 58
    assert deck == Counter(
        {"Silk": 4, "Obsidian": 4, "Grain": 4, "Oil": 4, "Wine": 4, "Spices": 4, "Row": 6, "Storm": 4}
        | {f"Sail {d}": 3 for d in ("North", "South", "East", "West", "NE", "SE", "NW", "SW")}
    )


def test_each_player_is_dealt_five_cards_and_starts_with_ten_gold():
    """ "Each player is dealt 5 cards. ... Each player starts with 10 Gold.\""""
    state = ENGINE.setup(4, {}, random.Random(5))
    assert [len(hand) for hand in state["hands"]] == [5, 5, 5, 5]
    assert state["gold"] == [10, 10, 10, 10] and state["holds"] == [[], [], [], []]
    assert len(state["deck"]) == 58 - 20 and all_cards(state) == Counter(full_deck())


def test_turn_order_is_random():
    """ "Randomly determine turn order.\""""
    orders = {tuple(ENGINE.setup(3, {}, random.Random(seed))["order"]) for seed in range(60)}
    assert len(orders) == 6  # every order of three seats happens


def test_players_choose_different_trade_centres_in_turn_order():
    """ "Each player's ship starts on any one Trade center of their choice. (Players must start on different
    Trade centers)" — one-seat prompts in turn order; a taken centre is no longer offered."""
    state = ENGINE.setup(2, {}, random.Random(3))
    first, second = state["order"]
    assert list(ENGINE.prompts(state)) == [first]
    state, _ = ENGINE.resolve(state, {first: {"centre": "crete"}}, random.Random(0))
    assert list(ENGINE.prompts(state)) == [second]
    offered = [c.value for c in ENGINE.prompts(state)[second].fields[0].choices]
    assert "Crete" not in offered and len(offered) == 5
    with pytest.raises(OrderError, match="no other ship starts on"):
        ENGINE.validate(state, second, {"centre": "Crete"})
    state, _ = ENGINE.resolve(state, {second: {"centre": "Rome"}}, random.Random(0))
    crete, rome = state["centres"][5], state["centres"][0]
    assert state["ships"][first] == crete and state["ships"][second] == rome
    assert state["step"] == "turn" and state["active"] == first and state["round"] == 1


def test_missed_prompts_take_the_documented_defaults():
    """RULES.md, missed deadlines: a ship that does not choose starts on the first free centre in the
    rulebook's order; a missed answer declines (see the offer tests); a missed turn passes."""
    state = ENGINE.setup(3, {}, random.Random(4))
    first, second, _ = state["order"]
    state, _ = ENGINE.resolve(state, {first: {"centre": "Rome"}}, random.Random(0))
    state, events = ENGINE.resolve(state, {}, random.Random(0))  # the second ship's deadline passes
    assert state["ships"][second] == state["centres"][1] and any("starts at Egypt" in e.text for e in events)


# --- wind ------------------------------------------------------------------------------------------


def test_the_wind_phase_draws_three_cards_before_the_player_is_asked():
    """ "WIND PHASE: Draw 3 cards." The server draws them at the start of the turn, so the prompt and the
    view show them; which cards they are is private."""
    state = table([["Row"], ["Row"]], ["C3", "E3"])
    state["deck"], deck_before = state["deck"], list(state["deck"])
    state, events = turn(state, "pass")
    assert state["active"] == BLUE and len(state["hands"][BLUE]) == 4
    assert state["drawn"] == deck_before[-3:][::-1]
    private = [e for e in events if e.seat is not None]
    assert [e.seat for e in private] == [BLUE] and "You drew" in private[0].text
    assert "draws 3 wind cards" in " ".join(e.text for e in events if e.seat is None)
    assert ENGINE.view(state, BLUE)["drawn"] and not ENGINE.view(state, RED)["drawn"]


def test_when_the_deck_runs_out_the_discard_is_shuffled_and_drawn_from():
    """ "If the deck runs out, shuffle the discard & draw from it.\""""
    state = table([["Row"], []], ["C3", "E3"])
    rest = state["deck"]
    state["deck"], state["discard"] = rest[:1], rest[1:]
    state, events = turn(state, "row E")  # the Row card joins the discard before Blue draws
    assert len(state["hands"][BLUE]) == 3 and state["hands"][BLUE][0] == rest[0]
    assert len(state["deck"]) + len(state["hands"][BLUE]) == 58 and state["discard"] == []
    assert any("shuffled" in e.text for e in events) and all_cards(state) == Counter(full_deck())


def test_with_the_deck_and_the_discard_both_empty_fewer_cards_are_drawn():
    """Engine reading (RULES.md): "If the deck runs out, shuffle the discard & draw from it" — with no
    discard either (every card in hands and holds), the player draws what there is."""
    state = table([[], []], ["C3", "E3"])
    state["deck"], state["hands"][RED] = state["deck"][:1], state["deck"][1:]
    state, events = turn(state, "pass")
    assert len(state["hands"][BLUE]) == 1 and state["deck"] == [] and state["discard"] == []
    assert any("Blue draws 1 wind card." in e.text for e in events)


# --- sailing ---------------------------------------------------------------------------------------


def test_a_row_card_moves_one_space_in_any_direction():
    """ "Play Wind & Row cards from your hand to move your ship. ... A Row card allows you to move in any
    direction one space." (HOUSE DEFAULT: 8-way.) Played cards go to the discard pile."""
    state = table([["Row", "Row", "Row"], []], ["C3", "E3"])
    state, _ = turn(state, "row SE; row S; row W")
    assert at(state, RED) == "C5" and "Row" not in state["hands"][RED]
    assert state["discard"].count("Row") == 3


@pytest.mark.parametrize(
    ("direction", "lands_on"),
    [("N", "D4"), ("NE", "E4"), ("E", "E5"), ("SE", "E6"), ("S", "D6"), ("SW", "C6"), ("W", "C5"), ("NW", "C4")],
)
def test_a_row_card_moves_exactly_one_space_in_each_of_the_eight_directions(direction: str, lands_on: str):
    """ "A Row card allows you to move in any direction one space." (HOUSE DEFAULT: the eight compass
    directions.) A Row card never moves two spaces."""
    state = table([["Row"], []], ["D5", "H1"])
    assert "write 'row' and one direction" in rejected(state, f"row {direction} 2")
    state, _ = turn(state, f"row {direction}")
    assert at(state, RED) == lands_on and state["hands"][RED] == [] and state["discard"] == ["Row"]


def test_a_wind_card_moves_one_or_two_spaces_only_in_its_direction():
    """ "Wind cards allow you to move 1 or 2 spaces, but only in the direction indicated.\""""
    state = table([["Sail East", "Sail SW"], []], ["C3", "E3"])
    assert "1 or 2 spaces" in rejected(state, "sail E 3")
    assert "no Sail North card" in rejected(state, "sail N 1")
    state, _ = turn(state, "sail E 2; sail SW 1")
    assert at(state, RED) == "D4"  # C3 -> E3, then one space south-west: Carthage (D4)


def test_any_number_of_movement_cards_may_be_played_in_succession():
    """ "You may play more than one such card in succession (no limit).\""""
    state = table([["Row", "Sail South", "Sail South", "Sail West"], []], ["G1", "E3"])
    state, _ = turn(state, "sail S 2; sail S 1; row W; sail W 1")
    assert at(state, RED) == "E4" and state["hands"][RED] == []


def test_ships_cannot_enter_land_storms_or_pirates():
    """ "You cannot enter spaces containing land, storms, or pirates." Nothing of the order is applied."""
    state = table(
        [["Row", "Row", "Sail East", "Sail South"], []],
        ["C3", "E7"],
        land=("D3",),
        pirates=("C4", "H8"),
        storms=(("B3", BLUE, 1),),
    )
    assert "D3 is blocked by land" in rejected(state, "row E")
    assert "C4 is blocked by a pirate ship" in rejected(state, "sail S 1")
    assert "Step 2 ('row SW'): B3 is blocked by a storm" in rejected(state, "row N; row SW")


def test_a_wind_card_cannot_pass_a_blocked_space():
    """HOUSE DEFAULT: "a Sail card moves 1 or 2 spaces straight, cannot pass a blocked space". "Empty
    spaces are sea spaces. ... Land spaces are obstacles, you cannot move into or through them.\""""
    state = table([["Sail East"], []], ["A3", "E7"], land=("B3",))
    assert "B3 is blocked by land" in rejected(state, "sail E 2")


def test_a_ship_must_stop_on_entering_a_trade_centre():
    """ "Ships may enter trade center spaces (they must stop upon entering)." Sailing on from a centre in a
    later step is fine."""
    state = table([["Sail SE", "Sail SE"], []], ["A1", "E7"])
    assert "must stop on entering Rome" in rejected(state, "sail SE 2")
    state, _ = turn(state, "sail SE 1; sail SE 2")
    assert at(state, RED) == "D4"  # A1 -> Rome (B2), stop; then C3, Carthage (D4)


def test_a_ship_cannot_sail_off_the_map():
    """The sea is an 8x8 grid: there is nothing beyond its edge."""
    state = table([["Sail North"], []], ["C1", "E7"])
    assert "off the map" in rejected(state, "sail N 1")


def test_ships_may_share_a_space():
    """HOUSE DEFAULT: "ships may share spaces".\""""
    state = table([["Row"], []], ["C3", "D3"])
    state, _ = turn(state, "row E")
    assert state["ships"][RED] == state["ships"][BLUE]


# --- trading at a centre ---------------------------------------------------------------------------


def test_buying_needs_the_commodity_card_in_hand_and_one_gold_each():
    """ "To buy a commodity card from that trade center you must have that type of Commodity card in your
    hand, and you must pay 1 gold for each such card. Commodity cards you buy go into your ships hold.\""""
    state = table([["Wine", "Wine", "Silk"], []], [ROME, "E7"])
    state, events = turn(state, "buy 2")
    assert state["holds"][RED] == ["Wine", "Wine"] and state["hands"][RED] == ["Silk"]
    assert state["gold"][RED] == 8 and any("buys 2 Wine at Rome for 2 gold" in e.text for e in events)


def test_buying_without_the_card_in_hand_is_refused():
    """ "you must have that type of Commodity card in your hand".\""""
    state = table([["Silk"], []], [ROME, "E7"])
    assert "need a Wine card in your hand" in rejected(state, "buy")
    assert "Rome sells only Wine" in rejected(state, "buy silk")


def test_each_centre_sells_only_its_own_commodity_and_only_in_port():
    """ "If you are in a trade center you may buy and sell commodity cards. Each trade center sells only one
    commodity.\""""
    state = table([["Wine", "Spices"], []], ["C3", "E7"])
    assert "only in a trade centre" in rejected(state, "buy")
    state = table([["Wine", "Spices"], []], [CARTHAGE, "E7"])
    state, _ = turn(state, "buy")
    assert state["holds"][RED] == ["Spices"] and state["hands"][RED] == ["Wine"]


def test_buying_needs_the_gold():
    """ "you must pay 1 gold for each such card".\""""
    state = table([["Wine", "Wine"], []], [ROME, "E7"], gold=[1, 10])
    assert "cannot pay 2 gold" in rejected(state, "buy 2")
    state, _ = turn(state, "buy")  # as many as can be paid for
    assert state["holds"][RED] == ["Wine"] and state["gold"][RED] == 0


def test_a_hold_takes_at_most_six_cards():
    """ "You may have a maximum of 6 commodity cards in your hold.\""""
    state = table([["Wine", "Wine"], []], [ROME, "E7"], holds=[["Oil"] * 4 + ["Grain"], []])
    assert "at most 6" in rejected(state, "buy 2")
    state, _ = turn(state, "buy")
    assert len(state["holds"][RED]) == 6 and state["hands"][RED] == ["Wine"]


def test_selling_pays_two_gold_and_three_for_the_most_desired():
    """ "When at a trade center you may sell cards in your hold. A trade center ... will buy all other
    commodities at 2 gold each (per card). A trade center will purchase the commodity it most desires for
    3 gold per card." Rome most desires Silk: 2 Silk and 1 Oil make 3 + 3 + 2 = 8 gold."""
    state = table([[], []], [ROME, "E7"], holds=[["Silk", "Silk", "Oil"], []])
    state, events = turn(state, "sell all")
    assert state["gold"][RED] == 18 and state["holds"][RED] == []
    assert any("for 8 gold (now 18)" in e.text for e in events)


RULEBOOK_CENTRES = [  # "Trade Center: Commodity: Most Desires:" as printed
    ("Rome", "Wine", "Silk"),
    ("Egypt", "Grain", "Obsidian"),
    ("Greece", "Oil", "Grain"),
    ("Persia", "Silk", "Oil"),
    ("Carthage", "Spices", "Wine"),
    ("Crete", "Obsidian", "Spices"),
]


@pytest.mark.parametrize(("centre", "commodity", "desired"), RULEBOOK_CENTRES)
def test_each_centre_sells_its_commodity_and_pays_three_for_the_good_it_most_desires(
    centre: str, commodity: str, desired: str
):
    """The rulebook's table of trade centres, their commodity and the good each most desires: buy the
    commodity for 1 gold, sell the most desired for 3 and any other good for 2, never the commodity."""
    other = next(good for _, good, _ in RULEBOOK_CENTRES if good not in (commodity, desired))
    state = table([[commodity], []], [CENTRES[centre], "A1"], holds=[[desired, other], []])
    assert f"will not buy back the {commodity}" in rejected(state, f"buy; sell {commodity.lower()}")
    state, events = turn(state, "buy; sell all")
    assert state["gold"][RED] == 10 - 1 + 3 + 2 and state["holds"][RED] == [commodity]
    assert any(f"buys 1 {commodity} at {centre}" in e.text for e in events)


def test_a_centre_never_buys_back_its_own_commodity():
    """ "A trade center will not buy back the commodity it produces".\""""
    state = table([[], []], [ROME, "E7"], holds=[["Wine", "Oil"], []])
    assert "will not buy back the Wine" in rejected(state, "sell wine")
    state, _ = turn(state, "sell all")  # everything but the Wine
    assert state["holds"][RED] == ["Wine"] and state["gold"][RED] == 12


def test_sold_cards_go_to_the_discard_pile():
    """ "Sold cards are shuffled into the discard pile.\""""
    state = table([[], []], [ROME, "E7"], holds=[["Oil", "Oil", "Grain"], []])
    state, _ = turn(state, "sell 2 oil")
    assert state["discard"] == ["Oil", "Oil"] and state["holds"][RED] == ["Grain"]
    assert "does not have 2 Silk" in rejected(table([[], []], [ROME, "E7"], holds=[["Silk"], []]), "sell 2 silk")


def test_sailing_and_trading_can_be_combined():
    """ "TRADE & SAIL RULE: You may combine the Sail & Trade phases together. This allows players to move,
    trade & then continue moving." Buy Wine at Rome, sail to Carthage (most desires Wine) and sell it."""
    state = table([["Wine", "Sail SE", "Row"], []], ["A1", "E7"])
    state, _ = turn(state, "row SE; buy; sail SE 2; sell wine")
    assert at(state, RED) == "D4" and state["holds"][RED] == [] and state["gold"][RED] == 10 - 1 + 3


# --- piracy ----------------------------------------------------------------------------------------


def test_wind_cards_move_pirates_in_their_direction():
    """ "PIRACY PHASE: You may use Wind cards to move Pirate ships." HOUSE DEFAULT: only Sail cards, 1 or 2
    spaces in the card's direction."""
    state = table([["Sail North", "Row"], []], ["C3", "E3"], pirates=("A8", "H8"))
    assert "no Sail East card" in rejected(state, "pirate 1 E 1")
    state, events = turn(state, "pirate 2 N 2")
    assert state["pirates"] == [sq("A8"), sq("H6")] and "Sail North" in state["discard"]
    assert "Row" in state["hands"][RED]  # a Row card cannot move a pirate
    assert any("moves pirate 2 N 2" in e.text for e in events)


def test_pirates_cannot_enter_trade_centres_land_other_pirates_or_storms():
    """ "Pirate ships cannot enter spaces containing trade centers, land, or other Pirate ships" (HOUSE
    DEFAULT: nor storms)."""
    state = table([["Sail North"], []], ["C3", "E3"], pirates=("H5", "G6"))
    assert "H4: a trade centre is there" in rejected(state, "pirate 1 N 1")  # Crete
    state2 = table([["Sail West", "Sail South", "Sail SE"], []], ["C3", "E3"], pirates=("C5", "B5"), land=("C6",))
    assert "B5: a pirate ship is there" in rejected(state2, "pirate 1 W 1")
    assert "C6: land is there" in rejected(state2, "pirate 1 S 1")
    state3 = table([["Sail West"], []], ["C3", "E3"], pirates=("C5", "H8"), storms=(("B5", BLUE, 1),))
    assert "B5: a storm is there" in rejected(state3, "pirate 1 W 2")


def test_a_pirate_moved_onto_an_opponents_ship_robs_the_whole_hold():
    """ "If you move a pirate into a space occupied by an opponents ship, your opponent is Robbed and must
    discard all the cards in his hold.\""""
    state = table([["Sail West"], []], ["C3", "E7"], holds=[[], ["Silk", "Oil", "Oil"]], pirates=("G7", "H8"))
    state, events = turn(state, "pirate 1 W 2")
    assert state["pirates"][0] == sq("E7") and state["holds"][BLUE] == []
    assert Counter(state["discard"]) == Counter({"Sail West": 1, "Silk": 1, "Oil": 2})
    assert any("robbed! Blue loses Silk, 2 Oil" in e.text and e.seat is None for e in events)


def test_a_pirate_passing_through_a_ship_robs_it_but_never_its_mover():
    """Engine reading (RULES.md): every space a pirate enters counts as "moved into"; the rule robs only
    "an opponent's ship".\""""
    state = table(
        [["Sail West"], []], ["F7", "F7"], holds=[["Wine"], ["Grain"]], pirates=("G7", "H8")
    )  # Red and Blue share F7
    state, _ = turn(state, "pirate 1 W 2")
    assert state["pirates"][0] == sq("E7")
    assert state["holds"] == [["Wine"], []]


def test_piracy_comes_after_sailing_and_trading():
    """ "Each turn has 5 phases: Wind, Sail, Trade, Piracy, Storm" — the trade-and-sail rule mixes only the
    first two, so a move after piracy is refused."""
    state = table([["Sail North", "Row"], []], ["C3", "E3"])
    assert "sailing and trading come before piracy" in rejected(state, "pirate 2 N 1; row E")


# --- storms ----------------------------------------------------------------------------------------


def test_a_storm_card_places_a_counter_on_an_empty_space():
    """ "You may discard a Storm card to place a storm counter onto any empty space on the board.\""""
    state = table([["Storm", "Storm"], []], ["C3", "E3"], land=("D5",))
    for square, why in (("D5", "not open sea"), ("B2", "not open sea"), ("E3", "not empty"), ("A8", "not empty")):
        assert why in rejected(state, f"storm {square}")
    assert "one storm counter a turn" in rejected(state, "storm G5; storm G6")
    state, events = turn(state, "storm G5")
    assert state["storms"] == [[sq("G5"), RED, 1]] and state["hands"][RED] == ["Storm"]
    assert "Storm" in state["discard"] and any("a storm at G5" in e.text for e in events)
    assert "no Storm card" in rejected(table([[], []], ["C3", "E3"]), "storm G5")


def test_the_storm_phase_is_the_last_and_another_ships_storm_is_not_an_empty_space():
    """ "Each turn has 5 phases ... Piracy Phase, Storm Phase" and a storm goes "onto any empty space":
    another ship's storm counter fills its space."""
    state = table([["Storm", "Sail North"], []], ["C3", "E3"], storms=(("G6", BLUE, 1),))
    assert "the storm phase is the last of the turn" in rejected(state, "storm G5; pirate 2 N 1")
    assert "G6 is not empty" in rejected(state, "storm G6")
    state, _ = turn(state, "pirate 2 N 1; storm G5")
    assert state["pirates"][1] == sq("H7") and sorted(state["storms"]) == [[sq("G5"), RED, 1], [sq("G6"), BLUE, 1]]


def test_storms_block_ships():
    """ "Ships cannot enter spaces containing storms. (Use storms to block pirates & other players ships.)\""""
    state = table([["Storm"], ["Row"]], ["C3", "E3"])
    state, _ = turn(state, "storm E4")
    assert state["active"] == BLUE
    assert "E4 is blocked by a storm" in rejected(state, "row S", seat=BLUE)


def test_your_storm_blows_over_at_your_next_storm_phase():
    """ "Remove from play any Storm counters you played on previous turns." HOUSE DEFAULT: one storm per
    player per turn, lasting until that player's next storm phase. Blue's storm stays."""
    state = table([["Storm"], []], ["C3", "E3"], storms=(("G5", RED, 0), ("G6", BLUE, 0)))
    state, events = turn(state, "pass")
    assert state["storms"] == [[sq("G6"), BLUE, 0]]
    assert any("Red's storm at G5 blows over" in e.text for e in events)


def test_a_new_storm_replaces_your_old_one_and_may_take_its_space():
    """ "Remove from play any Storm counters you played on previous turns" — the old counter leaves in the
    same storm phase, so its space is empty for the new one."""
    state = table([["Storm"], []], ["C3", "E3"], storms=(("G5", RED, 0),))
    state, _ = turn(state, "storm G5")
    assert state["storms"] == [[sq("G5"), RED, 1]]


# --- the order, step by step -----------------------------------------------------------------------


def test_an_illegal_step_rejects_the_whole_order_naming_the_step():
    """Issue 7: "A step that is illegal rejects the whole order with a message naming the step and why;
    nothing is applied.\""""
    state = table([["Row", "Wine"], []], ["C3", "E3"])
    message = rejected(state, "row NW; buy; sail E 2")
    assert message == "Step 3 ('sail E 2'): you have no Sail East card in your hand."
    assert "Step 1 ('fly N')" in rejected(state, "fly N") and "unknown step" in rejected(state, "fly N")
    assert "'up' is not a direction" in rejected(state, "row up")
    assert state["ships"][RED] == sq("C3") and state["hands"][RED] == ["Row", "Wine"]


def test_steps_may_be_separated_by_new_lines_and_are_stored_in_one_spelling():
    """Prompt field "text": steps separable by ";" or new lines (an email reply gives a field one line)."""
    state = table([["Row", "Sail North", "Wine"], []], ["C3", "E3"])
    order = ENGINE.validate(state, RED, {"steps": "Row north-west\nSAIL north 1;  "})
    assert order == {"steps": "row NW; sail N 1"}
    assert ENGINE.validate(state, RED, {"steps": ""}) == {"steps": "pass"}


def test_a_missed_turn_ends_with_no_moves():
    """Issue 7: "Default order on a missed deadline: end the turn with no moves.\""""
    state = table([["Row"], []], ["C3", "E3"])
    default = ENGINE.default_order(state, RED)
    assert default == {"steps": "pass"}
    after, _ = ENGINE.resolve(state, {}, random.Random(0))  # nothing came in
    assert after["ships"] == state["ships"] and after["hands"][RED] == ["Row"] and after["active"] == BLUE


def test_only_the_active_ship_is_asked():
    """ "Players take turns." One seat at a time: the others' orders are refused."""
    state = table([[], [], []], ["C3", "E3", "G3"])
    assert list(ENGINE.prompts(state)) == [RED]
    with pytest.raises(OrderError, match="not your turn"):
        ENGINE.validate(state, BLUE, {"steps": "pass"})


# --- trading between ships -------------------------------------------------------------------------


def offer_table() -> dict[str, Any]:
    """Red at C3 next to Blue at D4 (Carthage); Green far away at G8."""
    return table(
        [["Wine", "Row"], ["Grain", "Grain"], ["Oil"]],
        ["C3", CARTHAGE, "G8"],
        holds=[["Silk"], ["Oil", "Spices"], []],
    )


def test_an_offer_to_an_adjacent_ship_asks_that_player_alone():
    """ "If your ship is adjacent to another players ship, you may freely trade commodity cards from your
    hands & your holds." The other player gets a one-seat prompt; the offer is seen only by the two."""
    state, events = turn(offer_table(), "offer Blue give hand wine, hold silk for hold oil")
    assert list(ENGINE.prompts(state)) == [BLUE] and state["step"] == "answer"
    assert {c.value for c in ENGINE.prompts(state)[BLUE].fields[0].choices} == {"accept", "decline"}
    private = [e for e in events if e.seat is not None]
    assert sorted(e.seat for e in private) == [RED, BLUE]
    assert all("Wine from the hand and Silk from the hold for Oil from the hold" in e.text for e in private)
    assert all("Wine" not in e.text for e in events if e.seat is None)
    assert ENGINE.view(state, RED)["offer"] and ENGINE.view(state, BLUE)["offer"]
    assert ENGINE.view(state, GREEN)["offer"] is None and ENGINE.view(state, None)["offer"] is None


def test_an_accepted_offer_swaps_the_cards_and_the_turn_goes_on():
    """Issue 7: "that player gets a one-seat prompt to accept or decline; then the active player continues
    the turn." Hand cards go to the other hand, hold cards to the other hold; no new wind cards."""
    state, _ = turn(offer_table(), "offer Blue give hand wine, hold silk for hold oil")
    deck = len(state["deck"])
    state, events = answer(state, "accept")
    assert state["hands"][RED] == ["Row"] and sorted(state["hands"][BLUE]) == ["Grain", "Grain", "Wine"]
    assert state["holds"][RED] == ["Oil"] and sorted(state["holds"][BLUE]) == ["Silk", "Spices"]
    assert list(ENGINE.prompts(state)) == [RED] and state["part"] == 2 and len(state["deck"]) == deck
    assert any(e.seat is None and "Blue accepts Red's trade offer" in e.text for e in events)
    state, _ = turn(state, "row W")
    assert at(state, RED) == "B3" and state["active"] == BLUE


def test_an_offer_may_ask_for_hand_cards_and_the_turn_then_ends_with_piracy_and_a_storm():
    """Issue 7: an offer moves "cards from hand and hold, both ways"; "then the active player continues the
    turn" — the rest of the turn still has its piracy and storm phases."""
    state = table(
        [["Sail West", "Storm"], ["Grain", "Grain", "Oil"]],
        ["C3", CARTHAGE],
        holds=[["Silk"], []],
        pirates=("G8", "H8"),
    )
    state, _ = turn(state, "offer Blue give hold silk for hand 2 grain")
    state, _ = answer(state, "accept")
    assert sorted(state["hands"][RED]) == ["Grain", "Grain", "Sail West", "Storm"] and state["hands"][BLUE] == ["Oil"]
    assert state["holds"] == [[], ["Silk"]]
    state, _ = turn(state, "pirate 1 W 2; storm A5")
    assert state["pirates"][0] == sq("E8") and state["storms"] == [[sq("A5"), RED, 1]] and state["active"] == BLUE


def test_a_declined_offer_changes_nothing():
    """The offered player may refuse: "trade" needs both."""
    before, _ = turn(offer_table(), "offer Blue give hold silk for hold spices")
    state, events = answer(before, "decline")
    assert state["hands"] == before["hands"] and state["holds"] == before["holds"]
    assert list(ENGINE.prompts(state)) == [RED]
    assert any("Blue declines Red's trade offer" in e.text for e in events)
    assert "already made Blue an offer" in rejected(state, "offer Blue give hold silk for nothing")
    assert ENGINE.default_order(before, BLUE) == {"answer": "decline"}


def test_offers_go_only_to_adjacent_ships():
    """ "If your ship is adjacent to another players ship" (HOUSE DEFAULT: 8-way adjacency)."""
    assert "Green's ship is not next to yours" in rejected(offer_table(), "offer green give hold silk for nothing")


def test_an_offer_needs_the_cards_and_room_in_the_holds():
    """Only cards you have can be offered, only the other hold's face-up cards can be asked for by name, and
    "a maximum of 6 commodity cards in your hold" holds for both ships."""
    state = offer_table()
    assert "your hold does not have 2 Silk" in rejected(state, "offer Blue give hold 2 silk for nothing")
    assert "Blue's hold does not have Wine" in rejected(state, "offer Blue give nothing for hold wine")
    state["holds"][BLUE] = ["Oil"] * 6
    assert "at most 6" in rejected(state, "offer Blue give hold silk for nothing")
    assert "an offer must be the last step" in rejected(offer_table(), "offer Blue give hold silk for nothing; row W")


def test_hand_cards_asked_for_are_checked_only_when_answering():
    """Hands are secret: asking for a card Blue may not have is not refused (that would tell Red what Blue
    holds); Blue, who lacks it, can only decline."""
    state, _ = turn(offer_table(), "offer Blue give hold silk for hand 3 grain")
    choices = [c.value for c in ENGINE.prompts(state)[BLUE].fields[0].choices]
    assert choices == ["decline"]
    with pytest.raises(OrderError, match="Your hand does not have 3 Grain"):
        ENGINE.validate(state, BLUE, {"answer": "accept"})


# --- victory and the end ---------------------------------------------------------------------------


def test_the_first_to_25_gold_wins_at_once():
    """ "VICTORY: Be the first to have 25 gold." HOUSE DEFAULT: checked after every sale; the rest of the
    order is not played."""
    state = table([["Row"], []], [ROME, "E7"], holds=[["Silk", "Silk", "Oil"], []], gold=[19, 24])
    state, events = turn(state, "sell silk; row E")
    assert state["finished"] and state["winner"] == RED and state["gold"][RED] == 25
    assert at(state, RED) == ROME and ENGINE.prompts(state) == {}
    standings = ENGINE.outcome(state)
    assert standings is not None and [(s.seat, s.rank, s.score) for s in standings] == [(RED, 1, 25), (BLUE, 2, 24)]
    assert events[-1].data == {"kind": "final"}


def test_a_game_out_of_rounds_is_won_by_the_richest():
    """Play-by-email change (RULES.md): after `round_limit` rounds the richest ship wins; equal gold shares
    a rank."""
    state = table([[], [], []], ["C3", "E3", "G3"], gold=[12, 15, 12])
    state["round_limit"] = 1
    for _ in range(3):
        state, _ = ENGINE.resolve(state, {}, random.Random(0))
    standings = ENGINE.outcome(state)
    assert state["finished"] and standings is not None
    assert [(s.seat, s.rank) for s in standings] == [(BLUE, 1), (RED, 2), (GREEN, 2)]
    with pytest.raises(ValueError, match="round limit"):
        ENGINE.setup(2, {"round_limit": -1}, random.Random(0))
    assert ENGINE.setup(2, {"round_limit": 0}, random.Random(0))["round_limit"] == 0


# --- what each seat sees ---------------------------------------------------------------------------


def test_hands_are_private_holds_and_gold_are_public():
    """ "place these cards face up in front of you (This is your hold)" — holds and gold are public; other
    players' hands are never shown, only their size."""
    state = table([["Wine", "Row"], ["Storm"]], ["C3", "E3"], holds=[["Silk"], []], gold=[10, 13])
    red, blue = ENGINE.view(state, RED), ENGINE.view(state, BLUE)
    assert [c["card"] for c in red["hand"]] == ["Wine", "Row"] and [c["card"] for c in blue["hand"]] == ["Storm"]
    assert "Wine" not in str(blue["players"]) and "Storm" not in str(red["players"])
    assert [(p["name"], p["gold"], p["hold"], p["hand_count"]) for p in blue["players"]] == [
        ("Red", 10, ["Silk"], 2),
        ("Blue", 13, [], 1),
    ]
    assert red["deck_count"] == len(state["deck"]) and red["active"] == "Red"


# --- building and reading back a turn (issue 15) -----------------------------------------------------


def test_an_offer_may_be_written_a_card_at_a_time():
    state = offer_table()
    one_line = ENGINE.validate(state, RED, {"steps": "offer Blue give hand wine, hold silk for hold oil"})
    spread = ENGINE.validate(state, RED, {"steps": "offer Blue; give hand wine; give hold silk; want hold oil"})
    assert spread == one_line == {"steps": "offer Blue give hand 1 wine, hold 1 silk for hold 1 oil"}
    assert ENGINE.builder_steps(state, RED, "steps", one_line["steps"]) == [
        "offer Blue",
        "give hand wine",
        "give hold silk",
        "want hold oil",
    ]
    assert "adds cards to the offer just before it" in rejected(state, "give hand wine")


def test_an_offer_begun_in_the_builder_is_incomplete_until_it_moves_a_card():
    state = offer_table()
    begun = ENGINE.next_steps(state, RED, "steps", ["offer Blue"])
    assert not begun.complete and begun.problem == (
        "Your offer to Blue must move at least one card: say what you give or want."
    )
    values = [choice.value for choice in begun.choices]
    assert values[:3] == ["give hand wine", "give hold silk", "want hold oil"] and "row N" not in values
    assert ENGINE.next_steps(state, RED, "steps", ["offer Blue", "want hold oil"]).complete


def test_the_builder_offers_only_what_the_ship_can_do_now():
    """From C4 a Sail East card moves 1 space only: Carthage (D4) stops the ship. There it can buy the
    Spices its hand allows; the card is spent, so pirate 1 (A8) can no longer be moved."""
    state = table([["Sail East", "Spices"], ["Oil"]], ["C4", "H8"])
    first = {choice.value for choice in ENGINE.next_steps(state, RED, "steps", []).choices}
    assert first == {"sail E 1", "pirate 1 E 1", "pirate 1 E 2"}
    after = ENGINE.next_steps(state, RED, "steps", ["sail E 1"])
    assert [(c.value, c.label) for c in after.choices] == [
        ("buy", "Buy all the Spices you can (1, 1 gold)"),
        ("buy 1", "Buy 1 Spices (1 gold)"),
    ]


def test_a_turn_reads_back_step_by_step_and_doing_nothing_is_a_warning():
    state = table([["Sail East", "Row", "Spices"], ["Oil"]], ["C4", "H8"], holds=[["Wine"], []])
    order = ENGINE.validate(state, RED, {"steps": "sail E 1; sell wine; buy"})
    read = ENGINE.read_back(state, RED, order)
    assert read.lines == (
        "You will sail east 1 space to D4 (Carthage).",
        "Then you will sell Wine for 3 gold (you will have 13).",
        "Then you will buy Spices for 1 gold.",
    )
    assert read.warnings == ()
    there_and_back = ENGINE.read_back(state, RED, ENGINE.validate(state, RED, {"steps": "sail E 1; row W"}))
    assert there_and_back.warnings == ("Your ship ends where it started, on C4.",)
    nothing = ENGINE.read_back(state, RED, ENGINE.validate(state, RED, {"steps": ""}))
    assert nothing.warnings == ("You do nothing this turn: your ship stays on C4.",)
