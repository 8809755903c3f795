"""A voyage as a list of stages, and the automatic ones among them (dice, docking, plunder, the end of
the voyage). `advance` runs stages until one needs a decision; the step modules resolve the decisions.

The stages of a voyage (with three players one more placing round comes before the first roll):
bid, duties, place, move, place, move, board by the captain, board by the second pirate, place,
small pilot, large pilot, move, plunder, finish.
"""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Event, M, Mp, Msg, State, joined
from games.engines.manila.data import (
    BERTHS,
    END_VALUE,
    LAST_SPACE,
    PUNT_COSTS,
    SPACES,
    accomplices_each,
    join_names,
    next_value,
    placement_blocks,
    seat_colour,
    ware_name,
)
from games.engines.manila.money import Events
from games.engines.manila.payout import pay_profits

Punt = dict[str, Any]


def voyage_stages(players: int) -> list[str]:
    stages = ["bid", "duties"]
    for block, placing_rounds in enumerate(placement_blocks(players)):
        stages += ["place"] * placing_rounds
        if block == 2:
            stages += ["pilot:small", "pilot:large"]
        stages.append("move")
        if block == 1:
            stages += ["board:captain", "board:second"]
    return stages + ["plunder", "finish"]


def clockwise_from(state: State, first: int) -> list[int]:
    players = int(state["players"])
    return [(first + step) % players for step in range(players)]


# --- punts and spaces ------------------------------------------------------------------------------


def afloat(state: State) -> list[Punt]:
    """Punts that have neither docked nor been sent to the shipyard."""
    return [punt for punt in state["punts"] if punt["berth"] is None]


def punt_of(state: State, ware: str) -> Punt | None:
    return next((punt for punt in state["punts"] if punt["ware"] == ware), None)


def free_punt_space(punt: Punt) -> int | None:
    """Index of the cheapest free accomplice space on the punt."""
    return next((i for i, seat in enumerate(punt["crew"]) if seat is None), None)


def at_pirate_space(state: State) -> list[Punt]:
    return [punt for punt in afloat(state) if punt["pos"] == LAST_SPACE]


def pirates(state: State) -> list[int]:
    return [seat for seat in (state["spaces"]["pirate:captain"], state["spaces"]["pirate:crew"]) if seat is not None]


def new_punt(ware: str, start: int) -> Punt:
    return {"ware": ware, "pos": start, "crew": [None] * len(PUNT_COSTS[ware]), "berth": None, "plundered": False}


def _berthed(kind: str, why: str, ware: str, berth: str) -> Msg:
    """The log line of a punt berthed: `why` is "" (its own roll), "pilot", "captain" (sent by the pirate
    captain), "unplundered" (from space 13, no pirates) or "wreck" (it failed to reach Manila)."""
    said = {"ware": ware_name(ware), "berth": berth}
    if kind == "port":
        if why == "pilot":
            return M("The {ware} punt reaches Manila with the pilot's help and docks at port space {berth}.", **said)
        if why == "captain":
            return M(
                "The {ware} punt reaches Manila (sent by the pirate captain) and docks at port space {berth}.", **said
            )
        if why == "unplundered":
            return M(
                "The {ware} punt reaches Manila from space 13 (no pirates on the boat) and docks at port space "
                "{berth}.",
                **said,
            )
        return M("The {ware} punt reaches Manila and docks at port space {berth}.", **said)
    if why == "captain":
        return M("The {ware} punt (sent by the pirate captain) goes to shipyard space {berth}.", **said)
    if why == "wreck":
        return M("The {ware} punt failed to reach Manila and goes to shipyard space {berth}.", **said)
    return M("The {ware} punt goes to shipyard space {berth}.", **said)


def berth_punt(state: State, punt: Punt, kind: str, events: Events, why: str = "") -> None:
    """Put the punt on the next free port ("port") or shipyard ("yard") space, A then B then C; `why` as
    `_berthed` reads it."""
    taken = {other["berth"] for other in state["punts"]}
    berth = next(f"{kind}:{letter}" for letter in BERTHS if f"{kind}:{letter}" not in taken)
    punt["berth"] = berth
    if kind == "port":
        punt["pos"] = LAST_SPACE + 1
    text = _berthed(kind, why, punt["ware"], berth[-1])
    events.append(Event(text, data={"kind": "berth", "ware": punt["ware"], "berth": berth}))


