"""The harbor master: the sealed auction for the office, then the office's duties (buy a share, load
three wares, set the punts in the water at starts summing to 9)."""

from __future__ import annotations

import random

from games.engines.base import Choice, Event, Field, Order, OrderError, Prompt, ReadBack, State
from games.engines.manila.data import (
    MAX_START,
    START_SUM,
    WARES,
    pesos,
    share_price,
)
from games.engines.manila.fields import choice, loan_fields, read_with_loans, with_loans
from games.engines.manila.flow import clockwise_from, new_punt
from games.engines.manila.money import (
    Events,
    apply_loans,
    can_raise,
    finances_after_loans,
    pay,
    validate_loans,
    whole_number,
)

ROUTES = (1, 2, 3)
# Default load for a missed deadline: ginseng stays ashore, the others start at 3, 3 and 3.
DEFAULT_LOAD = (("jade", 3), ("silk", 3), ("nutmeg", 3))


# --- the auction -----------------------------------------------------------------------------------


def enter_bid(state: State, events: Events) -> list[int]:
    asked = [seat for seat in clockwise_from(state, state["opener"]) if can_raise(state, seat) >= 1]
    if not asked:
        settle_bids(state, {}, events)
    return asked


def bid_prompt(state: State, seat: int) -> Prompt:
    text = (
        f"Voyage {state['voyage']}: bid in secret for the office of harbor master, up to the "
        f"{pesos(can_raise(state, seat))} your cash and loans can raise, or 0 to pass. The highest bid pays the "
        f"cash box; equal top bids go to the first of them clockwise from {state['names'][state['opener']]}."
    )
    bid = Field(
        name="bid",
        kind="integer",
        label="My bid (0 = pass)",
        min=0,
        max=can_raise(state, seat),
        help="Bids are opened together. What you can raise counts your cash and a loan on each unencumbered share.",
    )
    return Prompt(kind="bid", text=text, fields=(bid, *loan_fields(state, seat)))


def validate_bid(state: State, seat: int, order: Order) -> Order:
    take, repay = validate_loans(state, seat, order)
    _, most = finances_after_loans(state, seat, take, repay)
    bid = whole_number(order.get("bid"), "Your bid", 0, max(most, 0))
    return {"bid": bid, "take_loans": take, "repay_loans": repay}


def read_bid(state: State, seat: int, order: Order) -> ReadBack:
    if order["bid"] == 0:
        return read_with_loans(order, ["You will pass: you bid nothing for the office of harbor master."])
    cash, _ = finances_after_loans(state, seat, order["take_loans"], order["repay_loans"])
    warnings: tuple[str, ...] = ()
    if order["bid"] > cash:
        warnings = (f"Your bid is more than your {pesos(cash)} in cash: if it wins, loans are taken to pay it.",)
    return read_with_loans(order, [f"You will bid {pesos(order['bid'])} for the office of harbor master."], warnings)


