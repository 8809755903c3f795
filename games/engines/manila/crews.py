"""The one-seat decisions of a voyage: the pilots before the third roll, the pirates boarding after the
second roll, and the pirate captain sending plundered punts to port or shipyard after the third."""

from __future__ import annotations

import random
from itertools import combinations, product

from games.engines.base import Choice, Event, Field, Order, Prompt, ReadBack, State
from games.engines.manila.data import LAST_SPACE
from games.engines.manila.fields import choice, loan_fields, read_with_loans, with_loans
from games.engines.manila.flow import afloat, at_pirate_space, berth_punt, free_punt_space, move_punt, punt_of
from games.engines.manila.money import Events, apply_loans

NOTHING = "none"


# --- pilots ----------------------------------------------------------------------------------------


def _pilot_moves(state: State, pilot: str) -> dict[str, str]:
    """Every move the pilot may make, as "ware+1" or "jade+1 silk-1", with a readable label."""
    punts = afloat(state)
    singles = [(1,), (-1,)] if pilot == "small" else [(1,), (-1,), (2,), (-2,)]
    moves: dict[str, str] = {NOTHING: "Do nothing"}

    def allowed(punt: dict, steps: int) -> bool:
        return punt["pos"] + steps >= 0

    for punt in punts:
        for (steps,) in singles:
            if allowed(punt, steps):
                moves[f"{punt['ware']}{steps:+d}"] = f"Move the {punt['ware']} punt {_steps(steps)}"
    if pilot == "large":
        for first, second in combinations(punts, 2):
            for a, b in product((1, -1), repeat=2):
                if allowed(first, a) and allowed(second, b):
                    key = f"{first['ware']}{a:+d} {second['ware']}{b:+d}"
                    moves[key] = f"Move the {first['ware']} punt {_steps(a)} and the {second['ware']} punt {_steps(b)}"
    return moves


def _steps(steps: int) -> str:
    way = "forward" if steps > 0 else "back"
    return f"{abs(steps)} space{'s' if abs(steps) > 1 else ''} {way}"


def enter_pilot(state: State, events: Events) -> list[int]:
    seat = state["spaces"][state["step_stage"]]
    return [seat] if seat is not None and afloat(state) else []


def pilot_prompt(state: State, seat: int) -> Prompt:
    pilot = state["step_stage"].split(":")[1]
    where = ", ".join(f"{p['ware']} on space {p['pos']}" for p in afloat(state))
    reach = "one punt 1 space" if pilot == "small" else "one punt up to 2 spaces, or two punts 1 space each"
    text = (
        f"Voyage {state['voyage']}: as the {pilot} pilot you may move {reach}, forward or back, before the "
        f"third roll ({where}). A punt moved past space {LAST_SPACE} reaches Manila."
    )
    move = Field(
        name="move",
        kind="choice",
        label="Pilot's move",
        choices=tuple(Choice(k, v) for k, v in _pilot_moves(state, pilot).items()),
        help=f"A punt you move onto space {LAST_SPACE} is not attacked for it: pirates strike only after a roll.",
    )
    return Prompt(kind="pilot", text=text, fields=(move, *loan_fields(state, seat)))


def validate_pilot(state: State, seat: int, order: Order) -> Order:
    pilot = state["step_stage"].split(":")[1]
    move = choice(order, "move", _pilot_moves(state, pilot), "the pilot's move (or none)")
    return with_loans(state, seat, order, {"move": move})


def read_pilot(state: State, seat: int, order: Order) -> ReadBack:
    pilot = state["step_stage"].split(":")[1]
    if order["move"] == NOTHING:
        return read_with_loans(order, [f"As the {pilot} pilot you will do nothing."])
    move = _pilot_moves(state, pilot)[order["move"]]
    return read_with_loans(order, [f"As the {pilot} pilot you will {move[0].lower()}{move[1:]}."])


