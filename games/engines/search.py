"""The bots' search: information-set Monte Carlo tree search (Cowling, Powley and Whitehouse, 2012) over the
engine contract alone, so one search plays all five games.

A seat cannot see the whole state, so the search never plays on it: every iteration draws a state the seat
cannot tell from the true one (the engine's `determinize`, which reads only what the seat sees), plays one
of the seat's candidate orders there, has the other asked seats play sealed orders of their own, and plays
on with the engines' rollout policy (`random_order`, greedy where the engine makes it so) for a few phases
(the game's evaluation's horizon), then scores the position with the game's evaluation
(games/engines/evaluation.py: what each seat's position is worth in the game's own terms). Played to the
end at random, a play-out measures the random players that finish it more than the order it tries; a game
without an evaluation is still played to the end.

The tree's root is the seat's information set; its children are the seat's orders. The first are a game's
plans where it has them (games/engines/<game>/plans.py: the orders a player would think of first, such as
Genoa's offers priced by what the action is worth to the offerer), then the best
of a few orders scored one phase on in the same drawn world (the rollout policy's, and for a turn of
actions an order built a step at a time from the steps `next_steps` offers, each the step that scores
best): a search starts from what a greedy player would do and spends its iterations checking it against
the rest. More are found as a player finds them (each field's choices, and for a "steps" field the steps
`next_steps` offers, one at a time) or drawn from the rollout policy, checked by `validate`, and widened
progressively: a new order is tried as the visits grow (sqrt), so a game with few orders has them all and
one with thousands searches the promising ones. Below the root the game is sampled, not stored: at the
budgets a person will wait for (seconds), the decisions of later turns would not get enough visits to be
worth storing, and this keeps the search small.

Candidates are compared on common random numbers: a candidate's n-th try plays in the n-th drawn world, the
same for every candidate at the root (the same hidden cards, the same other seats' sealed orders and the same
dice and rollout draws, each phase and seat on its own seeded stream so one candidate's extra draw does not
shift the next's), so two candidates' rewards differ by the orders and not by the luck of the draw (variance
reduction by common random numbers; Genoa's candidates' rewards ranged 0.11 to 0.92 on independent draws).

The reward of a finished game is the seat's share of the win (a shared first place split), plus a quarter
of its score's place between the lowest and the highest at the table, so a lost game is still played for
points; of a game not over, the same read from the evaluation (`position_reward`).

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
from games.engines.evaluation import Evaluation, Planner, evaluation_of, planner_of, win_chances

T = TypeVar("T")
EXPLORATION = 0.7  # UCB1's constant, for rewards in [0, 1]
WIDENING = 1.5  # a root with n visits may hold 1 + WIDENING * sqrt(n) orders
WIN_SHARE = 0.75  # the reward's part that is the win; the rest is the score's place at the table
MAX_PHASES = 600  # a rollout that has not ended by then counts as a draw (no engine's game is this long)
MAX_STEPS = 12  # the most steps a drawn "steps" order takes
STOP_AFTER_STEP = 0.35  # how often a drawn "steps" order stops once it is legal as it stands
INTEGER_VALUES = 8  # how many of an integer field's values the search tries (the ends and between)
GREEDY_DRAWS = 12  # orders drawn at the root and scored one phase on; the best are the first tried
GREEDY_KEPT = 3
GREEDY_STEPS = 12  # at most this many of the steps the builder offers are scored at each step
PLAN_MARGIN = 0.1  # how much better (in reward) over the shared worlds an order must do to be chosen over a plan
BUILD_FROM = 12  # the least iteration budget that builds an order step by step (it scores dozens of orders)


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
    tries: int = 0  # the common worlds it was tried in, counting those where it was not legal
    rewards: dict[int, float] = field(default_factory=dict)  # by common world

    def mean_in(self, worlds: int) -> float:
        """Its mean reward in the first `worlds` common worlds (where it was legal)."""
        shared = [reward for number, reward in self.rewards.items() if number < worlds]
        return sum(shared) / len(shared) if shared else self.mean()

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0


@dataclass
class Search:
    """One decision's search; `choose` runs it."""

    engine: Engine
    seat: int
    rng: random.Random
    judge: Evaluation | None = None
    planner: Planner | None = None
    children: list[Child] = field(default_factory=list)
    known: set[str] = field(default_factory=set)
    visits: int = 0
    draws: int = 0  # candidate orders drawn so far: two in three from the rollout policy, the third step by step
    planned: int = 0  # how many of the first children are the game's plans
    common: str = ""  # the seed of the common worlds every candidate is tried in (drawn once a decision)

    def choose(self, state: State, budget: Budget) -> Order:
        started = time.perf_counter()
        self.common = str(self.rng.random())
        first = self.engine.determinize(state, self.seat, random.Random(self.rng.random()))
        # A game's plans (the orders a player would think of first, games/engines/<game>/plans.py) and then
        # the greedy orders are tried first, all in a drawn world: neither reads what the seat cannot see.
        planned = self._planned(first) if self.planner is not None else []
        greedy = self._greedy(first, budget.iterations) if self.judge is not None else []
        for order in [*planned, *greedy]:
            key = json.dumps(order, sort_keys=True)
            if key not in self.known:
                self.known.add(key)
                self.children.append(Child(order))
            if planned and order is planned[-1]:
                self.planned = len(self.children)
        self._widen(first, attempts=4)
        if not self.children:
            return self.engine.validate(first, self.seat, self.engine.default_order(first, self.seat))
        while self.visits < budget.iterations:
            if self.visits and time.perf_counter() - started >= budget.seconds:
                break
            self.iterate(state)
        return self.best().order

    def best(self) -> Child:
        """The child chosen. Without plans, the most visited (UCB's robust choice; its mean breaks a tie).
        With a game's plans, of those visited at least half as often as the most visited, the best mean over
        the common worlds all of them were tried in (a paired comparison: the same worlds and dice), the
        first found on a tie, a plan's mean raised by PLAN_MARGIN, so a plan is left only for an order that did
        clearly better in the same worlds (random play-outs misjudge a Genoa offer: with no margin the strong
        seat won 1 of 20 against easy seats playing the first plan on seeds where a margin of 0.1 won 9): at 16
        iterations Genoa's strong seat left its plans for drawn orders one lucky visit ahead and won 3 of 15
        games against easy seats playing the plans, 10 of 20 with this choice; in the games without plans
        this choice did worse than the visits (Phoenician 78% and 65% of 40 against 85% and 72% on the same
        seeds; Ports of Call at 4 players 70% of 20 on one seed, 85% of 20 on another)."""
        if self.planner is None:
            return max(self.children, key=lambda child: (child.visits, child.mean()))
        most = max(child.visits for child in self.children)
        contenders = [child for child in self.children if 2 * child.visits >= most]
        worlds = min(child.tries for child in contenders)
        plans = {id(child) for child in self.children[: self.planned]}
        return max(contenders, key=lambda child: child.mean_in(worlds) + PLAN_MARGIN * (id(child) in plans))

    def world(self, state: State, number: int) -> State:
        """The `number`th common world: a state the seat cannot tell from `state`, the same for every
        candidate (its hidden parts drawn from the decision's common seed alone)."""
        return self.engine.determinize(state, self.seat, random.Random(f"{self.common}:{number}:world"))

    def iterate(self, state: State) -> None:
        if len(self.children) < 1 + WIDENING * math.sqrt(self.visits):
            drawn = self.engine.determinize(state, self.seat, random.Random(self.rng.random()))
            self._widen(drawn, attempts=2)
        child = self._select()
        number = child.tries
        child.tries += 1
        world = self.world(state, number)
        try:
            order = self.engine.validate(world, self.seat, child.order)
        except OrderError:
            # Not legal in this world (a hidden card the seat guessed wrong about): not available, as ISMCTS
            # counts availability; the seat's own orders should not depend on what it cannot see.
            self.visits += 1
            return
        reward = self._play_out(world, order, number)
        child.visits += 1
        child.reward += reward
        child.rewards[number] = reward
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

    def _play_out(self, world: State, order: Order, number: int) -> float:
        """The reward of `order` played in the `number`th common world: the other seats' orders and the dice
        of each phase come from streams seeded by the world, the phase and the seat, so every candidate
        tried in that world meets the same rivals' orders and the same dice as far as their games agree."""
        engine = self.engine

        def stream(phase: int, who: str) -> random.Random:
            return random.Random(f"{self.common}:{number}:{phase}:{who}")

        # The other asked seats' sealed orders, drawn as the rest of the game is.
        orders = {other: engine.random_order(world, other, stream(0, str(other))) for other in engine.prompts(world)}
        orders[self.seat] = order
        world, _ = engine.resolve(world, orders, stream(0, "dice"))
        # With an evaluation the play-out stops after a few phases and scores the position there: played to
        # the end at random, a game scores the random players more than the order tried.
        phases = self.judge.horizon if self.judge else MAX_PHASES
        for phase in range(1, phases + 1):
            prompts = engine.prompts(world)
            if not prompts:
                break
            played = {seat: engine.random_order(world, seat, stream(phase, str(seat))) for seat in prompts}
            world, _ = engine.resolve(world, played, stream(phase, "dice"))
        return self.score(world)

    def score(self, world: State) -> float:
        """The reward of `world` for the seat: the game's if it is over, else its evaluation's."""
        if self.judge is None or self.engine.outcome(world) is not None:
            return reward(self.engine, world, self.seat)
        return position_reward(self.judge, world, self.seat)

    def _planned(self, world: State) -> list[Order]:
        assert self.planner is not None
        found = []
        for order in self.planner(world, self.seat):
            try:
                found.append(self.engine.validate(world, self.seat, order))
            except OrderError:
                continue  # a plan the rules refuse (the engine knows best): the drawn orders remain
        return found

    def _greedy(self, world: State, iterations: int) -> list[Order]:
        """Orders worth trying first, best first: of a few drawn (the rollout policy's and built step by
        step), those that score best one phase on, every one tried in the same drawn world (the other seats'
        orders and the dice the same), so they differ by the order alone. A scored order costs about what an
        iteration does, so a small budget scores few (the easy level's tenth, one or two) and builds none."""
        engine = self.engine
        drawn: dict[str, Order] = {}
        for number in range(min(GREEDY_DRAWS, max(1, iterations // 2))):
            try:
                if number % 2:
                    order = draw_order(engine, world, self.seat, self.rng)
                else:
                    order = engine.random_order(world, self.seat, self.rng)
                order = engine.validate(world, self.seat, order)
            except OrderError:
                continue
            drawn.setdefault(json.dumps(order, sort_keys=True), order)
        built = self._built(world) if iterations >= BUILD_FROM else None
        if built is not None:
            drawn.setdefault(json.dumps(built, sort_keys=True), built)
        seed = self.rng.random()
        others = {
            other: engine.random_order(world, other, random.Random(f"{seed}:{other}"))
            for other in engine.prompts(world)
            if other != self.seat
        }
        scored = sorted(
            ((self._one_phase(world, order, others, seed), index) for index, order in enumerate(drawn.values())),
            reverse=True,
        )
        orders = list(drawn.values())
        return [orders[index] for _, index in scored[:GREEDY_KEPT]]

    def _one_phase(self, world: State, order: Order, others: dict[int, Order], seed: float) -> float:
        after, _ = self.engine.resolve(world, {**others, self.seat: order}, random.Random(seed))
        return self.score(after)

    def _built(self, world: State) -> Order | None:
        """For a prompt of one "steps" field that this seat alone answers (a turn of actions): the order
        built a step at a time, each time the step (of a few the builder offers) that scores best one phase
        on, while one does better than stopping."""
        engine = self.engine
        prompts = engine.prompts(world)
        prompt = prompts.get(self.seat)
        if prompt is None or len(prompts) != 1 or [f.kind for f in prompt.fields] != ["steps"]:
            return None
        name = prompt.fields[0].name
        base = dict(engine.default_order(world, self.seat))
        seed = self.rng.random()
        steps: list[str] = []
        best: tuple[float, Order] | None = None
        for _ in range(MAX_STEPS):
            after = engine.next_steps(world, self.seat, name, steps)
            choices = list(after.choices)
            if len(choices) > GREEDY_STEPS:
                choices = self.rng.sample(choices, GREEDY_STEPS)
            found: tuple[float, str] | None = None
            for choice in choices:
                amounts = [None] if choice.amount is None else sorted({choice.amount[0], choice.amount[1]})
                for amount in amounts:
                    step = choice.spelled(amount)
                    try:
                        order = engine.validate(world, self.seat, {**base, name: "; ".join([*steps, step])})
                    except OrderError:
                        continue
                    value = self._one_phase(world, order, {}, seed)
                    if found is None or value > found[0]:
                        found = (value, step)
                    if best is None or value > best[0]:
                        best = (value, order)
            if found is None or (best is not None and found[0] < best[0]):
                break
            steps.append(found[1])
        return best[1] if best else None


def position_reward(judge: Evaluation, state: State, seat: int) -> float:
    """The reward of a game not over, read from the evaluation as `reward` reads the end: the seat's chance
    to win (its worth's softmax share) and its worth's place between the table's lowest and highest."""
    worths = judge.worth(state)
    chance = win_chances(worths, judge.scale)[seat]
    low, high = min(worths), max(worths)
    place = (worths[seat] - low) / (high - low) if high > low else 1.0
    return WIN_SHARE * chance + (1 - WIN_SHARE) * place


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
    return Search(engine, seat, random.Random(seed), evaluation_of(engine), planner_of(engine)).choose(state, budget)
