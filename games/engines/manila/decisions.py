"""The decisions of a voyage, the table the engine kit reads (one entry per kind of prompt), and `advance`,
which runs the voyage's stages until one of them needs a decision. Each decision's handler goes on with the
voyage (`then_advance`), so resolving a decision always ends at the next one or at the end."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from games.engines.base import Order, State
from games.engines.kit import Decision, Handler
from games.engines.manila import auction, crews, placing
from games.engines.manila.flow import enter_plunder, finish_voyage, roll_and_move, voyage_stages
from games.engines.manila.money import Events

NO_LOANS = {"take_loans": 0, "repay_loans": 0}


@dataclass(frozen=True)
class Stage(Decision):
    """A decision of the voyage and how it opens: `enter` returns the seats it asks (none: it is settled
    at once and the voyage goes on)."""

    enter: Callable[[State, Events], list[int]]


def then_advance(handler: Handler) -> Handler:
    """The decision's handler, then the voyage's stages up to the next decision."""

    def resolve(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
        handler(state, orders, rng, events)
        state["asked"] = []
        state["stage"] += 1
        advance(state, events, rng)

    return resolve


DECISIONS = {
    "bid": Stage(
        auction.bid_prompt,
        auction.validate_bid,
        lambda state, seat: {"bid": 0, **NO_LOANS},
        auction.random_bid,
        then_advance(auction.resolve_bid),
        auction.enter_bid,
        read_back=auction.read_bid,
    ),
    "duties": Stage(
        auction.duties_prompt,
        auction.validate_duties,
        lambda state, seat: auction.default_duties(),
        auction.random_duties,
        then_advance(auction.resolve_duties),
        lambda state, events: [state["harbor_master"]],
        read_back=auction.read_duties,
    ),
    "place": Stage(
        placing.place_prompt,
        placing.validate_place,
        lambda state, seat: {"wants": [placing.STOP], **NO_LOANS},
        placing.random_place,
        then_advance(placing.resolve_place),
        placing.enter_place,
        read_back=placing.read_place,
    ),
    "pilot": Stage(
        crews.pilot_prompt,
        crews.validate_pilot,
        lambda state, seat: {"move": crews.NOTHING, **NO_LOANS},
        crews.random_crew_order,
        then_advance(crews.resolve_pilot),
        crews.enter_pilot,
        read_back=crews.read_pilot,
    ),
    "board": Stage(
        crews.boarding_prompt,
        crews.validate_boarding,
        lambda state, seat: {"board": crews.NOTHING, **NO_LOANS},
        crews.random_crew_order,
        then_advance(crews.resolve_boarding),
        crews.enter_boarding,
        read_back=crews.read_boarding,
    ),
    "plunder": Stage(
        crews.plunder_prompt,
        crews.validate_plunder,
        lambda state, seat: crews.default_plunder(state),
        crews.random_crew_order,
        then_advance(crews.resolve_plunder),
        enter_plunder,
        read_back=crews.read_plunder,
    ),
}


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
            asked = DECISIONS[state["step"]].enter(state, events)
            if asked:
                state["asked"] = asked
                return
        state["stage"] += 1
    state["step"], state["step_stage"], state["asked"] = "over", "over", []
