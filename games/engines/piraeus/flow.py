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

from games.engines.base import Event, Order, State
from games.engines.piraeus.data import (
    DAYS,
    DEAL_ROUNDS,
    GOODS,
    GREEK_CARDS_PER_DAY,
    GREEKS,
    MAX_PRICE,
    MIN_PRICE,
    card_label,
    country_of,
    good_index,
    good_of,
    join_names,
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


def _price_event(before: list[int], after: list[int], which: str) -> Event:
    moves = [f"{good} {old}→{new}" for good, old, new in zip(GOODS, before, after, strict=True) if old != new]
    text = f"{which} price change: " + (", ".join(moves) if moves else "no price moves") + "."
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
        offer = join_names([good_of(card) for card in drawn])
        text = f"Day {state['day']} begins. The Greeks offer {offer}."
    else:
        text = f"Day {state['day']} begins. The Greek deck has run out: the Greeks offer nothing today."
    events.append(Event(text, data={"kind": "day", "day": state["day"], "greek_row": drawn}))


def resolve_plan(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    state["roles"] = [orders[seat]["role"] for seat in range(len(state["countries"]))]
    sellers = seats_with_role(state, "seller")
    buyers = seats_with_role(state, "buyer")
    names = state["countries"]
    events.append(
        Event(
            f"Tokens revealed. Sellers: {join_names([names[s] for s in sellers])}. "
            f"Buyers: {join_names([names[s] for s in buyers])}.",
            data={"kind": "roles", "roles": state["roles"]},
        )
    )
    before = state["prices"]
    state["prices"] = first_price_change(before, state["greek_row"], len(sellers), len(buyers))
    events.append(_price_event(before, state["prices"], "First"))
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
    parts: list[str] = []
    for seat in sellers:
        goods = orders.get(seat, {}).get("cards", [])
        cards = [f"{good}/{names[seat]}" for good in goods]
        for card in cards:
            state["hands"][seat].remove(card)
        offered.extend(cards)
        parts.append(f"{names[seat]}: {join_names(goods) if goods else 'nothing'}")
    state["foreign_row"] = offered
    events.append(
        Event(
            "Goods for sale revealed: " + "; ".join(parts) + ".",
            data={"kind": "sale", "foreign_row": offered},
        )
    )
    before = state["prices"]
    state["prices"] = second_price_change(before, offered, len(sellers))
    events.append(_price_event(before, state["prices"], "Second"))
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
    if owner_country == GREEKS:
        to = "the reserve"
    else:
        state["cash"][seat_of_country(state, owner_country)] += paid
        to = f"the {owner_country}"
    events.append(
        Event(
            f"{buyer} bought {card_label(card)} for {paid}, paid to {to}.",
            data={"kind": "purchase", "seat": seat, "card": card, "price": paid},
        )
    )


def resolve_deal(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    names = state["countries"]
    slots = dict(market_slots(state))
    picks: dict[str, list[int]] = {}
    parts: list[str] = []
    for seat in state["asked"]:
        slot = orders.get(seat, {}).get("card", "none")
        if slot in slots:
            picks.setdefault(slot, []).append(seat)
            parts.append(f"{names[seat]} chose {card_label(slots[slot])}")
        else:
            parts.append(f"{names[seat]} kept the token")
    events.append(
        Event(
            f"Deals, round {state['round']}: " + "; ".join(parts) + ".",
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
            events.append(
                Event(
                    f"{join_names([names[s] for s in seats])} {'both' if len(seats) == 2 else 'all'} "
                    f"want {card_label(card)}: they bid for it.",
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
        parts: list[str] = []
        for seat in contest["seats"]:
            bid = orders.get(seat, {}).get("bid") or 0
            if bid <= 0:
                parts.append(f"{names[seat]} withdrew")
            else:
                bids[seat] = int(bid)
                parts.append(f"{names[seat]} {bids[seat]}")
        top = max(bids.values(), default=None)
        winners = [seat for seat, bid in bids.items() if bid == top]
        verdict = ""
        if top is None:
            verdict = " Nobody buys it; the tokens go back."
        elif len(winners) > 1:
            verdict = " Equal top bids: nobody buys it; the tokens go back."
        events.append(
            Event(
                f"Bids for {card_label(card)}: " + ", ".join(parts) + "." + verdict,
                data={"kind": "bids", "card": card, "bids": {str(s): b for s, b in bids.items()}},
            )
        )
        if top is not None and len(winners) == 1:
            buy(state, winners[0], contest["row"], card, top, events)
    start_deal_round(state, state["round"] + 1, events)


def end_day(state: State, events: list[Event]) -> None:
    names = state["countries"]
    earnings: dict[int, list[str]] = {}
    for card in state["foreign_row"]:
        seat = seat_of_country(state, country_of(card))
        price = price_of(state, card)
        state["cash"][seat] += price
        earnings.setdefault(seat, []).append(f"{good_of(card)} for {price}")
    for seat, sold in sorted(earnings.items()):
        events.append(
            Event(
                f"End of day {state['day']}: the locals buy the unsold {join_names(sold)} from the {names[seat]}.",
                data={"kind": "locals", "seat": seat},
            )
        )
    if state["greek_row"]:
        returned = join_names([good_of(card) for card in state["greek_row"]])
        events.append(
            Event(
                f"Unsold Greek goods go back under the Greek deck: {returned}.",
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
        events.append(Event(f"Day {DAYS} is over: the merchants sail home to sell their goods."))
        return
    state["day"] += 1
    start_day(state, events)
