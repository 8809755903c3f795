"""How a turn moves on: start space, sealed offers, the merchant's route and its actions, acquisitions,
end of turn and of the game. Each function changes the (already copied) state in place, appends events,
and goes on through the automatic steps until some seat owes a decision or the game is over."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Event, M, Mn, Msg, Order, State, joined
from games.engines.genoa.actions import (
    colour,
    contract_value,
    deliver_messages,
    join,
    pay_offer,
    play_choice,
    play_trade,
    spend_tile,
    take_action,
)
from games.engines.genoa.data import CONTRACTS, DISCS, MARKER_VALUE
from games.engines.genoa.map import MARKET, is_building, is_street, space_at, space_term
from games.engines.genoa.rules import affordable, can_act, clockwise, merchant_bonus
from games.engines.genoa.syntax import offer_words, parse_offers, parse_route, parse_tiles


def begin_turn(state: State, rng: random.Random, events: list[Event]) -> None:
    merchant = clockwise(state, state["first"])[state["turn_in_round"]]
    state["turn"] = {
        "merchant": merchant,
        "roll": None,
        "start": None,
        "path": [],
        "discs": {},
        "offers": [],
        "used": [],
        "acted": [0] * state["players"],
        "builds": [[] for _ in range(state["players"])],
        "queue": [],
    }
    events.append(
        Event(
            M(
                "Round {round}, turn {turn}: {seat} is the merchant.",
                round=state["round"],
                turn=state["turn_in_round"] + 1,
                seat=colour(merchant),
            ),
            data={"kind": "turn", "merchant": merchant, "round": state["round"]},
        )
    )
    if "start" in state["tiles"][merchant]:
        state["step"], state["asked"] = "start", [merchant]
        return
    roll_start(state, rng, events)
    open_offers(state, events)


def roll_start(state: State, rng: random.Random, events: list[Event]) -> None:
    blue, red = rng.randint(1, 8), rng.randint(1, 8)
    space = space_at(blue, red)
    state["turn"]["roll"] = [blue, red]
    said = {"seat": colour(state["turn"]["merchant"]), "blue": blue, "red": red, "space": space_term(space)}
    text: Msg = M("{seat} rolls blue {blue}, red {red}: the tower starts on {space}.", **said)
    if space == MARKET:
        # A market roll moves the round marker down, except from the last space: the last round is
        # always played in full.
        if state["rounds_left"] > 1:
            state["rounds_left"] -= 1
            text = Mn(
                "{seat} rolls blue {blue}, red {red}: the tower starts on {space}. The round marker moves down: "
                "{count} round left including this one.",
                "{seat} rolls blue {blue}, red {red}: the tower starts on {space}. The round marker moves down: "
                "{count} rounds left including this one.",
                state["rounds_left"],
                **said,
            )
        else:
            text = M(
                "{seat} rolls blue {blue}, red {red}: the tower starts on {space}. "
                "This is already the last round, so the round marker stays.",
                **said,
            )
    events.append(Event(text, data={"kind": "roll", "blue": blue, "red": red, "space": space}))
    state["turn"]["start"] = space


def resolve_start(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    merchant = state["turn"]["merchant"]
    choice = orders[merchant]["start"]
    if choice == "roll":
        roll_start(state, rng, events)
    else:
        spend_tile(state, merchant, "start")
        state["turn"]["start"] = choice
        events.append(
            Event(
                M(
                    "{seat} plays a Starting space tile: the tower starts on {space}.",
                    seat=colour(merchant),
                    space=space_term(choice),
                )
            )
        )
    open_offers(state, events)


def open_offers(state: State, events: list[Event]) -> None:
    merchant = state["turn"]["merchant"]
    state["turn"]["path"] = [state["turn"]["start"]]
    state["step"] = "offers"
    state["asked"] = clockwise(state, merchant)[1:]


def play_tiles(state: State, seat: int, text: str | None, events: list[Event]) -> None:
    """Trade and commodity tiles take effect now; building-action tiles wait until the tower has moved."""
    plays = parse_tiles(text)
    for play in plays:
        if play["tile"] == "trade":
            play_trade(state, seat, play["give"], play["take"], events)
        elif play["tile"] == "choice":
            play_choice(state, seat, play["good"], events)
    state["turn"]["builds"][seat] = [play for play in plays if play["tile"] == "build"]


def resolve_offers(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    merchant = state["turn"]["merchant"]
    offers: list[dict[str, Any]] = []
    for seat in clockwise(state, merchant)[1:]:
        order = orders.get(seat, {})
        mine = parse_offers(order.get("offers"))
        for offer in mine:
            offer["seat"] = seat
        offers += mine
        play_tiles(state, seat, order.get("tiles"), events)
        if mine:
            listed = joined([offer_words(offer) for offer in mine], ";")
            events.append(Event(M("Your offers to {seat}: {offers}.", seat=colour(merchant), offers=listed), seat=seat))
    kept = []
    for offer in offers:
        if affordable(state, offer["seat"], [offer]):
            kept.append(offer)
        else:
            events.append(
                Event(
                    M("Your offer '{offer}' no longer holds: you cannot pay it.", offer=offer_words(offer)),
                    seat=offer["seat"],
                )
            )
    state["turn"]["offers"] = kept
    offerers = sorted({offer["seat"] for offer in kept})
    events.append(
        Event(
            Mn(
                "The offers are in: {count} player made an offer to {seat}.",
                "The offers are in: {count} players made offers to {seat}.",
                len(offerers),
                seat=colour(merchant),
            )
        )
    )
    if kept:
        listed = joined(
            [M("{seat} — {offer}", seat=colour(offer["seat"]), offer=offer_words(offer)) for offer in kept], ";"
        )
        events.append(Event(M("Offers to you: {offers}.", offers=listed), seat=merchant))
    state["step"], state["asked"] = "route", [merchant]


def resolve_route(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    turn = state["turn"]
    merchant = turn["merchant"]
    order = orders[merchant]
    play_tiles(state, merchant, order.get("tiles"), events)
    route = parse_route(order.get("route"), state["players"], merchant, turn["start"])
    if not route or route[0]["space"] != turn["start"]:
        route.insert(0, {"space": turn["start"], "seat": None, "deliver": [], "reward": None})
    bonus = merchant_bonus(state, route)
    turn["path"] = [entry["space"] for entry in route]
    moves = _arrows([space_term(space) for space in turn["path"]])
    events.append(
        Event(
            M("{seat} moves the tower: {path}.", seat=colour(merchant), path=moves),
            data={"kind": "route", "path": turn["path"]},
        )
    )
    offers = turn["offers"]
    for entry in route:
        seat, space = entry["seat"], entry["space"]
        if seat is None or seat < 0:
            continue
        offer = next((o for o in offers if o["seat"] == seat and o["space"] == space), None)
        if is_building(space):
            choices = entry if seat == merchant else (offer or {})
            if not _use_action(state, seat, bonus if seat == merchant else 0, events):
                continue
            gains = take_action(state, seat, space, choices, events)
        else:
            gains = {"cards": [], "goods": [], "tiles": [], "markers": 0}
        if offer is not None and seat != merchant:
            pay_offer(state, offer, gains, events)
    for seat in clockwise(state, merchant):
        for play in turn["builds"][seat]:
            _play_build(state, seat, play, bonus if seat == merchant else 0, events)
    deliver_messages(state, events)
    _leave_discs(state)
    open_acquisition(state, rng, events)


def _arrows(spaces: list[Msg]) -> Msg:
    """The tower's path, "A → B → C"."""
    path = spaces[0]
    for space in spaces[1:]:
        path = M("{path} → {space}", path=path, space=space)
    return path


