"""What one seat may see. Ducats are hidden (the rulebook keeps coins hidden), cards, commodities and
tiles are shown to their holder and counted for everyone else; offers are seen by their maker, and by
the merchant once the offers phase has closed (before that they are not in the state at all).

The shape is built for templates, which cannot index or do arithmetic: the board comes as rows of
cells with their labels, owners and discs ready to draw.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from games.engines.base import Mp, Msg, State
from games.engines.genoa.data import (
    COLOUR_HEX,
    COMMODITIES,
    OWNER_FEE,
    TILE_TERMS,
    TILES,
    card_text,
    colour_term,
    good_term,
    tile_name,
)
from games.engines.genoa.map import GRID, MARKET, SIZE, is_street, space_name, space_term
from games.engines.genoa.syntax import offer_words

# A space's name in a plain-text grid column of 8 characters (the translation too: at most 8 letters).
SHORT: dict[str, Msg] = {
    "guild_hall": Mp("genoa building, 8 letters at most", "Guild"),
    "city_hall": Mp("genoa building, 8 letters at most", "City H."),
    "post_office": Mp("genoa building, 8 letters at most", "Post"),
    "cathedral": Mp("genoa building, 8 letters at most", "Cathedr."),
    "palace": Mp("genoa building, 8 letters at most", "Palace"),
    "park": Mp("genoa building, 8 letters at most", "Park"),
    "coach_house": Mp("genoa building, 8 letters at most", "Coach"),
    "harbor": Mp("genoa building, 8 letters at most", "Harbor"),
    "tavern": Mp("genoa building, 8 letters at most", "Tavern"),
    "inn": Mp("genoa building, 8 letters at most", "Inn"),
    "drinks": Mp("genoa building, 8 letters at most", "Drinks"),
    "metals": Mp("genoa building, 8 letters at most", "Metals"),
    "fabric": Mp("genoa building, 8 letters at most", "Fabric"),
    "spices": Mp("genoa building, 8 letters at most", "Spices"),
    "colini": Mp("genoa building, 8 letters at most", "Colini"),
    "monetti": Mp("genoa building, 8 letters at most", "Monetti"),
    "ricci": Mp("genoa building, 8 letters at most", "Ricci"),
    "zasteri": Mp("genoa building, 8 letters at most", "Zasteri"),
    MARKET: Mp("genoa building, 8 letters at most", "Market"),
}


@cache
def _tiles() -> list[dict[str, Any]]:
    """Where each building (and the market) is named, once for the whole building, in squares (the template
    scales them): its rectangle, or for an L its row two squares wide. A tile one square wide and two high (the
    villas, the harbour, the cathedral, the post office, the park) is `tall`: its name is written along it, as
    a phone's 40 px square is narrower than "Cathedral"."""
    cells: dict[str, list[tuple[int, int]]] = {}
    for y in range(1, SIZE + 1):
        for x in range(1, SIZE + 1):
            if not is_street(GRID[y - 1][x - 1]):
                cells.setdefault(GRID[y - 1][x - 1], []).append((x, y))
    tiles = []
    for space, spots in cells.items():
        xs, ys = [x for x, _ in spots], [y for _, y in spots]
        if len(spots) != (max(xs) - min(xs) + 1) * (max(ys) - min(ys) + 1):  # an L: its row two squares wide
            row = next(y for y in set(ys) if ys.count(y) == 2)
            xs, ys = [x for x, y in spots if y == row], [row]
        x, y, w, h = min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
        name = space_term(space)
        tiles.append({"space": space, "x": x, "y": y, "w": w, "h": h, "bottom": y + h, "tall": h > w, "name": name})
    return tiles


def _labels(state: State) -> list[dict[str, Any]]:
    """Each building's tile (_tiles) with what stands on it now: its owner's dot, the tower's discs and the
    route's number, drawn once beside the building's name."""
    turn = state.get("turn") or {}
    path = turn.get("path") or []
    discs = turn.get("discs") or {}
    labels = []
    for tile in _tiles():
        space = tile["space"]
        owner = state["owners"].get(space)
        labels.append(
            {
                **tile,
                "owner": colour_term(owner) if owner is not None else None,
                "owner_hex": COLOUR_HEX[owner] if owner is not None else None,
                "discs": discs.get(space, 0),
                "visit": path.index(space) + 1 if space in path else 0,
            }
        )
    return labels


