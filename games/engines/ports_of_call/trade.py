"""Trading steps of a turn: order cards, buying and selling containers, factories and production."""

from __future__ import annotations

from typing import Any

from games.engines.base import Event, M, Mn, Mp, Msg, OrderError, State, joined
from games.engines.ports_of_call.actions import Turn, find_ship, spend
from games.engines.ports_of_call.data import (
    CAPACITY,
    FACTORIES_PER_SITE,
    FACTORY_PRICE,
    GOODS,
    HIDDEN_ORDER_PRICE,
    MAX_ACTIVE_ORDERS,
    OPEN_ORDER_PRICE,
    ORDER_CARDS,
    PRODUCE_PRICE,
    REGION_OF,
    REGIONS,
    ROW_CAPACITY,
    TRACK_BONUSES,
    TRACK_LENGTH,
    sales_bonus,
    typed,
)
from games.engines.ports_of_call.money import (
    city_name,
    city_of,
    draw_order,
    good_name,
    good_of,
    money,
    move_stock,
    name,
    order_label,
    price,
    refill_market,
    regions_built,
    ships_of,
)


def containers(count: int, good: str) -> Msg:
    """'1 wine container', '2 wind turbines containers'."""
    return Mn("{count} {good} container", "{count} {good} containers", count, good=good_name(good))


def no_good(word: str) -> Msg:
    return M("there is no good called {text}", text=typed(repr(word)))


def closed(city: str) -> Msg:
    return M("{city} is closed this quarter", city=city_name(city))


# --- order cards -------------------------------------------------------------------------------------


