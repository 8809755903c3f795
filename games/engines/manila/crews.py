"""The one-seat decisions of a voyage: the pilots before the third roll, the pirates boarding after the
second roll, and the pirate captain sending plundered punts to port or shipyard after the third."""

from __future__ import annotations

import random
from itertools import combinations, product
from typing import Any

from games.engines.base import Choice, Event, Field, M, Mn, Mp, Msg, Order, Prompt, ReadBack, State, joined
from games.engines.manila.data import LAST_SPACE, PILOT_NAMES, seat_colour, ware_name
from games.engines.manila.fields import choice, loan_fields, read_with_loans, with_loans
from games.engines.manila.flow import afloat, at_pirate_space, berth_punt, free_punt_space, move_punt, punt_of
from games.engines.manila.money import Events, apply_loans

NOTHING = "none"


# --- pilots ----------------------------------------------------------------------------------------


def _pilot_moves(state: State, pilot: str) -> dict[str, Msg]:
    """Every move the pilot may make, as "ware+1" or "jade+1 silk-1", with a readable label."""
    punts = afloat(state)
    singles = [(1,), (-1,)] if pilot == "small" else [(1,), (-1,), (2,), (-2,)]
    moves: dict[str, Msg] = {NOTHING: M("Do nothing")}

    def allowed(punt: dict, steps: int) -> bool:
        return punt["pos"] + steps >= 0

    for punt in punts:
        for (steps,) in singles:
            if allowed(punt, steps):
                moves[f"{punt['ware']}{steps:+d}"] = M(
                    "Move the {ware} punt {steps}", ware=ware_name(punt["ware"]), steps=_steps(steps)
                )
    if pilot == "large":
        for first, second in combinations(punts, 2):
            for a, b in product((1, -1), repeat=2):
                if allowed(first, a) and allowed(second, b):
                    key = f"{first['ware']}{a:+d} {second['ware']}{b:+d}"
                    moves[key] = M(
                        "Move the {ware} punt {steps} and the {other} punt {other_steps}",
                        ware=ware_name(first["ware"]),
                        steps=_steps(a),
                        other=ware_name(second["ware"]),
                        other_steps=_steps(b),
                    )
    return moves


def _pilot_read(pilot: str, move: str) -> Msg:
    """The read-back of a pilot's move (its key)."""
    said: dict[str, Any] = {"pilot": PILOT_NAMES[pilot]}
    parts = move.split()
    said.update(ware=ware_name(parts[0][:-2]), steps=_steps(int(parts[0][-2:])))
    if len(parts) == 1:
        return M("As the {pilot} pilot you will move the {ware} punt {steps}.", **said)
    said.update(other=ware_name(parts[1][:-2]), other_steps=_steps(int(parts[1][-2:])))
    return M("As the {pilot} pilot you will move the {ware} punt {steps} and the {other} punt {other_steps}.", **said)


def _steps(steps: int) -> Msg:
    if steps > 0:
        return Mn("{count} space forward", "{count} spaces forward", steps)
    return Mn("{count} space back", "{count} spaces back", -steps)


def enter_pilot(state: State, events: Events) -> list[int]:
    seat = state["spaces"][state["step_stage"]]
    return [seat] if seat is not None and afloat(state) else []


def pilot_prompt(state: State, seat: int) -> Prompt:
    pilot = state["step_stage"].split(":")[1]
    where = joined(
        [Mp("manila", "{ware} on space {space}", ware=ware_name(p["ware"]), space=p["pos"]) for p in afloat(state)],
        ",",
    )
    said = {"voyage": state["voyage"], "where": where, "last": LAST_SPACE}
    if pilot == "small":
        text = M(
            "Voyage {voyage}: as the small pilot you may move one punt 1 space, forward or back, before the third "
            "roll ({where}). A punt moved past space {last} reaches Manila.",
            **said,
        )
    else:
        text = M(
            "Voyage {voyage}: as the large pilot you may move one punt up to 2 spaces, or two punts 1 space each, "
            "forward or back, before the third roll ({where}). A punt moved past space {last} reaches Manila.",
            **said,
        )
    move = Field(
        name="move",
        kind="choice",
        label=M("Pilot's move"),
        choices=tuple(Choice(k, v) for k, v in _pilot_moves(state, pilot).items()),
        help=M(
            "A punt you move onto space {last} is not attacked for it: pirates strike only after a roll.",
            last=LAST_SPACE,
        ),
    )
    return Prompt(kind="pilot", text=text, fields=(move, *loan_fields(state, seat)))


def validate_pilot(state: State, seat: int, order: Order) -> Order:
    pilot = state["step_stage"].split(":")[1]
    move = choice(order, "move", _pilot_moves(state, pilot), Mp("manila order", "the pilot's move (or none)"))
    return with_loans(state, seat, order, {"move": move})


