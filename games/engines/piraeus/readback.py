"""Each decision's order read back in words, with warnings for what is legal but likely not meant (a sale
of nothing, a bid of all one's money)."""

from __future__ import annotations

from games.engines.base import Order, ReadBack, State
from games.engines.piraeus.data import card_label, country_of, join_names
from games.engines.piraeus.flow import contest_of, market_slots, price_of
from games.engines.piraeus.orders import WITHDRAW


def read_plan(state: State, seat: int, order: Order) -> ReadBack:
    if order["role"] == "buyer":
        return ReadBack(("You will buy goods today.",))
    warnings = () if state["hands"][seat] else ("You have no goods in hand, so you will have nothing to sell today.",)
    return ReadBack(("You will sell your own goods today.",), warnings)


def read_sale(state: State, seat: int, order: Order) -> ReadBack:
    if not order["cards"]:
        return ReadBack(
            ("You will put nothing up for sale today.",),
            ("You chose to sell today but put no goods up for sale.",),
        )
    cards = order["cards"]
    what = f"a {cards[0]} card" if len(cards) == 1 else f"{len(cards)} cards, {join_names(cards)},"
    return ReadBack((f"You will put {what} up for sale: each card lowers its good's price by 1.",))


def read_deal(state: State, seat: int, order: Order) -> ReadBack:
    if order["card"] == "none":
        return ReadBack(("You will keep your token this round and buy nothing.",))
    card = dict(market_slots(state))[order["card"]]
    price = price_of(state, card)
    where = "in the Greek row" if order["card"].startswith("G") else f"sold by the {country_of(card)}"
    warnings: tuple[str, ...] = ()
    if price == state["cash"][seat]:
        warnings = (f"It costs all your {price} drachmas.",)
    return ReadBack((f"You will place your token on {card_label(card)} {where}, priced {price} drachmas.",), warnings)


def read_bid(state: State, seat: int, order: Order) -> ReadBack:
    card = contest_of(state, seat)["card"]
    if order["bid"] == WITHDRAW:
        return ReadBack((f"You will withdraw from the contest for {card_label(card)}.",))
    warnings: tuple[str, ...] = ()
    if order["bid"] == state["cash"][seat]:
        warnings = (f"You bid all your {order['bid']} drachmas.",)
    line = f"You will bid {order['bid']} drachmas for {card_label(card)} (priced {price_of(state, card)})."
    return ReadBack((line,), warnings)
