"""How each decision's order is checked (validate) and written back canonically, and why a seat is not
asked anything now."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from games.engines.base import M, Mn, Mp, Msg, Order, OrderError, State, joined
from games.engines.piraeus.data import GOODS, MAX_CARDS_FOR_SALE, card_label, good_name, good_of
from games.engines.piraeus.flow import contest_of, market_slots, price_of

WITHDRAW = 0  # a bid of 0 withdraws from the contest
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,9}")
WITHDRAW_WORDS = {"withdraw", "none", "pass"}
ROLE_WORDS = {"buyer": "buyer", "buy": "buyer", "seller": "seller", "sell": "seller"}


def not_asked_reason(state: State, seat: int) -> Msg:
    step = state["step"]
    role = state["roles"][seat]
    if step == "over":
        return M("The game is over; no more orders are taken.")
    if step == "sale":
        if role == "buyer":
            return M("You are a buyer today; only sellers put goods up for sale now.")
        return M("You have no goods left to sell, so you are not asked anything now.")
    if step == "deal":
        if role == "seller":
            return M("You are a seller today; only buyers make deals.")
        return M("You cannot pay for any card on the market, so you keep your token this round.")
    if step == "bid":
        return M("Only buyers who chose the same card bid now; you are not in a contest.")
    return M("You are not asked anything now.")


def _text(order: Order, name: str, what: Msg) -> str:
    if name not in order or order[name] is None:
        raise OrderError(M("Please choose {what}.", what=what))
    value = order[name]
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, str):
        raise OrderError(M("Please choose {what}: one of the offered choices.", what=what))
    return value.strip()


def _bid(value: Any) -> int:
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        raise OrderError(M("Your bid must be a whole number."))
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value.strip())
    raise OrderError(M("Your bid must be a whole number."))


def validate_plan(state: State, seat: int, order: Order) -> Order:
    value = _text(order, "role", Mp("piraeus order", "whether you buy or sell (role)"))
    role = ROLE_WORDS.get(value.lower())
    if role is None:
        raise OrderError(M("Choose 'buyer' or 'seller' as your role, not {typed}.", typed=repr(value[:20])))
    return {"role": role}


def _sale_goods(raw: Any) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [part for part in raw.split(",") if part.strip()]
    if not isinstance(raw, (list, tuple)) or not all(isinstance(item, str) for item in raw):
        raise OrderError(M("List the goods you sell by name, e.g. Furs, Food."))
    if len(raw) > MAX_CARDS_FOR_SALE:
        raise OrderError(M("You may put at most two cards up for sale; you chose {count}.", count=len(raw)))
    by_name = {good.lower(): good for good in GOODS}
    goods = []
    for item in raw:
        good = by_name.get(item.strip().lower())
        if good is None:
            raise OrderError(
                M(
                    "There is no good called {typed}; goods are {goods}.",
                    typed=repr(item.strip()[:20]),
                    goods=joined([good_name(good) for good in GOODS], ","),
                )
            )
        goods.append(good)
    return goods


def validate_sale(state: State, seat: int, order: Order) -> Order:
    goods = _sale_goods(order.get("cards"))
    held = Counter(good_of(card) for card in state["hands"][seat])
    for good, wanted in Counter(goods).items():
        if held[good] == 0:
            raise OrderError(M("You have no {good} card left to sell.", good=good_name(good)))
        if held[good] < wanted:
            raise OrderError(
                Mn(
                    "You have only {count} {good} card left, not {wanted}.",
                    "You have only {count} {good} cards left, not {wanted}.",
                    held[good],
                    good=good_name(good),
                    wanted=wanted,
                )
            )
    return {"cards": sorted(goods, key=GOODS.index)}


def _find_slot(state: State, value: str) -> str | None:
    slots = market_slots(state)
    wanted = value.upper()
    for slot, _ in slots:
        if slot == wanted:
            return slot
    # Replies by email may name the card ("Furs/Greeks") rather than its slot.
    for slot, card in slots:
        if card.lower() == value.lower() or card_label(card).lower() == value.lower():
            return slot
    return None


def validate_deal(state: State, seat: int, order: Order) -> Order:
    value = _text(order, "card", Mp("piraeus order", "a card to buy, or 'none'"))
    if value.lower() == "none":
        return {"card": "none"}
    slot = _find_slot(state, value)
    if slot is None:
        raise OrderError(
            M("There is no card {typed} on the market now; choose one offered, or 'none'.", typed=repr(value[:20]))
        )
    card = dict(market_slots(state))[slot]
    price, cash = price_of(state, card), state["cash"][seat]
    if price > cash:
        raise OrderError(
            M(
                "You cannot pay for {card}: it costs {price} and you have {cash}.",
                card=card_label(card),
                price=price,
                cash=cash,
            )
        )
    return {"card": slot}


def validate_bid(state: State, seat: int, order: Order) -> Order:
    raw = order.get("bid")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise OrderError(M("Enter your bid, or 0 to withdraw."))
    if isinstance(raw, str) and raw.strip().lower() in WITHDRAW_WORDS:
        return {"bid": WITHDRAW}
    bid = _bid(raw)
    if bid == WITHDRAW:
        return {"bid": WITHDRAW}
    card = contest_of(state, seat)["card"]
    price, cash = price_of(state, card), state["cash"][seat]
    if bid < price:
        raise OrderError(
            M(
                "Your bid must be at least {price}, the price of {good}; or bid 0 to withdraw.",
                price=price,
                good=good_name(good_of(card)),
            )
        )
    if bid > cash:
        raise OrderError(
            Mn(
                "You cannot bid more than the {count} drachma you have.",
                "You cannot bid more than the {count} drachmas you have.",
                cash,
            )
        )
    return {"bid": bid}
