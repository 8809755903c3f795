"""The order builder's candidate actions for a quarter, spelled as the actions themselves spell them once
applied (the canonical text `validate` stores). They are worked out on the company as the actions so far
leave it; the engine kit keeps those `validate` accepts, so the rules stay in actions.py and trade.py."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from games.engines.base import M, Mn, OrderError, State, StepChoice, joined
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
from games.engines.ports_of_call.money import city_name, good_name, money, order_label, price, ships_of
from games.engines.ports_of_call.trade import containers
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
            yield StepChoice(f"boost {ship['id']}", M("Boost {ship}: 1 more space this turn (1 AP)", ship=ship["id"]))
    yield from _purchases(scratch, fleet)
    yield from _sales(state, fleet)
    yield StepChoice("order hidden", M("Buy a face-down order card ({price}, 1 AP)", price=money(HIDDEN_ORDER_PRICE)))
    for card in scratch["market"]:
        city, first, second = ORDER_CARDS[card]
        label = M(
            "Buy the order {card} from the market ({price}, 1 AP)",
            card=order_label(card),
            price=money(OPEN_ORDER_PRICE),
        )
        yield StepChoice(f"order {city} {first} {second}", label)
    yield StepChoice(
        "ship small", M("Buy a small ship ({price}, 1 AP; it brings 1 AP)", price=money(SHIP_PRICE["small"]))
    )
    yield StepChoice(
        "ship large", M("Buy a large ship ({price}, 1 AP; it brings 1 AP)", price=money(SHIP_PRICE["large"]))
    )
    yield from _factories(scratch, seat, fleet)
    yield StepChoice("shares buy", M("Buy shares ({price}, 2 AP)", price=money(SHARE_BUY_PRICE)))
    yield StepChoice("shares sell", M("Sell shares (+{price})", price=money(SHARE_SELL_PRICE)))
    yield StepChoice("extra", M("Buy an extra action point ({price})", price=money(EXTRA_AP_PRICE)))


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
            if spaces == distance:
                label = M("Move {ship} into {city}", ship=sid, city=city_name(city))
            else:
                label = Mn(
                    "Move {ship} {count} space towards {city}",
                    "Move {ship} {count} spaces towards {city}",
                    spaces,
                    ship=sid,
                    city=city_name(city),
                )
            yield StepChoice(f"move {sid} {city} {spaces}", label)


def _purchases(state: State, fleet: list[dict[str, Any]]) -> Iterator[StepChoice]:
    """Containers of a port's good: one or two for one ship, or one each for two ships in that port."""
    for ship in fleet:
        if not ship["port"]:
            continue
        good = REGION_OF[ship["port"]]
        each = money(price(state, good))
        room = CAPACITY[ship["size"]] - len(ship["cargo"])
        for count in range(1, room + 1):
            label = M(
                "Buy {containers} for {ship} (at {price}, {ap} AP)",
                containers=containers(count, good),
                ship=ship["id"],
                price=each,
                ap=count,
            )
            yield StepChoice(f"buy {good} " + " ".join([ship["id"]] * count), label)
    for first, second in combinations([s for s in fleet if s["port"]], 2):
        if first["port"] == second["port"]:
            good = REGION_OF[first["port"]]
            label = M(
                "Buy a {good} container each for {ship} and {other} (2 AP)",
                good=good_name(good),
                ship=first["id"],
                other=second["id"],
            )
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
                    pays = sum((sales_bonus(port, good) or 0) + price(state, good) for good in goods)
                    label = M(
                        "Sell {goods} from {ship} in {city} (+{price})",
                        goods=joined([good_name(good) for good in goods]),
                        ship=ship["id"],
                        city=city_name(port),
                        price=money(pays),
                    )
                    yield StepChoice(f"sell {ship['id']} {' '.join(goods)}", label)


def _factories(state: State, seat: int, fleet: list[dict[str, Any]]) -> Iterator[StepChoice]:
    ports = {ship["port"] for ship in fleet if ship["port"]}
    for city in CITIES:
        mine = next((site for site in state["sites"][city] if site["seat"] == seat), None)
        if mine is not None or city in ports:
            label = M("Build a factory in {city} ({price}, 1 AP)", city=city_name(city), price=money(FACTORY_PRICE))
            yield StepChoice(f"build {city}", label)
        if mine is None or not mine["factories"]:
            continue
        good = REGION_OF[city]
        said = {"good": good_name(good), "city": city_name(city), "price": money(PRODUCE_PRICE)}
        track = state["track"][seat]
        bonus = TRACK_BONUSES.get(str(track + 1)) if track < TRACK_LENGTH else None
        roomy = [g for g in GOODS if len(state["terminal"][g]) < ROW_CAPACITY]
        # The container bonus's row and place are part of the action (the default is written out).
        if bonus is None or bonus["kind"] != "container" or not roomy:
            yield StepChoice(f"produce {city}", M("Produce 1 {good} container in {city} ({price}, 1 AP)", **said))
            continue
        for other in roomy:
            places = len(state["terminal"][other]) + 1 + (1 if other == good else 0)
            for spot in range(1, places + 1):
                label = M(
                    "Produce 1 {good} container in {city} ({price}, 1 AP), bonus {bonus} container at place {spot} "
                    "from the left",
                    bonus=good_name(other),
                    spot=spot,
                    **said,
                )
                yield StepChoice(f"produce {city} bonus {other} {spot}", label)


ACTIONS = Builder(action_candidates)
