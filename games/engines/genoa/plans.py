"""The strong bot's first candidates in Genoa, found as a player would find them rather than drawn at random:
offers priced by what the building's action is worth to the offerer, and the merchant's route that earns
him most (his own best action and the best offers he can accept on the way).

An action's worth is the evaluation's (evaluation.py): the seat's worth after taking it, on a copy, less its
worth before, so an order it can deliver, a commodity its large order lacks or a card count as the rest of
the search counts them. The search (games/engines/search.py) tries these first, in states drawn from what
the seat sees, and keeps trying the drawn orders against them: a plan is a start, never the only choice.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from games.engines.base import Order, State
from games.engines.genoa.actions import take_action
from games.engines.genoa.data import LARGE_ORDERS, MESSAGE_PAY, MESSAGES, MOVES, SMALL_ORDERS
from games.engines.genoa.evaluation import CARD_GIVEN, GOOD, TILE, seat_worth
from games.engines.genoa.map import MARKET, is_building, neighbours, reachable
from games.engines.genoa.rules import affordable, can_take_offer, delivery_problem
from games.engines.genoa.syntax import empty_offer, offer_text, route_text
from games.engines.kit import copy_state

# An offer pays the merchant this share of what the action is worth to the offerer: enough that a merchant
# who weighs offers takes it, little enough that the deal is worth making. Two prices are tried.
PRICES = (0.25, 0.5)
ROUTES_KEPT = 2  # the merchant's best routes tried first


def deliveries(state: State, seat: int, building: str) -> list[str]:
    """The orders `seat` can deliver taking `building`'s action: one large order at a villa (the first it
    holds the goods for), else every small order naming the building whose commodity it holds."""
    hand = state["hands"][seat]
    larges = [[card] for card in hand if card in LARGE_ORDERS and LARGE_ORDERS[card][0] == building]
    for deliver in larges:
        if delivery_problem(state, seat, building, deliver) is None:
            return deliver
    smalls = [card for card in hand if card in SMALL_ORDERS and SMALL_ORDERS[card][0] == building]
    return smalls if smalls and delivery_problem(state, seat, building, smalls) is None else []


def owned(state: State, seat: int) -> int:
    return sum(1 for owner in state["owners"].values() if owner == seat)


def action_worth(state: State, seat: int, building: str) -> tuple[float, list[str]]:
    """What taking `building`'s action (delivering what it can there) adds to `seat`'s worth, and the
    orders it delivers."""
    deliver = deliveries(state, seat, building)
    before = seat_worth(state, seat, owned(state, seat))
    after = copy_state(state)
    take_action(after, seat, building, {"deliver": deliver, "reward": None}, [])
    return seat_worth(after, seat, owned(after, seat)) - before, deliver


def payment_worth(offer: dict[str, Any]) -> float:
    """What an offer pays the merchant, in the evaluation's ducats."""
    return offer["ducats"] + GOOD * len(offer["goods"]) + TILE * len(offer["tiles"]) + CARD_GIVEN * len(offer["cards"])


def offer_plans(state: State, seat: int) -> list[Order]:
    """Offers for the buildings the tower can reach whose action is worth most to `seat`, each priced at a
    share of that worth: the best alone at each price, and the best two at the lower."""
    if state["players"] == 2:  # two players must pay with a good: left to the drawn orders
        return []
    start = state["turn"]["start"]
    worths = []
    for space in sorted(reachable(start, MOVES)):
        if is_building(space) and space not in state["turn"]["used"]:
            value, deliver = action_worth(state, seat, space)
            if value > 0:
                worths.append((value, space, deliver))
    worths.sort(key=lambda item: -item[0])
    purse = state["ducats"][seat]

    def offer(value: float, space: str, deliver: list[str], price: float) -> dict[str, Any]:
        made = empty_offer(space)
        made["ducats"] = min(purse, round(value * price))
        made["deliver"] = deliver
        return made

    made = [[offer(*worths[0], price)] for price in PRICES] if worths else []
    if len(worths) > 1:
        made.append([offer(*item, PRICES[0]) for item in worths[:2]])
    return [{"offers": "; ".join(map(offer_text, plan)), "tiles": ""} for plan in made if affordable(state, seat, plan)]


def paths(start: str, moves: int) -> Iterator[list[str]]:
    """Every route of the tower from `start`: up to `moves` moves, never twice the same space."""
    path = [start]

    def walk() -> Iterator[list[str]]:
        yield list(path)
        if len(path) > moves:
            return
        for step in sorted(neighbours(path[-1])):
            if step not in path:
                path.append(step)
                yield from walk()
                path.pop()

    yield from walk()


def route_plans(state: State, seat: int) -> list[Order]:
    """The merchant's routes that earn him most: on each path, each building on it (or none) for his own
    action, and every other space to the offer that pays him most that its offerer can still take."""
    turn = state["turn"]
    offers = turn["offers"]
    mine = {
        space: action_worth(state, seat, space)
        for space in reachable(turn["start"], MOVES)
        if is_building(space) and space != MARKET
    }
    messages = [MESSAGES[card] for card in state["hands"][seat] if card in MESSAGES]
    scored: list[tuple[float, int, str]] = []
    for number, path in enumerate(paths(turn["start"], MOVES)):
        for own in [None, *(space for space in path if space in mine)]:
            planned = plan_route(state, seat, path, own, mine, offers)
            if planned is None:
                continue
            earned, route = planned
            earned += sum(MESSAGE_PAY for first, second in messages if first in path and second in path)
            scored.append((earned, number, route_text(route)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    kept: list[str] = []
    for _, _, text in scored:
        if text not in kept:
            kept.append(text)
        if len(kept) == ROUTES_KEPT:
            break
    return [{"route": text, "tiles": ""} for text in kept]


def plan_route(
    state: State,
    seat: int,
    path: list[str],
    own: str | None,
    mine: dict[str, tuple[float, list[str]]],
    offers: list[dict[str, Any]],
) -> tuple[float, list[dict[str, Any]]] | None:
    """The route along `path` with the merchant acting at `own`, the rest to the best offers: what it earns
    him and its entries; None if his own action there is worth nothing."""
    earned = 0.0
    acted = {other: 0 for other in range(state["players"])}
    accepted: dict[int, list[dict[str, Any]]] = {other: [] for other in range(state["players"])}
    route = []
    for space in path:
        entry: dict[str, Any] = {"space": space, "seat": None, "deliver": [], "reward": None}
        if space == own:
            value, deliver = mine[space]
            if value <= 0:
                return None
            entry["seat"], entry["deliver"] = seat, deliver
            earned += value
        elif space != MARKET:
            takers = [
                o
                for o in offers
                if o["space"] == space
                and (
                    can_take_offer(state, o, acted[o["seat"]], accepted[o["seat"]])
                    if is_building(space)
                    else affordable(state, o["seat"], [*accepted[o["seat"]], o])
                )
            ]
            if takers:
                best = max(takers, key=payment_worth)
                entry["seat"] = best["seat"]
                accepted[best["seat"]].append(best)
                acted[best["seat"]] += is_building(space)
                earned += payment_worth(best)
        route.append(entry)
    return earned, route


def plans(state: State, seat: int) -> list[Order]:
    """The candidates a player would think of first, for the decision `seat` is asked now."""
    if state["step"] == "offers":
        return offer_plans(state, seat)
    if state["step"] == "route" and state["turn"]["merchant"] == seat:
        return route_plans(state, seat)
    return []
