"""Random legal orders for bots, the demo and the tests (the defaults of a missed deadline are in the
decisions table)."""

from __future__ import annotations

import random

from games.engines.base import Order, State
from games.engines.piraeus.data import GOODS, good_of
from games.engines.piraeus.flow import contest_of, market_slots, price_of
from games.engines.piraeus.orders import WITHDRAW


def random_plan(state: State, seat: int, rng: random.Random) -> Order:
    selling = bool(state["hands"][seat]) and rng.random() < 0.45
    return {"role": "seller" if selling else "buyer"}


def random_sale(state: State, seat: int, rng: random.Random) -> Order:
    hand = state["hands"][seat]
    count = min(len(hand), rng.choice((0, 1, 1, 2, 2)))
    return {"cards": sorted((good_of(card) for card in rng.sample(hand, count)), key=GOODS.index)}


def random_deal(state: State, seat: int, rng: random.Random) -> Order:
    cash = state["cash"][seat]
    affordable = [slot for slot, card in market_slots(state) if price_of(state, card) <= cash]
    if affordable and rng.random() < 0.75:
        return {"card": rng.choice(affordable)}
    return {"card": "none"}


def random_bid(state: State, seat: int, rng: random.Random) -> Order:
    price = price_of(state, contest_of(state, seat)["card"])
    cash = state["cash"][seat]
    if rng.random() < 0.2:
        return {"bid": WITHDRAW}
    return {"bid": rng.randint(price, min(cash, price + rng.randint(0, 3)))}
