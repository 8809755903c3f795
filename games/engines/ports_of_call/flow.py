"""The game's automatic steps: setup, home cities, turn order, end of quarter (news), end of year
(annual accounts) and the end of the game; and the decisions' handlers, which apply an order and go on."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Event, M, Mn, Mp, Msg, Order, State
from games.engines.kit import only
from games.engines.ports_of_call.data import (
    ACHIEVEMENT_NAMES,
    CITIES,
    DEALT_ORDERS,
    END_ACHIEVEMENTS,
    GAME_ACHIEVEMENTS,
    GOODS,
    LASTING_NEWS,
    MAX_HOMES_PER_REGION,
    NEWS,
    ORDER_CARDS,
    REGION_OF,
    ROW_CAPACITY,
    SITES_PER_CITY,
    START_CONTAINERS,
    STOCK_START,
    STOCK_STEP,
)
from games.engines.ports_of_call.money import (
    active_seats,
    charge,
    city_name,
    claim_achievements,
    factories_of,
    maintenance,
    money,
    move_stock,
    name,
    order_label,
    raise_once,
    refill_market,
    refresh_market,
)
from games.engines.ports_of_call.turn import run_turn

QUARTERS = 4


def new_state(players: int, options: dict[str, Any], rng: random.Random) -> State:
    order_deck = list(range(len(ORDER_CARDS)))
    rng.shuffle(order_deck)
    # RULEBOOK: news cards 1-16 open the deck (1-12 for 3 years, 1-20 for 5), in order or shuffled.
    first = [card["number"] for card in NEWS[: QUARTERS * options["years"]]]
    rest = [card["number"] for card in NEWS[QUARTERS * options["years"] :]]
    if options["news_order"] == "shuffled":
        rng.shuffle(first)
    rng.shuffle(rest)
    red = list(GAME_ACHIEVEMENTS)
    rng.shuffle(red)
    state: State = {
        "players": players,
        "options": {k: options[k] for k in ("years", "forecast", "eliminate")},
        "year": 1,
        "quarter": 1,
        "step": "home",
        "start": 0,  # HOUSE DEFAULT: the first seat holds the start marker
        "queue": [],
        "finished": False,
        "cash": [options["start_cash"]] * players,
        "stock": [STOCK_START] * players,
        "track": [0] * players,
        "produced": [0] * players,
        "ships": [[] for _ in range(players)],
        "home": [None] * players,
        "sites": {city: [{"seat": None, "factories": 0, "used": 0} for _ in range(SITES_PER_CITY)] for city in CITIES},
        "terminal": {good: [None] * START_CONTAINERS for good in GOODS},
        "order_deck": order_deck,
        "order_discard": [],
        "market": [],
        "dealt": [[] for _ in range(players)],
        "kept": [None] * players,
        "orders": [[] for _ in range(players)],
        "completed": [[] for _ in range(players)],
        "achievements": END_ACHIEVEMENTS + tuple(red[:players]),
        "claimed": [[] for _ in range(players)],
        "news_deck": first + rest,
        "news_shown": [],
        "closures": {"ports": [], "canals": [], "weather": []},
        "bankrupt": [False] * players,
        "eliminated": [],
        "tied_awards": [[] for _ in range(players)],
    }
    state["achievements"] = list(state["achievements"])
    refill_market(state)
    for seat in range(players):
        state["dealt"][seat] = [state["order_deck"].pop(0) for _ in range(DEALT_ORDERS)]
    state["queue"] = list(range(players))
    return state


def home_choices(state: State) -> list[str]:
    """Free home cities: not taken, and at most two homes per production region."""
    taken = [home for home in state["home"] if home]
    regions = [REGION_OF[home] for home in taken]
    return [c for c in CITIES if c not in taken and regions.count(REGION_OF[c]) < MAX_HOMES_PER_REGION]


def choose_home(state: State, seat: int, city: str, keep: int, events: list[Event]) -> None:
    state["home"][seat] = city
    good = REGION_OF[city]
    home, reserved = state["sites"][city]
    home.update(seat=seat, factories=1)
    reserved.update(seat=seat)  # the large marker: nobody else may build on it
    state["ships"][seat] = [
        {"id": "S1", "size": "small", "cargo": [good], "port": city, "route": None, "pos": 0},
        {"id": "L1", "size": "large", "cargo": [good, good], "port": city, "route": None, "pos": 0},
    ]
    state["kept"][seat] = keep
    state["order_discard"].extend(card for card in state["dealt"][seat] if card != keep)
    state["dealt"][seat] = []
    events.append(
        Event(
            M(
                "{seat} chooses {city} as home city and keeps one order card secret.",
                seat=name(seat),
                city=city_name(city),
            )
        )
    )
    events.append(Event(M("You keep the order {card}.", card=order_label(keep)), seat=seat))
    state["queue"].pop(0)
    if state["queue"]:
        return
    for other in range(state["players"]):
        card = state["kept"][other]
        state["orders"][other].append({"card": card, "delivered": []})
        events.append(Event(M("{seat} reveals the starting order {card}.", seat=name(other), card=order_label(card))))
    state["kept"] = [None] * state["players"]
    state["step"] = "turn"
    claim_achievements(state, events)
    start_quarter(state)


def start_quarter(state: State) -> None:
    seats = active_seats(state)
    seats.sort(key=lambda seat: (seat - state["start"]) % state["players"])
    state["queue"] = seats
    if not seats:
        state["step"], state["finished"] = "over", True


def after_turn(state: State, events: list[Event]) -> None:
    state["queue"].pop(0)
    if not state["queue"]:
        end_quarter(state, events)


# --- end of the quarter: news ------------------------------------------------------------------------


def end_quarter(state: State, events: list[Event]) -> None:
    state["closures"] = {"ports": [], "canals": [], "weather": []}  # last quarter's closures end now
    number = state["news_deck"].pop(0)
    state["news_deck"].append(number)  # RULEBOOK: used news cards go to the bottom of the deck
    card = NEWS[number - 1]
    state["news_shown"].append(number)
    events.append(
        Event(M("News {number}: {title}.", number=number, title=card["title"]), data={"kind": "news", "number": number})
    )
    apply_news(state, card, events)
    claim_achievements(state, events)
    if state["quarter"] < QUARTERS:
        state["quarter"] += 1
        start_quarter(state)
        return
    annual_accounts(state, events)
    claim_achievements(state, events)
    if state["year"] >= state["options"]["years"]:
        end_game(state, events)
        return
    for sites in state["sites"].values():
        for site in sites:
            site["used"] = 0
    refresh_market(state)
    state["year"] += 1
    state["quarter"] = 1
    seats = active_seats(state)
    if seats:
        # RULEBOOK: the start marker passes left (HOUSE DEFAULT: skipping bankrupt seats).
        state["start"] = min(seats, key=lambda seat: (seat - state["start"] - 1) % state["players"])
    start_quarter(state)


def apply_news(state: State, card: dict[str, Any], events: list[Event]) -> None:
    kind = card["kind"]
    seats = active_seats(state)
    if kind in LASTING_NEWS:
        key, value = {
            "close-port": ("ports", "city"),
            "close-canal": ("canals", "canal"),
            "weather": ("weather", "ocean"),
        }[kind]
        state["closures"][key].append(card[value])
        return
    if kind == "refresh-market":
        refresh_market(state)
        return
    if kind == "terminal":
        row = state["terminal"][card["good"]]
        if card["delta"] > 0:
            row.extend([None] * min(card["delta"], ROW_CAPACITY - len(row)))  # added at the right end
        else:
            del row[max(0, len(row) + card["delta"]) :]  # removed from the right end
        return
    if kind.startswith("stock"):
        _stock_news(state, card, seats, events)
        return
    for seat in seats:
        units = {
            "cash-all": 1,
            "cash-per-ship": len(state["ships"][seat]),
            "cash-per-factory": factories_of(state, seat),
        }
        amount = card["amount"] * units[kind]
        if amount >= 0:
            state["cash"][seat] += amount
        else:
            charge(state, seat, -amount, events)
        if amount > 0:
            events.append(Event(M("{seat} receives {amount}.", seat=name(seat), amount=money(amount))))
        elif amount < 0:
            events.append(Event(M("{seat} pays {amount}.", seat=name(seat), amount=money(-amount))))


def _stock_news(state: State, card: dict[str, Any], seats: list[int], events: list[Event]) -> None:
    if not seats:
        return
    if card["kind"] == "stock-all":
        winners = seats
    elif card["kind"] == "stock-least":
        low = min(state["stock"][seat] for seat in seats)
        winners = [seat for seat in seats if state["stock"][seat] == low]
    else:
        measure = {
            "ships": lambda seat: len(state["ships"][seat]),
            "factories": lambda seat: factories_of(state, seat),
            "cash": lambda seat: state["cash"][seat],
        }[card["what"]]
        top = max(measure(seat) for seat in seats)
        winners = [seat for seat in seats if measure(seat) == top]  # HOUSE DEFAULT: ties all advance
    for seat in winners:
        move_stock(state, seat, 1)
        events.append(
            Event(M("{seat} advances to {stock} on the Stock Exchange.", seat=name(seat), stock=state["stock"][seat]))
        )


# --- end of the year: annual accounts ----------------------------------------------------------------


def annual_result(state: State, seat: int) -> int:
    """RULEBOOK: Stock Exchange value x $1M - ship maintenance ($30M small, $100M large)."""
    return state["stock"][seat] - maintenance(state, seat)


def annual_accounts(state: State, events: list[Event]) -> None:
    for seat in active_seats(state):
        # RULEBOOK: a player who cannot pay moves down a space for $100M and the result is recalculated
        # at the lower value; at 60 they are bankrupt (or, by option, sell assets to the bank one at a
        # time, the result recalculated after each sale since a sold ship costs no maintenance).
        while True:
            result = annual_result(state, seat)
            if result >= 0 or state["cash"][seat] >= -result:
                break
            if not raise_once(state, seat, -result, events):
                break
        if state["bankrupt"][seat]:
            continue
        result = annual_result(state, seat)
        state["cash"][seat] = max(0, state["cash"][seat] + result)
        said = {"seat": name(seat), "amount": money(abs(result))}
        if result >= 0:
            events.append(Event(M("Annual accounts: {seat} receives {amount}.", **said)))
        else:
            events.append(Event(M("Annual accounts: {seat} pays {amount}.", **said)))


# --- the end of the game -----------------------------------------------------------------------------


def end_game(state: State, events: list[Event]) -> None:
    seats = active_seats(state)
    for seat in seats:
        open_orders = len(state["orders"][seat])
        if open_orders:
            # HOUSE DEFAULT: the final count may go below 60 without bankruptcy.
            state["stock"][seat] -= STOCK_STEP * open_orders
            lost = Mn(
                "{seat} loses {count} step for orders not completed.",
                "{seat} loses {count} steps for orders not completed.",
                open_orders,
                seat=name(seat),
            )
            events.append(Event(lost))
    measures = {
        "most-orders": lambda seat: len(state["completed"][seat]),
        "most-factories": lambda seat: factories_of(state, seat),
        "most-cash": lambda seat: state["cash"][seat],
    }
    for card in [card for card in state["achievements"] if card in END_ACHIEVEMENTS]:
        if not seats:
            break
        top = max(measures[card](seat) for seat in seats)
        if top <= 0:
            continue  # HOUSE DEFAULT: nobody earns "most" of nothing
        winners = [seat for seat in seats if measures[card](seat) == top]
        state["achievements"].remove(card)
        if len(winners) == 1:
            state["claimed"][winners[0]].append(card)
            alone = M(
                "{seat} earns the end-game achievement {achievement}.",
                seat=name(winners[0]),
                achievement=ACHIEVEMENT_NAMES[card],
            )
            events.append(Event(alone))
            continue
        for seat in winners:  # RULEBOOK: tied players each move up 1 space and the card is discarded
            move_stock(state, seat, 1)
            state["tied_awards"][seat].append(card)
            shared = M(
                "{seat} shares the end-game achievement {achievement}: +1 step.",
                seat=name(seat),
                achievement=ACHIEVEMENT_NAMES[card],
            )
            events.append(Event(shared))
    for seat in seats:
        earned = len(state["claimed"][seat])
        if earned:
            move_stock(state, seat, earned)
            moved = Mn(
                "{seat} moves up {count} step for achievement cards.",
                "{seat} moves up {count} steps for achievement cards.",
                earned,
                seat=name(seat),
            )
            events.append(Event(moved))
    state["step"], state["finished"], state["queue"] = "over", True, []


def standings_rows(state: State) -> list[dict[str, Any]]:
    """RULEBOOK ranking: share value, then ships, factories, achievement cards, cash; still tied: shared.
    Bankrupt seats rank below everyone, the last eliminated highest among them."""
    rows: list[dict[str, Any]] = []
    for seat in range(state["players"]):
        out = state["bankrupt"][seat]
        key = (
            0 if out else 1,
            state["eliminated"].index(seat) if out else 0,
            state["stock"][seat],
            len(state["ships"][seat]),
            factories_of(state, seat),
            len(state["claimed"][seat]),
            state["cash"][seat],
        )
        # A bankrupt company is worth nothing: its last share value would list it above the winner.
        rows.append({"seat": seat, "key": key, "score": 0 if out else state["stock"][seat]})
    rows.sort(key=lambda row: (tuple(-value for value in row["key"]), row["seat"]))
    for place, row in enumerate(rows, start=1):
        row["rank"] = rows[place - 2]["rank"] if place > 1 and rows[place - 2]["key"] == row["key"] else place
        _, _, stock, ships, factories, cards, cash = row["key"]
        row["detail"] = bankrupt() if state["bankrupt"][row["seat"]] else _detail(stock, ships, factories, cards, cash)
    return rows


def bankrupt() -> Msg:
    return Mp("ports_of_call company", "bankrupt")


def _detail(stock: int, ships: int, factories: int, cards: int, cash: int) -> Msg:
    """A final standing's detail: 'share value 140, 3 ships, 2 factories, 1 achievement, $320M'."""
    return M(
        "share value {stock}, {ships}, {factories}, {cards}, {cash}",
        stock=stock,
        ships=Mn("{count} ship", "{count} ships", ships),
        factories=Mn("{count} factory", "{count} factories", factories),
        cards=Mn("{count} achievement", "{count} achievements", cards),
        cash=money(cash),
    )


# --- the decisions' handlers ---------------------------------------------------------------------------


def resolve_home(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    choose_home(state, seat, order["home"], int(order["keep"]), events)


def resolve_turn(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    run_turn(state, seat, order.get("actions", ""), events)
    if not order["actions"]:
        events.append(Event(M("{seat} takes no actions this quarter.", seat=name(seat))))
    after_turn(state, events)
