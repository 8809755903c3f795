"""What one seat may see, shaped for templates (which cannot index or do arithmetic).

Hidden: the order and news decks (but the forecast cards under that option), the three dealt order cards
and the kept one until every home city is chosen (each seat sees its own), and completed orders, which lie
face down so that others cannot even count them. Everything else is on the table.
"""

from __future__ import annotations

from typing import Any

from games.engines.base import Mn, Mp, Msg, State, joined
from games.engines.ports_of_call.data import (
    ACHIEVEMENT_NAMES,
    CANAL_NAMES,
    CITY_XY,
    GOOD_COLOURS,
    GOODS,
    NEWS,
    OCEAN_NAMES,
    OFF_MAP_ROUTES,
    ORDER_CARDS,
    PRICES,
    REGION_OF,
    ROUTES,
    ROW_CAPACITY,
    STOCK_MAX,
    STOCK_MIN,
    STOCK_STEP,
    TRACK_BONUSES,
    TRACK_LENGTH,
    canal_space,
    sales_bonus,
)
from games.engines.ports_of_call.money import (
    COLOURS,
    COMPANY_MARKS,
    city_name,
    factories_of,
    good_name,
    money,
    name,
    order_label,
    price,
    size_name,
)

SEAT_COLOURS = {"Red": "#d62728", "Blue": "#1f5fbf", "Green": "#2ca02c", "Yellow": "#e6b800"}
# What a bonus space of the Production Track says, in a box a few letters wide.
BONUS_LABELS = {
    "cash": Mp("ports_of_call track bonus", "$"),
    "order": Mp("ports_of_call track bonus", "order"),
    "action": Mp("ports_of_call track bonus", "+AP"),
    "stock": Mp("ports_of_call track bonus", "+1"),
    "container": Mp("ports_of_call track bonus", "box"),
}


def colour(seat: int) -> str:
    return SEAT_COLOURS[COLOURS[seat]]


def listed(words: list[Any], last: str = ",") -> Any:
    """A list of words as one message ("A, B"; "A; B" with `last` ";"), for a template to render."""
    return joined(words, last)


def point_on_route(route: int, pos: int) -> tuple[int, int]:
    """Where sea space `pos` of a route lies on the picture; the off-map route leaves one edge and
    comes back at the other."""
    first, second, length, *_ = ROUTES[route]
    (x1, y1), (x2, y2) = CITY_XY[first], CITY_XY[second]
    f = pos / length
    if (first, second) in OFF_MAP_ROUTES:
        edge_y = (y1 + y2) // 2
        if f <= 0.5:
            return round(x1 + (1000 - x1) * 2 * f), round(y1 + (edge_y - y1) * 2 * f)
        return round(x2 * (2 * f - 1)), round(edge_y + (y2 - edge_y) * (2 * f - 1))
    return round(x1 + (x2 - x1) * f), round(y1 + (y2 - y1) * f)


def _segments(first: str, second: str) -> list[dict[str, int]]:
    (x1, y1), (x2, y2) = CITY_XY[first], CITY_XY[second]
    if (first, second) in OFF_MAP_ROUTES:
        edge_y = (y1 + y2) // 2
        return [{"x1": x1, "y1": y1, "x2": 1000, "y2": edge_y}, {"x1": 0, "y1": edge_y, "x2": x2, "y2": y2}]
    return [{"x1": x1, "y1": y1, "x2": x2, "y2": y2}]


def _routes(state: State) -> list[dict[str, Any]]:
    routes = []
    for number, (first, second, length, ocean, canal) in enumerate(ROUTES):
        spaces = [dict(zip(("x", "y"), point_on_route(number, pos), strict=True)) for pos in range(1, length)]
        canal_at = dict(zip(("x", "y"), point_on_route(number, canal_space(number)), strict=True)) if canal else None
        routes.append(
            {
                "first": city_name(first),
                "second": city_name(second),
                "spaces": length,
                "ocean": OCEAN_NAMES[ocean],
                "canal": CANAL_NAMES[canal] if canal else None,
                "canal_closed": canal in state["closures"]["canals"],
                "canal_at": canal_at,
                "storm": ocean in state["closures"]["weather"],
                "off_map": (first, second) in OFF_MAP_ROUTES,
                "segments": _segments(first, second),
                "dots": spaces,
            }
        )
    return routes


# Where each city's name stands from its dot (dx, dy, text-anchor): above it unless a neighbour's name or the
# ships in port (drawn below and to the right of the dot) are there. The names are 17 units high so that the
# map, never drawn narrower than 660 px (a phone scrolls it), shows them at 11 px or more.
LABEL_AT: dict[str, tuple[int, int, str]] = {
    "London": (4, -14, "end"),
    "Hamburg": (-2, -14, "start"),
    "Rotterdam": (-6, 24, "end"),
    "New York": (14, 6, "start"),
    "Port Sudan": (-14, 6, "end"),
    "Hong Kong": (14, 6, "start"),
    "Incheon": (8, -14, "end"),
    "Tokyo": (14, 6, "start"),
}


