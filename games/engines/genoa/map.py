"""The board: an 8×8 grid of squares grouped into spaces (18 buildings, 20 streets, the market).

The square layout is a HOUSE DEFAULT (RULES.md; the rulebook shows it only as a picture). A space is
a building key (e.g. "guild_hall"), a street "x-y" (x is the blue die, y the red die) or "market".
Two spaces are adjacent when any of their squares touch orthogonally.
"""

from __future__ import annotations

import re
from functools import cache

from games.engines.base import Mp, Msg

SIZE = 8
MARKET = "market"

# Row by row, y = 1..8 (red die), x = 1..8 (blue die). "." is a street square. HOUSE DEFAULT (RULES.md).
_LAYOUT = (
    "spices    spices    coach     coach     palace    palace    metals    metals",
    "ricci     spices    .         .         .         .         metals    colini",
    "ricci     .         .         guild     guild     .         .         colini",
    "harbor    .         cathedral market    market    post      .         park",
    "harbor    .         cathedral market    market    post      .         park",
    "zasteri   .         .         city      city      .         .         monetti",
    "zasteri   fabric    .         .         .         .         drinks    monetti",
    "fabric    fabric    tavern    tavern    inn       inn       drinks    drinks",
)
_KEYS = {
    "coach": "coach_house",
    "guild": "guild_hall",
    "city": "city_hall",
    "post": "post_office",
}

BUILDING_NAMES: dict[str, str] = {
    "guild_hall": "Guild Hall",
    "city_hall": "City Hall",
    "post_office": "Post Office",
    "cathedral": "Cathedral",
    "palace": "Palace",
    "park": "Park",
    "coach_house": "Coach House",
    "harbor": "Harbor",
    "tavern": "Tavern",
    "inn": "Inn",
    "drinks": "Drinks",
    "metals": "Metals",
    "fabric": "Fabric",
    "spices": "Spices",
    "colini": "Villa Colini",
    "monetti": "Villa Monetti",
    "ricci": "Villa Ricci",
    "zasteri": "Villa Zasteri",
}
BUILDINGS = tuple(BUILDING_NAMES)
VILLAS = ("colini", "monetti", "ricci", "zasteri")


def _grid() -> list[list[str]]:
    rows = []
    for y, line in enumerate(_LAYOUT, start=1):
        row = []
        for x, word in enumerate(line.split(), start=1):
            row.append(f"{x}-{y}" if word == "." else _KEYS.get(word, word))
        rows.append(row)
    return rows


GRID: list[list[str]] = _grid()  # GRID[y - 1][x - 1] is the space on that square
STREETS = tuple(sorted({cell for row in GRID for cell in row if "-" in cell}, key=lambda s: (s[2], s[0])))
SPACES = (*BUILDINGS, *STREETS, MARKET)


def space_at(x: int, y: int) -> str:
    """The space under the dice roll: blue die x, red die y."""
    return GRID[y - 1][x - 1]


def squares_of(space: str) -> list[tuple[int, int]]:
    return [(x, y) for y in range(1, SIZE + 1) for x in range(1, SIZE + 1) if GRID[y - 1][x - 1] == space]


@cache
def neighbours(space: str) -> frozenset[str]:
    found: set[str] = set()
    for x, y in squares_of(space):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx, ny = x + dx, y + dy
            if 1 <= nx <= SIZE and 1 <= ny <= SIZE and GRID[ny - 1][nx - 1] != space:
                found.add(GRID[ny - 1][nx - 1])
    return frozenset(found)


def is_street(space: str) -> bool:
    return space in STREETS


def is_building(space: str) -> bool:
    return space in BUILDING_NAMES


# The buildings as the players read them (the terms of the German and French editions, docs/glossary-genoa.md);
# BUILDING_NAMES stays the English the typed orders use.
BUILDING_TERMS: dict[str, Msg] = {
    "guild_hall": Mp("genoa building", "Guild Hall"),
    "city_hall": Mp("genoa building", "City Hall"),
    "post_office": Mp("genoa building", "Post Office"),
    "cathedral": Mp("genoa building", "Cathedral"),
    "palace": Mp("genoa building", "Palace"),
    "park": Mp("genoa building", "Park"),
    "coach_house": Mp("genoa building", "Coach House"),
    "harbor": Mp("genoa building", "Harbor"),
    "tavern": Mp("genoa building", "Tavern"),
    "inn": Mp("genoa building", "Inn"),
    "drinks": Mp("genoa building", "Drinks"),
    "metals": Mp("genoa building", "Metals"),
    "fabric": Mp("genoa building", "Fabric"),
    "spices": Mp("genoa building", "Spices"),
    "colini": Mp("genoa building", "Villa Colini"),
    "monetti": Mp("genoa building", "Villa Monetti"),
    "ricci": Mp("genoa building", "Villa Ricci"),
    "zasteri": Mp("genoa building", "Villa Zasteri"),
}


def space_term(space: str) -> Msg:
    """A space as a person reads it, in their language (space_name is the English a typed order uses)."""
    if space == MARKET:
        return Mp("genoa space", "Market")
    if is_street(space):
        return Mp("genoa space", "Street {street}", street=space)
    return BUILDING_TERMS[space]


def space_name(space: str) -> str:
    """A space as a typed order names it (the reply syntax's English)."""
    if space == MARKET:
        return "Market"
    if is_street(space):
        return f"Street {space}"
    return BUILDING_NAMES[space]


def reachable(start: str, moves: int) -> set[str]:
    """Every space a tower on `start` can end on within `moves` moves, never revisiting a space."""
    found = {start}

    def walk(path: tuple[str, ...], left: int) -> None:
        if left == 0:
            return
        for nxt in neighbours(path[-1]):
            if nxt not in path:
                found.add(nxt)
                walk((*path, nxt), left - 1)

    walk((start,), moves)
    return found


_ALIASES: dict[str, str] = {"market": MARKET, "harbour": "harbor", "marketplace": MARKET}
for _key, _name in BUILDING_NAMES.items():
    _ALIASES[re.sub(r"[^a-z]", "", _name.lower())] = _key
    _ALIASES[_key.replace("_", "")] = _key
for _street in STREETS:
    _ALIASES[_street.replace("-", "")] = _street
_NOISE = re.compile(r"\b(the|villa|street|warehouse|st)\b|[^a-z0-9]")


def parse_space(text: str) -> str | None:
    """A space from what a player typed: "Guild Hall", "guildhall", "Colini", "Street 3-2", "3-2", "32"."""
    lowered = text.strip().lower()
    if lowered in _ALIASES:
        return _ALIASES[lowered]
    squeezed = re.sub(r"[^a-z0-9]", "", lowered)
    if squeezed in _ALIASES:
        return _ALIASES[squeezed]
    cleaned = _NOISE.sub("", lowered)
    return _ALIASES.get(cleaned)
