"""What the asked ship is told and the form it fills in. A prompt goes to that seat only, so it may name
the seat's own hand and the cards it just drew."""

from __future__ import annotations

from collections import Counter

from games.engines.base import Choice, Field, M, Mp, Prompt, State
from games.engines.phoenician.actions import CENTRE_NAMES, accept_problem, centre_at, describe
from games.engines.phoenician.data import (
    CENTRES,
    WIN_GOLD,
    card_list,
    centre_name,
    colour,
    gold,
    good_name,
    square_name,
)
from games.engines.phoenician.syntax import HELP


def start_prompt(state: State, seat: int) -> Prompt:
    choices = tuple(
        Choice(
            name,
            M(
                "{centre} at {square} (sells {sells}, most desires {desires})",
                centre=centre_name(name),
                square=square_name(square),
                sells=good_name(CENTRES[name][0]),
                desires=good_name(CENTRES[name][1]),
            ),
        )
        for name, square in zip(CENTRE_NAMES, state["centres"], strict=True)
        if square not in state["ships"]
    )
    text = M(
        "You sail the {ship} ship: choose the trade centre it starts on (no two ships start on the same one). "
        "The first ship to {gold} wins; your hand and gold are under the board.",
        ship=colour(seat),
        gold=gold(WIN_GOLD),
    )
    return Prompt(kind="start", text=text, fields=(Field("centre", "choice", M("Start at"), choices),))


def answer_prompt(state: State, seat: int) -> Prompt:
    offer = state["offer"]
    said = {"ship": colour(offer["from"]), "give": describe(offer["give"]), "want": describe(offer["want"])}
    problem = accept_problem(state)
    decline = Choice("decline", Mp("phoenician answer", "Decline"))
    if problem:
        choices: tuple[Choice, ...] = (decline,)
        text = M(
            "{ship} offers you {give} in exchange for {want}: accept or decline (only you two see this offer). "
            "{problem}",
            **said,
            problem=problem,
        )
    else:
        choices = (Choice("accept", Mp("phoenician answer", "Accept")), decline)
        text = M(
            "{ship} offers you {give} in exchange for {want}: accept or decline (only you two see this offer).", **said
        )
    help_text = M("Cards from a hand go to the other hand, cards from a hold to the other hold.")
    answer = Field("answer", "choice", M("Your answer"), choices, help=help_text)
    return Prompt(kind="answer", text=text, fields=(answer,))


def turn_prompt(state: State, seat: int) -> Prompt:
    square = state["ships"][seat]
    centre = centre_at(state, square)
    where = (
        M("in {centre} ({square})", centre=centre_name(centre), square=square_name(square))
        if centre
        else M("at sea on {square}", square=square_name(square))
    )
    building = M(
        "Build it step by step, sailing and trading in any order, then piracy, then a storm; under the board your "
        "hold says where each good sells, and your hand where each can be bought."
    )
    if state["part"] == 1:
        text = M(
            "Round {round}, your turn: your ship is {where} with {gold}, and the wind brought you {drawn}. {building}",
            round=state["round"],
            where=where,
            gold=gold(state["gold"][seat]),
            drawn=card_list(Counter(state["drawn"])),
            building=building,
        )
    else:
        text = M(
            "Your trade offer has been answered: finish your turn (your ship is {where}). {building}",
            where=where,
            building=building,
        )
    steps = Field("steps", "steps", M("Your turn"), min=0, max=2000, help=HELP, words="phoenician")
    return Prompt(kind="turn", text=text, fields=(steps,))