def _cities(state: State) -> list[dict[str, Any]]:
    cities = []
    for city, (x, y) in CITY_XY.items():
        homes = [name(seat) for seat, home in enumerate(state["home"]) if home == city]
        sites = [
            {
                "owner": name(site["seat"]) if site["seat"] is not None else None,
                "colour": colour(site["seat"]) if site["seat"] is not None else "#ffffff",
                "factories": site["factories"],
                "used": site["used"],
                "reserved": site["seat"] is not None and site["factories"] == 0,
            }
            for site in state["sites"][city]
        ]
        bonuses = [
            {"good": good_name(good), "bonus": sales_bonus(city, good)}
            for good in GOODS
            if sales_bonus(city, good) is not None
        ]
        good = REGION_OF[city]
        cities.append(
            {
                "name": city_name(city),
                "good": good_name(good),
                "colour": GOOD_COLOURS[good],
                "x": x,
                "y": y,
                **dict(zip(("label_x", "label_y", "anchor"), _label_at(city, x, y), strict=True)),
                "home_of": listed(homes),
                "closed": city in state["closures"]["ports"],
                "sites": sites,
                "bonuses": bonuses,
            }
        )
    return cities


def _label_at(city: str, x: int, y: int) -> tuple[int, int, str]:
    dx, dy, anchor = LABEL_AT.get(city, (0, -14, "middle"))
    return x + dx, y + dy, anchor


def _ships(state: State, viewer: int | None = None) -> list[dict[str, Any]]:
    """Every ship on the map; the viewer's own are marked `mine`, so the map can label them."""
    ships = []
    for seat, fleet in enumerate(state["ships"]):
        for index, ship in enumerate(fleet):
            if ship["port"]:
                x, y = CITY_XY[ship["port"]]
                where: Msg = Mp("ports_of_call place", "in {city}", city=city_name(ship["port"]))
            else:
                x, y = point_on_route(ship["route"], ship["pos"])
                first, second, length, *_ = ROUTES[ship["route"]]
                where = Mn(
                    "at sea, {pos} of {count} space from {first} towards {second}",
                    "at sea, {pos} of {count} spaces from {first} towards {second}",
                    length,
                    pos=ship["pos"],
                    first=city_name(first),
                    second=city_name(second),
                )
            ships.append(
                {
                    "owner": name(seat),
                    "mark": COMPANY_MARKS[seat],
                    "colour": colour(seat),
                    "mine": seat == viewer,
                    "id": ship["id"],
                    "size": size_name(ship["size"]),
                    "cargo": [{"good": good_name(g), "colour": GOOD_COLOURS[g]} for g in ship["cargo"]],
                    "cargo_text": listed([good_name(g) for g in ship["cargo"]]) or Mp("ports_of_call cargo", "empty"),
                    "where": where,
                    "at_x": x,
                    "at_y": y,
                    "x": x + 6 + 9 * index,
                    "y": y + 8 + 7 * seat,
                    "width": 14 if ship["size"] == "large" else 9,
                }
            )
    return ships


GRID_COLUMNS, GRID_ROWS = 8, 5


