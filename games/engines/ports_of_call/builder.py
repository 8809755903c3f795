"""The order builder's candidate actions for a quarter, spelled as the actions themselves spell them once
applied (the canonical text `validate` stores). They are worked out on the company as the actions so far
leave it; the engine kit keeps those `validate` accepts, so the rules stay in actions.py and trade.py."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from games.engines.base import OrderError, State, StepChoice
from games.engines.kit import Builder, copy_state
from games.engines.ports_of_call.actions import Turn, start_turn
from games.engines.ports_of_call.data import (
    CAPACITY,
    CITIES,
    EXTRA_AP_PRICE,
    FACTORY_PRICE,
    GOODS,
    HIDDEN_ORDER_PRICE,
    MOVE_SPACES,
    OPEN_ORDER_PRICE,
    ORDER_CARDS,
    PRODUCE_PRICE,
    REGION_OF,
    ROUTES,
    ROW_CAPACITY,
    SHARE_BUY_PRICE,
    SHARE_SELL_PRICE,
    SHIP_PRICE,
    TRACK_BONUSES,
    TRACK_LENGTH,
    sales_bonus,
)
from games.engines.ports_of_call.money import good_name, money, order_label, price, ships_of
from games.engines.ports_of_call.turn import apply_step


def played(state: State, seat: int, chosen: list[str]) -> tuple[State, Turn] | None:
    """The state and the turn's markers once the actions so far are applied (on a copy); None if they
    cannot be."""
    scratch = copy_state(state)
    turn = start_turn(scratch, seat)
    try:
        for step in chosen:
            apply_step(scratch, turn, step, [])
    except OrderError:
        return None
    return scratch, turn


def action_candidates(state: State, seat: int, chosen: list[str]) -> Iterator[StepChoice]:
    after = played(state, seat, chosen)
    if after is None:
        return
    scratch, turn = after
    fleet = ships_of(scratch, seat)
    for ship in fleet:
        yield from _moves(ship, turn)
        if not ship["port"] and ship["id"] not in turn.boosted:
            yield StepChoice(f"boost {ship['id']}", f"Boost {ship['id']}: 1 more space this turn (1 AP)")
    yield from _purchases(scratch, fleet)
    yield from _sales(state, fleet)
    yield StepChoice("order hidden", f"Buy a face-down order card ({money(HIDDEN_ORDER_PRICE)}, 1 AP)")
    for card in scratch["market"]:
        city, first, second = ORDER_CARDS[card]
        label = f"Buy the order {order_label(card)} from the market ({money(OPEN_ORDER_PRICE)}, 1 AP)"
        yield StepChoice(f"order {city} {first} {second}", label)
    for size in ("small", "large"):
        yield StepChoice(f"ship {size}", f"Buy a {size} ship ({money(SHIP_PRICE[size])}, 1 AP; it brings 1 AP)")
    yield from _factories(scratch, seat, fleet)
    yield StepChoice("shares buy", f"Buy shares ({money(SHARE_BUY_PRICE)}, 2 AP)")
    yield StepChoice("shares sell", f"Sell shares (+{money(SHARE_SELL_PRICE)})")
    yield StepChoice("extra", f"Buy an extra action point ({money(EXTRA_AP_PRICE)})")


def _moves(ship: dict[str, Any], turn: Turn) -> Iterator[StepChoice]:
    sid = ship["id"]
    if ship["port"]:
        ends = [(r[1] if r[0] == ship["port"] else r[0], r[2]) for r in ROUTES if ship["port"] in r[:2]]
    else:
        first, second, length, *_ = ROUTES[ship["route"]]
        ends = [(first, ship["pos"]), (second, length - ship["pos"])]
    most = turn.spaces_left.get(sid, MOVE_SPACES + 1)
    for city, distance in sorted(ends):
        for spaces in range(1, min(most, distance) + 1):
            into = "into" if spaces == distance else f"{spaces} space{'s' if spaces > 1 else ''} towards"
            yield StepChoice(f"move {sid} {city} {spaces}", f"Move {sid} {into} {city}")


def _purchases(state: State, fleet: list[dict[str, Any]]) -> Iterator[StepChoice]:
    """Containers of a port's good: one or two for one ship, or one each for two ships in that port."""
    for ship in fleet:
        if not ship["port"]:
            continue
        good = REGION_OF[ship["port"]]
        each = f"at {money(price(state, good))}"
        room = CAPACITY[ship["size"]] - len(ship["cargo"])
        for count in range(1, room + 1):
            containers = f"{count} {good_name(good)} container{'s' if count > 1 else ''}"
            label = f"Buy {containers} for {ship['id']} ({each}, {count} AP)"
            yield StepChoice(f"buy {good} " + " ".join([ship["id"]] * count), label)
    for first, second in combinations([s for s in fleet if s["port"]], 2):
        if first["port"] == second["port"]:
            good = REGION_OF[first["port"]]
            label = f"Buy a {good_name(good)} container each for {first['id']} and {second['id']} (2 AP)"
            yield StepChoice(f"buy {good} {first['id']} {second['id']}", label)


def _sales(state: State, fleet: list[dict[str, Any]]) -> Iterator[StepChoice]:
    """Each sale a ship in port could make, with what it pays (the port's bonus and the market price), as the
    read-back will say it."""
    for ship in fleet:
        port = ship["port"]
        if not port:
            continue
        sellable = [good for good in ship["cargo"] if sales_bonus(port, good) is not None]
        seen = set()
        for size in range(1, len(sellable) + 1):
            for goods in combinations(sellable, size):
                if goods not in seen:
                    seen.add(goods)
                    words = " and ".join(good_name(good) for good in goods)
                    pays = sum((sales_bonus(port, good) or 0) + price(state, good) for good in goods)
                    yield StepChoice(
                        f"sell {ship['id']} {' '.join(goods)}",
                        f"Sell {words} from {ship['id']} in {port} (+{money(pays)})",
                    )


def _factories(state: State, seat: int, fleet: list[dict[str, Any]]) -> Iterator[StepChoice]:
    ports = {ship["port"] for ship in fleet if ship["port"]}
    for city in CITIES:
        mine = next((site for site in state["sites"][city] if site["seat"] == seat), None)
        if mine is not None or city in ports:
            yield StepChoice(f"build {city}", f"Build a factory in {city} ({money(FACTORY_PRICE)}, 1 AP)")
        if mine is None or not mine["factories"]:
            continue
        good = REGION_OF[city]
        label = f"Produce 1 {good_name(good)} container in {city} ({money(PRODUCE_PRICE)}, 1 AP)"
        track = state["track"][seat]
        bonus = TRACK_BONUSES.get(str(track + 1)) if track < TRACK_LENGTH else None
        roomy = [g for g in GOODS if len(state["terminal"][g]) < ROW_CAPACITY]
        # The container bonus's row and place are part of the action (the default is written out).
        if bonus is None or bonus["kind"] != "container" or not roomy:
            yield StepChoice(f"produce {city}", label)
            continue
        for other in roomy:
            places = len(state["terminal"][other]) + 1 + (1 if other == good else 0)
            for spot in range(1, places + 1):
                where = f"bonus {good_name(other)} container at place {spot} from the left"
                yield StepChoice(f"produce {city} bonus {other} {spot}", f"{label}, {where}")


ACTIONS = Builder(action_candidates)
