"""Genoa tables built for a rule's test: a game at a merchant's offers, goods, tiles and markers dealt."""

from __future__ import annotations

import random

from games.engines import get_engine
from games.engines.base import State
from games.engines.genoa.actions import take_goods, take_markers, take_tile
from games.engines.genoa.flow import open_offers

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
ENGINE = get_engine("genoa")


def table(players: int = 3, start: str = "4-2", merchant: int = RED) -> State:
    """A game in round 1 at `merchant`'s offers phase, the tower on `start`; nobody holds cards, goods,
    tiles or markers unless the test deals them."""
    state = ENGINE.setup(players, {}, random.Random(1))
    for seat in range(players):
        for card in state["hands"][seat]:
            state["decks"][card[0]].append(card)
    state["hands"] = [[] for _ in range(players)]
    state["rounds_left"] = state["rounds_total"]
    state["turn_in_round"] = merchant
    state["turn"].update(merchant=merchant, start=start, roll=None)
    open_offers(state, [])
    return state


def give(state: State, seat: int, goods: tuple[str, ...] = (), tiles: tuple[str, ...] = (), markers: int = 0) -> None:
    take_goods(state, seat, list(goods))
    for tile in tiles:
        assert take_tile(state, seat, tile)
    take_markers(state, seat, markers)
