"""Commodities, special tiles, cards and the numbers of the game.

Figures marked Published are the game's published numbers; the ones marked HOUSE DEFAULT are house
defaults (the card faces, the round track), labelled so wherever they are used. RULES.md beside this file
lists both with their sources.
"""

from __future__ import annotations

from games.engines.base import M, Mn, Mp, Msg, joined
from games.engines.genoa.map import BUILDINGS, VILLAS, space_term

START_DUCATS = 130
MARKERS_PER_PLAYER = 7
DISCS = 5  # the Trade tower: one disc per visited space, so at most four moves
MOVES = DISCS - 1
OWNER_FEE = 10  # paid by the bank to a building's owner when someone else uses it
MARKER_VALUE = 10  # per ownership marker on a building at the end
LARGE_ORDER_PAY = 100
SMALL_ORDER_PAY = 30  # HOUSE DEFAULT
MESSAGE_PAY = 40  # HOUSE DEFAULT
CONTRACT_PAY = 30  # HOUSE DEFAULT
ROUNDS_BY_PLAYERS = {2: 12, 3: 10, 4: 8, 5: 6}  # HOUSE DEFAULT: the round track's starting space
COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple")
COLOUR_HEX = ("#c0392b", "#2b6cb0", "#2f855a", "#c99a06", "#6b46c1")

COMMODITIES = ("ale", "wine", "silver", "copper", "linen", "silk", "pepper", "saffron")
COMMODITY_TILES_EACH = 5
WAREHOUSE_GOODS = {
    "drinks": ("ale", "wine"),
    "metals": ("silver", "copper"),
    "fabric": ("linen", "silk"),
    "spices": ("pepper", "saffron"),
}

# Special tiles: key -> (name, number in the game). Published.
TILES = {
    "start": ("Starting space", 5),
    "trade": ("Trade 1:1", 7),
    "choice": ("Commodity of your choice", 5),
    "extra": ("Extra action", 5),
    "build": ("Building action", 5),
}
TILE_OF_BUILDING = {
    "coach_house": "start",
    "tavern": "trade",
    "inn": "trade",
    "harbor": "choice",
    "park": "extra",
    "palace": "build",
}
# Which tile a large order's reward takes when the player names none: the most generally useful first.
TILE_PREFERENCE = ("extra", "build", "choice", "trade", "start")

CARD_KINDS = {"L": "large order", "S": "small order", "M": "message", "C": "contract"}

# The game's terms as a person reads them (docs/glossary-genoa.md), translated with the sentence they stand in;
# the English keys above stay the words a typed order uses.
COLOUR_TERMS: dict[str, Msg] = {
    "Red": Mp("genoa colour", "Red"),
    "Blue": Mp("genoa colour", "Blue"),
    "Green": Mp("genoa colour", "Green"),
    "Yellow": Mp("genoa colour", "Yellow"),
    "Purple": Mp("genoa colour", "Purple"),
}
COMMODITY_TERMS: dict[str, Msg] = {
    "ale": Mp("genoa commodity", "ale"),
    "wine": Mp("genoa commodity", "wine"),
    "silver": Mp("genoa commodity", "silver"),
    "copper": Mp("genoa commodity", "copper"),
    "linen": Mp("genoa commodity", "linen"),
    "silk": Mp("genoa commodity", "silk"),
    "pepper": Mp("genoa commodity", "pepper"),
    "saffron": Mp("genoa commodity", "saffron"),
}
TILE_TERMS: dict[str, Msg] = {
    "start": Mp("genoa tile", "Starting space"),
    "trade": Mp("genoa tile", "Trade 1:1"),
    "choice": Mp("genoa tile", "Commodity of your choice"),
    "extra": Mp("genoa tile", "Extra action"),
    "build": Mp("genoa tile", "Building action"),
}
# A special tile by its short name, as an offer names it ("extra tile", "reward extra").
TILE_SHORT: dict[str, Msg] = {
    "start": Mp("genoa tile, short", "start"),
    "trade": Mp("genoa tile, short", "trade"),
    "choice": Mp("genoa tile, short", "choice"),
    "extra": Mp("genoa tile, short", "extra"),
    "build": Mp("genoa tile, short", "build"),
}
CARD_KIND_TERMS: dict[str, Msg] = {
    "L": Mp("genoa card", "large order"),
    "S": Mp("genoa card", "small order"),
    "M": Mp("genoa card", "message"),
    "C": Mp("genoa card", "contract"),
}
PILES = {"L": "large", "S": "small", "M": "message", "C": "contract"}
NON_VILLAS = tuple(building for building in BUILDINGS if building not in VILLAS)