def step_order(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    seat = turn.seat
    if not words:
        raise OrderError(
            M(
                "write it as: {hidden}, or {order} <market slot 1-4>, or {order} <city> <good> <good>",
                hidden=typed("order hidden"),
                order=typed("order"),
            )
        )
    if len(state["orders"][seat]) >= MAX_ACTIVE_ORDERS:
        raise OrderError(
            Mn(
                "you already have {count} active order, the most allowed",
                "you already have {count} active orders, the most allowed",
                MAX_ACTIVE_ORDERS,
            )
        )
    if words == ["hidden"]:
        if not state["order_deck"] and not state["order_discard"]:
            raise OrderError(M("the order deck is empty"))
        spend(turn, state, 1, HIDDEN_ORDER_PRICE, Mp("ports_of_call action", "A face-down order card"))
        card = draw_order(state)
        assert card is not None
        state["orders"][seat].append({"card": card, "delivered": []})
        events.append(Event(M("{seat} buys a face-down order card: {card}.", seat=name(seat), card=order_label(card))))
        return "order hidden"
    slot = _market_slot(state, words)
    card = state["market"][slot]
    spend(turn, state, 1, OPEN_ORDER_PRICE, Mp("ports_of_call action", "An order from the market"))
    state["market"].pop(slot)
    state["orders"][seat].append({"card": card, "delivered": []})
    refill_market(state)
    events.append(Event(M("{seat} buys the order {card} from the market.", seat=name(seat), card=order_label(card))))
    city, first, second = ORDER_CARDS[card]
    return f"order {city} {first} {second}"


def _market_slot(state: State, words: list[str]) -> int:
    if len(words) == 1 and words[0].isdigit():
        slot = int(words[0]) - 1
        if not 0 <= slot < len(state["market"]):
            raise OrderError(M("the Order Market has slots 1 to {last}", last=len(state["market"])))
        return slot
    if len(words) < 3:
        raise OrderError(M("name the card as: order <city> <good> <good>"))
    city, goods = city_of(" ".join(words[:-2])), {good_of(words[-2]), good_of(words[-1])}
    for slot, card in enumerate(state["market"]):
        if ORDER_CARDS[card][0] == city and set(ORDER_CARDS[card][1:]) == goods:
            return slot
    raise OrderError(M("the Order Market holds no order {text}", text=" ".join(words)))


# --- containers ----------------------------------------------------------------------------------------


def step_buy(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    """buy <good> <ship> [<ship> ...]: one purchase from one row, every container at the first's price."""
    seat = turn.seat
    count = 1
    if words and words[0].isdigit():
        count, words = int(words[0]), words[1:]
    if len(words) < 2:
        raise OrderError(
            M(
                "write it as: {buy} <good> <ship> [<ship> ...], e.g. {example}",
                buy=typed("buy"),
                example=typed("buy wine L1 L1"),
            )
        )
    good = good_of(words[0])
    if good is None:
        raise OrderError(no_good(words[0]))
    ships = [find_ship(state, seat, word) for word in words[1:]]
    if count > 1:
        if len(ships) != 1:
            raise OrderError(M("give either a count and one ship, or one ship per container"))
        ships = ships * count
    for ship in ships:
        if ship["port"] not in REGIONS[good]:
            raise OrderError(M("{ship} is not in a port that produces {good}", ship=ship["id"], good=good_name(good)))
        if ship["port"] in state["closures"]["ports"]:
            raise OrderError(closed(ship["port"]))
        if len(ship["cargo"]) + ships.count(ship) > CAPACITY[ship["size"]]:
            raise OrderError(M("{ship} has no room for that many containers", ship=ship["id"]))
    row = state["terminal"][good]
    if len(row) < len(ships):
        raise OrderError(
            Mn(
                "the {good} row holds only {count} container",
                "the {good} row holds only {count} containers",
                len(row),
                good=good_name(good),
            )
        )
    unit = price(state, good)
    owners = row[len(row) - len(ships) :]
    # RULEBOOK: a container with a player's marker is paid to that player, one's own is free.
    payable = [owner for owner in owners if owner != seat]
    spend(turn, state, len(ships), unit * len(payable), containers(len(ships), good))
    del row[len(row) - len(ships) :]
    for owner in payable:
        if owner is not None and not state["bankrupt"][owner]:
            state["cash"][owner] += unit
    for ship in ships:
        ship["cargo"].append(good)
    paid = [name(o) for o in payable if o is not None]
    said = {
        "seat": name(seat),
        "containers": containers(len(ships), good),
        "price": money(unit),
        "ships": joined([ship["id"] for ship in ships], ","),
    }
    if paid:
        bought = M(
            "{seat} buys {containers} at {price} each for {ships} (paid to {paid}).", paid=joined(paid, ","), **said
        )
    else:
        bought = M("{seat} buys {containers} at {price} each for {ships}.", **said)
    events.append(Event(bought))
    return f"buy {good} " + " ".join(ship["id"] for ship in ships)


def step_sell(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    """sell <ship> [<good> ...]: all named containers (all on board when none named) at once."""
    seat = turn.seat
    if not words:
        raise OrderError(M("write it as: {sell} <ship> [<good> ...]", sell=typed("sell")))
    ship = find_ship(state, seat, words[0])
    city = ship["port"]
    if not city:
        raise OrderError(M("{ship} is at sea; containers are sold in port", ship=ship["id"]))
    if city in state["closures"]["ports"]:
        raise OrderError(closed(city))
    goods: list[str] = []
    cargo = list(ship["cargo"])
    for word in words[1:] or list(ship["cargo"]):
        good = good_of(word)
        if good is None:
            raise OrderError(no_good(word))
        if good not in cargo:
            raise OrderError(M("{ship} carries no {good} container to sell", ship=ship["id"], good=good_name(good)))
        if sales_bonus(city, good) is None:
            raise OrderError(
                M("{good} cannot be sold in {city}, which produces it", good=good_name(good), city=city_name(city))
            )
        cargo.remove(good)
        goods.append(good)
    if not goods:
        raise OrderError(M("{ship} carries no containers", ship=ship["id"]))
    ship["cargo"] = cargo
    total = 0
    for good in goods:
        total += (sales_bonus(city, good) or 0) + price(state, good)
    state["cash"][seat] += total
    sold = M(
        "{seat} sells {goods} from {ship} in {city} for {amount}.",
        seat=name(seat),
        goods=joined([good_name(good) for good in goods]),
        ship=ship["id"],
        city=city_name(city),
        amount=money(total),
    )
    events.append(Event(sold))
    deliver(state, seat, city, goods, ship["size"] == "large", events)
    return f"sell {ship['id']} " + " ".join(goods)


def deliver(state: State, seat: int, city: str, goods: list[str], one_large_ship: bool, events: list[Event]) -> None:
    """Match sold containers to the seat's orders for `city`.

    RULEBOOK: both containers of an order sold at once from one large ship complete it for 2 steps;
    delivered separately, the first is a partial delivery and the second completes it for 1 step.
    HOUSE DEFAULT on which order a container serves: a whole order first, then finishing a partial
    delivery, then starting one, oldest order first.
    """
    left = list(goods)
    orders = [order for order in state["orders"][seat] if ORDER_CARDS[order["card"]][0] == city]

    def wants(order: dict[str, Any]) -> list[str]:
        return [good for good in ORDER_CARDS[order["card"]][1:] if good not in order["delivered"]]

    for order in orders:
        need = wants(order)
        if one_large_ship and len(need) == 2 and all(left.count(g) >= need.count(g) for g in need):
            for good in need:
                left.remove(good)
            _complete(state, seat, order, 2, events)
    for order in orders:
        need = wants(order)
        if order not in state["orders"][seat] or len(need) != 1 or need[0] not in left:
            continue
        left.remove(need[0])
        _complete(state, seat, order, 1, events)
    for order in orders:
        if order not in state["orders"][seat]:
            continue
        for good in wants(order):
            if good in left:
                left.remove(good)
                order["delivered"].append(good)
                partial = M(
                    "{seat} makes a partial delivery of {good} to {city}.",
                    seat=name(seat),
                    good=good_name(good),
                    city=city_name(city),
                )
                events.append(Event(partial))
                break


def _complete(state: State, seat: int, order: dict[str, Any], steps: int, events: list[Event]) -> None:
    state["orders"][seat].remove(order)
    state["completed"][seat].append(order["card"])
    moved = move_stock(state, seat, steps)
    # Completed cards lie face down: the log names the city, which the sale already made public.
    city = ORDER_CARDS[order["card"]][0]
    completed = Mn(
        "{seat} completes an order for {city}: +{count} step.",
        "{seat} completes an order for {city}: +{count} steps.",
        moved,
        seat=name(seat),
        city=city_name(city),
    )
    events.append(Event(completed))


# --- factories and production ------------------------------------------------------------------------


def own_site(state: State, seat: int, city: str) -> dict[str, Any] | None:
    return next((site for site in state["sites"][city] if site["seat"] == seat), None)


def step_build(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    seat = turn.seat
    city = city_of(" ".join(words))
    if city is None:
        raise OrderError(M("write it as: {build} <city>, naming a port city", build=typed("build")))
    site = own_site(state, seat, city)
    if site is None:
        region = REGION_OF[city]
        if region in regions_built(state, seat) or any(
            own_site(state, seat, other) for other in REGIONS[region] if other != city
        ):
            raise OrderError(M("you already build on a site in the {good} region", good=good_name(region)))
        if not any(ship["port"] == city for ship in ships_of(state, seat)):
            raise OrderError(M("the first factory in a region needs one of your ships in {city}", city=city_name(city)))
        site = next((site for site in state["sites"][city] if site["seat"] is None), None)
        if site is None:
            raise OrderError(M("both building sites in {city} are taken", city=city_name(city)))
    elif site["factories"] >= FACTORIES_PER_SITE:
        raise OrderError(
            Mn(
                "your site in {city} already holds {count} factory",
                "your site in {city} already holds {count} factories",
                FACTORIES_PER_SITE,
                city=city_name(city),
            )
        )
    spend(turn, state, 1, FACTORY_PRICE, Mp("ports_of_call action", "A factory"))
    site["seat"] = seat
    site["factories"] += 1
    built = M(
        "{seat} builds a factory in {city} ({number} on the site).",
        seat=name(seat),
        city=city_name(city),
        number=site["factories"],
    )
    events.append(Event(built))
    return f"build {city}"


def step_produce(state: State, turn: Turn, words: list[str], events: list[Event]) -> str:
    """produce <city> [bonus <good> <left|right|position>]"""
    seat = turn.seat
    bonus_words: list[str] = []
    if "bonus" in words:
        at = words.index("bonus")
        words, bonus_words = words[:at], words[at + 1 :]
    city = city_of(" ".join(words))
    if city is None:
        raise OrderError(
            M("write it as: {produce} <city>, naming a city where you have a factory", produce=typed("produce"))
        )
    site = own_site(state, seat, city)
    if site is None or site["factories"] == 0:
        raise OrderError(M("you have no factory in {city}", city=city_name(city)))
    if site["used"] >= site["factories"]:
        raise OrderError(M("every factory of yours in {city} has produced this year", city=city_name(city)))
    good = REGION_OF[city]
    limit = 2 if len(ships_of(state, seat, "large")) >= 2 else 1
    if turn.produced.get(good, 0) >= limit:
        raise OrderError(M("you may produce only {containers} this quarter", containers=containers(limit, good)))
    row = state["terminal"][good]
    if len(row) >= ROW_CAPACITY:
        raise OrderError(M("the {good} row of the Container Terminal is full", good=good_name(good)))
    spend(turn, state, 1, PRODUCE_PRICE, Mp("ports_of_call action", "Producing a container"))
    row.insert(0, seat)  # RULEBOOK: inserted from the left, pushing the row right; the price falls
    site["used"] += 1
    turn.produced[good] = turn.produced.get(good, 0) + 1
    state["produced"][seat] += 1
    produced = M(
        "{seat} produces a container of {good} in {city}.", seat=name(seat), good=good_name(good), city=city_name(city)
    )
    events.append(Event(produced))
    bonus = None
    if state["track"][seat] < TRACK_LENGTH:
        state["track"][seat] += 1
        bonus = TRACK_BONUSES.get(str(state["track"][seat]))
    if bonus_words and (bonus is None or bonus["kind"] != "container"):
        raise OrderError(M("this production does not land on the Container Bonus space of the Production Track"))
    # HOUSE DEFAULT: a container bonus with no choice written goes to the right end of the same row
    # (or the first row with room), where it is the next container bought.
    if not bonus_words:
        roomy = [g for g in (good, *GOODS) if len(state["terminal"][g]) < ROW_CAPACITY]
        bonus_words = [roomy[0], "right"] if roomy else []
    extra = _track_bonus(state, turn, bonus, bonus_words, events) if bonus else ""
    return f"produce {city}{extra}"


def _track_bonus(state: State, turn: Turn, bonus: dict[str, Any], words: list[str], events: list[Event]) -> str:
    seat, kind = turn.seat, bonus["kind"]
    where = M("{seat} reaches space {space} of the Production Track", seat=name(seat), space=state["track"][seat])
    if kind == "cash":
        state["cash"][seat] += bonus["amount"]
        events.append(Event(M("{where}: receives {amount}.", where=where, amount=money(bonus["amount"]))))
    elif kind == "stock":
        move_stock(state, seat, 1)
        events.append(Event(M("{where}: +1 step on the Stock Exchange.", where=where)))
    elif kind == "action":
        turn.ap += 1
        events.append(Event(M("{where}: +1 action point this turn.", where=where)))
    elif kind == "order":
        card = draw_order(state) if len(state["orders"][seat]) < MAX_ACTIVE_ORDERS else None
        if card is None:
            events.append(
                Event(
                    M(
                        "{where}: no order card ({most} active orders already, or none left).",
                        where=where,
                        most=MAX_ACTIVE_ORDERS,
                    )
                )
            )
        else:
            state["orders"][seat].append({"card": card, "delivered": []})
            events.append(Event(M("{where}: draws the order {card}.", where=where, card=order_label(card))))
    else:
        return _container_bonus(state, seat, words, where, events)
    return ""


def _container_bonus(state: State, seat: int, words: list[str], where: Msg, events: list[Event]) -> str:
    if not words:
        events.append(Event(M("{where}: every container row is full, so the container bonus is lost.", where=where)))
        return ""
    if len(words) != 2:
        raise OrderError(
            M(
                "the container bonus is written: {bonus} <good> <{left}|{right}|position>",
                bonus=typed("bonus"),
                left=typed("left"),
                right=typed("right"),
            )
        )
    good = good_of(words[0])
    if good is None:
        raise OrderError(no_good(words[0]))
    row = state["terminal"][good]
    if len(row) >= ROW_CAPACITY:
        raise OrderError(M("the {good} row is full; choose another good for the container bonus", good=good_name(good)))
    spot = {"left": 1, "right": len(row) + 1}.get(words[1])
    if spot is None:
        if not words[1].isdigit() or not 1 <= int(words[1]) <= len(row) + 1:
            raise OrderError(
                M("the bonus position is left, right or 1 to {last} counted from the left", last=len(row) + 1)
            )
        spot = int(words[1])
    row.insert(spot - 1, seat)
    placed = M(
        "{where}: places a {good} container at position {spot} from the left.",
        where=where,
        good=good_name(good),
        spot=spot,
    )
    events.append(Event(placed))
    return f" bonus {good} {spot}"


TRADE_STEPS = {
    "order": step_order,
    "buy": step_buy,
    "sell": step_sell,
    "build": step_build,
    "produce": step_produce,
}
