"""What each seat is asked on a day (plan, sale, deal, bid): the text a player reads and the form fields."""

from __future__ import annotations

from collections import Counter

from games.engines.base import Choice, Field, Prompt, State
from games.engines.piraeus.data import (
    DAYS,
    DEAL_ROUNDS,
    GOODS,
    MAX_CARDS_FOR_SALE,
    card_label,
    country_of,
    good_of,
    join_names,
)
from games.engines.piraeus.flow import contest_of, market_slots, price_of


def drachmas(amount: int) -> str:
    return f"{amount} drachma{'' if amount == 1 else 's'}"


def plan_prompt(state: State, seat: int) -> Prompt:
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


def sale_prompt(state: State, seat: int) -> Prompt:
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


def deal_prompt(state: State, seat: int) -> Prompt:
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


def bid_prompt(state: State, seat: int) -> Prompt:
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
