"""How a round moves on: the starting places, the wind draw before each turn, a turn's order applied, an
offer's answer, and the end of a turn (the next ship, or the end of a game out of rounds). Each function
changes the (already copied) state in place and appends events."""

from __future__ import annotations

import random
from collections import Counter

from games.engines.base import Event, Order, State
from games.engines.kit import only
from games.engines.phoenician.actions import CENTRE_NAMES, apply_steps, describe, exchange, remove_old_storms
from games.engines.phoenician.data import COLOURS, WIND_DRAW, card_list, square_name
from games.engines.phoenician.syntax import parse


def draw(state: State, seat: int, count: int, rng: random.Random, events: list[Event]) -> list[str]:
    """Draw from the deck; when it runs out, the discard pile is shuffled into a new deck."""
    drawn: list[str] = []
    for _ in range(count):
        if not state["deck"] and state["discard"]:
            state["deck"] = state["discard"]
            state["discard"] = []
            rng.shuffle(state["deck"])
            events.append(Event(f"The deck ran out: the discard pile ({len(state['deck'])} cards) is shuffled."))
        if not state["deck"]:
            break
        drawn.append(state["deck"].pop())
    state["hands"][seat] += drawn
    return drawn


def start_turn(state: State, rng: random.Random, events: list[Event]) -> None:
    """The wind phase: the server draws the active player's three cards before asking for the order."""
    seat = state["order"][state["turn_index"]]
    state.update(step="turn", active=seat, part=1, offered=[], offer=None)
    state["drawn"] = draw(state, seat, WIND_DRAW, rng, events)
    name = COLOURS[seat]
    events.append(
        Event(
            f"Round {state['round']}: {name}'s turn. {name} draws {len(state['drawn'])} wind card"
            f"{'' if len(state['drawn']) == 1 else 's'}.",
            data={"kind": "turn", "seat": seat},
        )
    )
    events.append(Event(f"You drew {card_list(Counter(state['drawn']))}.", seat=seat))


def end_turn(state: State, rng: random.Random, events: list[Event]) -> None:
    """The storm phase's clean-up, then the next player's turn (or the end of a game out of rounds)."""
    remove_old_storms(state, state["active"], events)
    state["turn_index"] += 1
    if state["turn_index"] == len(state["order"]):
        state["turn_index"] = 0
        if state["round_limit"] and state["round"] >= state["round_limit"]:
            state.update(step="over", finished=True, offer=None, drawn=[])
            events.append(Event(f"The {state['round_limit']} rounds of this game are over: the richest ship wins."))
            return
        state["round"] += 1
    start_turn(state, rng, events)


# --- the decisions' handlers ------------------------------------------------------------------------


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


def resolve_turn(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    apply_steps(state, seat, parse(order["steps"], state["players"]), events)
    if state["step"] == "turn" and not state["finished"]:
        end_turn(state, rng, events)
