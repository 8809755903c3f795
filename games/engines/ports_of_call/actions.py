"""What a turn tracks (`Turn`: action points, moved and boosted ships) and its non-trading steps: moving,
boosting, buying ships and shares, an extra action point. Trading steps (buy, sell, orders, build,
produce) live in trade.py; turn.py applies a whole order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.engines.base import Event, OrderError, State
from games.engines.ports_of_call.data import (
    CANAL_FEE,
    CAPACITY,
    EXTRA_AP_PRICE,
    HOME_PORT_FEE,
    LADEN_LARGE_MOVE_SPACES,
    MOVE_SPACES,
    ROUTES,
    SHARE_BUY_AP,
    SHARE_BUY_PRICE,
    SHARE_SELL_PRICE,
    SHIP_LIMIT,
    SHIP_PRICE,
    STOCK_MIN,
    canal_space,
    route_between,
)
from games.engines.ports_of_call.money import city_of, money, move_stock, name, ships_of


@dataclass
class Turn:
    """What one turn tracks beside the state: the markers of the Office board and on moved ships."""

    seat: int
    ap: int
    extra_bought: bool = False
    shares_sold: bool = False
    produced: dict[str, int] = field(default_factory=dict)
    # Ship id -> spaces it may still move this turn; absent: not moved yet.
    spaces_left: dict[str, int] = field(default_factory=dict)
    # Ships whose move is over until a later boost lets them continue.
    stopped: set[str] = field(default_factory=set)
    boosted: set[str] = field(default_factory=set)


def start_turn(state: State, seat: int) -> Turn:
    # RULEBOOK: one more Action Point than the number of ships owned.
    return Turn(seat=seat, ap=len(state["ships"][seat]) + 1)


def spend(turn: Turn, state: State, ap: int, cash: int, what: str) -> None:
    if turn.ap < ap:
        raise OrderError(f"{what} needs {ap} action point{'s' if ap > 1 else ''}; you have {turn.ap} left.")
    if state["cash"][turn.seat] < cash:
        raise OrderError(f"{what} costs ${cash}M; you have {money(state['cash'][turn.seat])}.")
    turn.ap -= ap
    state["cash"][turn.seat] -= cash


def find_ship(state: State, seat: int, word: str) -> dict[str, Any]:
    ship_id = word.upper()
    for ship in state["ships"][seat]:
        if ship["id"] == ship_id:
            return ship
    raise OrderError(f"You have no ship {ship_id}; your ships are {', '.join(s['id'] for s in state['ships'][seat])}.")


def ship_place(ship: dict[str, Any]) -> str:
    if ship["port"]:
        return f"in {ship['port']}"
    first, second, spaces, *_ = ROUTES[ship["route"]]
    return f"at sea between {first} and {second}, {ship['pos']} of {spaces} spaces from {first}"


# --- moving and boosting -----------------------------------------------------------------------------


def base_spaces(state: State, ship: dict[str, Any], route: int) -> int:
    full = ship["size"] == "large" and len(ship["cargo"]) >= CAPACITY["large"]
    spaces = LADEN_LARGE_MOVE_SPACES if full else MOVE_SPACES
    if ROUTES[route][3] in state["closures"]["weather"]:
        spaces -= 1  # a weather card slows ships in that ocean for the quarter
    return spaces


def step_move(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) < 2:
        raise OrderError("write it as: move <ship> <city> [spaces], e.g. move S1 Rotterdam")
    ship = find_ship(state, turn.seat, words[0])
    wanted: int | None = None
    rest = words[1:]
    if len(rest) > 1 and rest[-1].isdigit():
        wanted = int(rest[-1])
        rest = rest[:-1]
    dest = city_of(" ".join(rest))
    if dest is None:
        raise OrderError(f"there is no port called {' '.join(rest)!r}")
    if ship["port"]:
        route = route_between(ship["port"], dest)
        if route is None:
            raise OrderError(f"no sea route leads from {ship['port']} straight to {dest}; ships stop in every port")
        start = 0 if ROUTES[route][0] == ship["port"] else ROUTES[route][2]
    else:
        route = ship["route"]
        if dest not in ROUTES[route][:2]:
            raise OrderError(f"{ship['id']} is {ship_place(ship)}; it can only head for one of those two ports")
        start = ship["pos"]
    if ship["id"] in turn.stopped:
        raise OrderError(f"{ship['id']} has already made its move; only a boost lets it go on")
    left = turn.spaces_left.get(ship["id"])
    if left is None:
        left = base_spaces(state, ship, route) + (1 if ship["id"] in turn.boosted else 0)
    first, second, length, _ocean, canal = ROUTES[route]
    target = length if dest == second else 0
    distance = abs(target - start)
    spaces = min(left, distance) if wanted is None else wanted
    if spaces < 1 or left < 1:
        raise OrderError(f"{ship['id']} has no movement left this turn")
    if spaces > left:
        raise OrderError(f"{ship['id']} may move only {left} more space{'s' if left > 1 else ''} this turn")
    if spaces > distance:
        raise OrderError(f"{dest} is only {distance} space{'s' if distance > 1 else ''} away")
    direction = 1 if target > start else -1
    pos = start
    fees = []
    for _ in range(spaces):
        pos += direction
        if canal and pos == canal_space(route):
            if canal in state["closures"]["canals"]:
                raise OrderError(f"the {canal} Canal is closed this quarter")
            if state["cash"][turn.seat] < CANAL_FEE:
                raise OrderError(f"passing the {canal} Canal costs ${CANAL_FEE}M and you cannot pay it")
            state["cash"][turn.seat] -= CANAL_FEE
            fees.append(f"pays the {canal} Canal fee of ${CANAL_FEE}M")
    turn.spaces_left[ship["id"]] = left - spaces
    turn.stopped.add(ship["id"])
    if pos == target:
        _enter_port(state, turn, ship, dest, fees)
    else:
        ship.update(port=None, route=route, pos=pos)
    where = f"enters {dest}" if ship["port"] else f"sails {spaces} towards {dest} ({ship_place(ship)})"
    events.append(Event(f"{name(turn.seat)} {ship['id']} {where}" + "".join(f"; {fee}" for fee in fees) + "."))
    return f"move {ship['id']} {dest} {spaces}"


def _enter_port(state: State, turn: Turn, ship: dict[str, Any], city: str, fees: list[str]) -> None:
    if city in state["closures"]["ports"]:
        raise OrderError(f"{city} is closed this quarter; stop short of it by giving fewer spaces")
    owners = [seat for seat, home in enumerate(state["home"]) if home == city and not state["bankrupt"][seat]]
    for owner in owners:
        if owner != turn.seat:
            if state["cash"][turn.seat] < HOME_PORT_FEE:
                raise OrderError(
                    f"{city} is {name(owner)}'s home port: the ${HOME_PORT_FEE}M fee is more than you have"
                )
            state["cash"][turn.seat] -= HOME_PORT_FEE
            state["cash"][owner] += HOME_PORT_FEE
            fees.append(f"pays {name(owner)} ${HOME_PORT_FEE}M port fees")
    ship.update(port=city, route=None, pos=0)
    turn.spaces_left[ship["id"]] = 0  # RULEBOOK: once a ship enters a port it may not move further


def step_boost(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) != 1:
        raise OrderError("write it as: boost <ship>")
    ship = find_ship(state, turn.seat, words[0])
    if ship["port"]:
        raise OrderError(f"{ship['id']} is in port; only a ship at sea can be boosted")
    if ship["id"] in turn.boosted:
        raise OrderError(f"{ship['id']} has already been boosted this turn")
    spend(turn, state, 1, 0, "A boost")
    turn.boosted.add(ship["id"])
    turn.stopped.discard(ship["id"])
    if ship["id"] in turn.spaces_left:
        turn.spaces_left[ship["id"]] += 1
    events.append(Event(f"{name(turn.seat)} boosts {ship['id']} by 1 space."))
    return f"boost {ship['id']}"


# --- the office: ships, shares, extra action points -------------------------------------------------


def step_ship(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) != 1 or words[0] not in SHIP_PRICE:
        raise OrderError("write it as: ship small, or ship large")
    size = words[0]
    fleet = ships_of(state, turn.seat, size)
    if len(fleet) >= SHIP_LIMIT[size]:
        raise OrderError(f"you may own at most {SHIP_LIMIT[size]} {size} ships")
    spend(turn, state, 1, SHIP_PRICE[size], f"A {size} ship")
    taken = {ship["id"] for ship in fleet}
    letter = size[0].upper()
    ship_id = next(f"{letter}{n}" for n in range(1, 4) if f"{letter}{n}" not in taken)
    home = state["home"][turn.seat]
    state["ships"][turn.seat].append({"id": ship_id, "size": size, "cargo": [], "port": home, "route": None, "pos": 0})
    turn.ap += 1  # RULEBOOK: a new ship brings its Action Point at once
    events.append(Event(f"{name(turn.seat)} buys {size} ship {ship_id} in {home} for ${SHIP_PRICE[size]}M."))
    return f"ship {size}"


def step_shares(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) != 1 or words[0] not in {"buy", "sell"}:
        raise OrderError("write it as: shares buy, or shares sell")
    if words[0] == "buy":
        spend(turn, state, SHARE_BUY_AP, SHARE_BUY_PRICE, "Buying shares")
        if move_stock(state, turn.seat, 1) == 0:
            raise OrderError("your company is already at the top of the Stock Exchange")
        events.append(Event(f"{name(turn.seat)} buys shares: up to {state['stock'][turn.seat]}."))
        return "shares buy"
    if turn.shares_sold:
        raise OrderError("shares may be sold only once per quarter")
    if state["stock"][turn.seat] <= STOCK_MIN:
        raise OrderError(f"your company is at {STOCK_MIN}, the lowest space: selling shares would bankrupt it")
    turn.shares_sold = True
    move_stock(state, turn.seat, -1)
    state["cash"][turn.seat] += SHARE_SELL_PRICE
    events.append(Event(f"{name(turn.seat)} sells shares: down to {state['stock'][turn.seat]}, receives $100M."))
    return "shares sell"


def step_extra(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if words:
        raise OrderError("write it as: extra")
    if turn.extra_bought:
        raise OrderError("an additional action point may be bought only once per turn")
    spend(turn, state, 0, EXTRA_AP_PRICE, "An additional action point")
    turn.extra_bought = True
    turn.ap += 1
    events.append(Event(f"{name(turn.seat)} buys an additional action point for ${EXTRA_AP_PRICE}M."))
    return "extra"


ACTION_STEPS = {"move": step_move, "boost": step_boost, "ship": step_ship, "shares": step_shares, "extra": step_extra}
