"""Money and markets, shared by the steps of a turn and the flow: cash and raising it (bankruptcy), the
stock exchange, the terminal's prices, the Order Market, what a seat owns, achievements; and how amounts,
goods, cities and seats are written.

Everything here mutates the state it is given; callers work on their own copy.
"""

from __future__ import annotations

from typing import Any

from games.engines.base import Event, M, Mp, Msg, State
from games.engines.ports_of_call.data import (
    ACHIEVEMENT_NAMES,
    CITIES,
    CITY_NAMES,
    FACTORY_PRICE,
    GAME_ACHIEVEMENTS,
    GOOD_NAMES,
    GOODS,
    MAINTENANCE,
    ORDER_CARDS,
    PRICES,
    REGION_OF,
    SHIP_PRICE,
    STOCK_MAX,
    STOCK_MIN,
    STOCK_STEP,
)

COLOURS = ("Red", "Blue", "Green", "Yellow")
# The companies' names (a seat's colour) in the reader's language, and the short mark that stands for one where a
# board has room for a letter or two (German Grün and Gelb share a first letter).
COMPANY_NAMES = (
    Mp("ports_of_call company", "Red"),
    Mp("ports_of_call company", "Blue"),
    Mp("ports_of_call company", "Green"),
    Mp("ports_of_call company", "Yellow"),
)
COMPANY_MARKS = (
    Mp("ports_of_call company mark", "R"),
    Mp("ports_of_call company mark", "B"),
    Mp("ports_of_call company mark", "G"),
    Mp("ports_of_call company mark", "Y"),
)
SIZE_NAMES = {"small": Mp("ports_of_call ship", "small"), "large": Mp("ports_of_call ship", "large")}


def name(seat: int) -> Msg:
    return COMPANY_NAMES[seat]


def money(amount: int) -> Msg:
    if amount < 0:
        return Mp("ports_of_call money", "-${amount}M", amount=-amount)
    return Mp("ports_of_call money", "${amount}M", amount=amount)


def good_name(good: str) -> Msg:
    return GOOD_NAMES[good]


def city_name(city: str) -> Msg:
    return CITY_NAMES[city]


def size_name(size: str) -> Msg:
    return SIZE_NAMES[size]


def order_label(card: int) -> Msg:
    city, first, second = ORDER_CARDS[card]
    return Mp(
        "ports_of_call order card",
        "{city} ({good} + {other})",
        city=city_name(city),
        good=good_name(first),
        other=good_name(second),
    )


# --- the container terminal ---------------------------------------------------------------------------


def price(state: State, good: str) -> int:
    """The market price: the value shown right of the rightmost container in the row."""
    return PRICES[len(state["terminal"][good])]


# --- the stock exchange ---------------------------------------------------------------------------------


def move_stock(state: State, seat: int, steps: int) -> int:
    """Move a seat `steps` spaces on the Stock Exchange (capped at the top); returns the steps made."""
    before = state["stock"][seat]
    state["stock"][seat] = min(STOCK_MAX, before + steps * STOCK_STEP)
    return (state["stock"][seat] - before) // STOCK_STEP


# --- fleet and factories --------------------------------------------------------------------------------


def ships_of(state: State, seat: int, size: str | None = None) -> list[dict[str, Any]]:
    return [ship for ship in state["ships"][seat] if size is None or ship["size"] == size]


def factories_of(state: State, seat: int) -> int:
    return sum(site["factories"] for sites in state["sites"].values() for site in sites if site["seat"] == seat)


def regions_built(state: State, seat: int) -> set[str]:
    return {
        REGION_OF[city]
        for city, sites in state["sites"].items()
        for site in sites
        if site["seat"] == seat and site["factories"]
    }


def maintenance(state: State, seat: int) -> int:
    return sum(MAINTENANCE[ship["size"]] for ship in state["ships"][seat])


# --- forced payments (news and annual accounts) ------------------------------------------------------


def raise_cash(state: State, seat: int, needed: int, events: list[Event]) -> bool:
    """Make forced moves until `seat` holds `needed`. Returns False when the seat is eliminated."""
    while state["cash"][seat] < needed:
        if not raise_once(state, seat, needed, events):
            return False
    return True


def raise_once(state: State, seat: int, needed: int, events: list[Event]) -> bool:
    """One forced move of a seat short of cash: sell shares ($100M a step); at the bottom of the exchange
    the seat is bankrupt, or under the no-elimination rule sells one factory or ship to the bank at its
    price. Returns False when the seat is eliminated."""
    if state["stock"][seat] > STOCK_MIN:
        state["stock"][seat] -= STOCK_STEP
        state["cash"][seat] += 100
        events.append(
            Event(
                M(
                    "{seat} must sell shares: down to {stock}, receives {amount}.",
                    seat=name(seat),
                    stock=state["stock"][seat],
                    amount=money(100),
                )
            )
        )
        return True
    if state["options"]["eliminate"]:
        eliminate(state, seat, events)
        return False
    if not _sell_an_asset(state, seat, events):
        # HOUSE DEFAULT: with nothing left to sell, the bank writes off the rest of the debt.
        events.append(Event(M("{seat} has nothing left to sell; the bank writes off the debt.", seat=name(seat))))
        state["cash"][seat] = max(state["cash"][seat], needed)
    return True


