"""The map, generated from the game's seed: 10 land spaces, the 6 trade centres and 2 pirate ships
scattered at random on the 8x8 grid, redrawn until the rulebook's advice holds.

The rulebook says "try to separate trade centers by at least 1 or 2 spaces" and "do not completely block
trade centers in by land". HOUSE DEFAULT (RULES.md): no two centres touch (at least 2 apart, diagonals
included), and every sea space is reachable from every other without passing through land or a centre
(a ship stops on entering a centre, so it cannot sail through one), which also means every centre
touches the open sea.
"""

from __future__ import annotations

import random

from games.engines.phoenician.data import (
    CENTRE_SPACING,
    CENTRES,
    LAND_COUNT,
    PIRATE_COUNT,
    SQUARES,
    distance,
    neighbours,
)

MAX_ATTEMPTS = 1000


def generate(rng: random.Random) -> tuple[list[int], list[int], list[int]]:
    """(land squares, centre squares in the order of CENTRES, pirate squares)."""
    for _ in range(MAX_ATTEMPTS):
        squares = list(range(SQUARES))
        rng.shuffle(squares)
        centres: list[int] = []
        for square in squares:
            if all(distance(square, other) >= CENTRE_SPACING for other in centres):
                centres.append(square)
                if len(centres) == len(CENTRES):
                    break
        if len(centres) < len(CENTRES):
            continue
        free = [square for square in squares if square not in centres]
        land = free[:LAND_COUNT]
        pirates = free[LAND_COUNT : LAND_COUNT + PIRATE_COUNT]
        if not problems(land, centres, pirates):
            return sorted(land), centres, pirates
    raise RuntimeError("no board met the constraints")  # never seen: about one board in three is kept


def sea_squares(land: list[int], centres: list[int]) -> set[int]:
    return set(range(SQUARES)) - set(land) - set(centres)


def problems(land: list[int], centres: list[int], pirates: list[int]) -> list[str]:
    """Every way the board breaks the generation constraints (empty: a good board). The tests call it."""
    found = []
    occupied = land + centres + pirates
    if len(set(occupied)) != len(occupied) or not all(0 <= s < SQUARES for s in occupied):
        found.append("two markers share a space")
    if len(land) != LAND_COUNT or len(centres) != len(CENTRES) or len(pirates) != PIRATE_COUNT:
        found.append("wrong number of markers")
    for i, a in enumerate(centres):
        if any(distance(a, b) < CENTRE_SPACING for b in centres[i + 1 :]):
            found.append("two trade centres touch")
    sea = sea_squares(land, centres)
    if not sea:
        return [*found, "no sea"]
    start = next(iter(sea))
    reached = {start}
    frontier = [start]
    while frontier:
        square = frontier.pop()
        for other in neighbours(square):
            if other in sea and other not in reached:
                reached.add(other)
                frontier.append(other)
    if reached != sea:
        found.append("some sea spaces cannot be reached")
    for centre in centres:
        if not any(other in sea for other in neighbours(centre)):
            found.append("a trade centre is walled in")
    return found