def resolve_pilot(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    ((seat, order),) = orders.items()
    apply_loans(state, seat, order, events)
    pilot = state["step_stage"].split(":")[1]
    name = state["names"][seat]
    if order["move"] == NOTHING:
        events.append(Event(f"The {pilot} pilot ({name}) does nothing."))
        return
    for part in order["move"].split():
        ware, steps = part[:-2], int(part[-2:])
        punt = punt_of(state, ware)
        assert punt is not None
        events.append(Event(f"The {pilot} pilot ({name}) moves the {ware} punt {_steps(steps)}."))
        move_punt(state, punt, steps, events, " with the pilot's help")


# --- pirates boarding after the second roll --------------------------------------------------------


def _boarding_options(state: State) -> dict[str, str]:
    options = {NOTHING: "Stay on the pirate boat"}
    targets = at_pirate_space(state)
    for punt in targets:
        if free_punt_space(punt) is not None:
            options[f"board:{punt['ware']}"] = f"Board the {punt['ware']} punt"
    if len(options) == 1 and state["options"]["displacing_pirates"]:
        # The variant: with no free space on any punt on 13, a pirate may take an accomplice's place,
        # but never the place of the captain who has just boarded.
        for punt in targets:
            for index, seat in enumerate(punt["crew"]):
                if seat is not None and [punt["ware"], index] != state["boarded"]:
                    key = f"displace:{punt['ware']}:{index}"
                    options[key] = f"Board the {punt['ware']} punt, sending {state['names'][seat]}'s accomplice home"
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
    who = "pirate captain" if _boarding_slot(state) == "pirate:captain" else "second pirate"
    if state["step_stage"] == "board:second" and who == "pirate captain":
        who = "second pirate, now captain"
    text = (
        f"Voyage {state['voyage']}: a punt stands on space {LAST_SPACE} after the second roll. As the {who} you may "
        "board it (your pirate becomes an accomplice on the punt and shares its load if it reaches Manila), "
        "or stay on the pirate boat hoping to plunder after the third roll."
    )
    board = Field(
        name="board",
        kind="choice",
        label="Pirate's choice",
        choices=tuple(Choice(k, v) for k, v in _boarding_options(state).items()),
    )
    return Prompt(kind="board", text=text, fields=(board, *loan_fields(state, seat)))


def validate_boarding(state: State, seat: int, order: Order) -> Order:
    board = choice(order, "board", _boarding_options(state), "whether to board")
    return with_loans(state, seat, order, {"board": board})


def read_boarding(state: State, seat: int, order: Order) -> ReadBack:
    if order["board"] == NOTHING:
        return read_with_loans(order, ["Your pirate will stay on the pirate boat."])
    choice_label = _boarding_options(state)[order["board"]]
    return read_with_loans(order, [f"Your pirate will {choice_label[0].lower()}{choice_label[1:]}."])


def resolve_boarding(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    ((seat, order),) = orders.items()
    apply_loans(state, seat, order, events)
    name, slot = state["names"][seat], _boarding_slot(state)
    assert slot is not None
    if order["board"] == NOTHING:
        events.append(Event(f"{name}'s pirate stays on the pirate boat."))
        return
    kind, ware, *where = order["board"].split(":")
    punt = punt_of(state, ware)
    assert punt is not None
    if kind == "displace":
        index = int(where[0])
        events.append(Event(f"{state['names'][punt['crew'][index]]}'s accomplice on the {ware} punt is sent home."))
    else:
        found = free_punt_space(punt)
        assert found is not None
        index = found
    punt["crew"][index] = seat
    state["spaces"][slot] = None
    events.append(Event(f"{name}'s pirate boards the {ware} punt on space {LAST_SPACE}."))
    if slot == "pirate:captain":
        state["boarded"] = [ware, index]
        # The second pirate moves up to the captain's space at once.
        state["spaces"]["pirate:captain"] = state["spaces"]["pirate:crew"]
        state["spaces"]["pirate:crew"] = None
        state["second_pirate"] = "pirate:captain"


# --- plunder after the third roll ------------------------------------------------------------------


def _plundered(state: State) -> list[dict]:
    return [punt for punt in afloat(state) if punt["plundered"]]


FATES = {"port": "Into port (its ware rises in value)", "yard": "To the shipyard"}


def plunder_prompt(state: State, seat: int) -> Prompt:
    plundered = len(_plundered(state))
    punts = "1 punt" if plundered == 1 else f"{plundered} punts"
    text = (
        f"Voyage {state['voyage']}: your pirates plunder {punts} on space {LAST_SPACE} and share "
        f"{'its load' if plundered == 1 else 'their loads'}. As captain, send each plundered punt into port (the "
        "next free port space; its ware rises) or to the shipyard (the next free shipyard space)."
    )
    fields = [
        Field(
            name=f"fate_{punt['ware']}",
            kind="choice",
            label=f"The plundered {punt['ware']} punt goes",
            choices=tuple(Choice(k, v) for k, v in FATES.items()),
        )
        for punt in _plundered(state)
    ]
    return Prompt(kind="plunder", text=text, fields=(*fields, *loan_fields(state, seat)))


def validate_plunder(state: State, seat: int, order: Order) -> Order:
    fates = {
        f"fate_{punt['ware']}": choice(order, f"fate_{punt['ware']}", FATES, f"where the {punt['ware']} punt goes")
        for punt in _plundered(state)
    }
    return with_loans(state, seat, order, fates)


def read_plunder(state: State, seat: int, order: Order) -> ReadBack:
    where = {"port": "into port (its ware rises in value)", "yard": "to the shipyard"}
    lines = []
    for punt in _plundered(state):
        ware = punt["ware"]
        lines.append(f"The plundered {ware} punt goes {where[order[f'fate_{ware}']]}.")
    return read_with_loans(order, lines)


def resolve_plunder(state: State, orders: dict[int, Order], rng: random.Random, events: Events) -> None:
    ((seat, order),) = orders.items()
    apply_loans(state, seat, order, events)
    for punt in _plundered(state):
        berth_punt(state, punt, order[f"fate_{punt['ware']}"], events, " (sent by the pirate captain)")


def default_plunder(state: State) -> Order:
    order: Order = {f"fate_{punt['ware']}": "port" for punt in _plundered(state)}
    return {**order, "take_loans": 0, "repay_loans": 0}


def random_choice_of(options: dict[str, str], rng: random.Random) -> str:
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
