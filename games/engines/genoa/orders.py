"""Checking each seat's order against the state (validate) and writing it back canonically, so that a
validated order validates again to itself after a JSON round trip."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from games.engines.base import M, Mn, Mp, Msg, Order, OrderError, OrderIncomplete, State, joined
from games.engines.genoa.actions import colour
from games.engines.genoa.data import COLOURS, DISCS, MOVES, good_term, tile_name
from games.engines.genoa.map import BUILDINGS, MARKET, is_building, neighbours, parse_space, space_name, space_term
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
from games.engines.genoa.syntax import typed as typed_steps

MAX_TEXT = 2000


def not_asked_reason(state: State, seat: int) -> Msg:
    if state["finished"]:
        return M("The game is over; no more orders are taken.")
    merchant = state["turn"]["merchant"]
    if state["step"] == "offers":
        return M("You are the merchant this turn: the other players make offers to you.")
    if state["step"] in ("route", "start"):
        return M("{seat} is the merchant and is moving the tower now.", seat=colour(merchant))
    return M("Another player is acquiring buildings now.")


def _text_field(order: Order, name: str) -> str:
    value = order.get(name)
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        value = "\n".join(str(part) for part in value)
    if not isinstance(value, str):
        raise OrderError(M("The {field} field must be text.", field=name))
    if len(value) > MAX_TEXT:
        raise OrderError(M("The {field} field is too long (at most {most} characters).", field=name, most=MAX_TEXT))
    return value


# --- start space -----------------------------------------------------------------------------------


def validate_start(state: State, seat: int, order: Order) -> Order:
    raw = order.get("start")
    if isinstance(raw, (list, tuple)) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str) or not raw.strip():
        raise OrderError(M("Choose 'roll' or the space where your Starting space tile puts the tower."))
    if raw.strip().lower() in {"roll", "dice", "roll the dice"}:
        return {"start": "roll"}
    space = parse_space(raw)
    if space is None:
        raise OrderError(M("There is no space called {typed}.", typed=typed_steps(repr(raw.strip()[:30]))))
    if space == MARKET:
        raise OrderError(M("A Starting space tile cannot put the tower on the Market."))
    return {"start": space}


# --- offers ----------------------------------------------------------------------------------------


def check_tile_plays(state: State, seat: int, plays: list[dict[str, Any]]) -> None:
    wanted = Counter(play["tile"] for play in plays)
    held = Counter(state["tiles"][seat])
    for tile, count in wanted.items():
        if count > held[tile]:
            raise OrderError(
                Mn(
                    "Tile plays: you hold {count} {tile} tile, not {wanted}.",
                    "Tile plays: you hold {count} {tile} tiles, not {wanted}.",
                    held[tile],
                    tile=tile_name(tile),
                    wanted=count,
                )
            )
    gives = Counter(play["give"] for play in plays if play["tile"] == "trade")
    for good, count in gives.items():
        if state["goods"][seat].count(good) < count:
            raise OrderError(M("Tile plays: you have no {good} to trade.", good=good_term(good)))
    for number, play in enumerate(plays, start=1):
        if play["tile"] == "build":
            problem = delivery_problem(state, seat, play["building"], play["deliver"])
            if problem:
                raise OrderError(
                    M(
                        "Tile play {number} (build {building}): {problem}.",
                        number=number,
                        building=space_term(play["building"]),
                        problem=problem,
                    )
                )


def validate_offers(state: State, seat: int, order: Order) -> Order:
    offers = parse_offers(_text_field(order, "offers"))
    seen: set[str] = set()
    for number, offer in enumerate(offers, start=1):
        where = M("Offer {number} ({space})", number=number, space=space_term(offer["space"]))
        if offer["space"] in seen:
            raise OrderError(
                M("{where}: you already made an offer for this space; make one offer per space.", where=where)
            )
        seen.add(offer["space"])
        if not is_building(offer["space"]) and (offer["deliver"] or offer["reward"] or offer["gained"]):
            raise OrderError(
                M("{where}: a street has no action, so nothing is gained or delivered there.", where=where)
            )
        if offer["reward"] and not offer["deliver"]:
            raise OrderError(M("{where}: 'reward' chooses the tile for a large order you deliver here.", where=where))
        problem = delivery_problem(state, seat, offer["space"], offer["deliver"])
        if problem:
            raise OrderError(M("{where}: cannot deliver: {problem}.", where=where, problem=problem))
        short = shortfall(state, seat, [offer])
        if short:
            raise OrderError(M("{where}: you cannot pay {short}.", where=where, short=short))
        if state["players"] == 2 and not pays_a_good(offer):
            # Adding a good (a "+" step) makes it legal: the builder may offer the space first.
            raise OrderIncomplete(
                M("{where}: with two players an offer must include at least one good, not only ducats.", where=where)
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
            raise OrderError(M("{where}: the Market has no action to give.", where=where_))
        if who != seat:
            if entry["deliver"] or entry["reward"]:
                raise OrderError(
                    M("{where}: {seat}'s own offer says what they deliver.", where=where_, seat=colour(who))
                )
            if not any(o["seat"] == who and o["space"] == space for o in offers):
                raise OrderError(
                    M(
                        "{where}: {seat} made no offer for {space}.",
                        where=where_,
                        seat=colour(who),
                        space=space_term(space),
                    )
                )
        elif not is_building(space):
            raise OrderError(
                M("{where}: a street has no action; only an offerer's deal can be accepted there.", where=where_)
            )
        else:
            problem = delivery_problem(state, seat, space, entry["deliver"])
            if problem:
                raise OrderError(M("{where}: cannot deliver: {problem}.", where=where_, problem=problem))
            if entry["reward"] and not entry["deliver"]:
                raise OrderError(
                    M("{where}: 'reward' chooses the tile for a large order you deliver here.", where=where_)
                )
        if is_building(space):
            taken[who] += 1
    plays = parse_tiles(_text_field(order, "tiles"))
    check_tile_plays(state, seat, plays)
    builds = [play for play in plays if play["tile"] == "build"]
    routed = {entry["space"] for entry in route if entry["seat"] not in (None, -1)}
    for play in builds:
        if play["building"] in routed:
            raise OrderError(
                M(
                    "Tile plays: {building}'s action is already given on your route.",
                    building=space_term(play["building"]),
                )
            )
    _check_allowances(state, seat, route, taken, len(builds))
    _check_unused_offers(state, seat, route, taken, where, typed)
    for other in sorted({e["seat"] for e in route if e["seat"] not in (None, -1, seat)}):
        short = shortfall(state, other, accepted_offers(state, route, other))
        if short:
            raise OrderError(
                M("{seat} cannot pay all the offers you accepted together ({short}).", seat=colour(other), short=short)
            )
    return {"route": route_text(route), "tiles": tiles_text(plays)}


def _step_names(route: list[dict[str, Any]], typed: int) -> Callable[[int], Msg]:
    """How errors name the route's entry at an index: steps are counted as the merchant typed them, so
    when he did not name the start space first, it is "the start space" and his first step is step 1."""
    inserted = typed < len(route)

    def where(index: int) -> Msg:
        name = space_term(route[index]["space"])
        if inserted and index == 0:
            return M("The start space ({space})", space=name)
        return M("Route step {number} ({space})", number=index if inserted else index + 1, space=name)

    return where


def _check_path(route: list[dict[str, Any]], where: Callable[[int], Msg]) -> None:
    if len(route) > DISCS:
        raise OrderError(
            M("The tower moves at most {most} times: your route has {moves} moves.", most=MOVES, moves=len(route) - 1)
        )
    for index in range(1, len(route)):
        before, space = route[index - 1]["space"], route[index]["space"]
        if space in [e["space"] for e in route[:index]]:
            raise OrderError(M("{where}: the tower never visits a space twice.", where=where(index)))
        if space not in neighbours(before):
            options = joined([space_term(s) for s in sorted(neighbours(before), key=space_name)], ",")
            raise OrderError(
                M(
                    "{where}: not next to {space}; from there the tower can go to {options}.",
                    where=where(index),
                    space=space_term(before),
                    options=options,
                )
            )


def _check_allowances(state: State, seat: int, route: list[dict[str, Any]], taken: Counter[int], builds: int) -> None:
    extras = state["tiles"]
    for who, count in taken.items():
        if who == seat:
            continue
        if count > 1 + extras[who].count("extra"):
            raise OrderError(
                M(
                    "{seat} can take only one action this turn (more only with an Extra action tile).",
                    seat=colour(who),
                )
            )
    mine = taken[seat] + builds
    limit = 1 + merchant_bonus(state, route) + extras[seat].count("extra")
    if mine > limit:
        raise OrderError(
            M(
                "You take {mine} actions but may take {limit} this turn "
                "(one; two with an Extra action tile, or with two players when the other player acts).",
                mine=mine,
                limit=limit,
            )
        )


def _check_unused_offers(
    state: State,
    seat: int,
    route: list[dict[str, Any]],
    taken: Counter[int],
    where: Callable[[int], Msg],
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
            names = _either([colour(b) for b in bidders])
            step = "start" if typed < len(route) and index == 0 else space_name(entry["space"])
            message = M(
                "{where}: {names} offered for this action, so give it to an offerer "
                "(e.g. {give}) or take it yourself ({take}).",
                where=where(index),
                names=names,
                give=typed_steps(f"{step} = {COLOURS[bidders[0]]}"),
                take=typed_steps(f"{step} = me"),
            )
            # An empty route only lacks its first step ("start = ..."); any other is wrong as written.
            raise (OrderIncomplete if typed == 0 else OrderError)(message)


def _either(names: list[Msg]) -> Msg:
    """ "A", "A or B", "A or B or C"."""
    head = names[0]
    for name in names[1:]:
        head = Mp("list", "{head} or {next}", head=head, next=name)
    return head


def accepted_offers(state: State, route: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    given = {entry["space"] for entry in route if entry["seat"] == seat}
    return [o for o in state["turn"]["offers"] if o["seat"] == seat and o["space"] in given]


# --- acquisition -----------------------------------------------------------------------------------


def validate_acquire(state: State, seat: int, order: Order) -> Order:
    raw = order.get("street")
    if isinstance(raw, (list, tuple)) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str) or not raw.strip():
        raise OrderError(M("Choose a street with discs, or 'pass'."))
    if raw.strip().lower() in {"pass", "none", "nothing"}:
        return {"street": "pass", "buildings": []}
    street = parse_space(raw)
    if street is None or street not in state["turn"]["discs"] or "-" not in street:
        raise OrderError(
            M(
                "{typed} is not a street with a disc on it; choose one that has, or pass.",
                typed=typed_steps(repr(raw.strip()[:30])),
            )
        )
    picks = order.get("buildings") or []
    if isinstance(picks, str):
        picks = [part for part in steps(picks.replace(",", ";"))]
    if not isinstance(picks, (list, tuple)) or len(picks) > 2:
        raise OrderError(M("Place markers on one or two buildings."))
    chosen: list[str] = []
    cost = 0
    for pick in picks:
        text = str(pick).strip()
        if text.lower() in {"pass", "none", ""}:
            continue
        remove_only = text.lower().startswith("remove")
        building = parse_space(re.sub(r"^remove\s*:?\s*", "", text, flags=re.I))
        if building is None or building not in BUILDINGS:
            raise OrderError(M("{typed} is not a building.", typed=typed_steps(repr(text[:30]))))
        name = space_term(building)
        if building in [c.removeprefix("remove:") for c in chosen]:
            raise OrderError(M("{building} is named twice.", building=name))
        if building not in neighbours(street):
            raise OrderError(M("{building} is not next to {street}.", building=name, street=space_term(street)))
        owner = state["owners"].get(building)
        if owner == seat:
            raise OrderError(M("You already own {building}.", building=name))
        if remove_only and owner is None:
            raise OrderError(M("{building} has no marker to remove.", building=name))
        cost += (1 if owner is not None else 0) + (0 if remove_only else 1)
        chosen.append(f"remove:{building}" if remove_only else building)
    if cost > state["markers"][seat]:
        raise OrderError(
            Mn(
                "That needs {count} ownership marker (one per marker placed, one more per rival marker removed); "
                "you have {held}.",
                "That needs {count} ownership markers (one per marker placed, one more per rival marker removed); "
                "you have {held}.",
                cost,
                held=state["markers"][seat],
            )
        )
    return {"street": street, "buildings": chosen}