def _use_action(state: State, seat: int, bonus: int, events: list[Event]) -> bool:
    """Count one action for `seat`; past the free ones an Extra action tile is spent."""
    acted = state["turn"]["acted"]
    if acted[seat] >= 1 + bonus:
        if "extra" not in state["tiles"][seat]:
            events.append(Event(M("{seat} has no action left this turn.", seat=colour(seat))))
            return False
        spend_tile(state, seat, "extra")
        events.append(Event(M("{seat} plays an Extra action tile.", seat=colour(seat))))
    acted[seat] += 1
    return True


def _play_build(state: State, seat: int, play: dict[str, Any], bonus: int, events: list[Event]) -> None:
    building = play["building"]
    if "build" not in state["tiles"][seat] or building in state["turn"]["used"]:
        events.append(
            Event(
                M(
                    "Your Building action tile for {building} could not be played "
                    "(that action was already used this turn, or you hold no such tile); you keep it.",
                    building=space_term(building),
                ),
                seat=seat,
            )
        )
        return
    if not can_act(state, seat, bonus):
        events.append(Event(M("Your Building action tile could not be played: you have no action left."), seat=seat))
        return
    spend_tile(state, seat, "build")
    events.append(
        Event(
            M("{seat} plays a Building action tile for {building}.", seat=colour(seat), building=space_term(building))
        )
    )
    _use_action(state, seat, bonus, events)
    take_action(state, seat, building, play, events)


