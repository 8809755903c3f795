"""What one seat may see. Hands are private (only their size is public); gold, holds (face up at the
table), the map, the deck and discard sizes are public. A pending trade offer is shown only to the two
ships it concerns. The shape suits templates, which cannot index or do arithmetic: the map comes as rows
of cells with everything each cell needs to draw itself, in both the picture and the plain-text map.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import M, Mp, Msg, State, joined
from games.engines.phoenician.actions import CENTRE_NAMES, centre_at, describe
from games.engines.phoenician.data import (
    CENTRE_CODES,
    CENTRES,
    COLOUR_HEX,
    COLOURS,
    COLUMNS,
    COMMODITY_HEX,
    DESIRED_PRICE,
    HOLD_MAX,
    SELL_PRICE,
    SIZE,
    WIN_GOLD,
    card_list,
    card_name,
    centre_name,
    colour,
    good_name,
    sort_cards,
    square_name,
)


def _ship(seat: int) -> dict[str, Any]:
    return {"seat": seat, "name": colour(seat), "initial": COLOURS[seat][0], "colour": COLOUR_HEX[COLOURS[seat]]}


def _cell(state: State, square: int) -> dict[str, Any]:
    centre = centre_at(state, square)
    pirate = state["pirates"].index(square) + 1 if square in state["pirates"] else None
    storm = next((colour(s[1]) for s in state["storms"] if s[0] == square), None)
    ships = [_ship(seat) for seat, at in enumerate(state["ships"]) if at == square]
    kind = "land" if square in state["land"] else "centre" if centre else "sea"
    base: Msg | str
    if kind == "land":
        base = "###"
    elif centre:
        base = CENTRE_CODES[centre]
    elif pirate:
        base = f"P{pirate}"
    elif storm:
        base = "~~"
    else:
        base = "." if not ships else ""
    initials = "".join(ship["initial"] for ship in ships)
    return {
        "square": square_name(square),
        "kind": kind,
        "centre": centre_name(centre) if centre else None,
        "sells": good_name(CENTRES[centre][0]) if centre else None,
        "desires": good_name(CENTRES[centre][1]) if centre else None,
        "pirate": pirate,
        "storm": storm,
        "ships": ships,
        "x": square % SIZE,
        "y": square // SIZE,
        # The plain-text map's cell such as "ROM:RB", "P1", "~~", "###" or "." (the template pads it to 6 characters
        # once rendered: a centre's short name is a term, "ÄGY" in German).
        "code": Mp("phoenician map", "{centre}:{ships}", centre=base, ships=initials)
        if base and initials and centre
        else f"{base}:{initials}"
        if base and initials
        else base or initials,
    }


def _centre(centre: str | None) -> Msg | None:
    return centre_name(centre) if centre else None


def _centres(state: State) -> list[dict[str, Any]]:
    rows = []
    for name, square in zip(CENTRE_NAMES, state["centres"], strict=True):
        sells, desires = CENTRES[name]
        rows.append(
            {
                "name": centre_name(name),
                "code": CENTRE_CODES[name],
                "square": square_name(square),
                "sells": good_name(sells),
                "desires": good_name(desires),
                "sells_colour": COMMODITY_HEX[sells],
                "desires_colour": COMMODITY_HEX[desires],
                "pays": M(
                    "{desires} {best}, others {price}, never {sells}",
                    desires=good_name(desires),
                    best=DESIRED_PRICE,
                    price=SELL_PRICE,
                    sells=good_name(sells),
                ),
            }
        )
    return rows


def _players(state: State, viewer: int | None) -> list[dict[str, Any]]:
    rows = []
    for position, seat in enumerate(state["order"], start=1):
        square = state["ships"][seat]
        rows.append(
            {
                **_ship(seat),
                "position": position,
                "gold": state["gold"][seat],
                "hold": sort_cards(state["holds"][seat]),
                "hold_text": card_list(Counter(state["holds"][seat]))
                if state["holds"][seat]
                else Mp("phoenician hold", "empty"),
                "hold_count": len(state["holds"][seat]),
                "hand_count": len(state["hands"][seat]),
                "square": square_name(square) if square is not None else None,
                "centre": _centre(centre_at(state, square)),
                "is_viewer": seat == viewer,
                "is_active": seat == state["active"] and not state["finished"],
                "is_winner": seat == state["winner"],
            }
        )
    return rows


def _offer(state: State, viewer: int | None) -> dict[str, Any] | None:
    offer = state["offer"]
    if offer is None or viewer not in (offer["from"], offer["to"]):
        return None
    return {
        "from": colour(offer["from"]),
        "to": colour(offer["to"]),
        "give": describe(offer["give"]),
        "want": describe(offer["want"]),
        "mine": viewer == offer["from"],
    }


_NO_GOODS: dict[str, Any] = {"hold_goods": [], "hand_goods": [], "here": None}


def _goods(state: State, seat: int) -> dict[str, Any]:
    """Where the seat's goods go: a good in the hold is sold at any centre but the one that makes it (3 gold
    where it is most desired); a good in the hand is only the right to buy it into the hold, for 1 gold, at the
    centre that makes it. `here`: what the ship can sell and buy at the centre it is in now."""
    at = {
        name: M("{centre} ({square})", centre=centre_name(name), square=square_name(square))
        for name, square in zip(CENTRE_NAMES, state["centres"], strict=True)
    }
    maker = {sells: name for name, (sells, _desires) in CENTRES.items()}
    wanter = {desires: name for name, (_sells, desires) in CENTRES.items()}
    hold, hand = Counter(state["holds"][seat]), Counter(card for card in state["hands"][seat] if card in maker)
    hold_goods = [
        {"good": good_name(g), "count": n, "best": at[wanter[g]], "never": centre_name(maker[g])}
        for g, n in sorted(hold.items())
    ]
    hand_goods = [
        {"good": good_name(g), "count": n, "buy_at": at[maker[g]], "best": at[wanter[g]]}
        for g, n in sorted(hand.items())
    ]
    centre = centre_at(state, state["ships"][seat])
    here = None
    if centre:
        sells, desires = CENTRES[centre]
        sales = [
            M("{good} for {price}", good=good_name(g), price=DESIRED_PRICE if g == desires else SELL_PRICE)
            for g in sorted(hold)
            if g != sells
        ]
        good = good_name(sells)
        here = {
            "centre": centre_name(centre),
            "sell": joined(sales, ",") or M("nothing from your hold"),
            "buy": M("{count} {good} from your hand, 1 gold each", count=hand[sells], good=good)
            if hand[sells]
            else M("no {good} (you hold no {good} card in your hand)", good=good),
        }
    return {"hold_goods": hold_goods, "hand_goods": hand_goods, "here": here}


def _private(state: State, seat: int | None) -> dict[str, Any]:
    if seat is None:
        return {"seat": None, "name": None, "hand": None, "hand_text": None, "drawn": None, **_NO_GOODS}
    hand = sort_cards(state["hands"][seat])
    drawn = state["drawn"] if seat == state["active"] and state["step"] == "turn" else []
    return {
        "seat": seat,
        "name": colour(seat),
        "hand": [{"card": card_name(card), "colour": COMMODITY_HEX.get(card, "#0e6ba8")} for card in hand],
        "hand_text": card_list(Counter(hand)) if hand else M("no cards"),
        "drawn": card_list(Counter(drawn)) if drawn else None,
        **(_goods(state, seat) if state["ships"][seat] is not None else _NO_GOODS),
    }


def build_view(state: State, seat: int | None, phase: Msg, final: list[dict[str, Any]] | None) -> dict[str, Any]:
    if seat is not None and not 0 <= seat < state["players"]:
        seat = None
    asked = None
    if not state["finished"]:
        asked = colour(state["offer"]["to"]) if state["step"] == "answer" else colour(state["active"])
    return {
        "game": "phoenician",
        "phase": phase,
        "step": state["step"],
        "round": state["round"],
        "round_limit": state["round_limit"],
        "finished": state["finished"],
        "columns": list(COLUMNS),
        "rows": [
            {"number": row + 1, "cells": [_cell(state, row * SIZE + col) for col in range(SIZE)]} for row in range(SIZE)
        ],
        "centres": _centres(state),
        "players": _players(state, seat),
        "active": colour(state["active"]) if state["active"] is not None else None,
        "asked": asked,
        "deck_count": len(state["deck"]),
        "discard_count": len(state["discard"]),
        "win_gold": WIN_GOLD,
        "hold_max": HOLD_MAX,
        "offer": _offer(state, seat),
        "final": final,
        **_private(state, seat),
    }
