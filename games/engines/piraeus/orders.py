"""The four decisions of a day (plan, sale, deal, bid): what each seat is asked (prompts), how its answer
is checked (validate), stand-in answers for a missed deadline (default) or a bot (random), and the table
of steps the engine is built from."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from games.engines.base import Choice, Field, Order, OrderError, Prompt, ReadBack, State
from games.engines.kit import Step
from games.engines.piraeus.cards import (
    DAYS,
    DEAL_ROUNDS,
    GOODS,
    MAX_CARDS_FOR_SALE,
    card_label,
    country_of,
    good_of,
    join_names,
)
from games.engines.piraeus.flow import (
    market_slots,
    price_of,
    resolve_bids,
    resolve_deal,
    resolve_plan,
    resolve_sale,
)

WITHDRAW = 0  # a bid of 0 withdraws from the contest
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,9}")
WITHDRAW_WORDS = {"withdraw", "none", "pass"}
ROLE_WORDS = {"buyer": "buyer", "buy": "buyer", "seller": "seller", "sell": "seller"}


# --- prompts ---------------------------------------------------------------------------------------


def drachmas(amount: int) -> str:
    return f"{amount} drachma{'' if amount == 1 else 's'}"


def _plan_prompt(state: State, seat: int) -> Prompt:
    offer = join_names([good_of(card) for card in state["greek_row"]]) if state["greek_row"] else "nothing"
    text = (
        f"Day {state['day']} of {DAYS}: will you buy or sell today? The Greeks offer {offer}, and nobody sees "
        "your choice before every merchant has made theirs."
    )
    role = Field(
        name="role",
        kind="choice",
        label="Today I will",
        choices=(Choice("buyer", "Buy goods"), Choice("seller", "Sell my own goods")),
        help="Then prices move: more buyers than sellers push each good the Greeks offer up by 1 a card, more "
        "sellers push them down.",
    )
    return Prompt(kind="plan", text=text, fields=(role,))


def _sale_prompt(state: State, seat: int) -> Prompt:
    held = Counter(good_of(card) for card in state["hands"][seat])
    choices = tuple(
        Choice(good, f"{good} (you hold {held[good]}, price now {state['prices'][number]})")
        for number, good in enumerate(GOODS)
        if held[good]
    )
    text = (
        f"Day {state['day']}: you are selling. Choose up to two of your own goods to put up for sale, or none; "
        "all sellers' cards are revealed together."
    )
    cards = Field(
        name="cards",
        kind="multichoice",
        label="Goods to sell",
        choices=choices,
        min=0,
        max=min(MAX_CARDS_FOR_SALE, sum(held.values())),
        repeat=any(count > 1 for count in held.values()),
        help="Pick a good twice to sell two cards of it; leave empty to sell nothing. Each card for sale lowers "
        "its good's price by 1, every good not for sale rises by 1 per seller, and cards nobody buys are sold to "
        "the locals in the evening at that moment's price.",
    )
    return Prompt(kind="sale", text=text, fields=(cards,))


def _slot_label(slot: str, card: str, price: int) -> str:
    where = "Greek row" if slot.startswith("G") else f"sold by the {country_of(card)}"
    return f"{card_label(card)}: {drachmas(price)}, {where}"


def _deal_prompt(state: State, seat: int) -> Prompt:
    cash = state["cash"][seat]
    choices = [
        Choice(slot, _slot_label(slot, card, price_of(state, card)))
        for slot, card in market_slots(state)
        if price_of(state, card) <= cash
    ]
    choices.append(Choice("none", "Nothing this round (keep my token)"))
    text = (
        f"Day {state['day']}, deals round {state['round']} of {DEAL_ROUNDS}: choose one card to buy with your "
        f"{drachmas(cash)}, or keep your token. If other buyers choose the same card, you will bid for it."
    )
    card = Field(name="card", kind="choice", label="Place my token on", choices=tuple(choices))
    return Prompt(kind="deal", text=text, fields=(card,))


def contest_of(state: State, seat: int) -> dict[str, Any]:
    return next(contest for contest in state["contests"] if seat in contest["seats"])


def _bid_prompt(state: State, seat: int) -> Prompt:
    contest = contest_of(state, seat)
    card = contest["card"]
    price = price_of(state, card)
    cash = state["cash"][seat]
    rivals = join_names([state["countries"][other] for other in contest["seats"] if other != seat])
    text = (
        f"Day {state['day']}, deals round {state['round']}: {rivals} also want {card_label(card)}, priced "
        f"{price}: bid in secret from {price} to your {drachmas(cash)}, or 0 to withdraw. The highest bid buys "
        "it and pays that bid; equal top bids mean nobody buys it this round."
    )
    bid = Field(
        name="bid",
        kind="integer",
        label="My bid (drachmas), 0 to withdraw",
        min=0,
        max=cash,
        help=f"At least {price}, at most {cash}; 0 withdraws from the contest.",
    )
    return Prompt(kind="bid", text=text, fields=(bid,))


# --- validation ------------------------------------------------------------------------------------


def not_asked_reason(state: State, seat: int) -> str:
    step = state["step"]
    role = state["roles"][seat]
    if step == "over":
        return "The game is over; no more orders are taken."
    if step == "sale":
        if role == "buyer":
            return "You are a buyer today; only sellers put goods up for sale now."
        return "You have no goods left to sell, so you are not asked anything now."
    if step == "deal":
        if role == "seller":
            return "You are a seller today; only buyers make deals."
        return "You cannot pay for any card on the market, so you keep your token this round."
    if step == "bid":
        return "Only buyers who chose the same card bid now; you are not in a contest."
    return "You are not asked anything now."


def _text(order: Order, name: str, what: str) -> str:
    if name not in order or order[name] is None:
        raise OrderError(f"Please choose {what}.")
    value = order[name]
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, str):
        raise OrderError(f"Please choose {what}: one of the offered choices.")
    return value.strip()


def _integer(value: Any, what: str) -> int:
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        raise OrderError(f"{what} must be a whole number.")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value.strip())
    raise OrderError(f"{what} must be a whole number.")


def validate_plan(state: State, seat: int, order: Order) -> Order:
    value = _text(order, "role", "whether you buy or sell (role)")
    role = ROLE_WORDS.get(value.lower())
    if role is None:
        raise OrderError(f"Choose 'buyer' or 'seller' as your role, not {value[:20]!r}.")
    return {"role": role}


def _sale_goods(raw: Any) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [part for part in raw.split(",") if part.strip()]
    if not isinstance(raw, (list, tuple)) or not all(isinstance(item, str) for item in raw):
        raise OrderError("List the goods you sell by name, e.g. Furs, Food.")
    if len(raw) > MAX_CARDS_FOR_SALE:
        raise OrderError(f"You may put at most two cards up for sale; you chose {len(raw)}.")
    by_name = {good.lower(): good for good in GOODS}
    goods = []
    for item in raw:
        good = by_name.get(item.strip().lower())
        if good is None:
            raise OrderError(f"There is no good called {item.strip()[:20]!r}; goods are {', '.join(GOODS)}.")
        goods.append(good)
    return goods


def validate_sale(state: State, seat: int, order: Order) -> Order:
    goods = _sale_goods(order.get("cards"))
    held = Counter(good_of(card) for card in state["hands"][seat])
    for good, wanted in Counter(goods).items():
        if held[good] == 0:
            raise OrderError(f"You have no {good} card left to sell.")
        if held[good] < wanted:
            raise OrderError(f"You have only {held[good]} {good} card left, not {wanted}.")
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
    value = _text(order, "card", "a card to buy, or 'none'")
    if value.lower() == "none":
        return {"card": "none"}
    slot = _find_slot(state, value)
    if slot is None:
        raise OrderError(f"There is no card {value[:20]!r} on the market now; choose one offered, or 'none'.")
    card = dict(market_slots(state))[slot]
    price, cash = price_of(state, card), state["cash"][seat]
    if price > cash:
        raise OrderError(f"You cannot pay for {card_label(card)}: it costs {price} and you have {cash}.")
    return {"card": slot}


def validate_bid(state: State, seat: int, order: Order) -> Order:
    raw = order.get("bid")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise OrderError("Enter your bid, or 0 to withdraw.")
    if isinstance(raw, str) and raw.strip().lower() in WITHDRAW_WORDS:
        return {"bid": WITHDRAW}
    bid = _integer(raw, "Your bid")
    if bid == WITHDRAW:
        return {"bid": WITHDRAW}
    card = contest_of(state, seat)["card"]
    price, cash = price_of(state, card), state["cash"][seat]
    if bid < price:
        raise OrderError(f"Your bid must be at least {price}, the price of {good_of(card)}; or bid 0 to withdraw.")
    if bid > cash:
        raise OrderError(f"You cannot bid more than the {cash} drachmas you have.")
    return {"bid": bid}


# --- stand-ins -------------------------------------------------------------------------------------


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


# --- read-backs ------------------------------------------------------------------------------------


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


# The defaults of a missed deadline: buy, sell nothing, keep the token, withdraw.
STEPS = {
    "plan": Step(
        _plan_prompt,
        validate_plan,
        lambda state, seat: {"role": "buyer"},
        random_plan,
        resolve_plan,
        read_back=read_plan,
    ),
    "sale": Step(
        _sale_prompt, validate_sale, lambda state, seat: {"cards": []}, random_sale, resolve_sale, read_back=read_sale
    ),
    "deal": Step(
        _deal_prompt,
        validate_deal,
        lambda state, seat: {"card": "none"},
        random_deal,
        resolve_deal,
        read_back=read_deal,
    ),
    "bid": Step(
        _bid_prompt, validate_bid, lambda state, seat: {"bid": WITHDRAW}, random_bid, resolve_bids, read_back=read_bid
    ),
}
