"""How each decision's order is checked (validate) and written back canonically: a home city and the card
kept, and a turn's actions (applied one by one on a copy of the state)."""

from __future__ import annotations

from games.engines.base import M, Msg, Order, OrderError, State, joined
from games.engines.kit import copy_state
from games.engines.ports_of_call.flow import home_choices
from games.engines.ports_of_call.money import city_name
from games.engines.ports_of_call.turn import run_turn


def not_asked_reason(state: State, seat: int) -> Msg:
    if state["finished"]:
        return M("The game is over; no more orders are taken.")
    if state["bankrupt"][seat]:
        return M("Your company is bankrupt and out of the game.")
    return M("It is not your turn.")


def _text(order: Order, name: str) -> str:
    value = order.get(name)
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise OrderError(M("The {name} field must be text.", name=name))
    return value.strip()


def validate_home(state: State, seat: int, order: Order) -> Order:
    home, keep = _text(order, "home"), _text(order, "keep")
    city = next((c for c in home_choices(state) if c.lower() == home.lower()), None)
    if city is None:
        free = joined([city_name(c) for c in home_choices(state)], ",")
        if home:
            raise OrderError(M("{text} is not a free home city; choose from {cities}.", text=home, cities=free))
        raise OrderError(M("That is not a free home city; choose from {cities}.", cities=free))
    cards = {str(card): card for card in state["dealt"][seat]}
    if keep not in cards:
        raise OrderError(M("Choose one of your three dealt order cards to keep."))
    return {"home": city, "keep": keep}


def validate_turn(state: State, seat: int, order: Order) -> Order:
    text = _text(order, "actions")
    scratch = copy_state(state)
    steps = run_turn(scratch, seat, text, [])
    return {"actions": "; ".join(steps)}
