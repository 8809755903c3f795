"""Every number and component of Ports of Call in one place, so a group that owns the printed game can
replace the house defaults with the printed board and cards.

Figures the rulebook text gives are marked RULEBOOK. Everything marked HOUSE DEFAULT is a house default
(nothing beyond the text was published); RULES.md beside this file lists them all with their sources.
"""

from __future__ import annotations

from typing import Any

from games.engines.base import Mp, Msg, Typed

# --- goods and cities (RULEBOOK) --------------------------------------------------------------------

GOODS = ("turbines", "steel", "oil", "wine", "electronics")
GOOD_NAMES = {
    "turbines": Mp("ports_of_call good", "wind turbines"),
    "steel": Mp("ports_of_call good", "steel"),
    "oil": Mp("ports_of_call good", "oil"),
    "wine": Mp("ports_of_call good", "wine"),
    "electronics": Mp("ports_of_call good", "electronics"),
}
# Dark enough for white text on them (at least 4.5:1, WCAG AA): the terminal and the cargo show goods that way. And
# dark enough (lightness at most about 40%) that a mail client inverting each colour's lightness leaves 4.5:1.
GOOD_COLOURS = {
    "turbines": "#0a77bf",
    "steel": "#b15d0b",
    "oil": "#222222",
    "wine": "#763891",
    "electronics": "#278439",
}
# Each good is produced (and bought) in the three cities of its production region.
REGIONS = {
    "turbines": ("Hamburg", "Rotterdam", "London"),
    "steel": ("San Francisco", "New York", "Quebec"),
    "oil": ("Basrah", "Port Sudan", "Kolkata"),
    "wine": ("Buenos Aires", "Cape Town", "Sydney"),
    "electronics": ("Hong Kong", "Incheon", "Tokyo"),
}
CITIES = tuple(city for cities in REGIONS.values() for city in cities)
REGION_OF = {city: good for good, cities in REGIONS.items() for city in cities}
# The cities, oceans and canals as the reader's language names them (the typed syntax keeps the English).
CITY_NAMES = {
    "Hamburg": Mp("ports_of_call city", "Hamburg"),
    "Rotterdam": Mp("ports_of_call city", "Rotterdam"),
    "London": Mp("ports_of_call city", "London"),
    "San Francisco": Mp("ports_of_call city", "San Francisco"),
    "New York": Mp("ports_of_call city", "New York"),
    "Quebec": Mp("ports_of_call city", "Quebec"),
    "Basrah": Mp("ports_of_call city", "Basrah"),
    "Port Sudan": Mp("ports_of_call city", "Port Sudan"),
    "Kolkata": Mp("ports_of_call city", "Kolkata"),
    "Buenos Aires": Mp("ports_of_call city", "Buenos Aires"),
    "Cape Town": Mp("ports_of_call city", "Cape Town"),
    "Sydney": Mp("ports_of_call city", "Sydney"),
    "Hong Kong": Mp("ports_of_call city", "Hong Kong"),
    "Incheon": Mp("ports_of_call city", "Incheon"),
    "Tokyo": Mp("ports_of_call city", "Tokyo"),
}
SITES_PER_CITY = 2  # RULEBOOK: each city has 2 building sites
FACTORIES_PER_SITE = 3
MAX_HOMES_PER_REGION = 2

# HOUSE DEFAULT (RULES.md): +60 for one featured good, +30 for the other three goods a city sells.
# One change from the house defaults' source: it features electronics in San Francisco, but the rulebook's own example
# sells electronics there at a $30M bonus ("$120M + $30M = $150M"); the rulebook wins, so San Francisco
# features wine instead.
FEATURED = {
    "Hamburg": "wine",
    "Rotterdam": "electronics",
    "London": "oil",
    "San Francisco": "wine",
    "New York": "turbines",
    "Quebec": "wine",
    "Basrah": "steel",
    "Port Sudan": "electronics",
    "Kolkata": "turbines",
    "Buenos Aires": "steel",
    "Cape Town": "turbines",  # RULEBOOK: Cape Town sells wind turbines at +60
    "Sydney": "oil",
    "Hong Kong": "wine",
    "Incheon": "oil",
    "Tokyo": "steel",
}
FEATURED_BONUS = 60
OTHER_BONUS = 30


