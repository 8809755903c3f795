"""The three decisions, the table the engine kit reads: where a ship starts, the answer to a trade offer,
and a ship's turn."""

from __future__ import annotations

from games.engines.kit import Decision
from games.engines.phoenician import builder
from games.engines.phoenician.bots import random_answer, random_turn
from games.engines.phoenician.flow import resolve_answer, resolve_start, resolve_turn
from games.engines.phoenician.orders import free_centres, validate_answer, validate_start, validate_turn
from games.engines.phoenician.prompts import answer_prompt, start_prompt, turn_prompt
from games.engines.phoenician.readback import read_answer, read_start, read_turn

# Missed deadline: the first free centre at the start; decline an offer; end a turn with no moves.
DECISIONS = {
    "start": Decision(
        start_prompt,
        validate_start,
        lambda state, seat: {"centre": free_centres(state)[0]},
        lambda state, seat, rng: {"centre": rng.choice(free_centres(state))},
        resolve_start,
        read_back=read_start,
    ),
    "answer": Decision(
        answer_prompt,
        validate_answer,
        lambda state, seat: {"answer": "decline"},
        lambda state, seat, rng: {"answer": random_answer(state, rng)},
        resolve_answer,
        read_back=read_answer,
    ),
    "turn": Decision(
        turn_prompt,
        validate_turn,
        lambda state, seat: {"steps": "pass"},
        lambda state, seat, rng: {"steps": random_turn(state, seat, rng)},
        resolve_turn,
        read_back=read_turn,
        builders={"steps": builder.TURN},
    ),
}
