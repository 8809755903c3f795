"""How a round moves on: the starting places, the wind draw before each turn, a turn's order applied, an
offer's answer, and the end of a turn (the next ship, or the end of a game out of rounds). Each function
changes the (already copied) state in place and appends events."""

from __future__ import annotations

import random
from collections import Counter

from games.engines.base import Event, M, Mn, Order, State
from games.engines.kit import only
from games.engines.phoenician.actions import CENTRE_NAMES, apply_steps, describe, exchange, remove_old_storms
from games.engines.phoenician.data import WIND_DRAW, card_list, centre_name, colour, square_name
from games.engines.phoenician.syntax import parse


def draw(state: State, seat: int, count: int, rng: random.Random, events: list[Event]) -> list[str]:
    """Draw from the deck; when it runs out, the discard pile is shuffled into a new deck."""
    drawn: list[str] = []
    for _ in range(count):
        if not state["deck"] and state["discard"]:
            state["deck"] = state["discard"]
            state["discard"] = []
            rng.shuffle(state["deck"])
            events.append(
                Event(
                    Mn(
                        "The deck ran out: the discard pile ({count} card) is shuffled.",
                        "The deck ran out: the discard pile ({count} cards) is shuffled.",
                        len(state["deck"]),
                    )
                )
            )
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
    events.append(
        Event(
            Mn(
                "Round {round}: {ship}'s turn. {ship} draws {count} wind card.",
                "Round {round}: {ship}'s turn. {ship} draws {count} wind cards.",
                len(state["drawn"]),
                round=state["round"],
                ship=colour(seat),
            ),
            data={"kind": "turn", "seat": seat},
        )
    )
    events.append(Event(M("You drew {cards}.", cards=card_list(Counter(state["drawn"]))), seat=seat))


def end_turn(state: State, rng: random.Random, events: list[Event]) -> None:
    """The storm phase's clean-up, then the next player's turn (or the end of a game out of rounds)."""
    remove_old_storms(state, state["active"], events)
    state["turn_index"] += 1
    if state["turn_index"] == len(state["order"]):
        state["turn_index"] = 0
        if state["round_limit"] and state["round"] >= state["round_limit"]:
            state.update(step="over", finished=True, offer=None, drawn=[])
            events.append(
                Event(
                    Mn(
                        "The {count} round of this game is over: the richest ship wins.",
                        "The {count} rounds of this game are over: the richest ship wins.",
                        state["round_limit"],
                    )
                )
            )
            return
        state["round"] += 1
    start_turn(state, rng, events)


# --- the decisions' handlers ------------------------------------------------------------------------


def resolve_start(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    centre = order["centre"]
    square = state["centres"][CENTRE_NAMES.index(centre)]
    state["ships"][seat] = square
    events.append(
        Event(
            M(
                "{ship} starts at {centre} ({square}).",
                ship=colour(seat),
                centre=centre_name(centre),
                square=square_name(square),
            )
        )
    )
    state["turn_index"] += 1
    if state["turn_index"] < state["players"]:
        state["active"] = state["order"][state["turn_index"]]
        return
    state.update(turn_index=0, round=1)
    start_turn(state, rng, events)


def resolve_answer(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    _, order = only(orders)
    offer = state["offer"]
    ships = {"giver": colour(offer["from"]), "taker": colour(offer["to"])}
    if order["answer"] == "accept":
        exchange(state)
        said = {"give": describe(offer["give"]), "want": describe(offer["want"])}
        text = M("{taker} accepts: {giver} gives {give} for {want}.", **ships, **said)
        events += [Event(text, seat=offer["from"]), Event(text, seat=offer["to"])]
        events.append(Event(M("{taker} accepts {giver}'s trade offer. {giver}'s turn goes on.", **ships)))
    else:
        events.append(Event(M("{taker} declines {giver}'s trade offer. {giver}'s turn goes on.", **ships)))
    state.update(step="turn", part=2, offer=None)


def resolve_turn(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    apply_steps(state, seat, parse(order["steps"], state["players"]), events)
    if state["step"] == "turn" and not state["finished"]:
        end_turn(state, rng, events)