def sales_bonus(city: str, good: str) -> int | None:
    """The city's sales bonus for a good, or None where the good cannot be sold (its own region)."""
    if REGION_OF[city] == good:
        return None
    return FEATURED_BONUS if FEATURED[city] == good else OTHER_BONUS


# HOUSE DEFAULT: map positions for the board picture only (0..1000 across, 0..520 down).
CITY_XY = {
    "Hamburg": (520, 105),
    "Rotterdam": (495, 125),
    "London": (462, 112),
    "San Francisco": (95, 195),
    "New York": (275, 170),
    "Quebec": (285, 115),
    "Basrah": (640, 215),
    "Port Sudan": (590, 265),
    "Kolkata": (730, 250),
    "Buenos Aires": (320, 420),
    "Cape Town": (540, 430),
    "Sydney": (900, 430),
    "Hong Kong": (810, 235),
    "Incheon": (850, 170),
    "Tokyo": (895, 180),
}

# --- sea routes (HOUSE DEFAULT, RULES.md) ------------------------------------------------------------
# (city, city, sea spaces, ocean, canal). A ship moves space by space; entering a port ends its move.
# The canal sits on the middle space of its route (HOUSE DEFAULT); passing onto it costs the fee.
ROUTES: tuple[tuple[str, str, int, str, str | None], ...] = (
    ("Hamburg", "Rotterdam", 1, "North Atlantic", None),
    ("Rotterdam", "London", 1, "North Atlantic", None),
    ("Hamburg", "London", 2, "North Atlantic", None),
    ("New York", "Quebec", 2, "North Atlantic", None),
    ("Hong Kong", "Incheon", 2, "Pacific", None),
    ("Incheon", "Tokyo", 1, "Pacific", None),
    ("Hong Kong", "Tokyo", 2, "Pacific", None),
    ("Basrah", "Port Sudan", 3, "Indian Ocean", None),
    ("Basrah", "Kolkata", 3, "Indian Ocean", None),
    ("Buenos Aires", "Cape Town", 5, "South Atlantic", None),
    ("Cape Town", "Sydney", 6, "Indian Ocean", None),
    ("London", "Quebec", 5, "North Atlantic", None),
    ("London", "New York", 5, "North Atlantic", None),
    ("New York", "San Francisco", 4, "Pacific", "Panama"),
    ("Rotterdam", "Port Sudan", 4, "North Atlantic", "Suez"),
    ("London", "Cape Town", 6, "South Atlantic", None),
    ("New York", "Buenos Aires", 6, "South Atlantic", None),
    ("Cape Town", "Kolkata", 5, "Indian Ocean", None),
    ("Kolkata", "Hong Kong", 4, "Indian Ocean", None),
    ("Kolkata", "Sydney", 6, "Indian Ocean", None),
    ("Hong Kong", "Sydney", 5, "Pacific", None),
    ("Tokyo", "San Francisco", 6, "Pacific", None),
    ("Sydney", "San Francisco", 6, "Pacific", None),  # off the map edge and back (RULEBOOK: wrap)
    ("San Francisco", "Buenos Aires", 7, "Pacific", None),
)
OFF_MAP_ROUTES = frozenset({("Sydney", "San Francisco")})
OCEANS = ("North Atlantic", "South Atlantic", "Indian Ocean", "Pacific")
CANALS = ("Panama", "Suez")
OCEAN_NAMES = {
    "North Atlantic": Mp("ports_of_call ocean", "North Atlantic"),
    "South Atlantic": Mp("ports_of_call ocean", "South Atlantic"),
    "Indian Ocean": Mp("ports_of_call ocean", "Indian Ocean"),
    "Pacific": Mp("ports_of_call ocean", "Pacific"),
}
CANAL_NAMES = {"Panama": Mp("ports_of_call canal", "Panama"), "Suez": Mp("ports_of_call canal", "Suez")}
CANAL_FEE = 20  # RULEBOOK
HOME_PORT_FEE = 20  # RULEBOOK


