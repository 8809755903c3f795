"""Cash, shares and loans. A seat's shares are a list of wares; `loans` counts how many of them are
encumbered. Which share is encumbered never matters (each counts its ware's value at the end and 15 is
owed per encumbered share), so the engine does not track which one it is."""

from __future__ import annotations

from typing import Any

from games.engines.base import Event, M, Mn, Mp, Msg, Order, OrderError, State
from games.engines.manila.data import LOAN, REDEEM, seat_colour

Events = list[Event]


def free_shares(state: State, seat: int) -> int:
    return len(state["shares"][seat]) - state["loans"][seat]


def can_raise(state: State, seat: int) -> int:
    """Cash plus everything the seat could still borrow on unencumbered shares."""
    return int(state["cash"][seat] + LOAN * free_shares(state, seat))


def loans_needed(cash: int, amount: int) -> int:
    """The fewest loans that bring `cash` up to `amount`."""
    short = amount - cash
    return 0 if short <= 0 else -(-short // LOAN)


def take_loans(state: State, seat: int, count: int, events: Events, why: Msg | None = None) -> None:
    """`why`: what the loans are for (Mp("manila loan", "to pay the bid")), or None."""
    if count <= 0:
        return
    state["loans"][seat] += count
    state["cash"][seat] += LOAN * count
    said = {"seat": seat_colour(state, seat), "amount": LOAN * count}
    if why is None:
        text = Mn(
            "{seat} takes {count} loan ({amount} pesos).", "{seat} takes {count} loans ({amount} pesos).", count, **said
        )
    else:
        text = Mn(
            "{seat} takes {count} loan ({amount} pesos) {why}.",
            "{seat} takes {count} loans ({amount} pesos) {why}.",
            count,
            why=why,
            **said,
        )
    events.append(Event(text, data={"kind": "loan"}))


def repay_loans(state: State, seat: int, count: int, events: Events) -> None:
    if count <= 0:
        return
    state["loans"][seat] -= count
    state["cash"][seat] -= REDEEM * count
    text = Mn(
        "{seat} repays {count} loan ({amount} pesos).",
        "{seat} repays {count} loans ({amount} pesos).",
        count,
        seat=seat_colour(state, seat),
        amount=REDEEM * count,
    )
    events.append(Event(text, data={"kind": "repay"}))


def pay(state: State, seat: int, amount: int, events: Events, why: Msg | None = None) -> int:
    """Pay `amount` to the cash box, taking the fewest loans needed; returns what was paid (less than
    `amount` only when even every loan falls short)."""
    needed = min(loans_needed(state["cash"][seat], amount), free_shares(state, seat))
    take_loans(state, seat, needed, events, why)
    paid = min(amount, state["cash"][seat])
    state["cash"][seat] -= paid
    return int(paid)


# --- the loan fields every prompt of a seat with shares carries -------------------------------------


def whole_number(value: Any, what: Msg, low: int, high: int) -> int:
    """`value` as a whole number from `low` to `high`; `what` names it (Mp("manila number", "Your bid"))."""
    if value is None or value == "":
        number = 0
    elif isinstance(value, bool):
        raise OrderError(M("{what} must be a whole number.", what=what))
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().lstrip("+-").isdigit() and len(value.strip()) < 10:
        number = int(value.strip())
    else:
        raise OrderError(M("{what} must be a whole number.", what=what))
    if not low <= number <= high:
        raise OrderError(
            M(
                "{what} must be between {low} and {high}; you gave {number}.",
                what=what,
                low=low,
                high=high,
                number=number,
            )
        )
    return number


def repayable(state: State, seat: int) -> int:
    return int(min(state["loans"][seat], state["cash"][seat] // REDEEM))


def validate_loans(state: State, seat: int, order: Order) -> tuple[int, int]:
    take = whole_number(order.get("take_loans"), Mp("manila number", "Loans to take"), 0, free_shares(state, seat))
    repay = whole_number(order.get("repay_loans"), Mp("manila number", "Loans to repay"), 0, repayable(state, seat))
    if take and repay:
        raise OrderError(M("Take loans or repay them in one order, not both."))
    return take, repay


def finances_after_loans(state: State, seat: int, take: int, repay: int) -> tuple[int, int]:
    """(cash, what could still be raised) once this order's loan fields are applied."""
    cash = state["cash"][seat] + LOAN * take - REDEEM * repay
    free = free_shares(state, seat) - take + repay
    return int(cash), int(cash + LOAN * free)


def apply_loans(state: State, seat: int, order: Order, events: Events) -> None:
    take_loans(state, seat, order.get("take_loans", 0), events, Mp("manila loan", "by choice"))
    repay_loans(state, seat, order.get("repay_loans", 0), events)