def _sell_an_asset(state: State, seat: int, events: list[Event]) -> bool:
    for city, sites in state["sites"].items():
        for site in sites:
            if site["seat"] == seat and site["factories"] > 0:
                site["factories"] -= 1
                site["used"] = min(site["used"], site["factories"])
                state["cash"][seat] += FACTORY_PRICE
                events.append(
                    Event(
                        M(
                            "{seat} sells a factory in {city} to the bank for {amount}.",
                            seat=name(seat),
                            city=city_name(city),
                            amount=money(FACTORY_PRICE),
                        )
                    )
                )
                return True
    for size in ("small", "large"):
        fleet = ships_of(state, seat, size)
        if fleet:
            state["ships"][seat].remove(fleet[-1])
            state["cash"][seat] += SHIP_PRICE[size]
            said = {"seat": name(seat), "ship": fleet[-1]["id"]}
            if size == "small":
                sold = M("{seat} sells small ship {ship} to the bank.", **said)
            else:
                sold = M("{seat} sells large ship {ship} to the bank.", **said)
            events.append(Event(sold))
            return True
    return False


def charge(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """An unexpected expense paid to the bank, raising cash by force when it runs short."""
    if raise_cash(state, seat, amount, events):
        state["cash"][seat] -= amount


def eliminate(state: State, seat: int, events: list[Event]) -> None:
    state["bankrupt"][seat] = True
    state["eliminated"].append(seat)
    state["ships"][seat] = []
    state["orders"][seat] = []
    state["cash"][seat] = 0
    events.append(Event(M("{seat} is bankrupt and leaves the game.", seat=name(seat))))


def active_seats(state: State) -> list[int]:
    return [seat for seat in range(state["players"]) if not state["bankrupt"][seat]]


# --- order cards --------------------------------------------------------------------------------------


def draw_order(state: State) -> int | None:
    """The top card of the order deck, reshuffling the discards in when it runs out (HOUSE DEFAULT:
    the discard pile is turned over in its order, so no randomness is needed mid-turn)."""
    if not state["order_deck"]:
        state["order_deck"], state["order_discard"] = state["order_discard"], []
    return state["order_deck"].pop(0) if state["order_deck"] else None


def refill_market(state: State) -> None:
    while len(state["market"]) < 4:
        card = draw_order(state)
        if card is None:
            return
        state["market"].append(card)


def refresh_market(state: State) -> None:
    state["order_discard"].extend(state["market"])
    state["market"] = []
    refill_market(state)


# --- achievements -------------------------------------------------------------------------------------


def _meets(state: State, seat: int, card: str) -> bool:
    if card == "five-ships":
        return len(state["ships"][seat]) >= 5
    if card == "three-regions":
        return len(regions_built(state, seat)) >= 3
    if card == "five-produced":
        return state["produced"][seat] >= 5
    if card == "three-orders":
        return len(state["completed"][seat]) >= 3
    if card == "stock-150":
        return state["stock"][seat] >= 150
    return False


def claim_achievements(state: State, events: list[Event], first: int | None = None) -> None:
    """Red cards go to whoever meets them first, even off-turn; `first` is checked before the others
    (the seat whose action just ran), the rest in turn order from the start marker."""
    seats = active_seats(state)
    start = state["start"] if first is None else first
    seats.sort(key=lambda seat: (seat - start) % state["players"])
    for card in list(state["achievements"]):
        if card not in GAME_ACHIEVEMENTS:
            continue
        for seat in seats:
            if _meets(state, seat, card):
                state["achievements"].remove(card)
                state["claimed"][seat].append(card)
                events.append(
                    Event(
                        M(
                            "{seat} claims the achievement: {achievement}.",
                            seat=name(seat),
                            achievement=ACHIEVEMENT_NAMES[card],
                        )
                    )
                )
                break


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalpha())


# Each city by its letters, lower case ("new york", "NewYork" and "new-york" are New York); the first city of
# CITIES where two would share them (hence reversed). Made once: every step a bot tries reads a city.
CITY_LETTERS = {_letters(city): city for city in reversed(CITIES)}


def city_of(text: str) -> str | None:
    return CITY_LETTERS.get(_letters(text))


GOOD_WORDS = {
    **{good: good for good in GOODS},
    "turbine": "turbines",
    "wind": "turbines",
    "windturbines": "turbines",
    "windturbine": "turbines",
    "electronic": "electronics",
}


def good_of(text: str) -> str | None:
    return GOOD_WORDS.get("".join(ch for ch in text.lower() if ch.isalpha()))