def canal_space(route: int) -> int:
    """The sea space (counted from the route's first city) where the route's canal lies."""
    return (ROUTES[route][2] + 1) // 2


def route_between(a: str, b: str) -> int | None:
    for number, (first, second, *_rest) in enumerate(ROUTES):
        if {first, second} == {a, b}:
            return number
    return None


# --- container terminal ------------------------------------------------------------------------------
# HOUSE DEFAULT (RULES.md): price by containers in a row, read as PRICES[k]; no purchase at k = 0.
PRICES = (170, 160, 140, 120, 100, 90, 80, 70, 60, 50, 40)
ROW_CAPACITY = len(PRICES) - 1
START_CONTAINERS = 3  # RULEBOOK

# --- ships, money, stock exchange (RULEBOOK unless marked) -------------------------------------------
SHIP_PRICE = {"small": 50, "large": 200}
MAINTENANCE = {"small": 30, "large": 100}
SHIP_LIMIT = {"small": 3, "large": 2}
CAPACITY = {"small": 1, "large": 2}
MOVE_SPACES = 3
LADEN_LARGE_MOVE_SPACES = 2  # a large ship carrying 2 containers
HIDDEN_ORDER_PRICE = 20
OPEN_ORDER_PRICE = 50
MAX_ACTIVE_ORDERS = 5
MARKET_SIZE = 4
DEALT_ORDERS = 3
FACTORY_PRICE = 50
PRODUCE_PRICE = 20
SHARE_BUY_PRICE = 1000
SHARE_BUY_AP = 2
SHARE_SELL_PRICE = 100
EXTRA_AP_PRICE = 250
STOCK_START = 100
STOCK_STEP = 10
STOCK_MIN = 60
STOCK_MAX = 300  # HOUSE DEFAULT (RULES.md)
START_CASH = 300  # HOUSE DEFAULT: the rulebook text never says what a player starts with

# --- production track (HOUSE DEFAULT, RULES.md): space -> bonus ----------------------------------------
TRACK_LENGTH = 20
TRACK_BONUSES: dict[str, dict[str, Any]] = {
    "3": {"kind": "cash", "amount": 100},
    "5": {"kind": "order"},
    "7": {"kind": "action"},
    "9": {"kind": "stock"},
    "11": {"kind": "container"},
    "13": {"kind": "cash", "amount": 200},
    "15": {"kind": "stock"},
    "17": {"kind": "action"},
    "20": {"kind": "stock"},
}

# --- order cards (HOUSE DEFAULT, RULES.md): one per city x pair of the 4 goods it sells = 90 ---------


def _order_cards() -> tuple[tuple[str, str, str], ...]:
    cards = []
    for city in CITIES:
        sold = [good for good in GOODS if REGION_OF[city] != good]
        for i, first in enumerate(sold):
            for second in sold[i + 1 :]:
                cards.append((city, first, second))
    return tuple(cards)


ORDER_CARDS = _order_cards()

# --- achievements (HOUSE DEFAULT, RULES.md) ----------------------------------------------------------
# End-game (black) cards go to the most of something; in-game (red) cards to the first to reach a mark.
END_ACHIEVEMENTS = ("most-orders", "most-factories", "most-cash")
GAME_ACHIEVEMENTS = ("five-ships", "three-regions", "five-produced", "three-orders", "stock-150")
ACHIEVEMENT_NAMES = {
    "most-orders": Mp("ports_of_call achievement", "Most completed orders (end of game)"),
    "most-factories": Mp("ports_of_call achievement", "Most factories (end of game)"),
    "most-cash": Mp("ports_of_call achievement", "Most cash (end of game)"),
    "five-ships": Mp("ports_of_call achievement", "First to own 5 ships"),
    "three-regions": Mp("ports_of_call achievement", "First with factories in 3 production regions"),
    "five-produced": Mp("ports_of_call achievement", "First to produce 5 containers"),
    "three-orders": Mp("ports_of_call achievement", "First to complete 3 orders"),
    "stock-150": Mp("ports_of_call achievement", "First to reach 150 on the Stock Exchange"),
}

