"""Random but purposeful orders for bots, the demo and the contract test.

A purely random walk rarely reaches 25 gold, so the bot trades greedily: at a centre it sells what the
centre buys and buys what its hand allows, then spends movement cards on the moves that bring it closest
(by sea) to a centre that pays for its hold, or that sells the commodity in its hand. Now and then it
wanders, offers a trade, moves a pirate or raises a storm, so every kind of step gets played.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from games.engines.base import OrderError, State
from games.engines.phoenician.actions import (
    APPLY,
    CENTRE_NAMES,
    accept_problem,
    centre_at,
    offer_problem,
    pirate_path,
    ship_target,
    storm_problem,
    storm_squares,
)
from games.engines.phoenician.data import (
    CENTRES,
    DESIRED_PRICE,
    DIRECTIONS,
    HOLD_MAX,
    ROW,
    SAIL_CARDS,
    SQUARES,
    STORM,
    distance,
    neighbours,
)
from games.engines.phoenician.syntax import Step, canonical

MAX_MOVES = 10
FAR = 99


def random_turn(state: State, seat: int, rng: random.Random) -> str:
    sim: State = json.loads(json.dumps(state))
    steps: list[Step] = []

    def do(parsed: Step) -> None:
        APPLY[parsed[0]](sim, seat, parsed, [])
        steps.append(parsed)

    for _ in range(MAX_MOVES):
        _trade(sim, seat, do)
        if sim["finished"]:
            return canonical(steps)
        move = _best_move(sim, seat, rng)
        if move is None:
            break
        do(move)
    _trade(sim, seat, do)
    if sim["finished"]:
        return canonical(steps)
    offer = _random_offer(sim, seat, rng)
    if offer is not None:
        return canonical([*steps, offer])
    if rng.random() < 0.3:
        pirate = _random_pirate(sim, seat, rng)
        if pirate is not None:
            do(pirate)
    if STORM in sim["hands"][seat] and rng.random() < 0.3:
        sea = [s for s in range(SQUARES) if not storm_problem(sim, seat, s)]
        if sea:
            do(("storm", rng.choice(sea)))
    return canonical(steps)


def random_answer(state: State, rng: random.Random) -> str:
    return "decline" if accept_problem(state) or rng.random() < 0.3 else "accept"


def _trade(sim: State, seat: int, do: Callable[[Step], None]) -> None:
    centre = centre_at(sim, sim["ships"][seat])
    if centre is None:
        return
    commodity = CENTRES[centre][0]
    if any(card != commodity for card in sim["holds"][seat]):
        do(("sell", "all", 0))
        if sim["finished"]:
            return
    if commodity in sim["hands"][seat] and len(sim["holds"][seat]) < HOLD_MAX and sim["gold"][seat] > 0:
        do(("buy", "", 0))


def _goals(sim: State, seat: int) -> dict[int, int]:
    """Centre squares worth sailing to, with how much they are worth."""
    hold, hand = sim["holds"][seat], sim["hands"][seat]
    here = sim["ships"][seat]
    goals: dict[int, int] = {}
    for name, square in zip(CENTRE_NAMES, sim["centres"], strict=True):
        commodity, desired = CENTRES[name]
        value = sum(DESIRED_PRICE if card == desired else 2 for card in hold if card != commodity)
        if len(hold) < HOLD_MAX:
            value += min(hand.count(commodity), HOLD_MAX - len(hold))
        if value and square != here:
            goals[square] = value
    return goals


def _distances(sim: State, goals: dict[int, int]) -> list[int]:
    """Sea distance (8-way, around land, storms and pirates, never through a centre) to the best goal,
    counted with a small discount for richer goals."""
    blocked = set(sim["land"]) | storm_squares(sim) | set(sim["pirates"])
    best = [FAR] * SQUARES
    frontier = []
    for square, value in goals.items():
        best[square] = max(0, 6 - value)
        frontier.append(square)
    frontier.sort(key=lambda s: best[s])
    while frontier:
        next_frontier = []
        for square in frontier:
            if square not in goals and square in sim["centres"]:
                continue  # one cannot sail on through a centre
            for other in neighbours(square):
                if other not in blocked and best[square] + 1 < best[other]:
                    best[other] = best[square] + 1
                    next_frontier.append(other)
        frontier = next_frontier
    return best


def _moves(sim: State, seat: int) -> list[tuple[Step, int]]:
    hand = sim["hands"][seat]
    here = sim["ships"][seat]
    options: list[tuple[Step, int]] = []
    for direction in DIRECTIONS:
        tries: list[Step] = []
        if ROW in hand:
            tries.append(("row", direction))
        if SAIL_CARDS[direction] in hand:
            tries += [("sail", direction, 1), ("sail", direction, 2)]
        for parsed in tries:
            try:
                spaces = parsed[2] if parsed[0] == "sail" else 1
                options.append((parsed, ship_target(sim, here, direction, spaces)))
            except OrderError:
                pass
    return options


def _best_move(sim: State, seat: int, rng: random.Random) -> Step | None:
    options = _moves(sim, seat)
    if not options:
        return None
    if rng.random() < 0.1:
        return rng.choice(options)[0]
    goals = _goals(sim, seat) or {square: 1 for square in sim["centres"] if square != sim["ships"][seat]}
    best = _distances(sim, goals)
    now = best[sim["ships"][seat]]
    scored = [(best[target], rng.random(), parsed) for parsed, target in options if best[target] < now]
    return min(scored)[2] if scored else None


def _random_offer(sim: State, seat: int, rng: random.Random) -> Step | None:
    if rng.random() > 0.15:
        return None
    here = sim["ships"][seat]
    others = [o for o, ship in enumerate(sim["ships"]) if o != seat and distance(ship, here) <= 1]
    if not others:
        return None
    target = rng.choice(others)
    mine = [["hand", c] for c in sim["hands"][seat] if c in _COMMODITIES] + [["hold", c] for c in sim["holds"][seat]]
    theirs = [["hold", c] for c in sim["holds"][target]] + [["hand", rng.choice(_COMMODITIES)]]
    give = sorted(rng.sample(mine, min(len(mine), rng.randint(0, 2))))
    want = sorted(rng.sample(theirs, min(len(theirs), rng.randint(0 if give else 1, 1))))
    if not offer_problem(sim, seat, target, give, want):
        return ("offer", target, give, want)
    return None


_COMMODITIES = [commodity for commodity, _ in CENTRES.values()]


def _random_pirate(sim: State, seat: int, rng: random.Random) -> Step | None:
    options: list[Step] = []
    for direction, card in SAIL_CARDS.items():
        if card not in sim["hands"][seat]:
            continue
        for number in range(1, len(sim["pirates"]) + 1):
            for spaces in (1, 2):
                try:
                    pirate_path(sim, number, direction, spaces)
                    options.append(("pirate", number, direction, spaces))
                except OrderError:
                    pass
    return rng.choice(options) if options else None
