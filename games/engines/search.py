"""The bots' search: information-set Monte Carlo tree search (Cowling, Powley and Whitehouse, 2012) over the
engine contract alone, so one search plays all five games.

A seat cannot see the whole state, so the search never plays on it: every iteration draws a state the seat
cannot tell from the true one (the engine's `determinize`, which reads only what the seat sees), plays one
of the seat's candidate orders there, has the other asked seats play sealed orders of their own, and plays
the game out with the engines' rollout policy (`random_order`, greedy where the engine makes it so). The
tree's root is the seat's information set; its children are the seat's orders, found as a player finds
them (each field's choices, and for a "steps" field the steps `next_steps` offers, one at a time) or drawn
from the rollout policy, checked by `validate`, and widened progressively: a new order is tried as the
visits grow (sqrt), so a game with few orders has them all and one with thousands searches the promising
ones. Below the root the game is sampled, not stored: at the budgets a person will wait for (seconds), the
decisions of later turns would not get enough visits to be worth storing, and this keeps the search small.

The reward is the seat's share of the win (a shared first place split), plus a quarter of its score's
place between the lowest and the highest at the table, so a lost game is still played for points.

Reproducible under a seed: `Budget.iterations` caps the iterations and `Budget.seconds` the time; a search
that reaches its cap before its time chooses the same order for the same seed, whatever the machine.
No Django here: it is part of the engines' pure layer.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from games.engines.base import Engine, Field, Order, OrderError, State

T = TypeVar("T")
EXPLORATION = 0.7  # UCB1's constant, for rewards in [0, 1]
WIDENING = 1.5  # a root with n visits may hold 1 + WIDENING * sqrt(n) orders
WIN_SHARE = 0.75  # the reward's part that is the win; the rest is the score's place at the table
MAX_PHASES = 600  # a rollout that has not ended by then counts as a draw (no engine's game is this long)
MAX_STEPS = 12  # the most steps a drawn "steps" order takes
STOP_AFTER_STEP = 0.35  # how often a drawn "steps" order stops once it is legal as it stands
INTEGER_VALUES = 8  # how many of an integer field's values the search tries (the ends and between)


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: at most `iterations`, and at most `seconds` of wall time."""

    seconds: float
    iterations: int


@dataclass
class Child:
    order: Order
    visits: int = 0
    reward: float = 0.0

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0


@dataclass
class Search:
    """One decision's search; `choose` runs it."""

    engine: Engine
    seat: int
    rng: random.Random
    children: list[Child] = field(default_factory=list)
    known: set[str] = field(default_factory=set)
    visits: int = 0
    draws: int = 0  # candidate orders drawn so far: two in three from the rollout policy, the third step by step

    def choose(self, state: State, budget: Budget) -> Order:
        started = time.perf_counter()
        first = self.engine.determinize(state, self.seat, random.Random(self.rng.random()))
        self._widen(first, attempts=4)
        if not self.children:
            return self.engine.validate(first, self.seat, self.engine.default_order(first, self.seat))
        while self.visits < budget.iterations:
            if self.visits and time.perf_counter() - started >= budget.seconds:
                break
            self.iterate(state)
        best = max(self.children, key=lambda child: (child.visits, child.mean()))
        return best.order

    def iterate(self, state: State) -> None:
        world = self.engine.determinize(state, self.seat, random.Random(self.rng.random()))
        if len(self.children) < 1 + WIDENING * math.sqrt(self.visits):
            self._widen(world, attempts=2)
        child = self._select()
        try:
            order = self.engine.validate(world, self.seat, child.order)
        except OrderError:
            # Not legal in this world (a hidden card the seat guessed wrong about): not available, as ISMCTS
            # counts availability; the seat's own orders should not depend on what it cannot see.
            self.visits += 1
            return
        reward = self._play_out(world, order)
        child.visits += 1
        child.reward += reward
        self.visits += 1

    def _select(self) -> Child:
        untried = [child for child in self.children if not child.visits]
        if untried:
            return untried[0]
        log_n = math.log(max(self.visits, 1))
        return max(self.children, key=lambda c: c.mean() + EXPLORATION * math.sqrt(log_n / c.visits))

    def _widen(self, world: State, attempts: int) -> None:
        """Add one order the root has not tried yet, if one of a few draws finds it."""
        for _ in range(attempts):
            self.draws += 1
            try:
                if self.draws % 3:
                    order = self.engine.random_order(world, self.seat, self.rng)
                else:
                    order = draw_order(self.engine, world, self.seat, self.rng)
                order = self.engine.validate(world, self.seat, order)
            except OrderError:
                continue
            key = json.dumps(order, sort_keys=True)
            if key not in self.known:
                self.known.add(key)
                self.children.append(Child(order))
                return

    def _play_out(self, world: State, order: Order) -> float:
        engine, rng = self.engine, self.rng
        # The other asked seats' sealed orders, drawn as the rest of the game is.
        orders = {other: engine.random_order(world, other, rng) for other in engine.prompts(world)}
        orders[self.seat] = order
        world, _ = engine.resolve(world, orders, rng)
        for _ in range(MAX_PHASES):
            prompts = engine.prompts(world)
            if not prompts:
                break
            world, _ = engine.resolve(world, {seat: engine.random_order(world, seat, rng) for seat in prompts}, rng)
        return reward(engine, world, self.seat)


