"""Stand-in orders: the documented default for a missed deadline, and random legal orders for bots."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Order, State
from games.engines.genoa.data import COLOURS, COMMODITIES, LARGE_ORDERS, MOVES, SMALL_ORDERS
from games.engines.genoa.map import BUILDINGS, MARKET, SPACES, is_building, neighbours, reachable, space_name
from games.engines.genoa.rules import affordable, can_take_offer, delivery_problem
from games.engines.genoa.syntax import empty_offer, offer_text, route_text


def default_route(state: State) -> str:
    """The tower stops on its start and the merchant takes no action; if that start is a building somebody
    offered for, the rules make him give it to an offerer: the most ducats, ties clockwise from him."""
    turn = state["turn"]
    start = turn["start"]
    offers = [offer for offer in turn["offers"] if offer["space"] == start]
    if not is_building(start) or not offers:
        return ""
    players = state["players"]
    best = max(offers, key=lambda o: (o["ducats"], -((o["seat"] - turn["merchant"]) % players)))
    return f"start = {COLOURS[best['seat']]}"


def _deliverable(state: State, seat: int, building: str) -> list[str]:
    cards = [c for c in state["hands"][seat] if c in SMALL_ORDERS and SMALL_ORDERS[c][0] == building]
    cards += [c for c in state["hands"][seat] if c in LARGE_ORDERS and LARGE_ORDERS[c][0] == building][:1]
    for card in cards:
        if delivery_problem(state, seat, building, [card]) is None:
            return [card]
    return []


def random_start(state: State, seat: int, rng: random.Random) -> Order:
    return {"start": rng.choice(["roll", rng.choice([s for s in SPACES if s != MARKET])])}


def random_offers(state: State, seat: int, rng: random.Random) -> Order:
    return {"offers": _random_offers(state, seat, rng), "tiles": _random_tiles(state, seat, rng)}


def random_route(state: State, seat: int, rng: random.Random) -> Order:
    return {"route": _random_route(state, rng), "tiles": ""}


def _random_offers(state: State, seat: int, rng: random.Random) -> str:
    # Sorted: a set of str iterates in a different order in every process (hash salting).
    near = [space for space in sorted(reachable(state["turn"]["start"], MOVES)) if space != MARKET]
    texts = []
    for space in rng.sample(near, min(len(near), rng.randint(0, 3))):
        offer = empty_offer(space)
        offer["ducats"] = rng.randint(0, max(0, state["ducats"][seat] // 8))
        if is_building(space):
            offer["deliver"] = _deliverable(state, seat, space)
            offer["gained"] = state["players"] == 2 or rng.random() < 0.2
        if state["players"] == 2 and not offer["gained"]:
            if not state["goods"][seat]:
                continue
            offer["goods"] = [rng.choice(state["goods"][seat])]
        if affordable(state, seat, [offer]):
            texts.append(offer_text(offer))
    return "; ".join(texts)


def _random_tiles(state: State, seat: int, rng: random.Random) -> str:
    tiles = state["tiles"][seat]
    if "choice" in tiles and rng.random() < 0.5:
        return f"choose {rng.choice(COMMODITIES)}"
    if "build" in tiles and rng.random() < 0.3:
        return f"build {space_name(rng.choice(BUILDINGS))}"
    return ""


def _random_route(state: State, rng: random.Random) -> str:
    turn = state["turn"]
    merchant = turn["merchant"]
    path = [turn["start"]]
    for _ in range(rng.randint(0, MOVES)):
        options = sorted(neighbours(path[-1]) - set(path))
        if not options:
            break
        path.append(rng.choice(options))
    actions = {seat: 0 for seat in range(state["players"])}
    accepted: dict[int, list[dict[str, Any]]] = {seat: [] for seat in range(state["players"])}
    route: list[dict[str, Any]] = []
    for space in path:
        entry: dict[str, Any] = {"space": space, "seat": None, "deliver": [], "reward": None}
        offers = [
            o
            for o in turn["offers"]
            if o["space"] == space
            and (
                can_take_offer(state, o, actions[o["seat"]], accepted[o["seat"]])
                if is_building(space)
                else affordable(state, o["seat"], [*accepted[o["seat"]], o])
            )
        ]
        chosen = None
        if is_building(space):
            if actions[merchant] == 0 and (not offers or rng.random() < 0.3):
                entry["seat"], entry["deliver"] = merchant, _deliverable(state, merchant, space)
                actions[merchant] += 1
            elif offers:
                chosen = rng.choice(offers)
                actions[chosen["seat"]] += 1
        elif offers and rng.random() < 0.5:
            chosen = rng.choice(offers)
        if chosen is not None:
            entry["seat"] = chosen["seat"]
            accepted[chosen["seat"]].append(chosen)
        route.append(entry)
    return route_text(route)


def random_acquire(state: State, seat: int, rng: random.Random) -> Order:
    streets = [space for space in state["turn"]["discs"] if "-" in space]
    if rng.random() < 0.15:
        return {"street": "pass", "buildings": []}
    street = rng.choice(streets)
    free = [b for b in sorted(neighbours(street)) if is_building(b) and b not in state["owners"]]
    rivals = [b for b in sorted(neighbours(street)) if state["owners"].get(b) not in (None, seat)]
    picks: list[str] = []
    budget = state["markers"][seat]
    for building in rng.sample(free, len(free)):
        if budget >= 1 and len(picks) < 2:
            picks.append(building)
            budget -= 1
    if rivals and budget >= 2 and len(picks) < 2 and rng.random() < 0.5:
        picks.append(rng.choice(rivals))
    return {"street": street, "buildings": picks}
