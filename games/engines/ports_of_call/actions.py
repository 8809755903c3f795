"""What a turn tracks (`Turn`: action points, moved and boosted ships) and its non-trading steps: moving,
boosting, buying ships and shares, an extra action point. Trading steps (buy, sell, orders, build,
produce) live in trade.py; turn.py applies a whole order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from games.engines.base import Event, M, Mn, Mp, Msg, OrderError, State, joined
from games.engines.ports_of_call.data import (
    CANAL_FEE,
    CANAL_NAMES,
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
    typed,
)
from games.engines.ports_of_call.money import city_name, city_of, money, move_stock, name, ships_of


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

    def copy(self) -> Turn:
        """A copy that shares nothing changeable with this one (what copy.deepcopy gives, for these fields of
        ints, strs and bools, many times faster: a bot copies the turn for every step it tries)."""
        return replace(
            self,
            produced=dict(self.produced),
            spaces_left=dict(self.spaces_left),
            stopped=set(self.stopped),
            boosted=set(self.boosted),
        )


def start_turn(state: State, seat: int) -> Turn:
    # RULEBOOK: one more Action Point than the number of ships owned.
    return Turn(seat=seat, ap=len(state["ships"][seat]) + 1)


def spend(turn: Turn, state: State, ap: int, cash: int, what: Msg) -> None:
    """Pay for an action (`what`, e.g. Mp("ports_of_call action", "A boost")); its refusals end without a full
    stop, as every step's refusal does: run_turn says which step and ends the sentence."""
    if turn.ap < ap:
        raise OrderError(
            Mn(
                "{what} needs {count} action point; you have {left} left",
                "{what} needs {count} action points; you have {left} left",
                ap,
                what=what,
                left=turn.ap,
            )
        )
    if state["cash"][turn.seat] < cash:
        raise OrderError(
            M("{what} costs {cost}; you have {cash}", what=what, cost=money(cash), cash=money(state["cash"][turn.seat]))
        )
    turn.ap -= ap
    state["cash"][turn.seat] -= cash


def find_ship(state: State, seat: int, word: str) -> dict[str, Any]:
    ship_id = word.upper()
    for ship in state["ships"][seat]:
        if ship["id"] == ship_id:
            return ship
    ships = joined([s["id"] for s in state["ships"][seat]], ",")
    raise OrderError(M("You have no ship {ship}; your ships are {ships}", ship=ship_id, ships=ships))


def ship_place(ship: dict[str, Any]) -> Msg:
    if ship["port"]:
        return Mp("ports_of_call place", "in {city}", city=city_name(ship["port"]))
    first, second, spaces, *_ = ROUTES[ship["route"]]
    return Mn(
        "at sea between {first} and {second}, {pos} of {count} space from {first}",
        "at sea between {first} and {second}, {pos} of {count} spaces from {first}",
        spaces,
        first=city_name(first),
        second=city_name(second),
        pos=ship["pos"],
    )


# --- moving and boosting -----------------------------------------------------------------------------


def base_spaces(state: State, ship: dict[str, Any], route: int) -> int:
    full = ship["size"] == "large" and len(ship["cargo"]) >= CAPACITY["large"]
    spaces = LADEN_LARGE_MOVE_SPACES if full else MOVE_SPACES
    if ROUTES[route][3] in state["closures"]["weather"]:
        spaces -= 1  # a weather card slows ships in that ocean for the quarter
    return spaces


