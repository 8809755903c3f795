"""Each decision's order read back in words, with warnings for what is legal but likely not meant (a sale
of nothing, a bid of all one's money)."""

from __future__ import annotations

from games.engines.base import M, Mn, Msg, Order, ReadBack, State
from games.engines.piraeus.data import card_label, country_name, country_of, good_name, join_goods
from games.engines.piraeus.flow import contest_of, market_slots, price_of
from games.engines.piraeus.orders import WITHDRAW


def read_plan(state: State, seat: int, order: Order) -> ReadBack:
    if order["role"] == "buyer":
        return ReadBack((M("You will buy goods today."),))
    warnings = (
        () if state["hands"][seat] else (M("You have no goods in hand, so you will have nothing to sell today."),)
    )
    return ReadBack((M("You will sell your own goods today."),), warnings)


def read_sale(state: State, seat: int, order: Order) -> ReadBack:
    if not order["cards"]:
        return ReadBack(
            (M("You will put nothing up for sale today."),),
            (M("You chose to sell today but put no goods up for sale."),),
        )
    cards = order["cards"]
    if len(cards) == 1:
        line = M(
            "You will put a {good} card up for sale: each card lowers its good's price by 1.", good=good_name(cards[0])
        )
    else:
        line = M(
            "You will put {count} cards, {goods}, up for sale: each card lowers its good's price by 1.",
            count=len(cards),
            goods=join_goods(cards),
        )
    return ReadBack((line,))


def read_deal(state: State, seat: int, order: Order) -> ReadBack:
    if order["card"] == "none":
        return ReadBack((M("You will keep your token this round and buy nothing."),))
    card = dict(market_slots(state))[order["card"]]
    price = price_of(state, card)
    warnings: tuple[Msg, ...] = ()
    if price == state["cash"][seat]:
        warnings = (Mn("It costs all your {count} drachma.", "It costs all your {count} drachmas.", price),)
    said = {"card": card_label(card), "price": Mn("{count} drachma", "{count} drachmas", price)}
    if order["card"].startswith("G"):
        line = M("You will place your token on {card} in the Greek row, priced {price}.", **said)
    else:
        line = M(
            "You will place your token on {card} sold by the {people}, priced {price}.",
            people=country_name(country_of(card)),
            **said,
        )
    return ReadBack((line,), warnings)


def read_bid(state: State, seat: int, order: Order) -> ReadBack:
    card = contest_of(state, seat)["card"]
    if order["bid"] == WITHDRAW:
        return ReadBack((M("You will withdraw from the contest for {card}.", card=card_label(card)),))
    warnings: tuple[Msg, ...] = ()
    if order["bid"] == state["cash"][seat]:
        warnings = (Mn("You bid all your {count} drachma.", "You bid all your {count} drachmas.", order["bid"]),)
    line = Mn(
        "You will bid {count} drachma for {card} (priced {price}).",
        "You will bid {count} drachmas for {card} (priced {price}).",
        order["bid"],
        card=card_label(card),
        price=price_of(state, card),
    )
    return ReadBack((line,), warnings)
