"""Each decision's order read back in words (ReadBack), with warnings for what is legal but likely not
meant: no offers, an offer that pays nothing, a tower that does not move, a merchant who takes no action.
It reads the validated (canonical) order and what its seat sees: its own holdings, the offers it received."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import M, Msg, Order, ReadBack, State, joined
from games.engines.genoa.actions import action_gives, and_chain, colour, join
from games.engines.genoa.data import amount_of, ducats, good_term, markers, tile_name
from games.engines.genoa.map import is_building, space_term
from games.engines.genoa.syntax import parse_offers, parse_route, parse_tiles


def read_start(state: State, seat: int, order: Order) -> ReadBack:
    if order["start"] == "roll":
        return ReadBack((M("You will roll the dice for the tower's start and keep your Starting space tile."),))
    return ReadBack(
        (M("You will play your Starting space tile: the tower starts on {space}.", space=space_term(order["start"])),)
    )


def _price_items(offer: dict[str, Any]) -> list[Msg]:
    items = [ducats(offer["ducats"])] if offer["ducats"] else []
    items += [amount_of(count, good) for good, count in Counter(offer["goods"]).items()]
    items += [M("card {card}", card=card) for card in offer["cards"]]
    items += [M("a {tile} tile", tile=tile_name(tile)) for tile in offer["tiles"]]
    items += [markers(offer["markers"])] if offer["markers"] else []
    items += [M("what the action gives")] if offer["gained"] else []
    return items


def price_words(offer: dict[str, Any]) -> Msg:
    return join(_price_items(offer))


def _delivering(choices: dict[str, Any], words: Msg) -> Msg:
    """`words` followed by what is delivered there (", delivering L3 for a Extra action tile"), if anything."""
    if not choices["deliver"]:
        return words
    cards = and_chain(list(choices["deliver"]))
    if choices["reward"]:
        return M(
            "{words}, delivering {cards} for a {tile} tile", words=words, cards=cards, tile=tile_name(choices["reward"])
        )
    return M("{words}, delivering {cards}", words=words, cards=cards)


def _tile_lines(plays: list[dict[str, Any]]) -> list[Msg]:
    lines: list[Msg] = []
    for play in plays:
        if play["tile"] == "trade":
            lines.append(
                M(
                    "Before the tower moves you play a Trade 1:1 tile: your {give} for a {take}.",
                    give=good_term(play["give"]),
                    take=good_term(play["take"]),
                )
            )
        elif play["tile"] == "choice":
            lines.append(
                M(
                    "Before the tower moves you play a Commodity of your choice tile: you take a {good}.",
                    good=good_term(play["good"]),
                )
            )
        else:
            action = M(
                "the action of {building} ({gives})",
                building=space_term(play["building"]),
                gives=action_gives(play["building"]),
            )
            lines.append(
                M("Once the tower stops you play a Building action tile: {action}.", action=_delivering(play, action))
            )
    return lines


def read_offers(state: State, seat: int, order: Order) -> ReadBack:
    offers = parse_offers(order["offers"])
    merchant = colour(state["turn"]["merchant"])
    lines: list[Msg] = []
    warnings: list[Msg] = []
    for offer in offers:
        space = space_term(offer["space"])
        what = (
            M("the {space} action (it {gives})", space=space, gives=action_gives(offer["space"]))
            if is_building(offer["space"])
            else M("a visit of the tower to {space}", space=space)
        )
        lines.append(
            M(
                "You will offer {merchant} {price} for {what}.",
                merchant=merchant,
                price=price_words(offer),
                what=_delivering(offer, what),
            )
        )
        if not _price_items(offer):
            warnings.append(M("Your offer for {space} pays nothing.", space=space))
    if not offers:
        lines.append(M("You will make {merchant} no offers.", merchant=merchant))
        warnings.append(M("With no offers, {merchant} can give you no action this turn.", merchant=merchant))
    lines += _tile_lines(parse_tiles(order["tiles"]))
    return ReadBack(tuple(lines), tuple(warnings))


def read_route(state: State, seat: int, order: Order) -> ReadBack:
    turn = state["turn"]
    route = parse_route(order["route"], state["players"], seat, turn["start"])
    if not route or route[0]["space"] != turn["start"]:
        route.insert(0, {"space": turn["start"], "seat": None, "deliver": [], "reward": None})
    lines: list[Msg] = []
    warnings: list[Msg] = []
    for index, entry in enumerate(route):
        space = space_term(entry["space"])
        if index == 0:
            lines.append(M("The tower starts on {space}: {who}.", space=space, who=_who(state, seat, entry)))
        else:
            lines.append(M("Then it moves to {space}: {who}.", space=space, who=_who(state, seat, entry)))
        if is_building(entry["space"]) and entry["seat"] in (None, -1):
            warnings.append(M("Nobody takes the action at {space}.", space=space))
    plays = parse_tiles(order["tiles"])
    lines += _tile_lines(plays)
    if len(route) == 1:
        warnings.insert(0, M("The tower does not move: it stays on {space}.", space=space_term(route[0]["space"])))
    if not any(entry["seat"] == seat for entry in route) and not any(p["tile"] == "build" for p in plays):
        warnings.append(M("You take no action yourself this turn."))
    return ReadBack(tuple(lines), tuple(warnings))


def _who(state: State, seat: int, entry: dict[str, Any]) -> Msg:
    building = is_building(entry["space"])
    if entry["seat"] in (None, -1):
        return M("nobody acts there") if building else M("no deal there")
    if entry["seat"] == seat:
        if building:
            took = M("you take the action (it {gives})", gives=action_gives(entry["space"]))
        else:
            took = M("you take the action")
        return _delivering(entry, took)
    offer = next(o for o in state["turn"]["offers"] if o["seat"] == entry["seat"] and o["space"] == entry["space"])
    who = colour(entry["seat"])
    if building:
        return M(
            "{seat} takes the action (it {gives}) and pays you {price}",
            seat=who,
            gives=action_gives(entry["space"]),
            price=price_words(offer),
        )
    return M("you accept {seat}'s offer of {price}", seat=who, price=price_words(offer))


def read_acquire(state: State, seat: int, order: Order) -> ReadBack:
    if order["street"] == "pass":
        warnings = (M("You place no ownership marker this turn."),) if state["markers"][seat] else ()
        return ReadBack((M("You will pass: you acquire nothing."),), warnings)
    street = space_term(order["street"])
    done: list[Msg] = []
    for pick in order["buildings"]:
        building = pick.removeprefix("remove:")
        owner = state["owners"].get(building)
        name = space_term(building)
        if owner is not None:
            done.append(M("remove {owner}'s marker from {building}", owner=colour(owner), building=name))
        if not pick.startswith("remove:"):
            done.append(M("place a marker on {building}", building=name))
    if not done:
        return ReadBack(
            (M("You will choose {street} and place nothing: its discs are removed.", street=street),),
            (M("You remove the discs on {street} without placing a marker.", street=street),),
        )
    return ReadBack(
        (
            M(
                "You will choose {street}, {done}; the discs on {street} are then removed.",
                street=street,
                done=joined(done),
            ),
        )
    )
