"""The strong bot's first candidates in Genoa (games/engines/genoa/plans.py): offers priced by what the
action is worth to the offerer, and the merchant's route that earns him most."""

from __future__ import annotations

from games.engines.genoa.plans import PRICES, action_worth, plans
from games.engines.genoa.syntax import parse_offers, parse_route
from tests.support.genoa import BLUE, ENGINE, GREEN, RED, give, table


def deal(state: dict, seat: int, card: str) -> None:
    state["decks"][card[0]].remove(card)
    state["hands"][seat].append(card)


def test_an_offer_is_priced_by_what_the_action_is_worth_to_the_offerer() -> None:
    """In the last round Blue holds large order L1 (Villa Colini: ale, copper, silk) and its goods:
    delivering it is worth far more to him than any other action in reach, so his plans offer for Villa
    Colini, delivering L1, at each share of that worth, the dearest paying the most; every plan is legal."""
    state = table(players=3, start="4-2", merchant=RED)
    state["rounds_left"] = 1
    deal(state, BLUE, "L1")
    give(state, BLUE, goods=("ale", "copper", "silk"))
    worth, deliver = action_worth(state, BLUE, "colini")
    assert deliver == ["L1"] and worth > 2 * max(action_worth(state, BLUE, b)[0] for b in ("harbor", "palace"))
    offers = [parse_offers(plan["offers"]) for plan in plans(state, BLUE)]
    alone = [made[0] for made in offers if len(made) == 1]
    assert [offer["space"] for offer in alone] == ["colini"] * len(PRICES)
    assert [offer["ducats"] for offer in alone] == [min(state["ducats"][BLUE], round(worth * p)) for p in PRICES]
    assert all(offer["deliver"] == ["L1"] for offer in alone)
    assert alone[0]["ducats"] < alone[-1]["ducats"]
    for plan in plans(state, BLUE):
        assert ENGINE.validate(state, BLUE, plan) == plan


def test_the_merchant_plans_his_own_best_action_and_the_best_paying_offer() -> None:
    """Red, the merchant, can deliver L9 at Villa Ricci; Blue offers 30 ducats for the Harbor and Green 5:
    Red's best route delivers at the villa himself and gives the Harbor to Blue."""
    state = table(players=3, start="4-2", merchant=RED)
    deal(state, RED, "L9")
    give(state, RED, goods=("ale", "copper", "silk"))
    orders = {
        BLUE: {"offers": "Harbor: 30 ducats", "tiles": ""},
        GREEN: {"offers": "Harbor: 5 ducats", "tiles": ""},
    }
    state, _ = ENGINE.resolve(state, orders, __import__("random").Random(1))
    assert ENGINE.prompts(state).keys() == {RED}
    best = plans(state, RED)[0]
    route = parse_route(best["route"], 3, RED, state["turn"]["start"])
    acts = {entry["space"]: (entry["seat"], entry["deliver"]) for entry in route if entry["seat"] is not None}
    assert acts["ricci"] == (RED, ["L9"]) and acts["harbor"] == (BLUE, [])
    assert ENGINE.validate(state, RED, best) == best
