"""The two decisions (a home city, a turn): what a seat is asked (prompts), how its answer is checked
(validate), stand-in answers for a missed deadline (default: no actions) or a bot (random), how it is
applied, and the table of steps the engine is built from."""

from __future__ import annotations

import copy
import random

from games.engines.base import Choice, Event, Field, Order, OrderError, Prompt, State
from games.engines.kit import Step, copy_state, only
from games.engines.ports_of_call import builder, readback
from games.engines.ports_of_call.actions import Turn, start_turn
from games.engines.ports_of_call.board import good_name, money, name, order_label, ships_of
from games.engines.ports_of_call.data import (
    MAX_ACTIVE_ORDERS,
    ORDER_CARDS,
    REGION_OF,
    ROUTES,
    SHIP_LIMIT,
    sales_bonus,
)
from games.engines.ports_of_call.flow import after_turn, choose_home, home_choices
from games.engines.ports_of_call.turn import apply_step, run_turn

ACTIONS_HELP = (
    "One action per line or separated by ';', applied in order: "
    "move <ship> <city> [spaces] (free; 3 spaces, a large ship with 2 containers 2; stops on entering a port); "
    "boost <ship> (1 AP, at sea, once per ship); "
    "buy <good> <ship> [<ship>...] (1 AP each, in a port producing the good; several at the first's price); "
    "sell <ship> [<good>...] (free, in port); "
    "order hidden ($20M, 1 AP) or order <slot 1-4 | city good good> ($50M, 1 AP); "
    "ship small ($50M) or ship large ($200M) (1 AP, +1 AP at once); "
    "build <city> ($50M, 1 AP); produce <city> [bonus <good> <left|right|position>] ($20M, 1 AP); "
    "shares buy ($1,000M, 2 AP) or shares sell (+$100M, once per quarter); extra (one more AP for $250M). "
    "Goods: turbines, steel, oil, wine, electronics. Leave empty to do nothing."
)


# --- prompts -----------------------------------------------------------------------------------------


def home_prompt(state: State, seat: int) -> Prompt:
    dealt = "; ".join(order_label(card) for card in state["dealt"][seat])
    text = (
        f"Choose your home city and the one order card you keep of your three ({dealt}): your factory and two "
        "ships loaded with the city's good start there. The cards stay secret until every home city is chosen, "
        "and at most two home cities may share a production region."
    )
    home = Field(
        name="home",
        kind="choice",
        label="Home city",
        choices=tuple(Choice(city, f"{city} ({good_name(REGION_OF[city])})") for city in home_choices(state)),
    )
    keep = Field(
        name="keep",
        kind="choice",
        label="Order card to keep",
        choices=tuple(Choice(str(card), order_label(card)) for card in state["dealt"][seat]),
    )
    return Prompt(kind="home", text=text, fields=(home, keep))


def turn_prompt(state: State, seat: int) -> Prompt:
    ap = len(state["ships"][seat]) + 1
    text = (
        f"Year {state['year']}, quarter {state['quarter']}: your turn, with {readback.points(ap)} (AP) and "
        f"{money(state['cash'][seat])}. Build your actions one at a time; your ships, your orders, the Order "
        "Market, the terminal's prices and this quarter's news are on the board."
    )
    field = Field(name="actions", kind="steps", label="Your actions", min=0, max=2000, help=ACTIONS_HELP)
    return Prompt(kind="turn", text=text, fields=(field,))


# --- validation --------------------------------------------------------------------------------------


def not_asked_reason(state: State, seat: int) -> str:
    if state["finished"]:
        return "The game is over; no more orders are taken."
    if state["bankrupt"][seat]:
        return "Your company is bankrupt and out of the game."
    return "It is not your turn."


def _text(order: Order, name: str) -> str:
    value = order.get(name)
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise OrderError(f"The {name} field must be text.")
    return value.strip()


def validate_home(state: State, seat: int, order: Order) -> Order:
    home, keep = _text(order, "home"), _text(order, "keep")
    city = next((c for c in home_choices(state) if c.lower() == home.lower()), None)
    if city is None:
        raise OrderError(f"{home or 'That'} is not a free home city; choose from {', '.join(home_choices(state))}.")
    cards = {str(card): card for card in state["dealt"][seat]}
    if keep not in cards:
        raise OrderError("Choose one of your three dealt order cards to keep.")
    return {"home": city, "keep": keep}


