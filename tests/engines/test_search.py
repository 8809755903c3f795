"""The bots' search (games/engines/search.py) and the engines' determinizations it plays on: a bot never
reads what its seat cannot see, proven by giving it two states that differ only there."""

from __future__ import annotations

import json
import random
from typing import cast

import pytest

from games.engines import all_engines
from games.engines.base import Engine, Event, Order, State
from games.engines.evaluation import evaluation_of, planner_of
from games.engines.search import (
    BUILD_FROM,
    PLAN_MARGIN,
    Budget,
    Child,
    Search,
    choose_order,
    draw_order,
    integer_values,
    reward,
)

ENGINES = all_engines()
# Enough iterations for the search to try several orders, few enough for a fast suite (a Ports of Call
# play-out is the slowest, about a tenth of a second).
TINY = Budget(seconds=60, iterations=6)


def states(engine: Engine, seed: int, every: int = 5, limit: int = 60) -> list[tuple[State, int]]:
    """(state, an asked seat) at every `every`th decision of a random game of `players(engine, seed)`."""
    rng = random.Random(seed)
    state = engine.setup(players(engine, seed), {}, random.Random(f"{seed}:0"))
    found = []
    for step in range(limit):
        prompts = engine.prompts(state)
        if not prompts:
            break
        if step % every == 0:
            found.append((state, sorted(prompts)[step % len(prompts)]))
        state, _ = engine.resolve(state, {s: engine.random_order(state, s, rng) for s in prompts}, rng)
    return found


def players(engine: Engine, seed: int) -> int:
    return engine.min_players + seed % (engine.max_players - engine.min_players + 1)


def dumped(state: State) -> str:
    return json.dumps(state, sort_keys=True)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_a_determinization_reads_only_what_the_seat_sees(engine: Engine) -> None:
    """It shows the seat what the true state shows it, and two states that differ only where the seat
    cannot see (`conceal`) give the same determinization under the same random seed."""
    for seed in range(2):
        rng = random.Random(seed)
        for state, _ in states(engine, seed, every=3):
            for seat in range(players(engine, seed)):
                drawn = engine.determinize(state, seat, random.Random(7))
                assert engine.view(drawn, seat) == engine.view(state, seat)
                other = engine.conceal(state, seat, random.Random(rng.random()))
                assert dumped(engine.determinize(other, seat, random.Random(7))) == dumped(drawn)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_the_bot_chooses_the_same_order_whatever_it_cannot_see(engine: Engine) -> None:
    """The search never peeks: the true state and one re-dealt where the seat cannot see give the same
    order under the same seed, and that order is legal in the true state."""
    rng = random.Random(engine.slug)
    chosen_orders = set()
    for state, seat in states(engine, seed=1, every=9)[:3]:
        hidden = engine.conceal(state, seat, random.Random(rng.random()))
        assert dumped(hidden) != dumped(state) or not _has_hidden(engine, state, seat)
        chosen = choose_order(engine, state, seat, "seed", TINY)
        assert choose_order(engine, hidden, seat, "seed", TINY) == chosen
        assert engine.validate(state, seat, chosen) == chosen
        chosen_orders.add(json.dumps(chosen, sort_keys=True))
    assert chosen_orders


@pytest.mark.parametrize("slug", ["phoenician", "ports-of-call"])
def test_an_order_built_step_by_step_reads_nothing_the_seat_cannot_see(slug: str) -> None:
    """With a budget that builds an order a step at a time, scoring each step on the evaluation (a turn of
    actions), the true state and one re-dealt where the seat cannot see still give the same order."""
    engine = next(e for e in ENGINES if e.slug == slug)
    budget = Budget(seconds=60, iterations=BUILD_FROM)
    state, seat = states(engine, seed=1, every=9)[1]
    hidden = engine.conceal(state, seat, random.Random(3))
    chosen = choose_order(engine, state, seat, "seed", budget)
    assert choose_order(engine, hidden, seat, "seed", budget) == chosen
    assert engine.validate(state, seat, chosen) == chosen