def step_move(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) < 2:
        raise OrderError(
            M(
                "write it as: {move} <ship> <city> [spaces], e.g. {example}",
                move=typed("move"),
                example=typed("move S1 Rotterdam"),
            )
        )
    ship = find_ship(state, turn.seat, words[0])
    wanted: int | None = None
    rest = words[1:]
    if len(rest) > 1 and rest[-1].isdigit():
        wanted = int(rest[-1])
        rest = rest[:-1]
    dest = city_of(" ".join(rest))
    if dest is None:
        raise OrderError(M("there is no port called {text}", text=typed(repr(" ".join(rest)))))
    if ship["port"]:
        route = route_between(ship["port"], dest)
        if route is None:
            raise OrderError(
                M(
                    "no sea route leads from {port} straight to {city}; ships stop in every port",
                    port=city_name(ship["port"]),
                    city=city_name(dest),
                )
            )
        start = 0 if ROUTES[route][0] == ship["port"] else ROUTES[route][2]
    else:
        route = ship["route"]
        if dest not in ROUTES[route][:2]:
            raise OrderError(
                M(
                    "{ship} is {place}; it can only head for one of those two ports",
                    ship=ship["id"],
                    place=ship_place(ship),
                )
            )
        start = ship["pos"]
    if ship["id"] in turn.stopped:
        raise OrderError(M("{ship} has already made its move; only a boost lets it go on", ship=ship["id"]))
    left = turn.spaces_left.get(ship["id"])
    if left is None:
        left = base_spaces(state, ship, route) + (1 if ship["id"] in turn.boosted else 0)
    first, second, length, _ocean, canal = ROUTES[route]
    target = length if dest == second else 0
    distance = abs(target - start)
    spaces = min(left, distance) if wanted is None else wanted
    if spaces < 1 or left < 1:
        raise OrderError(M("{ship} has no movement left this turn", ship=ship["id"]))
    if spaces > left:
        raise OrderError(
            Mn(
                "{ship} may move only {count} more space this turn",
                "{ship} may move only {count} more spaces this turn",
                left,
                ship=ship["id"],
            )
        )
    if spaces > distance:
        raise OrderError(
            Mn(
                "{city} is only {count} space away",
                "{city} is only {count} spaces away",
                distance,
                city=city_name(dest),
            )
        )
    direction = 1 if target > start else -1
    pos = start
    fees: list[Msg] = []
    for _ in range(spaces):
        pos += direction
        if canal and pos == canal_space(route):
            said = {"canal": CANAL_NAMES[canal], "fee": money(CANAL_FEE)}
            if canal in state["closures"]["canals"]:
                raise OrderError(M("the {canal} Canal is closed this quarter", **said))
            if state["cash"][turn.seat] < CANAL_FEE:
                raise OrderError(M("passing the {canal} Canal costs {fee} and you cannot pay it", **said))
            state["cash"][turn.seat] -= CANAL_FEE
            fees.append(M("pays the {canal} Canal fee of {fee}", **said))
    turn.spaces_left[ship["id"]] = left - spaces
    turn.stopped.add(ship["id"])
    if pos == target:
        _enter_port(state, turn, ship, dest, fees)
    else:
        ship.update(port=None, route=route, pos=pos)
    said = {"seat": name(turn.seat), "ship": ship["id"], "city": city_name(dest)}
    if ship["port"]:
        moved = M("{seat} {ship} enters {city}", **said)
    else:
        moved = M(
            "{seat} {ship} sails {spaces} towards {city} ({place})", spaces=spaces, place=ship_place(ship), **said
        )
    events.append(Event(Mp("ports_of_call log", "{line}.", line=joined([moved, *fees], ";"))))
    return f"move {ship['id']} {dest} {spaces}"


def _enter_port(state: State, turn: Turn, ship: dict[str, Any], city: str, fees: list[Msg]) -> None:
    if city in state["closures"]["ports"]:
        raise OrderError(
            M("{city} is closed this quarter; stop short of it by giving fewer spaces", city=city_name(city))
        )
    owners = [seat for seat, home in enumerate(state["home"]) if home == city and not state["bankrupt"][seat]]
    for owner in owners:
        if owner != turn.seat:
            if state["cash"][turn.seat] < HOME_PORT_FEE:
                raise OrderError(
                    M(
                        "{city} is {seat}'s home port: the {fee} fee is more than you have",
                        city=city_name(city),
                        seat=name(owner),
                        fee=money(HOME_PORT_FEE),
                    )
                )
            state["cash"][turn.seat] -= HOME_PORT_FEE
            state["cash"][owner] += HOME_PORT_FEE
            fees.append(M("pays {seat} {fee} port fees", seat=name(owner), fee=money(HOME_PORT_FEE)))
    ship.update(port=city, route=None, pos=0)
    turn.spaces_left[ship["id"]] = 0  # RULEBOOK: once a ship enters a port it may not move further


