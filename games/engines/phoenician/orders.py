"""How each decision's order is checked (`validate`): where a ship starts, the answer to a trade offer, and
a ship's turn (played on a throwaway copy of the state, so a rejected order changes nothing)."""

from __future__ import annotations

from typing import Any

from games.engines.base import M, Order, OrderError, State, joined
from games.engines.kit import copy_state
from games.engines.phoenician.actions import CENTRE_NAMES, accept_problem, apply_steps
from games.engines.phoenician.data import centre_name
from games.engines.phoenician.syntax import canonical, parse

ANSWERS = {"accept": "accept", "yes": "accept", "decline": "decline", "no": "decline"}


def free_centres(state: State) -> list[str]:
    """The trade centres no ship starts on yet."""
    return [name for name, square in zip(CENTRE_NAMES, state["centres"], strict=True) if square not in state["ships"]]


# --- the start ---------------------------------------------------------------------------------------


def validate_start(state: State, seat: int, order: Order) -> Order:
    name: Any = order.get("centre")
    free = free_centres(state)
    by_name = {n.lower(): n for n in free}
    if not isinstance(name, str) or name.strip().lower() not in by_name:
        names = joined([centre_name(centre) for centre in free], ",")
        raise OrderError(M("Choose a trade centre no other ship starts on: {centres}.", centres=names))
    return {"centre": by_name[name.strip().lower()]}


# --- an offer's answer -------------------------------------------------------------------------------


def validate_answer(state: State, seat: int, order: Order) -> Order:
    answer: Any = order.get("answer")
    if not isinstance(answer, str) or answer.strip().lower() not in ANSWERS:
        raise OrderError(M("Answer the offer with accept or decline."))
    answer = ANSWERS[answer.strip().lower()]
    problem = accept_problem(state)
    if answer == "accept" and problem:
        raise OrderError(problem)
    return {"answer": answer}


# --- a turn ------------------------------------------------------------------------------------------


def validate_turn(state: State, seat: int, order: Order) -> Order:
    text = order.get("steps", "")
    if not isinstance(text, str):
        raise OrderError(M("Write your turn as text, one step per line or separated by ';'."))
    steps = parse(text, state["players"])
    apply_steps(copy_state(state), seat, steps, [])
    return {"steps": canonical(steps)}