def _has_hidden(engine: Engine, state: State, seat: int) -> bool:
    return any(dumped(engine.conceal(state, seat, random.Random(n))) != dumped(state) for n in range(5))


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_orders_drawn_step_by_step_are_built_from_what_the_engine_offers(engine: Engine) -> None:
    """draw_order fills each field from its prompt and each "steps" field from next_steps: what it draws
    is mostly legal, and every "steps" value it draws is one the builder offered step by step."""
    legal = 0
    tried = 0
    for state, seat in states(engine, seed=2, every=3):
        prompt = engine.prompts(state)[seat]
        for n in range(3):
            tried += 1
            order = draw_order(engine, state, seat, random.Random(n))
            try:
                engine.validate(state, seat, order)
            except ValueError:
                continue
            legal += 1
            for spec in prompt.fields:
                if spec.kind == "steps":
                    steps = engine.builder_steps(state, seat, spec.name, order[spec.name])
                    for k, step in enumerate(steps):
                        offered = engine.next_steps(state, seat, spec.name, steps[:k]).choices
                        assert any(_matches(choice.value, step) for choice in offered), (step, offered)
    assert legal >= tried / 2


def _matches(value: str, step: str) -> bool:
    head, _, tail = value.partition("{n}")
    return step == value or ("{n}" in value and step.startswith(head) and step.endswith(tail))


def test_integer_values_take_both_ends_and_spread_between() -> None:
    assert integer_values(0, 3) == [0, 1, 2, 3]
    spread = integer_values(10, 80)
    assert spread[0] == 10 and spread[-1] == 80 and len(spread) == 8 and spread == sorted(set(spread))


def test_a_search_with_no_time_left_still_chooses_a_legal_order() -> None:
    engine = next(e for e in ENGINES if e.slug == "manila")
    state, seat = states(engine, seed=3)[0]
    chosen = choose_order(engine, state, seat, "now", Budget(seconds=0, iterations=1000))
    assert engine.validate(state, seat, chosen) == chosen


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_the_reward_is_the_win_shared_plus_the_score_place(engine: Engine) -> None:
    rng = random.Random(4)
    state = engine.setup(engine.min_players, {}, random.Random(4))
    while engine.prompts(state):
        state, _ = engine.resolve(state, {s: engine.random_order(state, s, rng) for s in engine.prompts(state)}, rng)
    standings = engine.outcome(state)
    assert standings is not None
    rewards = {s.seat: reward(engine, state, s.seat) for s in standings}
    winners = [s.seat for s in standings if s.rank == 1]
    assert all(rewards[w] >= 0.75 / len(winners) for w in winners)
    assert all(0 <= r <= 0.25 for seat, r in rewards.items() if seat not in winners)


