"""Phoenician Sea Trader: sail an 8x8 sea, buy commodities at one trade centre and sell them at another;
the first ship to 25 gold wins. Turns are sequential: one ship's whole turn is one order, a sequence of
steps checked one by one (see `steps`).

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules: data (components and numbers), board (the generated map), steps (the order syntax), play
(applying steps, the wind draw, the end of a turn), bot (random orders), view (what a seat sees).
"""

from __future__ import annotations

import json
import random
from typing import Any

from games.engines import register
from games.engines.base import Engine, Event, OptionSpec, Order, OrderError, Prompt, Standing, State
from games.engines.phoenician.board import generate
from games.engines.phoenician.bot import random_answer, random_turn
from games.engines.phoenician.data import (
    COLOURS,
    DEFAULT_ROUND_LIMIT,
    HAND_SIZE,
    START_GOLD,
    full_deck,
    square_name,
)
from games.engines.phoenician.play import (
    CENTRE_NAMES,
    accept_problem,
    apply_steps,
    describe,
    end_turn,
    exchange,
    start_turn,
)
from games.engines.phoenician.prompts import prompt_for
from games.engines.phoenician.steps import canonical, parse
from games.engines.phoenician.view import build_view

ANSWERS = {"accept": "accept", "yes": "accept", "decline": "decline", "no": "decline"}


def _round_limit(players: int, options: dict[str, Any]) -> int:
    if not isinstance(options, dict):
        raise ValueError("Options must be a mapping of option names to values.")
    unknown = sorted(set(options) - {"round_limit"})
    if unknown:
        raise ValueError(f"Phoenician Sea Trader has no option called {', '.join(map(repr, unknown))}.")
    limit = options.get("round_limit", DEFAULT_ROUND_LIMIT)
    if limit is None or limit == "":
        return DEFAULT_ROUND_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 500:
        raise ValueError("The round limit must be a whole number from 0 (no limit) to 500.")
    return limit


def _standings(state: State) -> list[Standing]:
    """The winner first; then the richest. Equal gold shares a rank (the rules give no tie-break)."""
    rows = sorted(range(state["players"]), key=lambda s: (s != state["winner"], -state["gold"][s], s))
    standings: list[Standing] = []
    for place, seat in enumerate(rows, start=1):
        key = (seat == state["winner"], state["gold"][seat])
        previous = rows[place - 2] if place > 1 else None
        tied = previous is not None and key == (previous == state["winner"], state["gold"][previous])
        detail = f"{state['gold'][seat]} gold" + (", first to 25" if seat == state["winner"] else "")
        standings.append(
            Standing(seat=seat, score=state["gold"][seat], rank=standings[-1].rank if tied else place, detail=detail)
        )
    return standings


