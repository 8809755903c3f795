"""The three decisions, the table the engine kit reads: where a ship starts, the answer to a trade offer,
and a ship's turn."""

from __future__ import annotations

from games.engines.kit import Decision
from games.engines.phoenician import builder, flow, orders, prompts, readback
from games.engines.phoenician.bots import random_answer, random_turn

# Missed deadline: the first free centre at the start; decline an offer; end a turn with no moves.
DECISIONS = {
    "start": Decision(
        prompts.start_prompt,
        orders.validate_start,
        lambda state, seat: {"centre": orders.free_centres(state)[0]},
        lambda state, seat, rng: {"centre": rng.choice(orders.free_centres(state))},
        flow.resolve_start,
        read_back=readback.read_start,
    ),
    "answer": Decision(
        prompts.answer_prompt,
        orders.validate_answer,
        lambda state, seat: {"answer": "decline"},
        lambda state, seat, rng: {"answer": random_answer(state, rng)},
        flow.resolve_answer,
        read_back=readback.read_answer,
    ),
    "turn": Decision(
        prompts.turn_prompt,
        orders.validate_turn,
        lambda state, seat: {"steps": "pass"},
        lambda state, seat, rng: {"steps": random_turn(state, seat, rng)},
        flow.resolve_turn,
        read_back=readback.read_turn,
        builders={"steps": builder.TURN},
    ),
}