# --- news cards (HOUSE DEFAULT, RULES.md: a mix of 10 cash, 8 port closures, 4 canal closures, 8 weather,
# 10 terminal, 5 stock, 5 order market). Cards 1-16 open the deck (RULEBOOK); "lasting" cards (white
# title bar) act during the following quarter, the others at once.


def _news() -> tuple[dict[str, Any], ...]:
    c: list[dict[str, Any]] = [
        {"kind": "close-port", "city": "Rotterdam", "title": Mp("ports_of_call news", "Dock strike in Rotterdam")},
        {
            "kind": "cash-all",
            "amount": 50,
            "title": Mp("ports_of_call news", "World trade booms: every company receives $50M"),
        },
        {
            "kind": "terminal",
            "good": "oil",
            "delta": -2,
            "title": Mp("ports_of_call news", "Refinery fire: 2 oil containers lost"),
        },
        {
            "kind": "weather",
            "ocean": "North Atlantic",
            "title": Mp("ports_of_call news", "Storms in the North Atlantic"),
        },
        {
            "kind": "stock-most",
            "what": "ships",
            "title": Mp("ports_of_call news", "Largest fleet praised: +1 share step"),
        },
        {"kind": "close-canal", "canal": "Suez", "title": Mp("ports_of_call news", "Ship aground: Suez Canal closed")},
        {
            "kind": "terminal",
            "good": "electronics",
            "delta": 2,
            "title": Mp("ports_of_call news", "New chip plant: 2 electronics"),
        },
        {
            "kind": "cash-per-ship",
            "amount": -10,
            "title": Mp("ports_of_call news", "Fuel prices rise: pay $10M per ship"),
        },
        {"kind": "refresh-market", "title": Mp("ports_of_call news", "New tenders: the Order Market is replaced")},
        {"kind": "close-port", "city": "Hong Kong", "title": Mp("ports_of_call news", "Typhoon closes Hong Kong")},
        {"kind": "weather", "ocean": "Pacific", "title": Mp("ports_of_call news", "Typhoon season in the Pacific")},
        {
            "kind": "terminal",
            "good": "wine",
            "delta": 2,
            "title": Mp("ports_of_call news", "Bumper harvest: 2 wine containers"),
        },
        {
            "kind": "cash-per-factory",
            "amount": 20,
            "title": Mp("ports_of_call news", "Export subsidy: $20M per factory"),
        },
        {"kind": "close-port", "city": "New York", "title": Mp("ports_of_call news", "Port congestion in New York")},
        {"kind": "stock-least", "title": Mp("ports_of_call news", "Underdog rally: lowest share value +1 step")},
        {
            "kind": "terminal",
            "good": "steel",
            "delta": -2,
            "title": Mp("ports_of_call news", "Steel shortage: 2 containers lost"),
        },
        {"kind": "close-canal", "canal": "Panama", "title": Mp("ports_of_call news", "Drought: Panama Canal closed")},
        {"kind": "weather", "ocean": "Indian Ocean", "title": Mp("ports_of_call news", "Monsoon in the Indian Ocean")},
        {"kind": "cash-all", "amount": -30, "title": Mp("ports_of_call news", "Port taxes: every company pays $30M")},
        {
            "kind": "terminal",
            "good": "turbines",
            "delta": 2,
            "title": Mp("ports_of_call news", "Wind farm orders: 2 turbines"),
        },
    ]
    c += [
        {"kind": "close-port", "city": "Sydney", "title": Mp("ports_of_call news", "Bush fires close Sydney")},
        {"kind": "close-port", "city": "London", "title": Mp("ports_of_call news", "Fog closes London")},
        {"kind": "close-port", "city": "Kolkata", "title": Mp("ports_of_call news", "Flooding in Kolkata")},
        {
            "kind": "close-port",
            "city": "Buenos Aires",
            "title": Mp("ports_of_call news", "Dock strike in Buenos Aires"),
        },
        {"kind": "close-port", "city": "Tokyo", "title": Mp("ports_of_call news", "Earthquake drill closes Tokyo")},
        {"kind": "close-canal", "canal": "Suez", "title": Mp("ports_of_call news", "Convoy delays: Suez Canal closed")},
        {
            "kind": "close-canal",
            "canal": "Panama",
            "title": Mp("ports_of_call news", "Lock repairs: Panama Canal closed"),
        },
        {
            "kind": "weather",
            "ocean": "North Atlantic",
            "title": Mp("ports_of_call news", "Icebergs in the North Atlantic"),
        },
        {
            "kind": "weather",
            "ocean": "South Atlantic",
            "title": Mp("ports_of_call news", "Gales in the South Atlantic"),
        },
        {
            "kind": "weather",
            "ocean": "South Atlantic",
            "title": Mp("ports_of_call news", "Fog banks in the South Atlantic"),
        },
        {"kind": "weather", "ocean": "Indian Ocean", "title": Mp("ports_of_call news", "Cyclone in the Indian Ocean")},
        {"kind": "weather", "ocean": "Pacific", "title": Mp("ports_of_call news", "El Nino in the Pacific")},
        {
            "kind": "cash-all",
            "amount": 100,
            "title": Mp("ports_of_call news", "Shipping rates soar: every company receives $100M"),
        },
        {
            "kind": "cash-all",
            "amount": -50,
            "title": Mp("ports_of_call news", "Insurance premiums: every company pays $50M"),
        },
        {"kind": "cash-per-ship", "amount": 20, "title": Mp("ports_of_call news", "Charter demand: $20M per ship")},
        {
            "kind": "cash-per-ship",
            "amount": -20,
            "title": Mp("ports_of_call news", "New safety rules: pay $20M per ship"),
        },
        {
            "kind": "cash-per-factory",
            "amount": -10,
            "title": Mp("ports_of_call news", "Environmental levy: pay $10M per factory"),
        },
        {
            "kind": "cash-all",
            "amount": 30,
            "title": Mp("ports_of_call news", "Tax refund: every company receives $30M"),
        },
        {
            "kind": "terminal",
            "good": "oil",
            "delta": 2,
            "title": Mp("ports_of_call news", "New oil field: 2 oil containers"),
        },
        {
            "kind": "terminal",
            "good": "steel",
            "delta": 2,
            "title": Mp("ports_of_call news", "Steel glut: 2 steel containers"),
        },
        {
            "kind": "terminal",
            "good": "wine",
            "delta": -2,
            "title": Mp("ports_of_call news", "Frost: 2 wine containers lost"),
        },
        {
            "kind": "terminal",
            "good": "electronics",
            "delta": -2,
            "title": Mp("ports_of_call news", "Chip shortage: 2 lost"),
        },
        {
            "kind": "terminal",
            "good": "turbines",
            "delta": -2,
            "title": Mp("ports_of_call news", "Recall: 2 turbine containers lost"),
        },
        {
            "kind": "stock-most",
            "what": "factories",
            "title": Mp("ports_of_call news", "Industry award: most factories +1 step"),
        },
        {"kind": "stock-most", "what": "cash", "title": Mp("ports_of_call news", "Rating upgrade: most cash +1 step")},
        {
            "kind": "stock-all",
            "delta": 1,
            "title": Mp("ports_of_call news", "Bull market: every company +1 share step"),
        },
        {
            "kind": "refresh-market",
            "title": Mp("ports_of_call news", "Tenders withdrawn: the Order Market is replaced"),
        },
        {"kind": "refresh-market", "title": Mp("ports_of_call news", "Trade fair: the Order Market is replaced")},
        {"kind": "refresh-market", "title": Mp("ports_of_call news", "Trade agreement: the Order Market is replaced")},
        {"kind": "refresh-market", "title": Mp("ports_of_call news", "Customs reform: the Order Market is replaced")},
    ]
    return tuple({**card, "number": number} for number, card in enumerate(c, start=1))


NEWS = _news()
LASTING_NEWS = frozenset({"close-port", "close-canal", "weather"})


def typed(text: str) -> Msg:
    """Steps of the typed syntax in a message: written in the reader's words (prompts.TYPED_WORDS)."""
    return Typed("ports-of-call", text)
