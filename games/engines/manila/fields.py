"""Form pieces shared by every prompt: the loan fields and reading a choice."""

from __future__ import annotations

from typing import Any

from games.engines.base import Field, M, Mn, Msg, Order, OrderError, ReadBack, State
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
                label=M("Loans to take first ({amount} pesos each, one unencumbered share each)", amount=LOAN),
                min=0,
                max=free_shares(state, seat),
                help=M("Blank or 0 for none. A payment you cannot cover takes the loans it needs by itself."),
                optional=True,
            )
        )
    if state["loans"][seat]:
        fields.append(
            Field(
                name="repay_loans",
                kind="integer",
                label=M("Loans to repay first ({amount} pesos each)", amount=REDEEM),
                min=0,
                max=repayable(state, seat),
                help=M("Blank or 0 for none."),
                optional=True,
            )
        )
    return tuple(fields)


def with_loans(state: State, seat: int, order: Order, rest: dict[str, Any]) -> Order:
    take, repay = validate_loans(state, seat, order)
    return {**rest, "take_loans": take, "repay_loans": repay}


def read_with_loans(order: Order, lines: list[Msg], warnings: tuple[Msg, ...] = ()) -> ReadBack:
    """An order's read-back, after a first line for the loans it takes or repays before the rest."""
    take, repay = order.get("take_loans") or 0, order.get("repay_loans") or 0
    first = []
    if take:
        first.append(
            Mn(
                "First you will take {count} loan (+{amount}).",
                "First you will take {count} loans (+{amount}).",
                take,
                amount=pesos(LOAN * take),
            )
        )
    if repay:
        first.append(
            Mn(
                "First you will repay {count} loan ({amount}).",
                "First you will repay {count} loans ({amount}).",
                repay,
                amount=pesos(REDEEM * repay),
            )
        )
    return ReadBack((*first, *lines), warnings)


def choice(order: Order, name: str, allowed: dict[str, Any], what: Msg) -> str:
    """The chosen value, matched without regard to case or spaces; `allowed` maps values to labels (their English
    is matched: a reply may name a choice by its label)."""
    value = order.get(name)
    if not isinstance(value, str) or not value.strip():
        raise OrderError(M("Please choose {what}.", what=what))
    wanted = value.strip().lower().replace(" ", "")
    for option, label in allowed.items():
        if wanted in (option.lower().replace(" ", ""), str(label).lower().replace(" ", "")):
            return option
    raise OrderError(M("{typed} is not a possible choice for {what}.", typed=repr(value.strip()[:30]), what=what))