def move_punt(state: State, punt: Punt, steps: int, events: Events, why: str = "") -> None:
    """Move along the sea route; passing space 13 reaches Manila (spare steps are lost)."""
    punt["pos"] = max(0, punt["pos"] + steps)
    if punt["pos"] > LAST_SPACE:
        berth_punt(state, punt, "port", events, why)


# --- the voyage ------------------------------------------------------------------------------------


def start_voyage(state: State) -> None:
    players = int(state["players"])
    state["stage"] = 0
    state["punts"] = []
    state["spaces"] = {space: None for space in SPACES}
    state["left"] = [accomplices_each(players)] * players
    state["stopped"] = [False] * players
    state["moves"] = 0
    state["roll"] = {}
    state["second_pirate"] = None


def roll_and_move(state: State, events: Events, rng: random.Random) -> None:
    state["moves"] += 1
    moving = afloat(state)  # a punt already in port rolls no die
    roll = {punt["ware"]: rng.randint(1, 6) for punt in moving}
    state["roll"] = roll
    dice = joined(
        [Mp("manila dice", "{ware} {roll}", ware=ware_name(punt["ware"]), roll=roll[punt["ware"]]) for punt in moving],
        ",",
    )
    events.append(
        Event(
            M("Movement round {round}: the dice show {dice}.", round=state["moves"], dice=dice),
            data={"kind": "roll", "roll": roll},
        )
    )
    # Every punt moves by its die; those passing 13 in the same roll dock in route order. That order
    # never changes who is paid (the same port spaces fill either way), so nobody is asked.
    for punt in moving:
        move_punt(state, punt, roll[punt["ware"]], events)
    at_13 = [punt["ware"] for punt in at_pirate_space(state)]
    if at_13 and state["moves"] == 2 and not pirates(state):
        wares = join_names([ware_name(ware) for ware in at_13])
        events.append(Event(M("No pirate waits to board the {wares} punt on space 13.", wares=wares)))


def enter_plunder(state: State, events: Events) -> list[int]:
    """After the third roll: punts on space 13 are plundered if a pirate is on the boat, else they dock."""
    targets = at_pirate_space(state)
    if not targets:
        return []
    crew = pirates(state)
    if not crew:
        for punt in targets:
            berth_punt(state, punt, "port", events, "unplundered")
        return []
    for punt in targets:
        returned = [seat_colour(state, seat) for seat in punt["crew"] if seat is not None]
        punt["crew"] = [None] * len(punt["crew"])
        punt["plundered"] = True
        if returned:
            text = M(
                "The pirates plunder the {ware} punt on space 13; {seats} go home empty-handed.",
                ware=ware_name(punt["ware"]),
                seats=join_names(returned),
            )
        else:
            text = M("The pirates plunder the {ware} punt on space 13.", ware=ware_name(punt["ware"]))
        events.append(Event(text, data={"kind": "plunder"}))
    return [state["spaces"]["pirate:captain"]]


def finish_voyage(state: State, events: Events) -> None:
    """Wrecks to the shipyard, profits, ware values, then the game's end or the next voyage."""
    for punt in afloat(state):
        berth_punt(state, punt, "yard", events, "wreck")
    pay_profits(state, events)
    risen = []
    for punt in state["punts"]:
        if punt["berth"].startswith("port"):
            ware = punt["ware"]
            state["values"][ware] = next_value(state["values"][ware])
            risen.append(Mp("manila value", "{ware} to {value}", ware=ware_name(ware), value=state["values"][ware]))
    if risen:
        events.append(Event(M("Black market: {values}.", values=join_names(risen)), data={"kind": "values"}))
    if any(value >= END_VALUE for value in state["values"].values()):
        state["finished"] = True
        state["step"] = "over"
        state["asked"] = []
        return
    state["opener"] = state["harbor_master"]
    state["voyage"] += 1
    start_voyage(state)
