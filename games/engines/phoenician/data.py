"""The components of Phoenician Sea Trader: the 8x8 map's coordinates, the six trade centres, the 58-card
deck and the numbers of the rulebook, plus house defaults (labelled; RULES.md lists them).

Squares are stored as ints 0..63 (row * 8 + column). Row 0 is the north edge and column 0 the west edge;
players read them as a column letter and a row number, "A1" in the north-west corner, "H8" in the
south-east.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import Mn, Mp, Msg, joined

SIZE = 8
SQUARES = SIZE * SIZE
COLUMNS = "ABCDEFGH"
LAND_COUNT = 10
PIRATE_COUNT = 2
START_GOLD = 10
WIN_GOLD = 25
HAND_SIZE = 5
WIND_DRAW = 3
HOLD_MAX = 6
BUY_PRICE = 1
SELL_PRICE = 2
DESIRED_PRICE = 3
# HOUSE DEFAULT (RULES.md): generated boards keep trade centres at least 2 apart (no two touch).
CENTRE_SPACING = 2
# Play-by-email change (RULES.md): a game nobody can finish still ends; 0 turns the limit off.
DEFAULT_ROUND_LIMIT = 60

# Trade centre: (commodity it sells, commodity it most desires), in the rulebook's order.
CENTRES: dict[str, tuple[str, str]] = {
    "Rome": ("Wine", "Silk"),
    "Egypt": ("Grain", "Obsidian"),
    "Greece": ("Oil", "Grain"),
    "Persia": ("Silk", "Oil"),
    "Carthage": ("Spices", "Wine"),
    "Crete": ("Obsidian", "Spices"),
}
COMMODITIES = ("Silk", "Obsidian", "Grain", "Oil", "Wine", "Spices")
ROW = "Row"
STORM = "Storm"

# Compass directions as (row step, column step); north is up.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (-1, 0),
    "NE": (-1, 1),
    "E": (0, 1),
    "SE": (1, 1),
    "S": (1, 0),
    "SW": (1, -1),
    "W": (0, -1),
    "NW": (-1, -1),
}
SAIL_CARDS = {
    "N": "Sail North",
    "S": "Sail South",
    "E": "Sail East",
    "W": "Sail West",
    "NE": "Sail NE",
    "SE": "Sail SE",
    "NW": "Sail NW",
    "SW": "Sail SW",
}
DIRECTION_OF_CARD = {card: direction for direction, card in SAIL_CARDS.items()}

CARD_COUNTS: dict[str, int] = {
    **{commodity: 4 for commodity in COMMODITIES},
    ROW: 6,
    **{SAIL_CARDS[d]: 3 for d in ("N", "S", "E", "W", "NE", "SE", "NW", "SW")},
    STORM: 4,
}
CARD_ORDER = tuple(CARD_COUNTS)  # how hands are sorted for display

# Ship colours name the seats: the table game has pawns, not countries.
COLOURS = ("Red", "Blue", "Green", "Yellow", "White", "Orange")  # initials R B G Y W O are distinct
COLOUR_HEX = {
    "Red": "#c0392b",
    "Blue": "#2563eb",
    "Green": "#15803d",
    "Yellow": "#ca8a04",
    "White": "#f8fafc",
    "Orange": "#ea580c",
}
COMMODITY_HEX = {
    "Silk": "#9d174d",
    "Obsidian": "#374151",
    "Grain": "#b45309",
    "Oil": "#4d7c0f",
    "Wine": "#7f1d1d",
    "Spices": "#c2410c",
}


def full_deck() -> list[str]:
    return [card for card, count in CARD_COUNTS.items() for _ in range(count)]


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARD_ORDER.index)


def square_name(square: int) -> str:
    return f"{COLUMNS[square % SIZE]}{square // SIZE + 1}"


def parse_square(text: str) -> int | None:
    text = text.strip().upper()
    if len(text) != 2 or text[0] not in COLUMNS or text[1] not in "12345678":
        return None
    return (int(text[1]) - 1) * SIZE + COLUMNS.index(text[0])


def step(square: int, direction: str) -> int | None:
    """The square one space from `square` in `direction`, or None off the edge of the map."""
    d_row, d_col = DIRECTIONS[direction]
    row, col = square // SIZE + d_row, square % SIZE + d_col
    if 0 <= row < SIZE and 0 <= col < SIZE:
        return row * SIZE + col
    return None


def neighbours(square: int) -> list[int]:
    """HOUSE DEFAULT (RULES.md): movement and adjacency are 8-way."""
    return [other for direction in DIRECTIONS if (other := step(square, direction)) is not None]


def distance(a: int, b: int) -> int:
    """Spaces between two squares when moving 8-way on an empty sea (Chebyshev distance)."""
    return max(abs(a // SIZE - b // SIZE), abs(a % SIZE - b % SIZE))


def count_cards(cards: list[str]) -> Counter[str]:
    return Counter(cards)


# The game's things as the players read them: terms, translated with the sentence they stand in.
GOOD_NAMES: dict[str, Msg] = {
    "Silk": Mp("phoenician good", "Silk"),
    "Obsidian": Mp("phoenician good", "Obsidian"),
    "Grain": Mp("phoenician good", "Grain"),
    "Oil": Mp("phoenician good", "Oil"),
    "Wine": Mp("phoenician good", "Wine"),
    "Spices": Mp("phoenician good", "Spices"),
}
CARD_NAMES: dict[str, Msg] = {
    **GOOD_NAMES,
    ROW: Mp("phoenician card", "Row"),
    STORM: Mp("phoenician card", "Storm"),
    "Sail North": Mp("phoenician card", "Sail North"),
    "Sail South": Mp("phoenician card", "Sail South"),
    "Sail East": Mp("phoenician card", "Sail East"),
    "Sail West": Mp("phoenician card", "Sail West"),
    "Sail NE": Mp("phoenician card", "Sail NE"),
    "Sail SE": Mp("phoenician card", "Sail SE"),
    "Sail NW": Mp("phoenician card", "Sail NW"),
    "Sail SW": Mp("phoenician card", "Sail SW"),
}
CENTRE_TERMS: dict[str, Msg] = {
    "Rome": Mp("phoenician centre", "Rome"),
    "Egypt": Mp("phoenician centre", "Egypt"),
    "Greece": Mp("phoenician centre", "Greece"),
    "Persia": Mp("phoenician centre", "Persia"),
    "Carthage": Mp("phoenician centre", "Carthage"),
    "Crete": Mp("phoenician centre", "Crete"),
}
# A centre's short name on the plain-text map ("ROM:RB" is Rome with Red and Blue in port).
CENTRE_CODES: dict[str, Msg] = {
    "Rome": Mp("phoenician centre code", "ROM"),
    "Egypt": Mp("phoenician centre code", "EGY"),
    "Greece": Mp("phoenician centre code", "GRE"),
    "Persia": Mp("phoenician centre code", "PER"),
    "Carthage": Mp("phoenician centre code", "CAR"),
    "Crete": Mp("phoenician centre code", "CRE"),
}
COLOUR_NAMES: dict[str, Msg] = {
    "Red": Mp("phoenician colour", "Red"),
    "Blue": Mp("phoenician colour", "Blue"),
    "Green": Mp("phoenician colour", "Green"),
    "Yellow": Mp("phoenician colour", "Yellow"),
    "White": Mp("phoenician colour", "White"),
    "Orange": Mp("phoenician colour", "Orange"),
}
# Where a ship sails, in words ("north-east"); the typed syntax and the log keep the compass's letters ("NE").
WIND: dict[str, Msg] = {
    "N": Mp("phoenician direction", "north"),
    "NE": Mp("phoenician direction", "north-east"),
    "E": Mp("phoenician direction", "east"),
    "SE": Mp("phoenician direction", "south-east"),
    "S": Mp("phoenician direction", "south"),
    "SW": Mp("phoenician direction", "south-west"),
    "W": Mp("phoenician direction", "west"),
    "NW": Mp("phoenician direction", "north-west"),
}


def good_name(good: str) -> Msg:
    return GOOD_NAMES[good]


def card_name(card: str) -> Msg:
    return CARD_NAMES[card]


def centre_name(centre: str) -> Msg:
    return CENTRE_TERMS[centre]


def colour(seat: int) -> Msg:
    """A ship's name: its colour."""
    return COLOUR_NAMES[COLOURS[seat]]


def gold(amount: int) -> Msg:
    return Mn("{count} gold", "{count} gold", amount)


def card_list(counts: Counter[str]) -> Any:
    """ "2 Silk, Wine" for display ("nothing" for none)."""
    entries = [
        Mn("{card}", "{count} {card}", n, card=card_name(card)) for card, n in sorted(counts.items(), key=_order) if n
    ]
    return joined(entries, ",") or Mp("phoenician cards", "nothing")


def _order(item: tuple[str, int]) -> int:
    return CARD_ORDER.index(item[0])
