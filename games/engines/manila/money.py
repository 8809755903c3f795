"""Cash, shares and loans. A seat's shares are a list of wares; `loans` counts how many of them are
encumbered. Which share is encumbered never matters (each counts its ware's value at the end and 15 is
owed per encumbered share), so the engine does not track which one it is."""

from __future__ import annotations

from typing import Any

from games.engines.base import Event, Order, OrderError, State
from games.engines.manila.data import LOAN, REDEEM

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


def take_loans(state: State, seat: int, count: int, events: Events, why: str = "") -> None:
    if count <= 0:
        return
    state["loans"][seat] += count
    state["cash"][seat] += LOAN * count
    plural = "s" if count > 1 else ""
    reason = f" {why}" if why else ""
    events.append(
        Event(
            f"{state['names'][seat]} takes {count} loan{plural} ({LOAN * count} pesos){reason}.", data={"kind": "loan"}
        )
    )


def repay_loans(state: State, seat: int, count: int, events: Events) -> None:
    if count <= 0:
        return
    state["loans"][seat] -= count
    state["cash"][seat] -= REDEEM * count
    plural = "s" if count > 1 else ""
    events.append(
        Event(f"{state['names'][seat]} repays {count} loan{plural} ({REDEEM * count} pesos).", data={"kind": "repay"})
    )


def pay(state: State, seat: int, amount: int, events: Events, why: str = "") -> int:
    """Pay `amount` to the cash box, taking the fewest loans needed; returns what was paid (less than
    `amount` only when even every loan falls short)."""
    needed = min(loans_needed(state["cash"][seat], amount), free_shares(state, seat))
    take_loans(state, seat, needed, events, why)
    paid = min(amount, state["cash"][seat])
    state["cash"][seat] -= paid
    return int(paid)


# --- the loan fields every prompt of a seat with shares carries -------------------------------------


def whole_number(value: Any, what: str, low: int, high: int) -> int:
    if value is None or value == "":
        number = 0
    elif isinstance(value, bool):
        raise OrderError(f"{what} must be a whole number.")
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().lstrip("+-").isdigit() and len(value.strip()) < 10:
        number = int(value.strip())
    else:
        raise OrderError(f"{what} must be a whole number.")
    if not low <= number <= high:
        raise OrderError(f"{what} must be between {low} and {high}; you gave {number}.")
    return number


def repayable(state: State, seat: int) -> int:
    return int(min(state["loans"][seat], state["cash"][seat] // REDEEM))


def validate_loans(state: State, seat: int, order: Order) -> tuple[int, int]:
    take = whole_number(order.get("take_loans"), "Loans to take", 0, free_shares(state, seat))
    repay = whole_number(order.get("repay_loans"), "Loans to repay", 0, repayable(state, seat))
    if take and repay:
        raise OrderError("Take loans or repay them in one order, not both.")
    return take, repay


def finances_after_loans(state: State, seat: int, take: int, repay: int) -> tuple[int, int]:
    """(cash, what could still be raised) once this order's loan fields are applied."""
    cash = state["cash"][seat] + LOAN * take - REDEEM * repay
    free = free_shares(state, seat) - take + repay
    return int(cash), int(cash + LOAN * free)


def apply_loans(state: State, seat: int, order: Order, events: Events) -> None:
    take_loans(state, seat, order.get("take_loans", 0), events, "by choice")
    repay_loans(state, seat, order.get("repay_loans", 0), events)
