"""The order builder's candidate steps: what a seat could add next to its offers, its route or its tile
plays, spelled as the typed syntax spells them. The engine kit keeps those `validate` accepts, so the
rules stay in `orders`; here only the vocabulary is listed."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from games.engines.base import M, Msg, OrderError, State, StepChoice
from games.engines.genoa.actions import action_gives, and_chain, colour, named_for_a_newcomer
from games.engines.genoa.data import (
    COLOURS,
    COMMODITIES,
    DISCS,
    LARGE_ORDERS,
    MOVES,
    SMALL_ORDERS,
    TILES,
    card_text,
    good_term,
    tile_name,
)
from games.engines.genoa.map import BUILDINGS, MARKET, is_building, neighbours, reachable, space_name, space_term
from games.engines.genoa.rules import pays_a_good
from games.engines.genoa.syntax import ROUTE_SPLIT, parse_offers, parse_route, parse_tiles, price_of, steps
from games.engines.kit import Builder, split_steps


def _joined(chosen: list[str]) -> str:
    return "; ".join(chosen)


def _deliverable(state: State, seat: int, building: str) -> list[list[str]]:
    """Every set of the seat's order cards it might deliver at `building` (at most one large order)."""
    cards = [c for c in state["hands"][seat] if c in SMALL_ORDERS and SMALL_ORDERS[c][0] == building]
    larges = [c for c in state["hands"][seat] if c in LARGE_ORDERS and LARGE_ORDERS[c][0] == building]
    sets: list[list[str]] = []
    for large in [None, *larges]:
        for size in range(len(cards) + 1):
            for smalls in combinations(cards, size):
                chosen = [*([large] if large else []), *smalls]
                if chosen:
                    sets.append(chosen)
    return sets


def _deliveries(state: State, seat: int, building: str) -> Iterator[tuple[str, Msg | str | None, str]]:
    """(typed words, cards delivered, reward tile) for taking `building`'s action: no delivery, or each delivery
    and reward."""
    yield "", None, ""
    for cards in _deliverable(state, seat, building):
        typed = "".join(f" deliver {card}" for card in cards)
        delivered = and_chain(cards)
        yield typed, delivered, ""
        if any(card in LARGE_ORDERS for card in cards):
            for tile in TILES:
                yield f"{typed} reward {tile}", delivered, tile


def _with(words: Msg, delivered: Msg | str | None, tile: str) -> Msg:
    """`words` and what is delivered (", delivering L3 for a Extra action tile"), if anything."""
    if delivered is None:
        return words
    if tile:
        return M("{words}, delivering {cards} for a {tile} tile", words=words, cards=delivered, tile=tile_name(tile))
    return M("{words}, delivering {cards}", words=words, cards=delivered)


# --- offers ----------------------------------------------------------------------------------------


def offer_candidates(state: State, seat: int, chosen: list[str]) -> Iterator[StepChoice]:
    try:
        offers = parse_offers(_joined(chosen))
    except OrderError:
        return
    if offers:
        yield from _offer_items(state, seat, offers[-1])
        if state["players"] == 2 and not pays_a_good(offers[-1]):
            return  # that offer is finished first (with two players it needs a good)
    offered = {offer["space"] for offer in offers}
    holds = any(state[key][seat] for key in ("goods", "hands", "tiles", "markers"))
    near = sorted(space for space in reachable(state["turn"]["start"], MOVES) if space != MARKET)
    for space in near:
        # With two players a street offer needs a good, so it is offered only to a seat holding one.
        if space not in offered and (state["players"] > 2 or holds or is_building(space)):
            name = space_name(space)
            label = M("New offer: {space}", space=named_for_a_newcomer(space))
            yield StepChoice(f"{name}: {{n}} ducats", label, (0, state["ducats"][seat]), M("ducats"))


def _offer_items(state: State, seat: int, offer: dict[str, Any]) -> Iterator[StepChoice]:
    """What may be added to the offer being written (the last one), each with a '+'."""
    where = space_term(offer["space"])
    for good in sorted(set(state["goods"][seat]), key=COMMODITIES.index):
        yield StepChoice(f"+ {good}", M("{space} offer: add 1 {good}", space=where, good=good_term(good)))
    for card in state["hands"][seat]:
        if card not in offer["cards"] and card not in offer["deliver"]:
            yield StepChoice(f"+ {card}", M("{space} offer: add your card {card}", space=where, card=card_text(card)))
    for tile in sorted(set(state["tiles"][seat]), key=list(TILES).index):
        yield StepChoice(f"+ {tile} tile", M("{space} offer: add your {tile} tile", space=where, tile=tile_name(tile)))
    if state["markers"][seat]:
        yield StepChoice("+ 1 marker", M("{space} offer: add 1 ownership marker", space=where))
    if not is_building(offer["space"]):
        return
    if not offer["gained"]:
        yield StepChoice("+ gained", M("{space} offer: add what the action gives you", space=where))
    for cards in _deliverable(state, seat, offer["space"]):
        if len(cards) == 1 and cards[0] not in offer["deliver"]:
            yield StepChoice(
                f"+ deliver {cards[0]}", M("{space} offer: you deliver {card} there", space=where, card=cards[0])
            )
    if not offer["reward"] and any(card in LARGE_ORDERS for card in offer["deliver"]):
        for tile in TILES:
            yield StepChoice(
                f"+ reward {tile}",
                M("{space} offer: a {tile} tile as the order's reward", space=where, tile=tile_name(tile)),
            )