def _grid(cities: list[dict[str, Any]], ships: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A coarse map for email, where pictures are not allowed: cities and ships in an 8 x 5 table."""
    grid: list[list[dict[str, Any]]] = [
        [{"cities": [], "ships": []} for _ in range(GRID_COLUMNS)] for _ in range(GRID_ROWS)
    ]

    def cell(x: int, y: int) -> dict[str, Any]:
        return grid[min(GRID_ROWS - 1, y * GRID_ROWS // 520)][min(GRID_COLUMNS - 1, x * GRID_COLUMNS // 1000)]

    for city in cities:
        cell(city["x"], city["y"])["cities"].append(city)
    for ship in ships:
        cell(ship["at_x"], ship["at_y"])["ships"].append(ship)
    return grid


def _terminal(state: State) -> list[dict[str, Any]]:
    rows = []
    for good in GOODS:
        row = state["terminal"][good]
        slots = []
        for index in range(ROW_CAPACITY):
            owner = row[index] if index < len(row) else -1
            slots.append(
                {
                    "filled": index < len(row),
                    "owner": name(owner) if isinstance(owner, int) and owner >= 0 else None,
                    "mark": COMPANY_MARKS[owner] if isinstance(owner, int) and owner >= 0 else None,
                    "marker": colour(owner) if isinstance(owner, int) and owner >= 0 else None,
                    "price": PRICES[index + 1],
                }
            )
        rows.append(
            {"good": good_name(good), "colour": GOOD_COLOURS[good], "price": price(state, good), "count": len(row)}
            | {"price_text": money(price(state, good))}
            | {"slots": slots}
        )
    return rows


def _players(state: State, viewer: int | None) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "name": name(seat),
            "colour": colour(seat),
            "home": city_name(state["home"][seat]) if state["home"][seat] else None,
            "cash": state["cash"][seat],
            "cash_text": money(state["cash"][seat]),
            "stock": state["stock"][seat],
            "track": state["track"][seat],
            "ships": len(state["ships"][seat]),
            "factories": factories_of(state, seat),
            "orders": [_order(order) for order in state["orders"][seat]],
            "achievements": [ACHIEVEMENT_NAMES[card] for card in state["claimed"][seat]],
            "achievements_text": listed([ACHIEVEMENT_NAMES[card] for card in state["claimed"][seat]], ";"),
            "bankrupt": state["bankrupt"][seat],
            "is_viewer": seat == viewer,
            "to_play": bool(state["queue"]) and state["queue"][0] == seat,
        }
        for seat in range(state["players"])
    ]


def _order(order: dict[str, Any]) -> dict[str, Any]:
    city, first, second = ORDER_CARDS[order["card"]]
    goods = [
        {"good": good_name(g), "colour": GOOD_COLOURS[g], "delivered": g in order["delivered"]} for g in (first, second)
    ]
    return {"label": order_label(order["card"]), "city": city_name(city), "goods": goods}


def _stock_track(state: State) -> list[dict[str, Any]]:
    values = range(STOCK_MIN, STOCK_MAX + 1, STOCK_STEP)
    return [
        {"value": v, "seats": [colour(s) for s in range(state["players"]) if state["stock"][s] == v]} for v in values
    ]


def _production_track(state: State) -> list[dict[str, Any]]:
    return [
        {
            "space": space,
            "bonus": BONUS_LABELS[TRACK_BONUSES[str(space)]["kind"]] if str(space) in TRACK_BONUSES else "",
            "seats": [colour(s) for s in range(state["players"]) if state["track"][s] == space],
        }
        for space in range(0, TRACK_LENGTH + 1)
    ]


def _news(state: State) -> dict[str, Any]:
    last = NEWS[state["news_shown"][-1] - 1] if state["news_shown"] else None
    forecast = []
    if state["options"]["forecast"] and not state["finished"]:
        forecast = [{"number": n, "title": NEWS[n - 1]["title"]} for n in state["news_deck"][:2]]
    return {
        "last": {"number": last["number"], "title": last["title"]} if last else None,
        "forecast": forecast,
        "closed_ports": listed([city_name(city) for city in state["closures"]["ports"]]),
        "closed_canals": listed([CANAL_NAMES[canal] for canal in state["closures"]["canals"]]),
        "weather": listed([OCEAN_NAMES[ocean] for ocean in state["closures"]["weather"]]),
    }


def _private(state: State, seat: int | None) -> dict[str, Any]:
    if seat is None:
        return {"seat": None, "me": None}
    kept = state["kept"][seat]
    return {
        "seat": seat,
        "me": {
            "name": name(seat),
            "colour": colour(seat),
            "cash": state["cash"][seat],
            "cash_text": money(state["cash"][seat]),
            "action_points": len(state["ships"][seat]) + 1,
            "dealt": [order_label(card) for card in state["dealt"][seat]],
            "dealt_text": listed([order_label(card) for card in state["dealt"][seat]], ";"),
            "kept": order_label(kept) if kept is not None else None,
            "completed": [order_label(card) for card in state["completed"][seat]],
            "completed_text": listed([order_label(card) for card in state["completed"][seat]], ";"),
            "completed_count": len(state["completed"][seat]),
        },
    }


def build_view(state: State, seat: int | None, phase: str, final: list[dict[str, Any]] | None) -> dict[str, Any]:
    if seat is not None and not 0 <= seat < state["players"]:
        seat = None
    cities, ships = _cities(state), _ships(state, seat)
    return {
        "game": "ports-of-call",
        "phase": phase,
        "year": state["year"],
        "quarter": state["quarter"],
        "years": state["options"]["years"],
        "step": state["step"],
        "finished": state["finished"],
        "colours": [SEAT_COLOURS[c] for c in COLOURS[: state["players"]]],
        "routes": _routes(state),
        "cities": cities,
        "ships": ships,
        "my_ships": [ship for ship in ships if ship["mine"]],
        "grid": _grid(cities, ships),
        "terminal": _terminal(state),
        "players": _players(state, seat),
        "market": [order_label(card) for card in state["market"]],
        "achievements": [ACHIEVEMENT_NAMES[card] for card in state["achievements"]],
        "achievements_text": listed([ACHIEVEMENT_NAMES[card] for card in state["achievements"]], ";")
        or Mp("ports_of_call achievement", "none"),
        "stock_track": _stock_track(state),
        "production_track": _production_track(state),
        "news": _news(state),
        "final": final,
        **_private(state, seat),
    }
