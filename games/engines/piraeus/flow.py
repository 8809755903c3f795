"""How a trading day moves on: the automatic steps between decisions.

Every function changes the (already copied) state in place and appends to `events`. A function that
ends a step goes on through the automatic steps after it (price changes, end of day, next morning)
until some seat owes a decision or the game is over, so the engine always hands back a waiting state.
The resolve_* functions are the steps' handlers (kit.Handler); the day draws nothing at random after
setup, so they leave `rng` alone.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.engines.base import Event, M, Mp, Order, State, joined
from games.engines.piraeus.data import (
    DAYS,
    DEAL_ROUNDS,
    GOODS,
    GREEK_CARDS_PER_DAY,
    GREEKS,
    MAX_PRICE,
    MIN_PRICE,
    card_label,
    country_name,
    country_of,
    good_index,
    good_name,
    good_of,
    join_countries,
    join_goods,
    sort_cards,
)

ROWS = {"G": "greek_row", "F": "foreign_row"}


def clamp_price(price: int) -> int:
    return max(MIN_PRICE, min(MAX_PRICE, price))


def price_of(state: State, card: str) -> int:
    return int(state["prices"][good_index(good_of(card))])


def seat_of_country(state: State, country: str) -> int:
    return int(state["countries"].index(country))


def seats_with_role(state: State, role: str) -> list[int]:
    return [seat for seat, chosen in enumerate(state["roles"]) if chosen == role]


def contest_of(state: State, seat: int) -> dict[str, Any]:
    """The contest for a card that `seat` bids in."""
    return next(contest for contest in state["contests"] if seat in contest["seats"])


def market_slots(state: State) -> list[tuple[str, str]]:
    """(slot, card) for every card on offer: "G1".. in the Greek row, "F1".. in the foreign row."""
    slots: list[tuple[str, str]] = []
    for letter, row in ROWS.items():
        slots.extend((f"{letter}{number}", card) for number, card in enumerate(state[row], start=1))
    return slots


def can_afford_anything(state: State, seat: int) -> bool:
    cash = state["cash"][seat]
    return any(price_of(state, card) <= cash for _, card in market_slots(state))


# --- price changes -------------------------------------------------------------------------------


def first_price_change(prices: list[int], greek_row: list[str], sellers: int, buyers: int) -> list[int]:
    """Rule 2: Greek-represented goods move by their card count, up if buyers outnumber sellers,
    down if sellers outnumber buyers; when equal they rise and every good not on offer falls by 1."""
    offered = Counter(good_of(card) for card in greek_row)
    changed = []
    for number, good in enumerate(GOODS):
        cards = offered[good]
        if sellers < buyers:
            delta = cards
        elif sellers > buyers:
            delta = -cards
        else:
            delta = cards if cards else -1
        changed.append(clamp_price(prices[number] + delta))
    return changed


def second_price_change(prices: list[int], for_sale: list[str], sellers: int) -> list[int]:
    """Rule 3: each good for sale falls by 1 per card; each good not for sale rises by 1 per seller."""
    offered = Counter(good_of(card) for card in for_sale)
    return [
        clamp_price(prices[number] - offered[good] if offered[good] else prices[number] + sellers)
        for number, good in enumerate(GOODS)
    ]


def _price_event(before: list[int], after: list[int], first: bool) -> Event:
    moves = [
        Mp("piraeus price", "{good} {old}→{new}", good=good_name(good), old=old, new=new)
        for good, old, new in zip(GOODS, before, after, strict=True)
        if old != new
    ]
    moved = joined(moves, ",") if moves else Mp("piraeus", "no price moves")
    text = M("First price change: {moves}.", moves=moved) if first else M("Second price change: {moves}.", moves=moved)
    return Event(text, data={"kind": "prices", "before": before, "after": after})


# --- the day ---------------------------------------------------------------------------------------


def start_day(state: State, events: list[Event]) -> None:
    drawn = state["greek_deck"][:GREEK_CARDS_PER_DAY]
    state["greek_deck"] = state["greek_deck"][GREEK_CARDS_PER_DAY:]
    state["greek_row"] = drawn
    state["roles"] = [None] * len(state["countries"])
    state["step"] = "plan"
    state["round"] = 0
    state["contests"] = []
    state["asked"] = list(range(len(state["countries"])))
    if drawn:
        offer = join_goods([good_of(card) for card in drawn])
        text = M("Day {day} begins. The Greeks offer {goods}.", day=state["day"], goods=offer)
    else:
        text = M("Day {day} begins. The Greek deck has run out: the Greeks offer nothing today.", day=state["day"])
    events.append(Event(text, data={"kind": "day", "day": state["day"], "greek_row": drawn}))


def resolve_plan(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    state["roles"] = [orders[seat]["role"] for seat in range(len(state["countries"]))]
    sellers = seats_with_role(state, "seller")
    buyers = seats_with_role(state, "buyer")
    names = state["countries"]
    events.append(
        Event(
            M(
                "Tokens revealed. Sellers: {sellers}. Buyers: {buyers}.",
                sellers=join_countries([names[s] for s in sellers]),
                buyers=join_countries([names[s] for s in buyers]),
            ),
            data={"kind": "roles", "roles": state["roles"]},
        )
    )
    before = state["prices"]
    state["prices"] = first_price_change(before, state["greek_row"], len(sellers), len(buyers))
    events.append(_price_event(before, state["prices"], first=True))
    advance_to_sale(state, rng, events)


def advance_to_sale(state: State, rng: random.Random, events: list[Event]) -> None:
    sellers = seats_with_role(state, "seller")
    if not sellers:
        # With no sellers the second price change moves nothing (no cards, +0 per seller): skip it.
        start_deal_round(state, 1, events)
        return
    state["step"] = "sale"
    state["asked"] = [seat for seat in sellers if state["hands"][seat]]
    if not state["asked"]:
        resolve_sale(state, {}, rng, events)


def resolve_sale(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    names = state["countries"]
    sellers = seats_with_role(state, "seller")
    offered: list[str] = []
    parts: list[Any] = []
    for seat in sellers:
        goods = orders.get(seat, {}).get("cards", [])
        cards = [f"{good}/{names[seat]}" for good in goods]
        for card in cards:
            state["hands"][seat].remove(card)
        offered.extend(cards)
        sold = join_goods(goods) if goods else Mp("piraeus", "nothing")
        parts.append(Mp("piraeus sale", "{people}: {goods}", people=country_name(names[seat]), goods=sold))
    state["foreign_row"] = offered
    events.append(
        Event(
            M("Goods for sale revealed: {sales}.", sales=joined(parts, ";")),
            data={"kind": "sale", "foreign_row": offered},
        )
    )
    before = state["prices"]
    state["prices"] = second_price_change(before, offered, len(sellers))
    events.append(_price_event(before, state["prices"], first=False))
    start_deal_round(state, 1, events)


def start_deal_round(state: State, deal_round: int, events: list[Event]) -> None:
    state["contests"] = []
    state["round"] = deal_round
    asked = (
        [seat for seat in seats_with_role(state, "buyer") if can_afford_anything(state, seat)]
        if deal_round <= DEAL_ROUNDS
        else []
    )
    if not asked:
        # Nobody can pay for anything left, and cash and prices stay put until the evening: end the day.
        end_day(state, events)
        return
    state["step"] = "deal"
    state["asked"] = asked


def buy(state: State, seat: int, row: str, card: str, paid: int, events: list[Event]) -> None:
    state[ROWS[row]].remove(card)
    state["collected"][seat] = sort_cards([*state["collected"][seat], card])
    state["cash"][seat] -= paid
    owner_country = country_of(card)
    buyer = state["countries"][seat]
    said = {"buyer": country_name(buyer), "card": card_label(card), "price": paid}
    if owner_country == GREEKS:
        text = M("{buyer} bought {card} for {price}, paid to the reserve.", **said)
    else:
        state["cash"][seat_of_country(state, owner_country)] += paid
        text = M("{buyer} bought {card} for {price}, paid to the {owner}.", owner=country_name(owner_country), **said)
    events.append(
        Event(
            text,
            data={"kind": "purchase", "seat": seat, "card": card, "price": paid},
        )
    )


def resolve_deal(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    names = state["countries"]
    slots = dict(market_slots(state))
    picks: dict[str, list[int]] = {}
    parts: list[Any] = []
    for seat in state["asked"]:
        slot = orders.get(seat, {}).get("card", "none")
        if slot in slots:
            picks.setdefault(slot, []).append(seat)
            parts.append(
                Mp(
                    "piraeus deal",
                    "{people} chose {card}",
                    people=country_name(names[seat]),
                    card=card_label(slots[slot]),
                )
            )
        else:
            parts.append(Mp("piraeus deal", "{people} kept the token", people=country_name(names[seat])))
    events.append(
        Event(
            M("Deals, round {round}: {choices}.", round=state["round"], choices=joined(parts, ";")),
            data={"kind": "tokens", "round": state["round"], "picks": picks},
        )
    )
    contests: list[dict[str, Any]] = []
    for slot, seats in picks.items():
        card = slots[slot]
        if len(seats) == 1:
            buy(state, seats[0], slot[0], card, price_of(state, card), events)
        else:
            contests.append({"row": slot[0], "card": card, "seats": seats})
            rivals = {"people": join_countries([names[s] for s in seats]), "card": card_label(card)}
            events.append(
                Event(
                    M("{people} both want {card}: they bid for it.", **rivals)
                    if len(seats) == 2
                    else M("{people} all want {card}: they bid for it.", **rivals),
                    data={"kind": "contest", "card": card, "seats": seats},
                )
            )
    if contests:
        state["step"] = "bid"
        state["contests"] = contests
        state["asked"] = [seat for contest in contests for seat in contest["seats"]]
    else:
        start_deal_round(state, state["round"] + 1, events)


def resolve_bids(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    names = state["countries"]
    for contest in state["contests"]:
        card = contest["card"]
        bids: dict[int, int] = {}
        parts: list[Any] = []
        for seat in contest["seats"]:
            bid = orders.get(seat, {}).get("bid") or 0
            people = country_name(names[seat])
            if bid <= 0:
                parts.append(Mp("piraeus bid", "{people} withdrew", people=people))
            else:
                bids[seat] = int(bid)
                parts.append(Mp("piraeus bid", "{people} {bid}", people=people, bid=bids[seat]))
        top = max(bids.values(), default=None)
        winners = [seat for seat, bid in bids.items() if bid == top]
        said = {"card": card_label(card), "bids": joined(parts, ",")}
        if top is None:
            text = M("Bids for {card}: {bids}. Nobody buys it; the tokens go back.", **said)
        elif len(winners) > 1:
            text = M("Bids for {card}: {bids}. Equal top bids: nobody buys it; the tokens go back.", **said)
        else:
            text = M("Bids for {card}: {bids}.", **said)
        events.append(
            Event(
                text,
                data={"kind": "bids", "card": card, "bids": {str(s): b for s, b in bids.items()}},
            )
        )
        if top is not None and len(winners) == 1:
            buy(state, winners[0], contest["row"], card, top, events)
    start_deal_round(state, state["round"] + 1, events)


def end_day(state: State, events: list[Event]) -> None:
    names = state["countries"]
    earnings: dict[int, list[Any]] = {}
    for card in state["foreign_row"]:
        seat = seat_of_country(state, country_of(card))
        price = price_of(state, card)
        state["cash"][seat] += price
        earnings.setdefault(seat, []).append(
            Mp("piraeus", "{good} for {price}", good=good_name(good_of(card)), price=price)
        )
    for seat, sold in sorted(earnings.items()):
        events.append(
            Event(
                M(
                    "End of day {day}: the locals buy the unsold {goods} from the {people}.",
                    day=state["day"],
                    goods=joined(sold),
                    people=country_name(names[seat]),
                ),
                data={"kind": "locals", "seat": seat},
            )
        )
    if state["greek_row"]:
        returned = join_goods([good_of(card) for card in state["greek_row"]])
        events.append(
            Event(
                M("Unsold Greek goods go back under the Greek deck: {goods}.", goods=returned),
                data={"kind": "warehouse", "cards": state["greek_row"]},
            )
        )
    state["greek_deck"] = state["greek_deck"] + state["greek_row"]
    state["greek_row"] = []
    state["foreign_row"] = []
    state["contests"] = []
    if state["day"] >= DAYS:
        state["step"] = "over"
        state["asked"] = []
        state["finished"] = True
        events.append(Event(M("Day {days} is over: the merchants sail home to sell their goods.", days=DAYS)))
        return
    state["day"] += 1
    start_day(state, events)