class PhoenicianEngine(Engine):
    slug = "phoenician"
    title = "Phoenician Sea Trader"
    min_players = 2
    max_players = 6
    options = (
        OptionSpec(
            name="round_limit",
            label="Rounds before the richest ship wins, if nobody reaches 25 gold (0: no limit)",
            kind="integer",
            default=DEFAULT_ROUND_LIMIT,
            min=0,
            max=500,
        ),
    )

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError("The number of players must be a whole number.")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Phoenician Sea Trader needs 2 to 6 players, not {players}.")
        round_limit = _round_limit(players, options)
        land, centres, pirates = generate(rng)
        deck = full_deck()
        rng.shuffle(deck)
        order = list(range(players))
        rng.shuffle(order)
        return {
            "players": players,
            "land": land,
            "centres": centres,
            "pirates": pirates,
            "storms": [],
            "ships": [None] * players,
            "gold": [START_GOLD] * players,
            "hands": [[deck.pop() for _ in range(HAND_SIZE)] for _ in range(players)],
            "holds": [[] for _ in range(players)],
            "deck": deck,
            "discard": [],
            "order": order,
            "round": 0,
            "round_limit": round_limit,
            "turn_index": 0,
            "step": "start",
            "active": order[0],
            "part": 1,
            "drawn": [],
            "offered": [],
            "offer": None,
            "winner": None,
            "finished": False,
        }

    def asked(self, state: State) -> int | None:
        if state["finished"]:
            return None
        return int(state["offer"]["to"]) if state["step"] == "answer" else int(state["active"])

    def prompts(self, state: State) -> dict[int, Prompt]:
        seat = self.asked(state)
        return {} if seat is None else {seat: prompt_for(state, seat)}

    def validate(self, state: State, seat: int, order: Order) -> Order:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["players"]:
            raise OrderError("There is no such ship in this game.")
        asked = self.asked(state)
        if asked is None:
            raise OrderError("The game is over.")
        if seat != asked:
            raise OrderError(f"It is not your turn: {self.phase_name(state)}.")
        if not isinstance(order, dict):
            raise OrderError("An order must be a form with named fields.")
        if state["step"] == "start":
            return {"centre": self._centre(state, order.get("centre"))}
        if state["step"] == "answer":
            return {"answer": self._answer(state, order.get("answer"))}
        text = order.get("steps", "")
        if not isinstance(text, str):
            raise OrderError("Write your turn as text, one step per line or separated by ';'.")
        steps = parse(text, state["players"])
        apply_steps(json.loads(json.dumps(state)), seat, steps, [])
        return {"steps": canonical(steps)}

    def _centre(self, state: State, name: Any) -> str:
        free = [n for n, square in zip(CENTRE_NAMES, state["centres"], strict=True) if square not in state["ships"]]
        by_name = {n.lower(): n for n in free}
        if not isinstance(name, str) or name.strip().lower() not in by_name:
            raise OrderError(f"Choose a trade centre no other ship starts on: {', '.join(free)}.")
        return by_name[name.strip().lower()]

    def _answer(self, state: State, answer: Any) -> str:
        if not isinstance(answer, str) or answer.strip().lower() not in ANSWERS:
            raise OrderError("Answer the offer with accept or decline.")
        answer = ANSWERS[answer.strip().lower()]
        problem = accept_problem(state)
        if answer == "accept" and problem:
            raise OrderError(problem[0].upper() + problem[1:])
        return answer

    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        new_state: State = json.loads(json.dumps(state))
        seat = self.asked(new_state)
        if seat is None:
            return new_state, []
        by_seat = {int(s): order for s, order in orders.items()}
        try:
            order = self.validate(new_state, seat, by_seat[seat])
        except (KeyError, OrderError):
            order = self.default_order(new_state, seat)  # a missing or stale order counts as a missed deadline
        events: list[Event] = []
        if new_state["step"] == "start":
            self._start(new_state, seat, order["centre"], rng, events)
        elif new_state["step"] == "answer":
            self._settle_offer(new_state, order["answer"], events)
        else:
            apply_steps(new_state, seat, parse(order["steps"], new_state["players"]), events)
            if new_state["step"] == "turn" and not new_state["finished"]:
                end_turn(new_state, rng, events)
        if new_state["finished"]:
            events.append(Event(self._ranking_text(new_state), data={"kind": "final"}))
        return new_state, events

    def _start(self, state: State, seat: int, centre: str, rng: random.Random, events: list[Event]) -> None:
        square = state["centres"][CENTRE_NAMES.index(centre)]
        state["ships"][seat] = square
        events.append(Event(f"{COLOURS[seat]} starts at {centre} ({square_name(square)})."))
        state["turn_index"] += 1
        if state["turn_index"] < state["players"]:
            state["active"] = state["order"][state["turn_index"]]
            return
        state.update(turn_index=0, round=1)
        start_turn(state, rng, events)

    def _settle_offer(self, state: State, answer: str, events: list[Event]) -> None:
        offer = state["offer"]
        giver, taker = COLOURS[offer["from"]], COLOURS[offer["to"]]
        if answer == "accept":
            exchange(state)
            text = f"{taker} accepts: {giver} gives {describe(offer['give'])} for {describe(offer['want'])}."
            events += [Event(text, seat=offer["from"]), Event(text, seat=offer["to"])]
        events.append(Event(f"{taker} {answer}s {giver}'s trade offer. {giver}'s turn goes on."))
        state.update(step="turn", part=2, offer=None)

    def _ranking_text(self, state: State) -> str:
        lines = [f"{s.rank}. {COLOURS[s.seat]} {s.detail}" for s in _standings(state)]
        return "Final ranking: " + "; ".join(lines) + "."

    def default_order(self, state: State, seat: int) -> Order:
        """Missed deadline: the first free centre at the start; decline an offer; end a turn with no moves."""
        if state["step"] == "start":
            free = [n for n, square in zip(CENTRE_NAMES, state["centres"], strict=True) if square not in state["ships"]]
            return {"centre": free[0]}
        if state["step"] == "answer":
            return {"answer": "decline"}
        return {"steps": "pass"}

    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        if state["step"] == "start":
            free = [n for n, square in zip(CENTRE_NAMES, state["centres"], strict=True) if square not in state["ships"]]
            return {"centre": rng.choice(free)}
        if state["step"] == "answer":
            return {"answer": random_answer(state, rng)}
        return {"steps": random_turn(state, seat, rng)}

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        final = None
        if state["finished"]:
            final = [
                {"seat": s.seat, "name": COLOURS[s.seat], "score": s.score, "rank": s.rank, "detail": s.detail}
                for s in _standings(state)
            ]
        return build_view(state, seat, self.phase_name(state), final)

    def outcome(self, state: State) -> list[Standing] | None:
        return _standings(state) if state["finished"] else None

    def phase_name(self, state: State) -> str:
        if state["finished"]:
            return "Game over"
        active = COLOURS[state["active"]]
        if state["step"] == "start":
            return f"Setup — {active} chooses a starting trade centre"
        if state["step"] == "answer":
            return f"Round {state['round']} — {COLOURS[state['offer']['to']]} answers {active}'s trade offer"
        return f"Round {state['round']} — {active}'s turn"

    def conceal(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Other hands and the deck order re-dealt at random (sizes kept); offers hidden from third ships."""
        hidden: State = json.loads(json.dumps(state))
        others = [other for other in range(hidden["players"]) if other != seat]
        pool = hidden["deck"] + [card for other in others for card in hidden["hands"][other]]
        rng.shuffle(pool)
        for other in others:
            size = len(hidden["hands"][other])
            hidden["hands"][other], pool = pool[:size], pool[size:]
        hidden["deck"] = pool
        if hidden["active"] != seat and hidden["drawn"]:
            hand = hidden["hands"][hidden["active"]]
            hidden["drawn"] = hand[len(hand) - len(hidden["drawn"]) :]
        if hidden["offer"] and seat not in (hidden["offer"]["from"], hidden["offer"]["to"]):
            hidden["offer"]["give"], hidden["offer"]["want"] = [], []
        return hidden

    def seat_name(self, state: State, seat: int) -> str:
        return COLOURS[seat]


register(PhoenicianEngine())