def _cells(state: State) -> list[list[dict[str, Any]]]:
    turn = state.get("turn") or {}
    path = turn.get("path") or []
    discs = turn.get("discs") or {}
    seen: set[str] = set()
    rows = []
    for y in range(1, SIZE + 1):
        row = []
        for x in range(1, SIZE + 1):
            space = GRID[y - 1][x - 1]
            owner = state["owners"].get(space)
            first = space not in seen
            seen.add(space)
            kind = "market" if space == MARKET else "street" if is_street(space) else "building"
            # The sides where another space begins: a building is drawn whole, its own cells without a line between.
            sides = {"top": (x, y - 1), "right": (x + 1, y), "bottom": (x, y + 1), "left": (x - 1, y)}
            walls = {
                side: not (1 <= nx <= SIZE and 1 <= ny <= SIZE) or GRID[ny - 1][nx - 1] != space
                for side, (nx, ny) in sides.items()
            }
            row.append(
                {
                    "x": x,
                    "y": y,
                    "space": space,
                    "kind": kind,
                    "name": space_term(space),
                    "label": SHORT[space] if first and kind != "street" else "",
                    "first": first,
                    # Every square's name fits a plain-text grid column (8 characters), streets as x-y.
                    "short": space if kind == "street" else SHORT[space],
                    "owner": colour_term(owner) if owner is not None else None,
                    "owner_hex": COLOUR_HEX[owner] if owner is not None else None,
                    "discs": discs.get(space, 0) if first else 0,
                    "visit": path.index(space) + 1 if space in path and first else 0,
                    "visited": space in path,  # shaded on every square of the space
                    "start": space == turn.get("start"),
                    "walls": walls,
                }
            )
        rows.append(row)
    return rows


def _offers_seen(state: State, seat: int | None) -> list[dict[str, Any]]:
    if seat is None or state["finished"] or state["step"] not in ("route", "acquire"):
        return []
    merchant = state["turn"]["merchant"]
    return [
        {"from": colour_term(o["seat"]), "text": offer_words(o)}
        for o in state["turn"]["offers"]
        if seat in (merchant, o["seat"])
    ]


def _players(state: State, viewer: int | None) -> list[dict[str, Any]]:
    merchant = None if state["finished"] else state["turn"]["merchant"]
    rows = []
    for seat in range(state["players"]):
        hand = state["hands"][seat]
        rows.append(
            {
                "seat": seat,
                "colour": colour_term(seat),
                "hex": COLOUR_HEX[seat],
                "cards": {kind: sum(1 for card in hand if card[0] == kind) for kind in "LSMC"},
                "card_count": len(hand),
                "goods_count": len(state["goods"][seat]),
                "tiles_count": len(state["tiles"][seat]),
                "markers": state["markers"][seat],
                "reserve": state["reserve"][seat],
                "owned": [space_term(b) for b in sorted(state["owners"], key=space_name) if state["owners"][b] == seat],
                "is_merchant": seat == merchant,
                "is_first": seat == state["first"],
                "is_viewer": seat == viewer,
                "ducats": state["ducats"][seat] if seat == viewer or state["finished"] else None,
            }
        )
    return rows


def _private(state: State, seat: int | None) -> dict[str, Any]:
    if seat is None:
        return {"seat": None, "colour": None, "ducats": None, "hand": None, "goods": None, "tiles": None}
    return {
        "seat": seat,
        "colour": colour_term(seat),
        "ducats": state["ducats"][seat],
        "hand": [card_text(card) for card in state["hands"][seat]],
        "goods": [good_term(good) for good in state["goods"][seat]],
        "tiles": [tile_name(tile) for tile in state["tiles"][seat]],
        "markers": state["markers"][seat],
    }


def build_view(state: State, seat: int | None, phase: str, final: list[dict[str, Any]] | None) -> dict[str, Any]:
    if seat is not None and not 0 <= seat < state["players"]:
        seat = None
    turn = state["turn"]
    total = state["rounds_total"]
    return {
        "game": "genoa",
        "phase": phase,
        "step": state["step"],
        "finished": state["finished"],
        "round": state["round"],
        "rounds_left": state["rounds_left"],
        "round_track": [{"left": left, "current": left == state["rounds_left"]} for left in range(total, 0, -1)],
        "merchant": None if state["finished"] else colour_term(turn["merchant"]),
        "start": space_term(turn["start"]) if turn.get("start") else None,
        "roll": turn.get("roll"),
        "path": [space_term(space) for space in turn.get("path") or []],
        "street_discs": [
            {"street": space_term(space), "discs": count}
            for space, count in (turn.get("discs") or {}).items()
            if is_street(space)
        ],
        "board": _cells(state),
        "labels": _labels(state),
        "owner_fee": OWNER_FEE,
        "supply": [{"good": good_term(good), "count": state["supply"][good]} for good in COMMODITIES],
        "tile_supply": [{"tile": TILE_TERMS[tile], "count": state["tile_supply"][tile]} for tile in TILES],
        "decks": {kind: len(cards) for kind, cards in state["decks"].items()},
        "players": _players(state, seat),
        "offers": _offers_seen(state, seat),
        "final": final,
        **_private(state, seat),
    }