def _large_orders() -> dict[str, tuple[str, tuple[str, ...]]]:
    """HOUSE DEFAULT: 16 large orders, 4 per villa, each for 3 different commodities."""
    cards = {}
    for number in range(16):
        villa = VILLAS[number // 4]
        goods = tuple(COMMODITIES[(number + step) % 8] for step in (0, 3, 5))
        cards[f"L{number + 1}"] = (villa, goods)
    return cards


def _small_orders() -> dict[str, tuple[str, str]]:
    """HOUSE DEFAULT: 16 small orders, each a non-villa building and 1 commodity."""
    return {
        f"S{number + 1}": (NON_VILLAS[number % len(NON_VILLAS)], COMMODITIES[(number * 3) % 8]) for number in range(16)
    }


def _messages() -> dict[str, tuple[str, str]]:
    """HOUSE DEFAULT: 14 messages, each naming two buildings."""
    return {f"M{number + 1}": (BUILDINGS[number], BUILDINGS[(number + 7) % len(BUILDINGS)]) for number in range(14)}


def _contracts() -> dict[str, str]:
    """HOUSE DEFAULT: 14 contracts, each naming a building (14 of the 18)."""
    return {f"C{number + 1}": BUILDINGS[(number * 5) % len(BUILDINGS)] for number in range(14)}


LARGE_ORDERS = _large_orders()
SMALL_ORDERS = _small_orders()
MESSAGES = _messages()
CONTRACTS = _contracts()
ALL_CARDS = (*LARGE_ORDERS, *SMALL_ORDERS, *MESSAGES, *CONTRACTS)


def pile_cards(kind: str) -> list[str]:
    return [card for card in ALL_CARDS if card[0] == kind]


def card_kind(card: str) -> Msg:
    return CARD_KIND_TERMS[card[0]]


def card_text(card: str) -> Msg:
    """A card as its holder reads it, e.g. "L3 large order: Villa Colini, silver + silk + ale"."""
    kind = card[0]
    if kind == "L":
        villa, goods = LARGE_ORDERS[card]
        return M(
            "{card} large order: {villa}, {goods} (pays {pay} and a special tile)",
            card=card,
            villa=space_term(villa),
            goods=joined([good_term(good) for good in goods], "+"),
            pay=LARGE_ORDER_PAY,
        )
    if kind == "S":
        building, good = SMALL_ORDERS[card]
        return M(
            "{card} small order: {building}, 1 {good} (pays {pay})",
            card=card,
            building=space_term(building),
            good=good_term(good),
            pay=SMALL_ORDER_PAY,
        )
    if kind == "M":
        first, second = MESSAGES[card]
        return M(
            "{card} message: tower visits {first} and {second} in one turn (pays {pay})",
            card=card,
            first=space_term(first),
            second=space_term(second),
            pay=MESSAGE_PAY,
        )
    return M(
        "{card} contract: own {building} at the end (pays {pay})",
        card=card,
        building=space_term(CONTRACTS[card]),
        pay=CONTRACT_PAY,
    )


def tile_name(tile: str) -> Msg:
    return TILE_TERMS[tile]


def good_term(good: str) -> Msg:
    return COMMODITY_TERMS[good]


def colour_term(seat: int) -> Msg:
    return COLOUR_TERMS[COLOURS[seat]]


def ducats(amount: int) -> Msg:
    """'1 ducat', '3 ducats'."""
    return Mn("{count} ducat", "{count} ducats", amount)


def markers(count: int) -> Msg:
    """'1 ownership marker', '2 ownership markers'."""
    return Mn("{count} ownership marker", "{count} ownership markers", count)


def amount_of(count: int, good: str) -> Msg:
    """'2 silk': a number of one commodity."""
    return Mp("genoa amount", "{number} {good}", number=count, good=good_term(good))


def sort_commodities(goods: list[str]) -> list[str]:
    return sorted(goods, key=COMMODITIES.index)


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=ALL_CARDS.index)


def sort_tiles(tiles: list[str]) -> list[str]:
    return sorted(tiles, key=list(TILES).index)