def reward(engine: Engine, state: State, seat: int) -> float:
    """The seat's share of the win plus the place of its score between the table's lowest and highest."""
    standings = engine.outcome(state)
    if standings is None:
        return 0.5
    winners = [s.seat for s in standings if s.rank == 1]
    scores = {s.seat: s.score for s in standings}
    low, high = min(scores.values()), max(scores.values())
    place = (scores[seat] - low) / (high - low) if high > low else 1.0
    won = 1 / len(winners) if seat in winners else 0.0
    return WIN_SHARE * won + (1 - WIN_SHARE) * place


def draw_order(engine: Engine, state: State, seat: int, rng: random.Random) -> Order:
    """An order as a player builds it on the page, each field at random among what its prompt offers and
    each "steps" field one step at a time among those `next_steps` offers. OrderError if it is not legal."""
    prompt = engine.prompts(state).get(seat)
    if prompt is None:
        raise OrderError("This seat is not asked anything now.")
    order = dict(engine.default_order(state, seat))
    for spec in prompt.fields:
        order[spec.name] = _draw_field(engine, state, seat, spec, order, rng)
    return order


def _draw_field(engine: Engine, state: State, seat: int, spec: Field, order: Order, rng: random.Random) -> object:
    values = [choice.value for choice in spec.choices]
    if spec.kind == "choice":
        return rng.choice(values)
    if spec.kind == "integer":
        options: list[int | None] = list(integer_values(spec.min, spec.max))
        return modest(rng, [None, *options] if spec.optional else options)
    if spec.kind == "multichoice":
        count = rng.randint(spec.min, spec.max or len(values))
        if spec.repeat:
            picks = [rng.choice(values) for _ in range(count)]
        else:
            picks = rng.sample(values, min(count, len(values)))
        return picks if spec.ranked else sorted(picks, key=values.index)
    if spec.kind == "steps":
        steps: list[str] = []
        for _ in range(MAX_STEPS):
            after = engine.next_steps(state, seat, spec.name, steps)
            if not after.choices or (after.complete and rng.random() < STOP_AFTER_STEP):
                break
            step = rng.choice(after.choices)
            steps.append(step.spelled(modest(rng, range(step.amount[0], step.amount[1] + 1)) if step.amount else None))
        return "; ".join(steps)
    return order.get(spec.name)  # free text: the default's, the search does not write prose


def modest(rng: random.Random, values: Sequence[T]) -> T:
    """One of `values` (least first), the small ones likelier: a bid or a payment of everything is rarely
    worth a search's few tries."""
    return values[int(len(values) * rng.random() ** 2)]


def integer_values(least: int, most: int) -> list[int]:
    """Up to INTEGER_VALUES values from `least` to `most`, both ends included, evenly spread."""
    if most - least < INTEGER_VALUES:
        return list(range(least, most + 1))
    return sorted({least + round(i * (most - least) / (INTEGER_VALUES - 1)) for i in range(INTEGER_VALUES)})


def choose_order(engine: Engine, state: State, seat: int, seed: str, budget: Budget) -> Order:
    """The order the search chooses for `seat` in `state`, reading only what the seat sees (through
    `determinize`); the same under the same `seed` whenever the search reaches `budget.iterations` in time."""
    return Search(engine, seat, random.Random(seed)).choose(state, budget)
