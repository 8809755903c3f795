"""Each decision's order read back in words (ReadBack), with warnings for what is legal but likely not
meant: no offers, an offer that pays nothing, a tower that does not move, a merchant who takes no action.
It reads the validated (canonical) order and what its seat sees: its own holdings, the offers it received."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import Order, ReadBack, State
from games.engines.genoa.actions import action_gives, colour, join
from games.engines.genoa.data import counted, tile_name
from games.engines.genoa.map import is_building, space_name
from games.engines.genoa.syntax import parse_offers, parse_route, parse_tiles


def read_start(state: State, seat: int, order: Order) -> ReadBack:
    if order["start"] == "roll":
        return ReadBack(("You will roll the dice for the tower's start and keep your Starting space tile.",))
    return ReadBack((f"You will play your Starting space tile: the tower starts on {space_name(order['start'])}.",))


def price_words(offer: dict[str, Any]) -> str:
    items = [counted(offer["ducats"], "ducat")] if offer["ducats"] else []
    items += [f"{count} {good}" for good, count in Counter(offer["goods"]).items()]
    items += [f"card {card}" for card in offer["cards"]]
    items += [f"a {tile_name(tile)} tile" for tile in offer["tiles"]]
    items += [counted(offer["markers"], "ownership marker")] if offer["markers"] else []
    items += ["what the action gives"] if offer["gained"] else []
    return join(items)


def _delivery_words(choices: dict[str, Any]) -> str:
    if not choices["deliver"]:
        return ""
    words = f", delivering {' and '.join(choices['deliver'])}"
    return words + (f" for a {tile_name(choices['reward'])} tile" if choices["reward"] else "")


def _tile_lines(plays: list[dict[str, Any]]) -> list[str]:
    lines = []
    for play in plays:
        if play["tile"] == "trade":
            lines.append(f"Before the tower moves you play a Trade 1:1 tile: your {play['give']} for a {play['take']}.")
        elif play["tile"] == "choice":
            lines.append(f"Before the tower moves you play a Commodity of your choice tile: you take a {play['good']}.")
        else:
            building = space_name(play["building"])
            gives = action_gives(play["building"])
            lines.append(
                f"Once the tower stops you play a Building action tile: the action of {building} ({gives})"
                f"{_delivery_words(play)}."
            )
    return lines


def read_offers(state: State, seat: int, order: Order) -> ReadBack:
    offers = parse_offers(order["offers"])
    merchant = colour(state["turn"]["merchant"])
    lines, warnings = [], []
    for offer in offers:
        space = space_name(offer["space"])
        what = (
            f"the {space} action (it {action_gives(offer['space'])})"
            if is_building(offer["space"])
            else f"a visit of the tower to {space}"
        )
        lines.append(f"You will offer {merchant} {price_words(offer)} for {what}{_delivery_words(offer)}.")
        if price_words(offer) == join([]):
            warnings.append(f"Your offer for {space} pays nothing.")
    if not offers:
        lines.append(f"You will make {merchant} no offers.")
        warnings.append(f"With no offers, {merchant} can give you no action this turn.")
    lines += _tile_lines(parse_tiles(order["tiles"]))
    return ReadBack(tuple(lines), tuple(warnings))


def read_route(state: State, seat: int, order: Order) -> ReadBack:
    turn = state["turn"]
    route = parse_route(order["route"], state["players"], seat, turn["start"])
    if not route or route[0]["space"] != turn["start"]:
        route.insert(0, {"space": turn["start"], "seat": None, "deliver": [], "reward": None})
    lines, warnings = [], []
    for index, entry in enumerate(route):
        space = space_name(entry["space"])
        where = f"The tower starts on {space}" if index == 0 else f"Then it moves to {space}"
        lines.append(f"{where}: {_who(state, seat, entry)}.")
        if is_building(entry["space"]) and entry["seat"] in (None, -1):
            warnings.append(f"Nobody takes the action at {space}.")
    plays = parse_tiles(order["tiles"])
    lines += _tile_lines(plays)
    if len(route) == 1:
        warnings.insert(0, f"The tower does not move: it stays on {space_name(route[0]['space'])}.")
    if not any(entry["seat"] == seat for entry in route) and not any(p["tile"] == "build" for p in plays):
        warnings.append("You take no action yourself this turn.")
    return ReadBack(tuple(lines), tuple(warnings))


def _who(state: State, seat: int, entry: dict[str, Any]) -> str:
    building = is_building(entry["space"])
    if entry["seat"] in (None, -1):
        return "nobody acts there" if building else "no deal there"
    gives = f" (it {action_gives(entry['space'])})" if building else ""
    if entry["seat"] == seat:
        return f"you take the action{gives}{_delivery_words(entry)}"
    offer = next(o for o in state["turn"]["offers"] if o["seat"] == entry["seat"] and o["space"] == entry["space"])
    who = colour(entry["seat"])
    if building:
        return f"{who} takes the action{gives} and pays you {price_words(offer)}"
    return f"you accept {who}'s offer of {price_words(offer)}"


def read_acquire(state: State, seat: int, order: Order) -> ReadBack:
    if order["street"] == "pass":
        warnings = ("You place no ownership marker this turn.",) if state["markers"][seat] else ()
        return ReadBack(("You will pass: you acquire nothing.",), warnings)
    street = space_name(order["street"])
    done = []
    for pick in order["buildings"]:
        building = pick.removeprefix("remove:")
        owner = state["owners"].get(building)
        name = space_name(building)
        if owner is not None:
            done.append(f"remove {colour(owner)}'s marker from {name}")
        if not pick.startswith("remove:"):
            done.append(f"place a marker on {name}")
    if not done:
        return ReadBack(
            (f"You will choose {street} and place nothing: its discs are removed.",),
            (f"You remove the discs on {street} without placing a marker.",),
        )
    return ReadBack((f"You will choose {street}, {join(done)}; the discs on {street} are then removed.",))
