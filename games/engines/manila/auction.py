"""The harbor master: the sealed auction for the office, then the office's duties (buy a share, load
three wares, set the punts in the water at starts summing to 9)."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Choice, Event, Field, M, Mp, Msg, Order, OrderError, Prompt, ReadBack, State, joined
from games.engines.manila.data import (
    MAX_START,
    START_SUM,
    WARES,
    pesos,
    seat_colour,
    share_price,
    ware_name,
    ware_title,
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
    text = M(
        "Voyage {voyage}: bid in secret for the office of harbor master, up to the {most} your cash and loans can "
        "raise, or 0 to pass. The highest bid pays the cash box; equal top bids go to the first of them clockwise "
        "from {opener}.",
        voyage=state["voyage"],
        most=pesos(can_raise(state, seat)),
        opener=seat_colour(state, state["opener"]),
    )
    bid = Field(
        name="bid",
        kind="integer",
        label=M("My bid (0 = pass)"),
        min=0,
        max=can_raise(state, seat),
        help=M("Bids are opened together. What you can raise counts your cash and a loan on each unencumbered share."),
    )
    return Prompt(kind="bid", text=text, fields=(bid, *loan_fields(state, seat)))


def validate_bid(state: State, seat: int, order: Order) -> Order:
    take, repay = validate_loans(state, seat, order)
    _, most = finances_after_loans(state, seat, take, repay)
    bid = whole_number(order.get("bid"), Mp("manila number", "Your bid"), 0, max(most, 0))
    return {"bid": bid, "take_loans": take, "repay_loans": repay}


def read_bid(state: State, seat: int, order: Order) -> ReadBack:
    if order["bid"] == 0:
        return read_with_loans(order, [M("You will pass: you bid nothing for the office of harbor master.")])
    cash, _ = finances_after_loans(state, seat, order["take_loans"], order["repay_loans"])
    warnings: tuple[Msg, ...] = ()
    if order["bid"] > cash:
        warnings = (
            M("Your bid is more than your {cash} in cash: if it wins, loans are taken to pay it.", cash=pesos(cash)),
        )
    line = M("You will bid {amount} for the office of harbor master.", amount=pesos(order["bid"]))
    return read_with_loans(order, [line], warnings)


def resolve_bid(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    settle_bids(state, orders, events)


def settle_bids(state: State, orders: dict[int, Order], events: Events) -> None:
    """The highest bid takes the office; nobody bidding (or nobody able to bid) keeps the harbor master."""
    for seat, order in orders.items():
        apply_loans(state, seat, order, events)
    order_of_play = clockwise_from(state, state["opener"])
    bids = {seat: orders[seat]["bid"] for seat in order_of_play if seat in orders}
    if bids:
        shown = joined(
            [Mp("manila bid", "{seat} {bid}", seat=seat_colour(state, seat), bid=bid) for seat, bid in bids.items()],
            ",",
        )
        events.append(
            Event(
                M("Sealed bids for harbor master: {bids}.", bids=shown),
                data={"kind": "bids", "bids": [[seat, bid] for seat, bid in bids.items()]},
            )
        )
    top = max(bids.values(), default=0)
    if top == 0:
        keeper = state["harbor_master"] if state["harbor_master"] is not None else state["opener"]
        state["harbor_master"] = keeper
        events.append(
            Event(M("Nobody bids: {seat} is harbor master for this voyage.", seat=seat_colour(state, keeper)))
        )
        return
    winner = next(seat for seat in order_of_play if bids.get(seat) == top)
    pay(state, winner, top, events, Mp("manila loan", "to pay the bid"))
    state["harbor_master"] = winner
    events.append(
        Event(
            M("{seat} becomes harbor master for {amount} pesos.", seat=seat_colour(state, winner), amount=top),
            data={"kind": "office"},
        )
    )


def random_bid(state: State, seat: int, rng: random.Random) -> Order:
    most = min(can_raise(state, seat), state["cash"][seat])
    bid = 0 if rng.random() < 0.4 or most <= 0 else rng.randint(1, max(1, min(most, 20)))
    return {"bid": bid, "take_loans": 0, "repay_loans": 0}


# --- the duties ------------------------------------------------------------------------------------


def _share_choices(state: State, seat: int) -> dict[str, Msg]:
    choices = {"none": M("No share")}
    for ware in WARES:
        if state["supply"][ware]:
            price = share_price(state["values"][ware])
            choices[ware] = M(
                "A {ware} share for {price} pesos ({left} left)",
                ware=ware_name(ware),
                price=price,
                left=state["supply"][ware],
            )
    return choices


def duties_prompt(state: State, seat: int) -> Prompt:
    text = M(
        "Voyage {voyage}: as harbor master, load three of the four wares, one on each sea route, each from a start "
        "space 0 to {most}, the three starts adding up to exactly {sum}. You may also buy one share first (its price "
        "is its ware's value, at least 5).",
        voyage=state["voyage"],
        most=MAX_START,
        sum=START_SUM,
    )
    wares = tuple(Choice(ware, ware_title(ware)) for ware in WARES)
    fields: list[Field] = [
        Field(
            name="share",
            kind="choice",
            label=M("Buy a share"),
            choices=tuple(Choice(value, label) for value, label in _share_choices(state, seat).items()),
        )
    ]
    for route in ROUTES:
        fields.append(
            Field(name=f"ware_{route}", kind="choice", label=M("Ware on sea route {route}", route=route), choices=wares)
        )
        fields.append(
            Field(
                name=f"start_{route}",
                kind="integer",
                label=M("Start space on route {route}", route=route),
                min=0,
                max=MAX_START,
            )
        )
    return Prompt(kind="duties", text=text, fields=(*fields, *loan_fields(state, seat)))


def validate_duties(state: State, seat: int, order: Order) -> Order:
    take, repay = validate_loans(state, seat, order)
    _, most = finances_after_loans(state, seat, take, repay)
    share = choice(order, "share", _share_choices(state, seat), Mp("manila order", "a share to buy, or none"))
    if share != "none" and share_price(state["values"][share]) > most:
        raise OrderError(
            M(
                "A {ware} share costs {price} pesos and you can raise only {most}.",
                ware=ware_name(share),
                price=share_price(state["values"][share]),
                most=most,
            )
        )
    wares = [
        choice(
            order,
            f"ware_{route}",
            {w: w for w in WARES},
            Mp("manila order", "the ware on sea route {route}", route=route),
        )
        for route in ROUTES
    ]
    if len(set(wares)) < len(wares):
        raise OrderError(M("Each punt carries a different ware: choose three different wares, one per sea route."))
    starts = [
        whole_number(
            order.get(f"start_{route}"), Mp("manila number", "The start on route {route}", route=route), 0, MAX_START
        )
        for route in ROUTES
    ]
    if sum(starts) != START_SUM:
        shown = " + ".join(map(str, starts))
        raise OrderError(
            M(
                "The three start spaces must add up to exactly {sum}; {shown} is {total}.",
                sum=START_SUM,
                shown=shown,
                total=sum(starts),
            )
        )
    rest: dict[str, object] = {"share": share}
    for route, ware, start in zip(ROUTES, wares, starts, strict=True):
        rest[f"ware_{route}"] = ware
        rest[f"start_{route}"] = start
    return with_loans(state, seat, order, rest)


def read_duties(state: State, seat: int, order: Order) -> ReadBack:
    share = order["share"]
    if share != "none":
        price = pesos(share_price(state["values"][share]))
        lines = [M("You will buy a {ware} share for {price}.", ware=ware_name(share), price=price)]
    else:
        lines = [M("You will buy no share.")]
    loaded = [order[f"ware_{route}"] for route in ROUTES]
    for route in ROUTES:
        lines.append(
            M(
                "The {ware} punt sails on sea route {route} from space {start}.",
                ware=ware_name(order[f"ware_{route}"]),
                route=route,
                start=order[f"start_{route}"],
            )
        )
    ashore = next(ware for ware in WARES if ware not in loaded)
    lines.append(M("{ware} stays ashore.", ware=ware_title(ashore)))
    return read_with_loans(order, lines)


def resolve_duties(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    seat = state["harbor_master"]
    order = orders[seat]
    apply_loans(state, seat, order, events)
    name = seat_colour(state, seat)
    share = order["share"]
    if share != "none":
        price = share_price(state["values"][share])
        pay(state, seat, price, events, Mp("manila loan", "to buy a share"))
        state["supply"][share] -= 1
        state["shares"][seat].append(share)
        events.append(
            Event(
                M("{seat} buys a {ware} share for {price} pesos.", seat=name, ware=ware_name(share), price=price),
                data={"kind": "share"},
            )
        )
    state["punts"] = [new_punt(order[f"ware_{route}"], order[f"start_{route}"]) for route in ROUTES]
    loaded: Any = joined(
        [
            Mp(
                "manila load",
                "{ware} on route {route} from space {start}",
                ware=ware_name(order[f"ware_{r}"]),
                route=r,
                start=order[f"start_{r}"],
            )
            for r in ROUTES
        ],
        ",",
    )
    ashore = next(ware for ware in WARES if ware not in {punt["ware"] for punt in state["punts"]})
    events.append(
        Event(
            M("{seat} loads {loads}; {ware} stays ashore.", seat=name, loads=loaded, ware=ware_name(ashore)),
            data={"kind": "load"},
        )
    )


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
