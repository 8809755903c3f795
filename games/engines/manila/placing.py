"""Accomplice placing rounds: every seat still placing hands in a sealed ranked list of wanted spaces;
the lists are resolved clockwise from the harbor master, each seat getting the first listed space still
free that it may take."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Choice, Event, Field, M, Mn, Mp, Msg, Order, OrderError, Prompt, ReadBack, State, joined
from games.engines.manila.data import (
    INSURANCE_PAYMENT,
    PUNT_COSTS,
    SPACE_COSTS,
    WARES,
    pesos,
    seat_colour,
    space_label,
    space_title,
)
from games.engines.manila.fields import loan_fields, read_with_loans
from games.engines.manila.flow import afloat, clockwise_from, free_punt_space, punt_of
from games.engines.manila.money import (
    Events,
    apply_loans,
    can_raise,
    finances_after_loans,
    pay,
    validate_loans,
)

STOP = "stop"
MAX_LISTED = 6  # drop-downs on the form: enough for a ranked list, few enough to read
# The pirate boat is one wish: the captain's space if free, else the second space.
WISHES = (
    tuple(f"punt:{ware}" for ware in WARES)
    + tuple(space for space in SPACE_COSTS if not space.startswith("pirate"))
    + ("pirate",)
)
BY_LOWER_NAME = {wish.lower(): wish for wish in (*WISHES, STOP)}


def _cost_if_free(state: State, wish: str) -> int | None:
    """The price of the space the wish would take now, or None when no such space is free."""
    if wish.startswith("punt:"):
        punt = punt_of(state, wish[5:])
        if punt is None or punt not in afloat(state):
            return None  # not loaded, or already docked: no new accomplices
        index = free_punt_space(punt)
        return None if index is None else PUNT_COSTS[punt["ware"]][index]
    if wish == "pirate":
        free = [s for s in ("pirate:captain", "pirate:crew") if state["spaces"][s] is None]
        return SPACE_COSTS[free[0]] if free else None
    return SPACE_COSTS[wish] if state["spaces"].get(wish, 0) is None else None


def cheapest_paid_space(state: State) -> int | None:
    costs = [cost for wish in WISHES if (cost := _cost_if_free(state, wish))]
    return min(costs, default=None)


def price_for(state: State, wish: str, cash: int, most: int) -> int | None:
    """What the seat pays for the wish now (loans included in `most`), or None if it may not take it.

    A seat with no cash and nothing to borrow on is a blind passenger: any free punt space, for nothing,
    and no other space. A seat that can raise something but less than the cheapest free space may still
    take a space of that cheapest price, paying everything it can raise."""
    cost = _cost_if_free(state, wish)
    if cost is None:
        return None
    if most <= 0:
        return 0 if wish.startswith("punt:") else None
    if cost <= most:
        return cost
    cheapest = cheapest_paid_space(state)
    return most if cheapest is not None and cost == cheapest and most < cheapest else None


def open_wishes(state: State, seat: int) -> dict[str, int]:
    cash, most = state["cash"][seat], can_raise(state, seat)
    return {wish: price for wish in WISHES if (price := price_for(state, wish, cash, most)) is not None}


def enter_place(state: State, events: Events) -> list[int]:
    return [
        seat
        for seat in clockwise_from(state, state["harbor_master"])
        if not state["stopped"][seat] and state["left"][seat] > 0 and open_wishes(state, seat)
    ]


def _wish_label(state: State, wish: str, price: int) -> Msg:
    if wish == "insurance":
        return M(
            "The insurance office (receive {amount} pesos now; pay for shipyard repairs later)",
            amount=INSURANCE_PAYMENT,
        )
    return M("{space} for {price}", space=space_title(wish), price=pesos(price))


def place_prompt(state: State, seat: int) -> Prompt:
    wishes = open_wishes(state, seat)
    choices = [Choice(wish, _wish_label(state, wish, price)) for wish, price in wishes.items()]
    choices.append(Choice(STOP, M("Stop: place no more accomplices this voyage")))
    left = state["left"][seat]
    said = {"voyage": state["voyage"], "cash": pesos(state["cash"][seat])}
    if left == 1:
        text = M(
            "Voyage {voyage}: list the spaces you want for your last accomplice, best first ({cash} in hand). "
            "Placing goes clockwise from the harbor master, and you get the first space of your list still free when "
            "your turn comes.",
            **said,
        )
    else:
        text = Mn(
            "Voyage {voyage}: list the spaces you want for one of your {count} accomplice, best first ({cash} in "
            "hand). Placing goes clockwise from the harbor master, and you get the first space of your list still free "
            "when your turn comes.",
            "Voyage {voyage}: list the spaces you want for one of your {count} accomplices, best first ({cash} in "
            "hand). Placing goes clockwise from the harbor master, and you get the first space of your list still free "
            "when your turn comes.",
            left,
            **said,
        )
    wants = Field(
        name="wants",
        kind="multichoice",
        label=M("Spaces I want, best first"),
        choices=tuple(choices),
        min=0,
        max=min(len(choices), MAX_LISTED),
        repeat=True,
        ranked=True,
        help=M(
            "A punt gives you its cheapest free place. If every space of your list is gone you place nothing this "
            "round; 'stop' (or an empty list) ends your placing for this voyage, and what follows it is ignored."
        ),
    )
    return Prompt(kind="place", text=text, fields=(wants, *loan_fields(state, seat)))


def validate_place(state: State, seat: int, order: Order) -> Order:
    take, repay = validate_loans(state, seat, order)
    cash, most = finances_after_loans(state, seat, take, repay)
    raw = order.get("wants") or []
    if isinstance(raw, str):
        raw = [part for part in raw.replace(";", ",").split(",") if part.strip()]
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise OrderError(M("List the spaces you want by name, best first."))
    wants: list[str] = []
    stops = not raw
    for item in raw:
        wish = BY_LOWER_NAME.get(item.strip().lower().replace(" ", ""), item.strip())
        if wish == STOP:
            stops = True
            break
        if wish not in WISHES:
            raise OrderError(
                M("There is no space called {typed} to place an accomplice on.", typed=repr(item.strip()[:30]))
            )
        if price_for(state, wish, cash, most) is None:
            if _cost_if_free(state, wish) is None:
                raise OrderError(M("{space} is not free.", space=space_title(wish)))
            raise OrderError(M("{space} is not open to you with what you can pay.", space=space_title(wish)))
        if wish not in wants:
            wants.append(wish)
    return {"wants": [*wants, STOP] if stops else wants, "take_loans": take, "repay_loans": repay}


def read_place(state: State, seat: int, order: Order) -> ReadBack:
    wants = [wish for wish in order["wants"] if wish != STOP]
    stops = STOP in order["wants"]
    if not wants:
        left = state["left"][seat]
        warning = M("You place no more accomplices this voyage, though you have {left} left.", left=left)
        return read_with_loans(order, [M("You will stop placing accomplices for this voyage.")], (warning,))
    listed: Any = space_label(wants[0])
    for wish in wants[1:]:
        listed = Mp("list", "{head}, then {next}", head=listed, next=space_label(wish))
    lines = [M("You want {spaces}: you will get the first one still free when your turn comes.", spaces=listed)]
    if stops:
        lines.append(M("If none is free, you stop placing for this voyage."))
    return read_with_loans(order, lines)


def _take(state: State, seat: int, wish: str, price: int, events: Events) -> str:
    """Put the accomplice on the wished space and pay; returns the space taken."""
    paid = pay(state, seat, price, events, Mp("manila loan", "to place an accomplice")) if price else 0
    if wish.startswith("punt:"):
        punt = punt_of(state, wish[5:])
        assert punt is not None
        index = free_punt_space(punt)
        assert index is not None
        punt["crew"][index] = seat
        space = wish
    else:
        space = (
            next(s for s in ("pirate:captain", "pirate:crew") if state["spaces"][s] is None)
            if wish == "pirate"
            else wish
        )
        state["spaces"][space] = seat
    state["left"][seat] -= 1
    name = seat_colour(state, seat)
    if space == "insurance":
        state["cash"][seat] += INSURANCE_PAYMENT
        events.append(
            Event(
                M("{seat} takes the insurance office and receives {amount} pesos.", seat=name, amount=INSURANCE_PAYMENT)
            )
        )
    elif price == 0:
        events.append(
            Event(M("{seat} boards {space} as a blind passenger, for nothing.", seat=name, space=space_label(space)))
        )
    else:
        events.append(
            Event(
                M(
                    "{seat} places an accomplice on {space} for {price}.",
                    seat=name,
                    space=space_label(space),
                    price=pesos(paid),
                )
            )
        )
    return space


def resolve_place(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    for seat, order in orders.items():
        apply_loans(state, seat, order, events)
    for seat in clockwise_from(state, state["harbor_master"]):
        if seat not in orders:
            continue
        name, wants = seat_colour(state, seat), orders[seat]["wants"]
        listed = joined([space_label(w) if w != STOP else Mp("manila", "stop") for w in wants], ",")
        events.append(
            Event(
                M("{seat}'s list: {spaces}.", seat=name, spaces=listed),
                data={"kind": "wishes", "seat": seat, "wants": wants},
            )
        )
        for wish in wants:
            if wish == STOP:
                state["stopped"][seat] = True
                events.append(Event(M("{seat} stops placing for this voyage.", seat=name)))
                break
            price = price_for(state, wish, state["cash"][seat], can_raise(state, seat))
            if price is not None:
                _take(state, seat, wish, price, events)
                break
        else:
            events.append(
                Event(M("Every space on {seat}'s list was taken: {seat} places nothing this round.", seat=name))
            )


def random_place(state: State, seat: int, rng: random.Random) -> Order:
    wishes = list(open_wishes(state, seat))
    if not wishes or rng.random() < 0.15:
        return {"wants": [STOP], "take_loans": 0, "repay_loans": 0}
    return {"wants": rng.sample(wishes, min(len(wishes), rng.randint(1, 3))), "take_loans": 0, "repay_loans": 0}
