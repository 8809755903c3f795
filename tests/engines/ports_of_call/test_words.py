"""Ports of Call's words in German and French, where a translation once made the number wrong: a ship one space
out on a longer route, and the action points a turn leaves unused (both seen in the French review of a typed
order, tests/incoming/test_browser_typed.py: 'à 1 cases sur 2 de Hambourg', 'Vous laissez 2 points d'action
inutilisé(s)'). The at-sea message takes its plural form by the route's length ({count}), so a translation whose
noun follows the ship's position ({pos}) says '1 cases'; and a plural by hand ('(s)') is what ngettext is for."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.utils import translation

from games import words
from games.engines import get_engine
from games.engines.ports_of_call.data import ROUTES
from games.engines.ports_of_call.view import build_view

ENGINE = get_engine("ports-of-call")
State = dict[str, Any]
# A singular number before a plural noun, or a plural made by hand, in each language.
WRONG_NUMBER = {
    "en": re.compile(r"\b1 (spaces|action points)\b|\(s\)"),
    "de": re.compile(r"\b1 (Felder|Feldern|Aktionspunkte)\b|\((e|n|en|s)\)"),
    "fr": re.compile(r"\b1 (cases|points)\b|\w\((e|s|es)\)"),
}


def first_turn() -> tuple[State, int]:
    """A two-seat game after both home cities were chosen (Hamburg, then Hong Kong): the seat to play."""
    state = ENGINE.setup(2, {}, random.Random(1))
    for city in ("Hamburg", "Hong Kong"):
        seat = state["queue"][0]
        order = ENGINE.validate(state, seat, {"home": city, "keep": str(state["dealt"][seat][0])})
        state, _ = ENGINE.resolve(state, {seat: order}, random.Random(0))
    assert state["step"] == "turn"
    return state, state["queue"][0]


def one_space_out(state: State, seat: int) -> str:
    """A move of the seat's ship S1 one space along a route of 2 spaces or more from its port."""
    port = next(ship["port"] for ship in state["ships"][seat] if ship["id"] == "S1")
    other = next(
        second if first == port else first
        for first, second, spaces, *_ in ROUTES
        if port in (first, second) and spaces >= 2
    )
    return f"move S1 {other} 1"


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_ship_one_space_out_and_the_points_left_read_in_the_right_number(language: str) -> None:
    state, seat = first_turn()
    order = ENGINE.validate(state, seat, {"actions": one_space_out(state, seat)})
    moved, _ = ENGINE.resolve(state, {seat: order}, random.Random(0))
    (at_sea,) = [ship for ship in build_view(moved, seat, "", None)["ships"] if ship["mine"] and ship["id"] == "S1"]
    with translation.override(language):
        read = words.read_back(ENGINE.read_back(state, seat, order))
        board = words.render(at_sea["where"])
    said = [*read.lines, *read.warnings, board]
    assert len(read.warnings) == 1 and "1" in read.lines[0] and "1" in board, said  # what is checked is said
    assert [text for text in said if WRONG_NUMBER[language].search(text)] == []
