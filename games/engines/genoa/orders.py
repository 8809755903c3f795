"""Checking each seat's order against the state (validate) and writing it back canonically, so that a
validated order validates again to itself after a JSON round trip."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from games.engines.base import Order, OrderError, OrderIncomplete, State
from games.engines.genoa.actions import colour
from games.engines.genoa.data import DISCS, MOVES, counted
from games.engines.genoa.map import BUILDINGS, MARKET, is_building, neighbours, parse_space, space_name
from games.engines.genoa.rules import can_take_offer, delivery_problem, merchant_bonus, pays_a_good, shortfall
from games.engines.genoa.syntax import (
    offer_text,
    parse_offers,
    parse_route,
    parse_tiles,
    route_text,
    steps,
    tiles_text,
)

MAX_TEXT = 2000


def not_asked_reason(state: State, seat: int) -> str:
    if state["finished"]:
        return "The game is over; no more orders are taken."
    merchant = state["turn"]["merchant"]
    if state["step"] == "offers":
        return "You are the merchant this turn: the other players make offers to you."
    if state["step"] in ("route", "start"):
        return f"{colour(merchant)} is the merchant and is moving the tower now."
    return "Another player is acquiring buildings now."


def _text_field(order: Order, name: str) -> str:
    value = order.get(name)
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        value = "\n".join(str(part) for part in value)
    if not isinstance(value, str):
        raise OrderError(f"The {name} field must be text.")
    if len(value) > MAX_TEXT:
        raise OrderError(f"The {name} field is too long (at most {MAX_TEXT} characters).")
    return value


# --- start space -----------------------------------------------------------------------------------


def validate_start(state: State, seat: int, order: Order) -> Order:
    raw = order.get("start")
    if isinstance(raw, (list, tuple)) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str) or not raw.strip():
        raise OrderError("Choose 'roll' or the space where your Starting space tile puts the tower.")
    if raw.strip().lower() in {"roll", "dice", "roll the dice"}:
        return {"start": "roll"}
    space = parse_space(raw)
    if space is None:
        raise OrderError(f"There is no space called {raw.strip()[:30]!r}.")
    if space == MARKET:
        raise OrderError("A Starting space tile cannot put the tower on the Market.")
    return {"start": space}


# --- offers ----------------------------------------------------------------------------------------


def check_tile_plays(state: State, seat: int, plays: list[dict[str, Any]]) -> None:
    wanted = Counter(play["tile"] for play in plays)
    held = Counter(state["tiles"][seat])
    for tile, count in wanted.items():
        if count > held[tile]:
            names = {"trade": "Trade 1:1", "choice": "Commodity of your choice", "build": "Building action"}
            raise OrderError(f"Tile plays: you hold {counted(held[tile], f'{names[tile]} tile')}, not {count}.")
    gives = Counter(play["give"] for play in plays if play["tile"] == "trade")
    for good, count in gives.items():
        if state["goods"][seat].count(good) < count:
            raise OrderError(f"Tile plays: you have no {good} to trade.")
    for number, play in enumerate(plays, start=1):
        if play["tile"] == "build":
            problem = delivery_problem(state, seat, play["building"], play["deliver"])
            if problem:
                raise OrderError(f"Tile play {number} (build {space_name(play['building'])}): {problem}.")


def validate_offers(state: State, seat: int, order: Order) -> Order:
    offers = parse_offers(_text_field(order, "offers"))
    seen: set[str] = set()
    for number, offer in enumerate(offers, start=1):
        where = f"Offer {number} ({space_name(offer['space'])})"
        if offer["space"] in seen:
            raise OrderError(f"{where}: you already made an offer for this space; make one offer per space.")
        seen.add(offer["space"])
        if not is_building(offer["space"]) and (offer["deliver"] or offer["reward"] or offer["gained"]):
            raise OrderError(f"{where}: a street has no action, so nothing is gained or delivered there.")
        if offer["reward"] and not offer["deliver"]:
            raise OrderError(f"{where}: 'reward' chooses the tile for a large order you deliver here.")
        problem = delivery_problem(state, seat, offer["space"], offer["deliver"])
        if problem:
            raise OrderError(f"{where}: cannot deliver: {problem}.")
        short = shortfall(state, seat, [offer])
        if short:
            raise OrderError(f"{where}: you cannot pay {short}.")
        if state["players"] == 2 and not pays_a_good(offer):
            # Adding a good (a "+" step) makes it legal: the builder may offer the space first.
            raise OrderIncomplete(
                f"{where}: with two players an offer must include at least one good, not only ducats."
            )
    plays = parse_tiles(_text_field(order, "tiles"))
    check_tile_plays(state, seat, plays)
    return {"offers": "; ".join(offer_text(offer) for offer in offers), "tiles": tiles_text(plays)}


# --- the merchant's route --------------------------------------------------------------------------


def validate_route(state: State, seat: int, order: Order) -> Order:
    turn = state["turn"]
    start = turn["start"]
    route = parse_route(_text_field(order, "route"), state["players"], seat, start)
    typed = len(route)
    if not route or route[0]["space"] != start:
        route.insert(0, {"space": start, "seat": None, "deliver": [], "reward": None})
    where = _step_names(route, typed)
    _check_path(route, where)
    offers = turn["offers"]
    taken: Counter[int] = Counter()
    for index, entry in enumerate(route):
        who, space = entry["seat"], entry["space"]
        where_ = where(index)
        if who is None or who < 0:
            continue
        if space == MARKET:
            raise OrderError(f"{where_}: the Market has no action to give.")
        if who != seat:
            if entry["deliver"] or entry["reward"]:
                raise OrderError(f"{where_}: {colour(who)}'s own offer says what they deliver.")
            if not any(o["seat"] == who and o["space"] == space for o in offers):
                raise OrderError(f"{where_}: {colour(who)} made no offer for {space_name(space)}.")
        elif not is_building(space):
            raise OrderError(f"{where_}: a street has no action; only an offerer's deal can be accepted there.")
        else:
            problem = delivery_problem(state, seat, space, entry["deliver"])
            if problem:
                raise OrderError(f"{where_}: cannot deliver: {problem}.")
            if entry["reward"] and not entry["deliver"]:
                raise OrderError(f"{where_}: 'reward' chooses the tile for a large order you deliver here.")
        if is_building(space):
            taken[who] += 1
    plays = parse_tiles(_text_field(order, "tiles"))
    check_tile_plays(state, seat, plays)
    builds = [play for play in plays if play["tile"] == "build"]
    routed = {entry["space"] for entry in route if entry["seat"] not in (None, -1)}
    for play in builds:
        if play["building"] in routed:
            raise OrderError(f"Tile plays: {space_name(play['building'])}'s action is already given on your route.")
    _check_allowances(state, seat, route, taken, len(builds))
    _check_unused_offers(state, seat, route, taken, where, typed)
    for other in sorted({e["seat"] for e in route if e["seat"] not in (None, -1, seat)}):
        short = shortfall(state, other, accepted_offers(state, route, other))
        if short:
            raise OrderError(f"{colour(other)} cannot pay all the offers you accepted together ({short}).")
    return {"route": route_text(route), "tiles": tiles_text(plays)}


def _step_names(route: list[dict[str, Any]], typed: int) -> Callable[[int], str]:
    """How errors name the route's entry at an index: steps are counted as the merchant typed them, so
    when he did not name the start space first, it is "the start space" and his first step is step 1."""
    inserted = typed < len(route)

    def where(index: int) -> str:
        name = space_name(route[index]["space"])
        if inserted and index == 0:
            return f"The start space ({name})"
        return f"Route step {index if inserted else index + 1} ({name})"

    return where


def _check_path(route: list[dict[str, Any]], where: Callable[[int], str]) -> None:
    if len(route) > DISCS:
        raise OrderError(f"The tower moves at most {MOVES} times: your route has {len(route) - 1} moves.")
    for index in range(1, len(route)):
        before, space = route[index - 1]["space"], route[index]["space"]
        if space in [e["space"] for e in route[:index]]:
            raise OrderError(f"{where(index)}: the tower never visits a space twice.")
        if space not in neighbours(before):
            options = ", ".join(sorted(space_name(s) for s in neighbours(before)))
            raise OrderError(
                f"{where(index)}: not next to {space_name(before)}; from there the tower can go to {options}."
            )


def _check_allowances(state: State, seat: int, route: list[dict[str, Any]], taken: Counter[int], builds: int) -> None:
    extras = state["tiles"]
    for who, count in taken.items():
        if who == seat:
            continue
        if count > 1 + extras[who].count("extra"):
            raise OrderError(f"{colour(who)} can take only one action this turn (more only with an Extra action tile).")
    mine = taken[seat] + builds
    limit = 1 + merchant_bonus(state, route) + extras[seat].count("extra")
    if mine > limit:
        raise OrderError(
            f"You take {mine} actions but may take {limit} this turn "
            "(one; two with an Extra action tile, or with two players when the other player acts)."
        )


def _check_unused_offers(
    state: State,
    seat: int,
    route: list[dict[str, Any]],
    taken: Counter[int],
    where: Callable[[int], str],
    typed: int,
) -> None:
    """If a visited building was offered for, an offerer who can still act (and pay) must get it, unless
    the merchant takes it himself (rule "Buildings that were not negotiated")."""
    for index, entry in enumerate(route):
        if not is_building(entry["space"]) or entry["seat"] not in (None, -1):
            continue
        bidders = sorted(
            {
                o["seat"]
                for o in state["turn"]["offers"]
                if o["space"] == entry["space"]
                and can_take_offer(state, o, taken[o["seat"]], accepted_offers(state, route, o["seat"]))
            }
        )
        if bidders:
            names = " or ".join(colour(b) for b in bidders)
            step = "start" if typed < len(route) and index == 0 else space_name(entry["space"])
            message = (
                f"{where(index)}: {names} offered for this action, so give it to an offerer "
                f"(e.g. {step} = {colour(bidders[0])}) or take it yourself ({step} = me)."
            )
            # An empty route only lacks its first step ("start = ..."); any other is wrong as written.
            raise (OrderIncomplete if typed == 0 else OrderError)(message)


def accepted_offers(state: State, route: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    given = {entry["space"] for entry in route if entry["seat"] == seat}
    return [o for o in state["turn"]["offers"] if o["seat"] == seat and o["space"] in given]


# --- acquisition -----------------------------------------------------------------------------------


def validate_acquire(state: State, seat: int, order: Order) -> Order:
    raw = order.get("street")
    if isinstance(raw, (list, tuple)) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str) or not raw.strip():
        raise OrderError("Choose a street with discs, or 'pass'.")
    if raw.strip().lower() in {"pass", "none", "nothing"}:
        return {"street": "pass", "buildings": []}
    street = parse_space(raw)
    if street is None or street not in state["turn"]["discs"] or "-" not in street:
        raise OrderError(f"{raw.strip()[:30]!r} is not a street with a disc on it; choose one that has, or pass.")
    picks = order.get("buildings") or []
    if isinstance(picks, str):
        picks = [part for part in steps(picks.replace(",", ";"))]
    if not isinstance(picks, (list, tuple)) or len(picks) > 2:
        raise OrderError("Place markers on one or two buildings.")
    chosen: list[str] = []
    cost = 0
    for pick in picks:
        text = str(pick).strip()
        if text.lower() in {"pass", "none", ""}:
            continue
        remove_only = text.lower().startswith("remove")
        building = parse_space(re.sub(r"^remove\s*:?\s*", "", text, flags=re.I))
        if building is None or building not in BUILDINGS:
            raise OrderError(f"{text[:30]!r} is not a building.")
        if building in [c.removeprefix("remove:") for c in chosen]:
            raise OrderError(f"{space_name(building)} is named twice.")
        if building not in neighbours(street):
            raise OrderError(f"{space_name(building)} is not next to {space_name(street)}.")
        owner = state["owners"].get(building)
        if owner == seat:
            raise OrderError(f"You already own {space_name(building)}.")
        if remove_only and owner is None:
            raise OrderError(f"{space_name(building)} has no marker to remove.")
        cost += (1 if owner is not None else 0) + (0 if remove_only else 1)
        chosen.append(f"remove:{building}" if remove_only else building)
    if cost > state["markers"][seat]:
        raise OrderError(
            f"That needs {cost} ownership markers (one per marker placed, one more per rival marker removed); "
            f"you have {state['markers'][seat]}."
        )
    return {"street": street, "buildings": chosen}
