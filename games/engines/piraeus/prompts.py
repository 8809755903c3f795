"""What each seat is asked on a day (plan, sale, deal, bid): the text a player reads and the form fields."""

from __future__ import annotations

from collections import Counter

from games.engines.base import Choice, Field, M, Mn, Mp, Msg, Prompt, State
from games.engines.piraeus.data import (
    DAYS,
    DEAL_ROUNDS,
    GOODS,
    MAX_CARDS_FOR_SALE,
    card_label,
    country_name,
    country_of,
    good_name,
    good_of,
    join_countries,
    join_goods,
)
from games.engines.piraeus.flow import contest_of, market_slots, price_of


def drachmas(amount: int) -> Msg:
    return Mn("{count} drachma", "{count} drachmas", amount)


def plan_prompt(state: State, seat: int) -> Prompt:
    offer = (
        join_goods([good_of(card) for card in state["greek_row"]]) if state["greek_row"] else Mp("piraeus", "nothing")
    )
    text = M(
        "Day {day} of {days}: will you buy or sell today? The Greeks offer {goods}, and nobody sees your choice before "
        "every merchant has made theirs.",
        day=state["day"],
        days=DAYS,
        goods=offer,
    )
    role = Field(
        name="role",
        kind="choice",
        label=M("Today I will"),
        choices=(Choice("buyer", M("Buy goods")), Choice("seller", M("Sell my own goods"))),
        help=M(
            "Then prices move: more buyers than sellers push each good the Greeks offer up by 1 a card, more "
            "sellers push them down."
        ),
    )
    return Prompt(kind="plan", text=text, fields=(role,))


def sale_prompt(state: State, seat: int) -> Prompt:
    held = Counter(good_of(card) for card in state["hands"][seat])
    choices = tuple(
        Choice(
            good,
            M(
                "{good} (you hold {held}, price now {price})",
                good=good_name(good),
                held=held[good],
                price=state["prices"][number],
            ),
        )
        for number, good in enumerate(GOODS)
        if held[good]
    )
    text = M(
        "Day {day}: you are selling. Choose up to two of your own goods to put up for sale, or none; all sellers' "
        "cards are revealed together.",
        day=state["day"],
    )
    cards = Field(
        name="cards",
        kind="multichoice",
        label=M("Goods to sell"),
        choices=choices,
        min=0,
        max=min(MAX_CARDS_FOR_SALE, sum(held.values())),
        repeat=any(count > 1 for count in held.values()),
        help=M(
            "Pick a good twice to sell two cards of it; leave empty to sell nothing. Each card for sale lowers its "
            "good's price by 1, every good not for sale rises by 1 per seller, and cards nobody buys are sold to the "
            "locals in the evening at that moment's price."
        ),
    )
    return Prompt(kind="sale", text=text, fields=(cards,))


def _slot_label(slot: str, card: str, price: int) -> Msg:
    if slot.startswith("G"):
        return M("{card}: {price}, Greek row", card=card_label(card), price=drachmas(price))
    return M(
        "{card}: {price}, sold by the {people}",
        card=card_label(card),
        price=drachmas(price),
        people=country_name(country_of(card)),
    )


def deal_prompt(state: State, seat: int) -> Prompt:
    cash = state["cash"][seat]
    choices = [
        Choice(slot, _slot_label(slot, card, price_of(state, card)))
        for slot, card in market_slots(state)
        if price_of(state, card) <= cash
    ]
    choices.append(Choice("none", M("Nothing this round (keep my token)")))
    text = M(
        "Day {day}, deals round {round} of {rounds}: choose one card to buy with your {cash}, or keep your token. If "
        "other buyers choose the same card, you will bid for it.",
        day=state["day"],
        round=state["round"],
        rounds=DEAL_ROUNDS,
        cash=drachmas(cash),
    )
    card = Field(name="card", kind="choice", label=M("Place my token on"), choices=tuple(choices))
    return Prompt(kind="deal", text=text, fields=(card,))


def bid_prompt(state: State, seat: int) -> Prompt:
    contest = contest_of(state, seat)
    card = contest["card"]
    price = price_of(state, card)
    cash = state["cash"][seat]
    rivals = join_countries([state["countries"][other] for other in contest["seats"] if other != seat])
    text = M(
        "Day {day}, deals round {round}: {rivals} also want {card}, priced {price}: bid in secret from {price} to "
        "your {cash}, or 0 to withdraw. The highest bid buys it and pays that bid; equal top bids mean nobody buys "
        "it this round.",
        day=state["day"],
        round=state["round"],
        rivals=rivals,
        card=card_label(card),
        price=price,
        cash=drachmas(cash),
    )
    bid = Field(
        name="bid",
        kind="integer",
        label=M("My bid (drachmas), 0 to withdraw"),
        min=0,
        max=cash,
        help=M("At least {least}, at most {most}; 0 withdraws from the contest.", least=price, most=cash),
    )
    return Prompt(kind="bid", text=text, fields=(bid,))
