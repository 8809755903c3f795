"""Each decision's order read back in words: a ship's turn is played step by step on a copy of the state
and each step said with what it does ("You will sail west 2 spaces to D4 (Rome)", "Then you will sell
1 Silk for 3 gold"). Warnings: a turn that does nothing, a ship that ends where it started."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import M, Mn, Msg, Order, ReadBack, State, joined
from games.engines.kit import copy_state
from games.engines.phoenician.actions import APPLY, CENTRE_NAMES, centre_at, describe
from games.engines.phoenician.data import WIND, card_list, centre_name, colour, gold, square_name
from games.engines.phoenician.syntax import Step, parse


def read_start(state: State, seat: int, order: Order) -> ReadBack:
    square = state["centres"][CENTRE_NAMES.index(order["centre"])]
    line = M("You will start at {centre} ({square}).", centre=centre_name(order["centre"]), square=square_name(square))
    return ReadBack((line,))


def read_answer(state: State, seat: int, order: Order) -> ReadBack:
    offer = state["offer"]
    giver = colour(offer["from"])
    if order["answer"] == "decline":
        return ReadBack((M("You will decline {ship}'s offer.", ship=giver),))
    line = M(
        "You will accept {ship}'s offer: you get {give} and give {want}.",
        ship=giver,
        give=describe(offer["give"]),
        want=describe(offer["want"]),
    )
    return ReadBack((line,))


def _where(state: State, square: int) -> Msg | str:
    centre = centre_at(state, square)
    if centre:
        return M("{square} ({centre})", square=square_name(square), centre=centre_name(centre))
    return square_name(square)


def _step_words(before: State, after: State, seat: int, step: Step) -> Msg:
    """What one step does, as the read-back says it after "You will" or "Then you will"."""
    kind = step[0]
    if kind == "row":
        return M("row {direction} to {square}", direction=WIND[step[1]], square=_where(after, after["ships"][seat]))
    if kind == "sail":
        return Mn(
            "sail {direction} {count} space to {square}",
            "sail {direction} {count} spaces to {square}",
            step[2],
            direction=WIND[step[1]],
            square=_where(after, after["ships"][seat]),
        )
    if kind == "buy":
        bought = Counter(after["holds"][seat]) - Counter(before["holds"][seat])
        return M(
            "buy {cards} for {gold}", cards=card_list(bought), gold=gold(before["gold"][seat] - after["gold"][seat])
        )
    if kind == "sell":
        sold = Counter(before["holds"][seat]) - Counter(after["holds"][seat])
        said = {"cards": card_list(sold), "gold": gold(after["gold"][seat] - before["gold"][seat])}
        if after["winner"] == seat:
            return M(
                "sell {cards} for {gold} (you will have {total}), and win the game", **said, total=after["gold"][seat]
            )
        return M("sell {cards} for {gold} (you will have {total})", **said, total=after["gold"][seat])
    if kind == "offer":
        return M(
            "offer {ship} {give} for {want}; the rest of your turn comes after {ship} answers",
            ship=colour(step[1]),
            give=describe(step[2]),
            want=describe(step[3]),
        )
    if kind == "pirate":
        said = {
            "number": step[1],
            "direction": WIND[step[2]],
            "square": square_name(after["pirates"][step[1] - 1]),
        }
        robbed: list[Any] = [
            M("{ship} loses {cards}", ship=colour(other), cards=card_list(Counter(before["holds"][other])))
            for other in range(before["players"])
            if before["holds"][other] and not after["holds"][other] and other != seat
        ]
        if robbed:
            return Mn(
                "move pirate {number} {direction} {count} space to {square}: {robbed}",
                "move pirate {number} {direction} {count} spaces to {square}: {robbed}",
                step[3],
                **said,
                robbed=joined(robbed, ";"),
            )
        return Mn(
            "move pirate {number} {direction} {count} space to {square}",
            "move pirate {number} {direction} {count} spaces to {square}",
            step[3],
            **said,
        )
    return M("raise a storm at {square}", square=square_name(step[1]))


def read_turn(state: State, seat: int, order: Order) -> ReadBack:
    steps = parse(order["steps"], state["players"])
    start = state["ships"][seat]
    if not steps:
        return ReadBack(
            (M("You will end your turn without a move."),),
            (M("You do nothing this turn: your ship stays on {square}.", square=_where(state, start)),),
        )
    sim = copy_state(state)
    lines: list[Msg] = []
    moved = False
    for number, step in enumerate(steps):
        before = copy_state(sim)
        APPLY[step[0]](sim, seat, step, [])
        moved = moved or step[0] in ("row", "sail")
        words = _step_words(before, sim, seat, step)
        lines.append(M("You will {step}.", step=words) if number == 0 else M("Then you will {step}.", step=words))
        if sim["finished"]:
            break
    warnings = []
    if moved and sim["ships"][seat] == start:
        warnings.append(M("Your ship ends where it started, on {square}.", square=_where(state, start)))
    return ReadBack(tuple(lines), tuple(warnings))
