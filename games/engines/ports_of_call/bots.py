"""Stand-in orders: the documented default for a missed home choice (a missed turn takes no actions, in
the decisions table), and random legal orders for bots, the demo and the tests."""

from __future__ import annotations

import random

from games.engines.base import Order, OrderError, State
from games.engines.kit import copy_state
from games.engines.ports_of_call.actions import Turn, start_turn
from games.engines.ports_of_call.data import MAX_ACTIVE_ORDERS, ORDER_CARDS, REGION_OF, ROUTES, SHIP_LIMIT, sales_bonus
from games.engines.ports_of_call.flow import home_choices
from games.engines.ports_of_call.money import ships_of
from games.engines.ports_of_call.orders import validate_home
from games.engines.ports_of_call.turn import apply_step


def default_home(state: State, seat: int) -> Order:
    """A missed home choice: the first free city and the first dealt card (documented in RULES.md)."""
    return validate_home(state, seat, {"home": home_choices(state)[0], "keep": str(state["dealt"][seat][0])})


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
            trial_state, trial_turn = copy_state(scratch), turn.copy()
            try:
                done.append(apply_step(trial_state, trial_turn, step, []))
            except OrderError:
                continue
            scratch, turn = trial_state, trial_turn
    return {"actions": "; ".join(done)}
