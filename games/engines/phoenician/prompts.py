"""What the asked ship is told and the form it fills in. A prompt goes to that seat only, so it may name
the seat's own hand and the cards it just drew."""

from __future__ import annotations

from collections import Counter

from games.engines.base import Choice, Field, Prompt, State
from games.engines.phoenician.actions import CENTRE_NAMES, accept_problem, centre_at, describe
from games.engines.phoenician.data import CENTRES, COLOURS, WIN_GOLD, card_list, square_name
from games.engines.phoenician.syntax import HELP


def start_prompt(state: State, seat: int) -> Prompt:
    choices = tuple(
        Choice(name, f"{name} at {square_name(square)} (sells {CENTRES[name][0]}, most desires {CENTRES[name][1]})")
        for name, square in zip(CENTRE_NAMES, state["centres"], strict=True)
        if square not in state["ships"]
    )
    text = (
        f"You sail the {COLOURS[seat]} ship: choose the trade centre it starts on (no two ships start on the same "
        f"one). The first ship to {WIN_GOLD} gold wins; your hand and gold are under the board."
    )
    return Prompt(kind="start", text=text, fields=(Field("centre", "choice", "Start at", choices),))


def answer_prompt(state: State, seat: int) -> Prompt:
    offer = state["offer"]
    text = (
        f"{COLOURS[offer['from']]} offers you {describe(offer['give'])} in exchange for {describe(offer['want'])}: "
        "accept or decline (only you two see this offer)."
    )
    problem = accept_problem(state)
    choices = (Choice("decline", "Decline"),) if problem else (Choice("accept", "Accept"), Choice("decline", "Decline"))
    if problem:
        text += " " + problem[0].upper() + problem[1:]
    help_text = "Cards from a hand go to the other hand, cards from a hold to the other hold."
    answer = Field("answer", "choice", "Your answer", choices, help=help_text)
    return Prompt(kind="answer", text=text, fields=(answer,))


def turn_prompt(state: State, seat: int) -> Prompt:
    square = state["ships"][seat]
    centre = centre_at(state, square)
    where = f"in {centre} ({square_name(square)})" if centre else f"at sea on {square_name(square)}"
    if state["part"] == 1:
        drawn = card_list(Counter(state["drawn"])) if state["drawn"] else "nothing"
        opening = f"Round {state['round']}, your turn: your ship is {where} with {state['gold'][seat]} gold, and "
        opening += f"the wind brought you {drawn}."
    else:
        opening = f"Your trade offer has been answered: finish your turn (your ship is {where})."
    text = (
        f"{opening} Build it step by step, sailing and trading in any order, then piracy, then a storm; under the "
        "board your hold says where each good sells, and your hand where each can be bought."
    )
    steps = Field("steps", "steps", "Your turn", min=0, max=2000, help=HELP)
    return Prompt(kind="turn", text=text, fields=(steps,))