def step_boost(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) != 1:
        raise OrderError(M("write it as: {boost} <ship>", boost=typed("boost")))
    ship = find_ship(state, turn.seat, words[0])
    if ship["port"]:
        raise OrderError(M("{ship} is in port; only a ship at sea can be boosted", ship=ship["id"]))
    if ship["id"] in turn.boosted:
        raise OrderError(M("{ship} has already been boosted this turn", ship=ship["id"]))
    spend(turn, state, 1, 0, Mp("ports_of_call action", "A boost"))
    turn.boosted.add(ship["id"])
    turn.stopped.discard(ship["id"])
    if ship["id"] in turn.spaces_left:
        turn.spaces_left[ship["id"]] += 1
    events.append(Event(M("{seat} boosts {ship} by 1 space.", seat=name(turn.seat), ship=ship["id"])))
    return f"boost {ship['id']}"


# --- the office: ships, shares, extra action points -------------------------------------------------


def step_ship(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) != 1 or words[0] not in SHIP_PRICE:
        raise OrderError(M("write it as: {small}, or {large}", small=typed("ship small"), large=typed("ship large")))
    size = words[0]
    small = size == "small"
    fleet = ships_of(state, turn.seat, size)
    if len(fleet) >= SHIP_LIMIT[size]:
        if small:
            raise OrderError(
                Mn(
                    "you may own at most {count} small ship",
                    "you may own at most {count} small ships",
                    SHIP_LIMIT[size],
                )
            )
        raise OrderError(
            Mn("you may own at most {count} large ship", "you may own at most {count} large ships", SHIP_LIMIT[size])
        )
    what = Mp("ports_of_call action", "A small ship") if small else Mp("ports_of_call action", "A large ship")
    spend(turn, state, 1, SHIP_PRICE[size], what)
    taken = {ship["id"] for ship in fleet}
    letter = size[0].upper()
    ship_id = next(f"{letter}{n}" for n in range(1, 4) if f"{letter}{n}" not in taken)
    home = state["home"][turn.seat]
    state["ships"][turn.seat].append({"id": ship_id, "size": size, "cargo": [], "port": home, "route": None, "pos": 0})
    turn.ap += 1  # RULEBOOK: a new ship brings its Action Point at once
    said = {"seat": name(turn.seat), "ship": ship_id, "city": city_name(home), "amount": money(SHIP_PRICE[size])}
    if small:
        events.append(Event(M("{seat} buys small ship {ship} in {city} for {amount}.", **said)))
    else:
        events.append(Event(M("{seat} buys large ship {ship} in {city} for {amount}.", **said)))
    return f"ship {size}"


def step_shares(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if len(words) != 1 or words[0] not in {"buy", "sell"}:
        raise OrderError(M("write it as: {buy}, or {sell}", buy=typed("shares buy"), sell=typed("shares sell")))
    if words[0] == "buy":
        spend(turn, state, SHARE_BUY_AP, SHARE_BUY_PRICE, Mp("ports_of_call action", "Buying shares"))
        if move_stock(state, turn.seat, 1) == 0:
            raise OrderError(M("your company is already at the top of the Stock Exchange"))
        events.append(
            Event(M("{seat} buys shares: up to {stock}.", seat=name(turn.seat), stock=state["stock"][turn.seat]))
        )
        return "shares buy"
    if turn.shares_sold:
        raise OrderError(M("shares may be sold only once per quarter"))
    if state["stock"][turn.seat] <= STOCK_MIN:
        raise OrderError(
            M("your company is at {stock}, the lowest space: selling shares would bankrupt it", stock=STOCK_MIN)
        )
    turn.shares_sold = True
    move_stock(state, turn.seat, -1)
    state["cash"][turn.seat] += SHARE_SELL_PRICE
    sold = M(
        "{seat} sells shares: down to {stock}, receives {amount}.",
        seat=name(turn.seat),
        stock=state["stock"][turn.seat],
        amount=money(SHARE_SELL_PRICE),
    )
    events.append(Event(sold))
    return "shares sell"


def step_extra(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    if words:
        raise OrderError(M("write it as: {extra}", extra=typed("extra")))
    if turn.extra_bought:
        raise OrderError(M("an additional action point may be bought only once per turn"))
    spend(turn, state, 0, EXTRA_AP_PRICE, Mp("ports_of_call action", "An additional action point"))
    turn.extra_bought = True
    turn.ap += 1
    events.append(
        Event(
            M(
                "{seat} buys an additional action point for {amount}.",
                seat=name(turn.seat),
                amount=money(EXTRA_AP_PRICE),
            )
        )
    )
    return "extra"


ACTION_STEPS = {"move": step_move, "boost": step_boost, "ship": step_ship, "shares": step_shares, "extra": step_extra}