class Recording:
    """An engine that notes what each resolution was given: the orders and the state of its random stream."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.resolved: list[tuple[dict[int, Order], object]] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.engine, name)

    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        self.resolved.append((dict(orders), rng.getstate()))
        return self.engine.resolve(state, orders, rng)


class Noting(Search):
    """A search that notes, for each play-out, its common world's number, the order tried, the world drawn,
    and the first phase's other orders and dice stream."""

    tried: list[tuple[int, str, str, dict[int, Order], object]]

    def _play_out(self, world: State, order: Order, number: int) -> float:
        recording = self.engine
        assert isinstance(recording, Recording)
        start = len(recording.resolved)
        result = super()._play_out(world, order, number)
        orders, dice = recording.resolved[start]
        others = {seat: other for seat, other in orders.items() if seat != self.seat}
        self.tried.append((number, json.dumps(order, sort_keys=True), dumped(world), others, dice))
        return result


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_candidates_at_a_root_are_tried_in_the_same_worlds(engine: Engine) -> None:
    """Common random numbers: every candidate's n-th try meets the n-th drawn world (the same hidden cards),
    the same sealed orders of the other seats and the same dice, so candidates differ by their orders."""
    state, seat = states(engine, seed=1, every=9)[1]
    search = Noting(cast(Engine, Recording(engine)), seat, random.Random("crn"), evaluation_of(engine))
    search.tried = []
    search.choose(state, Budget(seconds=60, iterations=10))
    by_number: dict[int, list[tuple[str, str, dict[int, Order], object]]] = {}
    for number, order, world, others, dice in search.tried:
        by_number.setdefault(number, []).append((order, world, others, dice))
    compared = [tries for tries in by_number.values() if len({order for order, *_ in tries}) > 1]
    assert compared, "no two candidates were tried in the same world"
    for tries in compared:
        assert len({world for _, world, _, _ in tries}) == 1
        assert all(others == tries[0][2] and dice == tries[0][3] for _, _, others, dice in tries)
    assert len({world for _, _, world, _, _ in search.tried}) > 1 or not _has_hidden(engine, state, seat)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_a_seeded_search_is_reproducible(engine: Engine) -> None:
    """The same seed and iteration cap give the same candidates, tried as often with the same rewards."""
    state, seat = states(engine, seed=2, every=9)[1]

    def searched(seed: str) -> list[tuple[str, int, float]]:
        search = Search(engine, seat, random.Random(seed), evaluation_of(engine))
        search.choose(state, TINY)
        return [(json.dumps(c.order, sort_keys=True), c.visits, c.reward) for c in search.children]

    assert searched("again") == searched("again")


def test_with_plans_the_choice_is_the_best_mean_over_the_worlds_the_contenders_share() -> None:
    """In a game with plans, a child tried once more in a lucky world does not win on visits: the contenders
    (visited at least half as often as the most visited) are compared over the common worlds they were all
    tried in, and a tie goes to the first child (the plans and the greedy orders come first). Without plans
    the most visited is chosen."""
    engine = next(e for e in ENGINES if e.slug == "genoa")
    search = Search(engine, 0, random.Random(1), evaluation_of(engine), planner_of(engine))
    lucky = Child({"o": "lucky"}, visits=3, reward=1.9, tries=3, rewards={0: 0.5, 1: 0.5, 2: 0.9})
    steady = Child({"o": "steady"}, visits=2, reward=1.2, tries=2, rewards={0: 0.6, 1: 0.6})
    rare = Child({"o": "rare"}, visits=1, reward=1.0, tries=1, rewards={0: 1.0})
    search.children = [lucky, steady, rare]
    assert search.best() is steady
    twin = Child({"o": "twin"}, visits=2, reward=1.2, tries=2, rewards={0: 0.6, 1: 0.6})
    search.children = [lucky, twin, steady]
    assert search.best() is twin
    search.planner = None
    assert search.best() is lucky


def test_a_plan_is_left_only_for_an_order_clearly_better_in_the_same_worlds() -> None:
    """With a game's plans, a drawn order a little better over the shared worlds (less than PLAN_MARGIN) does
    not displace the plan; one clearly better does."""
    engine = next(e for e in ENGINES if e.slug == "genoa")
    search = Search(engine, 0, random.Random(1), evaluation_of(engine), planner_of(engine))
    plan = Child({"o": "plan"}, visits=2, reward=1.1, tries=2, rewards={0: 0.5, 1: 0.6})
    near = Child({"o": "near"}, visits=2, reward=1.2, tries=2, rewards={0: 0.6, 1: 0.6})
    search.children, search.planned = [plan, near], 1
    assert search.best() is plan
    far = Child(
        {"o": "far"}, visits=2, reward=1.1 + 2 * PLAN_MARGIN, tries=2, rewards={0: 0.6, 1: 0.6 + 2 * PLAN_MARGIN}
    )
    search.children = [plan, far]
    assert search.best() is far
