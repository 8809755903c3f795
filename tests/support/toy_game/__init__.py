"""Highest Unique, a toy game that exists to show what a game's folder holds (README, "Adding a game").

Each of three rounds, every seat picks a number from 1 to 5 in secret; the highest number nobody else
picked scores its value. A missed deadline picks 1. Registered only by the tests that use it
(tests/outgoing/test_boards.py), never by the server.
"""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Choice, Event, Field, Order, OrderError, Prompt, ReadBack, Standing, State
from games.engines.kit import Decision, DecisionEngine

ROUNDS = 3
NUMBERS = tuple(str(n) for n in range(1, 6))


def pick_prompt(state: State, seat: int) -> Prompt:
    field = Field("number", "choice", "Your number", tuple(Choice(n, n) for n in NUMBERS))
    return Prompt("pick", f"Round {state['round']}: the highest number nobody else picks scores.", (field,))


def check_pick(state: State, seat: int, order: Order) -> Order:
    if order.get("number") not in NUMBERS:
        raise OrderError("Pick a number from 1 to 5.")
    return {"number": order["number"]}


def score_round(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    picks = {seat: int(order["number"]) for seat, order in orders.items()}
    unique = [(n, seat) for seat, n in picks.items() if list(picks.values()).count(n) == 1]
    if unique:
        number, seat = max(unique)
        state["scores"][seat] += number
        events.append(Event(f"Round {state['round']}: seat {seat + 1} alone picked {number} and scores it."))
    else:
        events.append(Event(f"Round {state['round']}: every number was picked twice; nobody scores."))
    state["round"] += 1
    state["finished"] = state["round"] > ROUNDS


class HighestUnique(DecisionEngine):
    slug = "toy"
    title = "Highest Unique"
    min_players = 2
    max_players = 4
    final_entry = "{rank}. {name} {score}"
    decisions = {
        "pick": Decision(
            prompt=pick_prompt,
            validate=check_pick,
            default=lambda state, seat: {"number": "1"},
            random=lambda state, seat, rng: {"number": rng.choice(NUMBERS)},
            resolve=score_round,
            read_back=lambda state, seat, order: ReadBack((f"You will pick {order['number']}.",)),
        )
    }

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        self.read_setup(players, options)
        return {"players": players, "step": "pick", "round": 1, "scores": [0] * players, "finished": False}

    def asked(self, state: State) -> list[int]:
        return [] if state["finished"] else list(range(state["players"]))

    def outcome(self, state: State) -> list[Standing] | None:
        if not state["finished"]:
            return None
        order = sorted(range(state["players"]), key=lambda seat: -state["scores"][seat])
        top = [state["scores"][seat] for seat in order]
        return [Standing(seat, top[i], top.index(top[i]) + 1) for i, seat in enumerate(order)]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        scores = [
            {"name": self.seat_name(state, other), "score": score, "you": other == seat}
            for other, score in enumerate(state["scores"])
        ]
        final = self.final_rows(state)
        return {"phase": self.phase_name(state), "round": min(state["round"], ROUNDS), "scores": scores, "final": final}

    def not_asked_reason(self, state: State, seat: int) -> str:
        return "The game is over."

    def phase_name(self, state: State) -> str:
        return "Game over" if state["finished"] else f"Round {state['round']} of {ROUNDS}"


TOY = HighestUnique()
