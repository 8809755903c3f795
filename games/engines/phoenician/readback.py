"""Each decision's order read back in words: a ship's turn is played step by step on a copy of the state
and each step said with what it does ("You will sail west 2 spaces to D4 (Rome)", "Then you will sell
1 Silk for 3 gold"). Warnings: a turn that does nothing, a ship that ends where it started."""

from __future__ import annotations

from collections import Counter

from games.engines.base import Order, ReadBack, State
from games.engines.kit import copy_state
from games.engines.phoenician.actions import APPLY, CENTRE_NAMES, centre_at, describe
from games.engines.phoenician.builder import WIND
from games.engines.phoenician.data import COLOURS, card_list, square_name
from games.engines.phoenician.syntax import Step, parse


def read_start(state: State, seat: int, order: Order) -> ReadBack:
    square = state["centres"][CENTRE_NAMES.index(order["centre"])]
    return ReadBack((f"You will start at {order['centre']} ({square_name(square)}).",))


def read_answer(state: State, seat: int, order: Order) -> ReadBack:
    offer = state["offer"]
    giver = COLOURS[offer["from"]]
    if order["answer"] == "decline":
        return ReadBack((f"You will decline {giver}'s offer.",))
    line = f"You will accept {giver}'s offer: you get {describe(offer['give'])} and give {describe(offer['want'])}."
    return ReadBack((line,))


def _where(state: State, square: int) -> str:
    centre = centre_at(state, square)
    return f"{square_name(square)} ({centre})" if centre else square_name(square)


def _step_words(before: State, after: State, seat: int, step: Step) -> str:
    kind = step[0]
    if kind == "row":
        return f"row {WIND[step[1]]} to {_where(after, after['ships'][seat])}"
    if kind == "sail":
        spaces = "1 space" if step[2] == 1 else f"{step[2]} spaces"
        return f"sail {WIND[step[1]]} {spaces} to {_where(after, after['ships'][seat])}"
    if kind == "buy":
        bought = Counter(after["holds"][seat]) - Counter(before["holds"][seat])
        return f"buy {card_list(bought)} for {before['gold'][seat] - after['gold'][seat]} gold"
    if kind == "sell":
        sold = Counter(before["holds"][seat]) - Counter(after["holds"][seat])
        earned = after["gold"][seat] - before["gold"][seat]
        words = f"sell {card_list(sold)} for {earned} gold (you will have {after['gold'][seat]})"
        return words + (", and win the game" if after["winner"] == seat else "")
    if kind == "offer":
        other = COLOURS[step[1]]
        return (
            f"offer {other} {describe(step[2])} for {describe(step[3])}; the rest of your turn comes after "
            f"{other} answers"
        )
    if kind == "pirate":
        spaces = "1 space" if step[3] == 1 else f"{step[3]} spaces"
        words = f"move pirate {step[1]} {WIND[step[2]]} {spaces} to {square_name(after['pirates'][step[1] - 1])}"
        robbed = [
            f"{COLOURS[other]} loses {card_list(Counter(before['holds'][other]))}"
            for other in range(before["players"])
            if before["holds"][other] and not after["holds"][other] and other != seat
        ]
        return words + (f": {'; '.join(robbed)}" if robbed else "")
    return f"raise a storm at {square_name(step[1])}"


def read_turn(state: State, seat: int, order: Order) -> ReadBack:
    steps = parse(order["steps"], state["players"])
    start = state["ships"][seat]
    if not steps:
        return ReadBack(
            ("You will end your turn without a move.",),
            (f"You do nothing this turn: your ship stays on {_where(state, start)}.",),
        )
    sim = copy_state(state)
    lines = []
    moved = False
    for number, step in enumerate(steps):
        before = copy_state(sim)
        APPLY[step[0]](sim, seat, step, [])
        moved = moved or step[0] in ("row", "sail")
        lead = "You will" if number == 0 else "Then you will"
        lines.append(f"{lead} {_step_words(before, sim, seat, step)}.")
        if sim["finished"]:
            break
    warnings = []
    if moved and sim["ships"][seat] == start:
        warnings.append(f"Your ship ends where it started, on {_where(state, start)}.")
    return ReadBack(tuple(lines), tuple(warnings))
