"""The three decisions: where a ship starts, the answer to a trade offer, and a ship's turn. How each
order is checked, what a missed deadline and a bot answer, how it is applied, and the table of steps the
engine is built from."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Event, Order, OrderError, State
from games.engines.kit import Step, copy_state, only
from games.engines.phoenician import builder, readback
from games.engines.phoenician.bot import random_answer, random_turn
from games.engines.phoenician.data import COLOURS, square_name
from games.engines.phoenician.play import (
    CENTRE_NAMES,
    accept_problem,
    apply_steps,
    describe,
    end_turn,
    exchange,
    start_turn,
)
from games.engines.phoenician.prompts import answer_prompt, start_prompt, turn_prompt
from games.engines.phoenician.steps import canonical, parse

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
        raise OrderError(f"Choose a trade centre no other ship starts on: {', '.join(free)}.")
    return {"centre": by_name[name.strip().lower()]}


def resolve_start(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    centre = order["centre"]
    square = state["centres"][CENTRE_NAMES.index(centre)]
    state["ships"][seat] = square
    events.append(Event(f"{COLOURS[seat]} starts at {centre} ({square_name(square)})."))
    state["turn_index"] += 1
    if state["turn_index"] < state["players"]:
        state["active"] = state["order"][state["turn_index"]]
        return
    state.update(turn_index=0, round=1)
    start_turn(state, rng, events)


# --- an offer's answer -------------------------------------------------------------------------------


def validate_answer(state: State, seat: int, order: Order) -> Order:
    answer: Any = order.get("answer")
    if not isinstance(answer, str) or answer.strip().lower() not in ANSWERS:
        raise OrderError("Answer the offer with accept or decline.")
    answer = ANSWERS[answer.strip().lower()]
    problem = accept_problem(state)
    if answer == "accept" and problem:
        raise OrderError(problem[0].upper() + problem[1:])
    return {"answer": answer}


def resolve_answer(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    _, order = only(orders)
    offer = state["offer"]
    giver, taker = COLOURS[offer["from"]], COLOURS[offer["to"]]
    if order["answer"] == "accept":
        exchange(state)
        text = f"{taker} accepts: {giver} gives {describe(offer['give'])} for {describe(offer['want'])}."
        events += [Event(text, seat=offer["from"]), Event(text, seat=offer["to"])]
    events.append(Event(f"{taker} {order['answer']}s {giver}'s trade offer. {giver}'s turn goes on."))
    state.update(step="turn", part=2, offer=None)


# --- a turn ------------------------------------------------------------------------------------------


def validate_turn(state: State, seat: int, order: Order) -> Order:
    text = order.get("steps", "")
    if not isinstance(text, str):
        raise OrderError("Write your turn as text, one step per line or separated by ';'.")
    steps = parse(text, state["players"])
    apply_steps(copy_state(state), seat, steps, [])
    return {"steps": canonical(steps)}


def resolve_turn(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    apply_steps(state, seat, parse(order["steps"], state["players"]), events)
    if state["step"] == "turn" and not state["finished"]:
        end_turn(state, rng, events)


# Missed deadline: the first free centre at the start; decline an offer; end a turn with no moves.
STEPS = {
    "start": Step(
        start_prompt,
        validate_start,
        lambda state, seat: {"centre": free_centres(state)[0]},
        lambda state, seat, rng: {"centre": rng.choice(free_centres(state))},
        resolve_start,
        read_back=readback.read_start,
    ),
    "answer": Step(
        answer_prompt,
        validate_answer,
        lambda state, seat: {"answer": "decline"},
        lambda state, seat, rng: {"answer": random_answer(state, rng)},
        resolve_answer,
        read_back=readback.read_answer,
    ),
    "turn": Step(
        turn_prompt,
        validate_turn,
        lambda state, seat: {"steps": "pass"},
        lambda state, seat, rng: {"steps": random_turn(state, seat, rng)},
        resolve_turn,
        read_back=readback.read_turn,
        builders={"steps": builder.TURN},
    ),
}