def read_pilot(state: State, seat: int, order: Order) -> ReadBack:
    pilot = state["step_stage"].split(":")[1]
    if order["move"] == NOTHING:
        return read_with_loans(order, [M("As the {pilot} pilot you will do nothing.", pilot=PILOT_NAMES[pilot])])
    return read_with_loans(order, [_pilot_read(pilot, order["move"])])


def resolve_pilot(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    ((seat, order),) = orders.items()
    apply_loans(state, seat, order, events)
    pilot = state["step_stage"].split(":")[1]
    said = {"pilot": PILOT_NAMES[pilot], "seat": seat_colour(state, seat)}
    if order["move"] == NOTHING:
        events.append(Event(M("The {pilot} pilot ({seat}) does nothing.", **said)))
        return
    for part in order["move"].split():
        ware, steps = part[:-2], int(part[-2:])
        punt = punt_of(state, ware)
        assert punt is not None
        events.append(
            Event(
                M(
                    "The {pilot} pilot ({seat}) moves the {ware} punt {steps}.",
                    ware=ware_name(ware),
                    steps=_steps(steps),
                    **said,
                )
            )
        )
        move_punt(state, punt, steps, events, "pilot")


# --- pirates boarding after the second roll --------------------------------------------------------


def _boarding_options(state: State) -> dict[str, Msg]:
    options = {NOTHING: M("Stay on the pirate boat")}
    targets = at_pirate_space(state)
    for punt in targets:
        if free_punt_space(punt) is not None:
            options[f"board:{punt['ware']}"] = M("Board the {ware} punt", ware=ware_name(punt["ware"]))
    if len(options) == 1 and state["options"]["displacing_pirates"]:
        # The variant: with no free space on any punt on 13, a pirate may take an accomplice's place,
        # but never the place of the captain who has just boarded.
        for punt in targets:
            for index, seat in enumerate(punt["crew"]):
                if seat is not None and [punt["ware"], index] != state["boarded"]:
                    key = f"displace:{punt['ware']}:{index}"
                    options[key] = M(
                        "Board the {ware} punt, sending {seat}'s accomplice home",
                        ware=ware_name(punt["ware"]),
                        seat=seat_colour(state, seat),
                    )
    return options


def _boarding_slot(state: State) -> str | None:
    return "pirate:captain" if state["step_stage"] == "board:captain" else state["second_pirate"]


def enter_boarding(state: State, events: Events) -> list[int]:
    if state["step_stage"] == "board:captain":
        state["second_pirate"] = "pirate:crew"
        state["boarded"] = None
    slot = _boarding_slot(state)
    seat = state["spaces"][slot] if slot else None
    return [seat] if seat is not None and len(_boarding_options(state)) > 1 else []


def boarding_prompt(state: State, seat: int) -> Prompt:
    captain = _boarding_slot(state) == "pirate:captain"
    if not captain:
        who = Mp("manila pirate", "second pirate")
    elif state["step_stage"] == "board:second":
        who = Mp("manila pirate", "second pirate, now captain")
    else:
        who = Mp("manila pirate", "pirate captain")
    text = M(
        "Voyage {voyage}: a punt stands on space {last} after the second roll. As the {who} you may board it (your "
        "pirate becomes an accomplice on the punt and shares its load if it reaches Manila), or stay on the pirate "
        "boat hoping to plunder after the third roll.",
        voyage=state["voyage"],
        last=LAST_SPACE,
        who=who,
    )
    board = Field(
        name="board",
        kind="choice",
        label=M("Pirate's choice"),
        choices=tuple(Choice(k, v) for k, v in _boarding_options(state).items()),
    )
    return Prompt(kind="board", text=text, fields=(board, *loan_fields(state, seat)))


def validate_boarding(state: State, seat: int, order: Order) -> Order:
    board = choice(order, "board", _boarding_options(state), Mp("manila order", "whether to board"))
    return with_loans(state, seat, order, {"board": board})


def read_boarding(state: State, seat: int, order: Order) -> ReadBack:
    if order["board"] == NOTHING:
        return read_with_loans(order, [M("Your pirate will stay on the pirate boat.")])
    kind, ware, *where = order["board"].split(":")
    if kind == "displace":
        crew = punt_of(state, ware)
        assert crew is not None
        line = M(
            "Your pirate will board the {ware} punt, sending {seat}'s accomplice home.",
            ware=ware_name(ware),
            seat=seat_colour(state, crew["crew"][int(where[0])]),
        )
    else:
        line = M("Your pirate will board the {ware} punt.", ware=ware_name(ware))
    return read_with_loans(order, [line])


def resolve_boarding(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    ((seat, order),) = orders.items()
    apply_loans(state, seat, order, events)
    name, slot = seat_colour(state, seat), _boarding_slot(state)
    assert slot is not None
    if order["board"] == NOTHING:
        events.append(Event(M("{seat}'s pirate stays on the pirate boat.", seat=name)))
        return
    kind, ware, *where = order["board"].split(":")
    punt = punt_of(state, ware)
    assert punt is not None
    if kind == "displace":
        index = int(where[0])
        events.append(
            Event(
                M(
                    "{seat}'s accomplice on the {ware} punt is sent home.",
                    seat=seat_colour(state, punt["crew"][index]),
                    ware=ware_name(ware),
                )
            )
        )
    else:
        found = free_punt_space(punt)
        assert found is not None
        index = found
    punt["crew"][index] = seat
    state["spaces"][slot] = None
    events.append(
        Event(
            M(
                "{seat}'s pirate boards the {ware} punt on space {last}.",
                seat=name,
                ware=ware_name(ware),
                last=LAST_SPACE,
            )
        )
    )
    if slot == "pirate:captain":
        state["boarded"] = [ware, index]
        # The second pirate moves up to the captain's space at once.
        state["spaces"]["pirate:captain"] = state["spaces"]["pirate:crew"]
        state["spaces"]["pirate:crew"] = None
        state["second_pirate"] = "pirate:captain"


# --- plunder after the third roll ------------------------------------------------------------------


def _plundered(state: State) -> list[dict]:
    return [punt for punt in afloat(state) if punt["plundered"]]


FATES = {"port": M("Into port (its ware rises in value)"), "yard": M("To the shipyard")}


def plunder_prompt(state: State, seat: int) -> Prompt:
    plundered = len(_plundered(state))
    text = Mn(
        "Voyage {voyage}: your pirates plunder {count} punt on space {last} and share its load. As captain, send "
        "each plundered punt into port (the next free port space; its ware rises) or to the shipyard (the next free "
        "shipyard space).",
        "Voyage {voyage}: your pirates plunder {count} punts on space {last} and share their loads. As captain, send "
        "each plundered punt into port (the next free port space; its ware rises) or to the shipyard (the next free "
        "shipyard space).",
        plundered,
        voyage=state["voyage"],
        last=LAST_SPACE,
    )
    fields = [
        Field(
            name=f"fate_{punt['ware']}",
            kind="choice",
            label=M("The plundered {ware} punt goes", ware=ware_name(punt["ware"])),
            choices=tuple(Choice(k, v) for k, v in FATES.items()),
        )
        for punt in _plundered(state)
    ]
    return Prompt(kind="plunder", text=text, fields=(*fields, *loan_fields(state, seat)))


def validate_plunder(state: State, seat: int, order: Order) -> Order:
    fates = {
        f"fate_{punt['ware']}": choice(
            order,
            f"fate_{punt['ware']}",
            FATES,
            Mp("manila order", "where the {ware} punt goes", ware=ware_name(punt["ware"])),
        )
        for punt in _plundered(state)
    }
    return with_loans(state, seat, order, fates)


def read_plunder(state: State, seat: int, order: Order) -> ReadBack:
    lines = []
    for punt in _plundered(state):
        ware = punt["ware"]
        if order[f"fate_{ware}"] == "port":
            lines.append(M("The plundered {ware} punt goes into port (its ware rises in value).", ware=ware_name(ware)))
        else:
            lines.append(M("The plundered {ware} punt goes to the shipyard.", ware=ware_name(ware)))
    return read_with_loans(order, lines)


def resolve_plunder(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    ((seat, order),) = orders.items()
    apply_loans(state, seat, order, events)
    for punt in _plundered(state):
        berth_punt(state, punt, order[f"fate_{punt['ware']}"], events, "captain")


def default_plunder(state: State) -> Order:
    order: Order = {f"fate_{punt['ware']}": "port" for punt in _plundered(state)}
    return {**order, "take_loans": 0, "repay_loans": 0}


def random_choice_of(options: dict[str, Any], rng: random.Random) -> str:
    return rng.choice(sorted(options))


def random_crew_order(state: State, seat: int, rng: random.Random) -> Order:
    step = state["step"]
    if step == "pilot":
        return {
            "move": random_choice_of(_pilot_moves(state, state["step_stage"][6:]), rng),
            "take_loans": 0,
            "repay_loans": 0,
        }
    if step == "board":
        return {"board": random_choice_of(_boarding_options(state), rng), "take_loans": 0, "repay_loans": 0}
    fates = {f"fate_{punt['ware']}": rng.choice(sorted(FATES)) for punt in _plundered(state)}
    return {**fates, "take_loans": 0, "repay_loans": 0}
