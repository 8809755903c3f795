"""Form pieces shared by every prompt: the loan fields and reading a choice."""

from __future__ import annotations

from typing import Any

from games.engines.base import Field, Order, OrderError, ReadBack, State
from games.engines.manila.data import LOAN, REDEEM, pesos
from games.engines.manila.money import free_shares, repayable, validate_loans


def loan_fields(state: State, seat: int) -> tuple[Field, ...]:
    """Every prompt of a seat that could take or repay loans offers both; they apply before the rest."""
    fields = []
    if free_shares(state, seat):
        fields.append(
            Field(
                name="take_loans",
                kind="integer",
                label=f"Loans to take first ({LOAN} pesos each, one unencumbered share each)",
                min=0,
                max=free_shares(state, seat),
                help="Blank or 0 for none. A payment you cannot cover takes the loans it needs by itself.",
                optional=True,
            )
        )
    if state["loans"][seat]:
        fields.append(
            Field(
                name="repay_loans",
                kind="integer",
                label=f"Loans to repay first ({REDEEM} pesos each)",
                min=0,
                max=repayable(state, seat),
                help="Blank or 0 for none.",
                optional=True,
            )
        )
    return tuple(fields)


def with_loans(state: State, seat: int, order: Order, rest: dict[str, Any]) -> Order:
    take, repay = validate_loans(state, seat, order)
    return {**rest, "take_loans": take, "repay_loans": repay}


def read_with_loans(order: Order, lines: list[str], warnings: tuple[str, ...] = ()) -> ReadBack:
    """An order's read-back, after a first line for the loans it takes or repays before the rest."""
    take, repay = order.get("take_loans") or 0, order.get("repay_loans") or 0
    first = []
    if take:
        first.append(f"First you will take {take} loan{'s' if take > 1 else ''} (+{pesos(LOAN * take)}).")
    if repay:
        first.append(f"First you will repay {repay} loan{'s' if repay > 1 else ''} ({pesos(REDEEM * repay)}).")
    return ReadBack((*first, *lines), warnings)


def choice(order: Order, name: str, allowed: dict[str, str], what: str) -> str:
    """The chosen value, matched without regard to case or spaces; `allowed` maps values to labels."""
    value = order.get(name)
    if not isinstance(value, str) or not value.strip():
        raise OrderError(f"Please choose {what}.")
    wanted = value.strip().lower().replace(" ", "")
    for option, label in allowed.items():
        if wanted in (option.lower().replace(" ", ""), label.lower().replace(" ", "")):
            return option
    raise OrderError(f"{value.strip()[:30]!r} is not a possible choice for {what}.")