def _leave_discs(state: State) -> None:
    """One disc on every space left behind; the rest of the tower stays on the last space."""
    path = state["turn"]["path"]
    discs = {space: 1 for space in path[:-1]}
    discs[path[-1]] = DISCS - (len(path) - 1)
    state["turn"]["discs"] = discs


def street_discs(state: State) -> list[str]:
    return [space for space in state["turn"]["discs"] if is_street(space)]


def open_acquisition(state: State, rng: random.Random, events: list[Event]) -> None:
    state["turn"]["queue"] = clockwise(state, state["turn"]["merchant"])
    next_acquirer(state, rng, events)


def next_acquirer(state: State, rng: random.Random, events: list[Event]) -> None:
    queue = state["turn"]["queue"]
    while queue and street_discs(state):
        seat = queue.pop(0)
        if state["markers"][seat] > 0:
            state["step"], state["asked"] = "acquire", [seat]
            return
    end_turn(state, rng, events)


def resolve_acquire(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat = state["asked"][0]
    order = orders[seat]
    street = order["street"]
    if street == "pass":
        events.append(Event(M("{seat} acquires nothing.", seat=colour(seat))))
    else:
        done: list[Msg] = []
        for pick in order["buildings"]:
            remove_only = pick.startswith("remove:")
            building = pick.removeprefix("remove:")
            owner = state["owners"].get(building)
            if owner is not None:
                # Removing a rival's marker costs one of yours; both go back to the general supply.
                state["markers"][seat] -= 1
                state["reserve"][seat] += 1
                state["reserve"][owner] += 1
                del state["owners"][building]
                done.append(
                    M("removes {owner}'s marker from {building}", owner=colour(owner), building=space_term(building))
                )
            if not remove_only:
                state["markers"][seat] -= 1
                state["owners"][building] = seat
                done.append(M("places a marker on {building}", building=space_term(building)))
        count = state["turn"]["discs"].pop(street)
        events.append(
            Event(
                Mn(
                    "{seat} chooses {street}, {done}, and removes the {count} disc there.",
                    "{seat} chooses {street}, {done}, and removes the {count} discs there.",
                    count,
                    seat=colour(seat),
                    street=space_term(street),
                    done=joined(done) if done else M("places nothing"),
                ),
                data={"kind": "acquire", "seat": seat, "street": street},
            )
        )
    next_acquirer(state, rng, events)


def end_turn(state: State, rng: random.Random, events: list[Event]) -> None:
    state["turn_in_round"] += 1
    if state["turn_in_round"] < state["players"]:
        begin_turn(state, rng, events)
        return
    if state["rounds_left"] <= 1:
        finish(state, events)
        return
    state["rounds_left"] -= 1
    state["round"] += 1
    state["turn_in_round"] = 0
    events.append(Event(M("The round marker moves down: round {round} begins.", round=state["round"])))
    begin_turn(state, rng, events)


def finish(state: State, events: list[Event]) -> None:
    state["step"], state["asked"], state["finished"] = "over", [], True
    for seat in range(state["players"]):
        markers = sum(1 for owner in state["owners"].values() if owner == seat)
        contracts = [card for card in state["hands"][seat] if card in CONTRACTS]
        paid = contract_value(state, seat)
        state["ducats"][seat] += markers * MARKER_VALUE + paid
        shown = join([M("{card} ({building})", card=card, building=space_term(CONTRACTS[card])) for card in contracts])
        events.append(
            Event(
                Mn(
                    "{seat}: {count} marker on buildings pays {value}; contracts {contracts} pay {paid}.",
                    "{seat}: {count} markers on buildings pay {value}; contracts {contracts} pay {paid}.",
                    markers,
                    seat=colour(seat),
                    value=markers * MARKER_VALUE,
                    contracts=shown,
                    paid=paid,
                ),
                data={"kind": "final-income", "seat": seat},
            )
        )