def offer_builder_steps(state: State, text: str) -> list[str]:
    """Offers as the builder's steps: each offer's space and ducats, then one '+' step per other item."""
    try:
        offers = parse_offers(text)
    except OrderError:
        return split_steps(text)
    result: list[str] = []
    for offer in offers:
        result.append(f"{space_name(offer['space'])}: {offer['ducats']} ducats")
        result += [f"+ {good}" for good in offer["goods"]]
        result += [f"+ {card}" for card in offer["cards"]]
        result += [f"+ {tile} tile" for tile in offer["tiles"]]
        result += ["+ 1 marker"] * offer["markers"]
        result += ["+ gained"] if offer["gained"] else []
        result += [f"+ deliver {card}" for card in offer["deliver"]]
        result += [f"+ reward {offer['reward']}"] if offer["reward"] else []
    return result


# --- the route -------------------------------------------------------------------------------------


def route_candidates(state: State, seat: int, chosen: list[str]) -> Iterator[StepChoice]:
    """First what happens on the start space, then each move to a neighbour and who acts there."""
    start = state["turn"]["start"]
    try:
        route = parse_route(_joined(chosen), state["players"], seat, start)
    except OrderError:
        return
    if not route:
        yield from _visit(state, seat, start, M("Start on {space}", space=space_term(start)))
        return
    if len(route) >= DISCS:
        return
    visited = {entry["space"] for entry in route}
    for space in sorted(neighbours(route[-1]["space"]) - visited, key=space_name):
        yield from _visit(state, seat, space, M("Move to {space}", space=space_term(space)))


def _visit(state: State, seat: int, space: str, heading: Msg) -> Iterator[StepChoice]:
    name = space_name(space)
    building = is_building(space)
    yield StepChoice(name, M("{heading}: nobody acts there", heading=heading) if building else heading)
    if building:
        for typed, delivered, tile in _deliveries(state, seat, space):
            took = M("{heading}: you take the action ({gives})", heading=heading, gives=action_gives(space))
            yield StepChoice(f"{name} = {COLOURS[seat]}{typed}", _with(took, delivered, tile))
    for offer in state["turn"]["offers"]:
        if offer["space"] == space:
            said = {"heading": heading, "seat": colour(offer["seat"]), "price": price_of(offer)}
            if building:
                label = M("{heading}: {seat} takes the action ({price})", **said)
            else:
                label = M("{heading}: {seat} pays for the visit ({price})", **said)
            yield StepChoice(f"{name} = {COLOURS[offer['seat']]}", label)


# --- special tiles ---------------------------------------------------------------------------------


def tile_candidates(state: State, seat: int, chosen: list[str]) -> Iterator[StepChoice]:
    try:
        plays = parse_tiles(_joined(chosen))
    except OrderError:
        return
    left = {tile: state["tiles"][seat].count(tile) - sum(p["tile"] == tile for p in plays) for tile in TILES}
    if left["trade"] > 0:
        for give in sorted(set(state["goods"][seat]), key=COMMODITIES.index):
            for take in COMMODITIES:
                if take != give:
                    yield StepChoice(
                        f"trade {give} for {take}",
                        M("Trade 1:1 tile: your {give} for a {take}", give=good_term(give), take=good_term(take)),
                    )
    if left["choice"] > 0:
        for good in COMMODITIES:
            yield StepChoice(f"choose {good}", M("Commodity of your choice tile: take a {good}", good=good_term(good)))
    if left["build"] > 0:
        for building in BUILDINGS:
            name = space_name(building)
            action = M("Building action tile: the action of {building}", building=space_term(building))
            for typed, delivered, tile in _deliveries(state, seat, building):
                yield StepChoice(f"build {name}{typed}", _with(action, delivered, tile))


OFFERS = Builder(offer_candidates, offer_builder_steps)
ROUTE = Builder(route_candidates, lambda state, text: steps(text, ROUTE_SPLIT))
TILE_PLAYS = Builder(tile_candidates)
