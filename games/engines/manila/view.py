"""What one seat may see. Everything is on the table except which wares the other seats' shares are
(only their count and how many are encumbered show). Sealed bids and placement lists never reach the
state before they resolve, so they need no hiding here. The shape is built for templates, which cannot
index or do arithmetic: every cell comes ready to draw."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import Mp, State
from games.engines.manila.data import (
    BERTH_COSTS,
    BERTH_PAYOUTS,
    BERTHS,
    COLOUR_HEX,
    LAST_SPACE,
    LOAD_PROFITS,
    PILOT_COSTS,
    PIRATE_COST,
    PUNT_COSTS,
    VALUE_TRACK,
    WARE_HEX,
    WARES,
    seat_colour,
    share_price,
    ware_name,
    ware_title,
)
from games.engines.manila.money import can_raise, free_shares

Row = dict[str, Any]
# Geometry of the web picture of the sea routes (templates cannot do arithmetic).
CELL_X0, CELL_W, ROW_H = 6, 24, 84
FREE = Mp("manila space", "free")


def _who(state: State, seat: int | None) -> Row:
    """A seat's colour (a message; "" for none), "holder" the same or "free", and its hex colour."""
    if seat is None:
        return {"seat": None, "name": "", "holder": FREE, "colour": ""}
    name = seat_colour(state, seat)
    return {"seat": seat, "name": name, "holder": name, "colour": COLOUR_HEX[state["names"][seat]]}


def _routes(state: State) -> list[Row]:
    routes = []
    roll = state.get("roll") or {}
    for number, punt in enumerate(state["punts"], start=1):
        ware = punt["ware"]
        crew = [{**_who(state, seat), "cost": cost} for seat, cost in zip(punt["crew"], PUNT_COSTS[ware], strict=True)]
        routes.append(
            {
                "number": number,
                "ware": ware_name(ware),
                "title": ware_title(ware),
                "colour": WARE_HEX[ware],
                "pos": punt["pos"],
                "berth": punt["berth"] or "",
                "docked": bool(punt["berth"] and punt["berth"].startswith("port")),
                "wrecked": bool(punt["berth"] and punt["berth"].startswith("yard")),
                "plundered": punt["plundered"],
                "profit": LOAD_PROFITS[ware],
                "die": roll.get(ware, ""),
                "crew": crew,
                "cells": [
                    {
                        "space": space,
                        "here": punt["berth"] is None and punt["pos"] == space,
                        "x": CELL_X0 + CELL_W * space,
                    }
                    for space in range(LAST_SPACE + 1)
                ],
                "x": CELL_X0 + CELL_W * min(punt["pos"], LAST_SPACE + 1),
                "y": 8 + ROW_H * (number - 1),
            }
        )
    return routes


def _empty_routes() -> list[Row]:
    """The three sea routes before the harbor master has loaded the punts, so the picture is always there."""
    cells = [{"space": space, "x": CELL_X0 + CELL_W * space} for space in range(LAST_SPACE + 1)]
    return [{"number": number, "y": 8 + ROW_H * (number - 1), "cells": cells} for number in (1, 2, 3)]


def _berths(state: State, kind: str) -> list[Row]:
    landed = {punt["berth"]: punt["ware"] for punt in state["punts"] if punt["berth"]}
    return [
        {
            "letter": letter,
            "space": f"{kind}:{letter}",
            "cost": BERTH_COSTS[letter],
            "payout": BERTH_PAYOUTS[letter],
            "punt": ware_name(landed[f"{kind}:{letter}"]) if f"{kind}:{letter}" in landed else "",
            "punt_colour": WARE_HEX.get(landed.get(f"{kind}:{letter}", ""), ""),
            **_who(state, state["spaces"][f"{kind}:{letter}"]),
        }
        for letter in BERTHS
    ]


def _values(state: State) -> list[Row]:
    return [
        {
            "ware": ware_name(ware),
            "colour": WARE_HEX[ware],
            "value": state["values"][ware],
            "price": share_price(state["values"][ware]),
            "supply": state["supply"][ware],
            "profit": LOAD_PROFITS[ware],
            "cells": [{"value": value, "current": value == state["values"][ware]} for value in VALUE_TRACK],
        }
        for ware in WARES
    ]


def build_view(state: State, seat: int | None, phase: str, final: list[Row] | None) -> dict[str, Any]:
    spaces = state["spaces"]
    players = [
        {
            **_who(state, other),
            "cash": state["cash"][other],
            "shares": len(state["shares"][other]),
            "loans": state["loans"][other],
            "left": state["left"][other],
            "stopped": state["stopped"][other],
            "is_viewer": other == seat,
            "harbor_master": other == state["harbor_master"],
            "asked": other in state["asked"],
        }
        for other in range(state["players"])
    ]
    view: dict[str, Any] = {
        "seat": seat,
        "phase": phase,
        "voyage": state["voyage"],
        "step": state["step"],
        "moves": state["moves"],
        "finished": state["finished"],
        "harbor_master": _who(state, state["harbor_master"]),
        "values": _values(state),
        "routes": _routes(state),
        "empty_routes": [] if state["punts"] else _empty_routes(),
        "ports": _berths(state, "port"),
        "yards": _berths(state, "yard"),
        "pirates": [
            {"role": "captain", "cost": PIRATE_COST, **_who(state, spaces["pirate:captain"])},
            {"role": "crew", "cost": PIRATE_COST, **_who(state, spaces["pirate:crew"])},
        ],
        "pilots": [
            {"size": size, "cost": PILOT_COSTS[size], **_who(state, spaces[f"pilot:{size}"])} for size in PILOT_COSTS
        ],
        "insurance": _who(state, spaces["insurance"]),
        "players": players,
        "final": final,
        "you": None,
    }
    if seat is not None:
        held = Counter(state["shares"][seat])
        view["you"] = {
            **_who(state, seat),
            "cash": state["cash"][seat],
            "shares": [
                {"ware": ware_name(ware), "count": held[ware], "value": state["values"][ware]}
                for ware in WARES
                if held[ware]
            ],
            "loans": state["loans"][seat],
            "free_shares": free_shares(state, seat),
            "can_raise": can_raise(state, seat),
            "left": state["left"][seat],
        }
    return view
