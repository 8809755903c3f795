"""The decisions of a voyage, one entry per kind of prompt, and `advance`, which runs the voyage's
stages until one of them needs a decision."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from games.engines.base import Order, OrderError, Prompt, State
from games.engines.manila import auction, crews, placing
from games.engines.manila.flow import enter_plunder, finish_voyage, roll_and_move, voyage_stages
from games.engines.manila.money import Events

NO_LOANS = {"take_loans": 0, "repay_loans": 0}


@dataclass(frozen=True)
class Step:
    enter: Callable[[State, Events], list[int]]
    prompt: Callable[[State, int], Prompt]
    validate: Callable[[State, int, Order], Order]
    resolve: Callable[[State, dict[int, Order], Events], None]
    default: Callable[[State, int], Order]
    random: Callable[[State, int, random.Random], Order]


STEPS = {
    "bid": Step(
        auction.enter_bid,
        auction.bid_prompt,
        auction.validate_bid,
        auction.resolve_bid,
        lambda state, seat: {"bid": 0, **NO_LOANS},
        auction.random_bid,
    ),
    "duties": Step(
        lambda state, events: [state["harbor_master"]],
        auction.duties_prompt,
        auction.validate_duties,
        auction.resolve_duties,
        lambda state, seat: auction.default_duties(),
        auction.random_duties,
    ),
    "place": Step(
        placing.enter_place,
        placing.place_prompt,
        placing.validate_place,
        placing.resolve_place,
        lambda state, seat: {"wants": [placing.STOP], **NO_LOANS},
        placing.random_place,
    ),
    "pilot": Step(
        crews.enter_pilot,
        crews.pilot_prompt,
        crews.validate_pilot,
        crews.resolve_pilot,
        lambda state, seat: {"move": crews.NOTHING, **NO_LOANS},
        crews.random_crew_order,
    ),
    "board": Step(
        crews.enter_board,
        crews.board_prompt,
        crews.validate_board,
        crews.resolve_board,
        lambda state, seat: {"board": crews.NOTHING, **NO_LOANS},
        crews.random_crew_order,
    ),
    "plunder": Step(
        enter_plunder,
        crews.plunder_prompt,
        crews.validate_plunder,
        crews.resolve_plunder,
        lambda state, seat: crews.default_plunder(state),
        crews.random_crew_order,
    ),
}


def step_of(state: State) -> Step:
    if state["step"] not in STEPS:
        raise OrderError("The game is over: nobody is asked anything.")
    return STEPS[state["step"]]


def advance(state: State, events: Events, rng: random.Random) -> None:
    """Run stages from the current one until a seat is asked something or the game ends."""
    while not state["finished"]:
        stage = voyage_stages(state["players"])[state["stage"]]
        state["step_stage"] = stage
        if stage == "move":
            roll_and_move(state, events, rng)
        elif stage == "finish":
            finish_voyage(state, events)  # starts the next voyage at stage 0, or ends the game
            continue
        else:
            state["step"] = stage.split(":")[0]
            asked = STEPS[state["step"]].enter(state, events)
            if asked:
                state["asked"] = asked
                return
        state["stage"] += 1
    state["step"], state["step_stage"], state["asked"] = "over", "over", []


def resolve_step(state: State, orders: dict[int, Order], events: Events, rng: random.Random) -> None:
    step_of(state).resolve(state, orders, events)
    state["asked"] = []
    state["stage"] += 1
    advance(state, events, rng)