def validate_turn(state: State, seat: int, order: Order) -> Order:
    text = _text(order, "actions")
    scratch = copy_state(state)
    steps = run_turn(scratch, seat, text, [])
    return {"actions": "; ".join(steps)}


def default_home(state: State, seat: int) -> Order:
    """A missed home choice: the first free city and the first dealt card (documented in RULES.md)."""
    return validate_home(state, seat, {"home": home_choices(state)[0], "keep": str(state["dealt"][seat][0])})


# --- bots ----------------------------------------------------------------------------------------------


def random_home(state: State, seat: int, rng: random.Random) -> Order:
    return {"home": rng.choice(home_choices(state)), "keep": str(rng.choice(state["dealt"][seat]))}


def _candidates(state: State, seat: int, turn: Turn, rng: random.Random) -> list[str]:
    """Plausible next steps; the caller tries them and keeps those that are legal."""
    wanted = [ORDER_CARDS[order["card"]] for order in state["orders"][seat]]
    first: list[str] = []
    others: list[str] = []
    for ship in ships_of(state, seat):
        sid, port = ship["id"], ship["port"]
        if port and any(sales_bonus(port, good) for good in ship["cargo"]):
            first.append(f"sell {sid} " + " ".join(g for g in ship["cargo"] if sales_bonus(port, g)))
        if port and len(ship["cargo"]) < (2 if ship["size"] == "large" else 1):
            needed = [good for card in wanted for good in card[1:] if port in _producers(good)]
            good = needed[0] if needed else REGION_OF[port]
            others.append(f"buy {good} {sid}")
            others.append(f"build {port}")
        if sid not in turn.spaces_left:
            if port:
                ends = [r[0] if r[1] == port else r[1] for r in ROUTES if port in r[:2]]
            else:
                ends = list(ROUTES[ship["route"]][:2])
            goals = [card[0] for card in wanted if card[0] in ends]
            others.append(f"move {sid} {rng.choice(goals or ends)}")
        elif not port and rng.random() < 0.2:
            others.append(f"boost {sid}")
    for city, sites in state["sites"].items():
        if any(site["seat"] == seat and site["used"] < site["factories"] for site in sites):
            others.append(f"produce {city}")
    if len(state["orders"][seat]) < MAX_ACTIVE_ORDERS and rng.random() < 0.3:
        others.append(rng.choice(["order hidden", f"order {rng.randint(1, 4)}"]))
    for size in ("small", "large"):
        if len(ships_of(state, seat, size)) < SHIP_LIMIT[size] and rng.random() < 0.15:
            others.append(f"ship {size}")
    rng.shuffle(others)
    return first + others


def _producers(good: str) -> list[str]:
    return [city for city, region in REGION_OF.items() if region == good]


def random_turn(state: State, seat: int, rng: random.Random) -> Order:
    scratch = copy_state(state)
    turn = start_turn(scratch, seat)
    done: list[str] = []
    for _ in range(3):
        for step in _candidates(scratch, seat, turn, rng)[:6]:
            trial_state, trial_turn = copy_state(scratch), copy.deepcopy(turn)
            try:
                done.append(apply_step(trial_state, trial_turn, step, []))
            except OrderError:
                continue
            scratch, turn = trial_state, trial_turn
    return {"actions": "; ".join(done)}


# --- applying them ------------------------------------------------------------------------------------


def resolve_home(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    choose_home(state, seat, order["home"], int(order["keep"]), events)


def resolve_turn(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    seat, order = only(orders)
    run_turn(state, seat, order.get("actions", ""), events)
    if not order["actions"]:
        events.append(Event(f"{name(seat)} takes no actions this quarter."))
    after_turn(state, events)


STEPS = {
    "home": Step(home_prompt, validate_home, default_home, random_home, resolve_home, read_back=readback.read_home),
    "turn": Step(
        turn_prompt,
        validate_turn,
        lambda state, seat: {"actions": ""},
        random_turn,
        resolve_turn,
        read_back=readback.read_turn,
        builders={"actions": builder.ACTIONS},
    ),
}