def resolve_bid(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    settle_bids(state, orders, events)


def settle_bids(state: State, orders: dict[int, Order], events: Events) -> None:
    """The highest bid takes the office; nobody bidding (or nobody able to bid) keeps the harbor master."""
    for seat, order in orders.items():
        apply_loans(state, seat, order, events)
    order_of_play = clockwise_from(state, state["opener"])
    bids = {seat: orders[seat]["bid"] for seat in order_of_play if seat in orders}
    if bids:
        shown = ", ".join(f"{state['names'][seat]} {bid}" for seat, bid in bids.items())
        events.append(
            Event(
                f"Sealed bids for harbor master: {shown}.",
                data={"kind": "bids", "bids": [[seat, bid] for seat, bid in bids.items()]},
            )
        )
    top = max(bids.values(), default=0)
    if top == 0:
        keeper = state["harbor_master"] if state["harbor_master"] is not None else state["opener"]
        state["harbor_master"] = keeper
        events.append(Event(f"Nobody bids: {state['names'][keeper]} is harbor master for this voyage."))
        return
    winner = next(seat for seat in order_of_play if bids.get(seat) == top)
    pay(state, winner, top, events, "to pay the bid")
    state["harbor_master"] = winner
    events.append(Event(f"{state['names'][winner]} becomes harbor master for {top} pesos.", data={"kind": "office"}))


def random_bid(state: State, seat: int, rng: random.Random) -> Order:
    most = min(can_raise(state, seat), state["cash"][seat])
    bid = 0 if rng.random() < 0.4 or most <= 0 else rng.randint(1, max(1, min(most, 20)))
    return {"bid": bid, "take_loans": 0, "repay_loans": 0}


# --- the duties ------------------------------------------------------------------------------------


def _share_choices(state: State, seat: int) -> dict[str, str]:
    choices = {"none": "No share"}
    for ware in WARES:
        if state["supply"][ware]:
            price = share_price(state["values"][ware])
            choices[ware] = f"A {ware} share for {price} pesos ({state['supply'][ware]} left)"
    return choices


def duties_prompt(state: State, seat: int) -> Prompt:
    text = (
        f"Voyage {state['voyage']}: as harbor master, load three of the four wares, one on each sea route, each "
        f"from a start space 0 to {MAX_START}, the three starts adding up to exactly {START_SUM}. You may also buy "
        "one share first (its price is its ware's value, at least 5)."
    )
    wares = tuple(Choice(ware, ware.capitalize()) for ware in WARES)
    fields: list[Field] = [
        Field(
            name="share",
            kind="choice",
            label="Buy a share",
            choices=tuple(Choice(value, label) for value, label in _share_choices(state, seat).items()),
        )
    ]
    for route in ROUTES:
        fields.append(Field(name=f"ware_{route}", kind="choice", label=f"Ware on sea route {route}", choices=wares))
        fields.append(
            Field(name=f"start_{route}", kind="integer", label=f"Start space on route {route}", min=0, max=MAX_START)
        )
    return Prompt(kind="duties", text=text, fields=(*fields, *loan_fields(state, seat)))


def validate_duties(state: State, seat: int, order: Order) -> Order:
    take, repay = validate_loans(state, seat, order)
    _, most = finances_after_loans(state, seat, take, repay)
    share = choice(order, "share", _share_choices(state, seat), "a share to buy, or none")
    if share != "none" and share_price(state["values"][share]) > most:
        raise OrderError(
            f"A {share} share costs {share_price(state['values'][share])} pesos and you can raise only {most}."
        )
    wares = [
        choice(order, f"ware_{route}", {w: w for w in WARES}, f"the ware on sea route {route}") for route in ROUTES
    ]
    if len(set(wares)) < len(wares):
        raise OrderError("Each punt carries a different ware: choose three different wares, one per sea route.")
    starts = [
        whole_number(order.get(f"start_{route}"), f"The start on route {route}", 0, MAX_START) for route in ROUTES
    ]
    if sum(starts) != START_SUM:
        shown = " + ".join(map(str, starts))
        raise OrderError(f"The three start spaces must add up to exactly {START_SUM}; {shown} is {sum(starts)}.")
    rest: dict[str, object] = {"share": share}
    for route, ware, start in zip(ROUTES, wares, starts, strict=True):
        rest[f"ware_{route}"] = ware
        rest[f"start_{route}"] = start
    return with_loans(state, seat, order, rest)


def read_duties(state: State, seat: int, order: Order) -> ReadBack:
    share = order["share"]
    price = pesos(share_price(state["values"][share])) if share != "none" else ""
    lines = [f"You will buy a {share} share for {price}." if price else "You will buy no share."]
    loaded = [order[f"ware_{route}"] for route in ROUTES]
    for route in ROUTES:
        lines.append(
            f"The {order[f'ware_{route}']} punt sails on sea route {route} from space {order[f'start_{route}']}."
        )
    ashore = next(ware for ware in WARES if ware not in loaded)
    lines.append(f"{ashore.capitalize()} stays ashore.")
    return read_with_loans(order, lines)


def resolve_duties(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    seat = state["harbor_master"]
    order = orders[seat]
    apply_loans(state, seat, order, events)
    name = state["names"][seat]
    share = order["share"]
    if share != "none":
        price = share_price(state["values"][share])
        pay(state, seat, price, events, "to buy a share")
        state["supply"][share] -= 1
        state["shares"][seat].append(share)
        events.append(Event(f"{name} buys a {share} share for {price} pesos.", data={"kind": "share"}))
    state["punts"] = [new_punt(order[f"ware_{route}"], order[f"start_{route}"]) for route in ROUTES]
    loaded = ", ".join(f"{order[f'ware_{r}']} on route {r} from space {order[f'start_{r}']}" for r in ROUTES)
    ashore = next(ware for ware in WARES if ware not in {punt["ware"] for punt in state["punts"]})
    events.append(Event(f"{name} loads {loaded}; {ashore} stays ashore.", data={"kind": "load"}))


def default_duties() -> Order:
    order: Order = {"share": "none", "take_loans": 0, "repay_loans": 0}
    for route, (ware, start) in zip(ROUTES, DEFAULT_LOAD, strict=True):
        order[f"ware_{route}"] = ware
        order[f"start_{route}"] = start
    return order


def random_duties(state: State, seat: int, rng: random.Random) -> Order:
    wares = rng.sample(WARES, 3)
    while True:
        starts = [rng.randint(0, MAX_START) for _ in ROUTES]
        if sum(starts) == START_SUM:
            break
    affordable = [w for w in WARES if state["supply"][w] and share_price(state["values"][w]) <= state["cash"][seat]]
    share = rng.choice(affordable) if affordable and rng.random() < 0.5 else "none"
    order: Order = {"share": share, "take_loans": 0, "repay_loans": 0}
    for route, ware, start in zip(ROUTES, wares, starts, strict=True):
        order[f"ware_{route}"] = ware
        order[f"start_{route}"] = start
    return order
