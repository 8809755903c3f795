"""The order builders ("steps" fields, `next_steps`), for every engine that has them, over random games:

- what the builder offers is legal: a walk through its choices never ends where the order is neither
  legal nor can be continued, and wherever it says the order is complete, `validate` accepts it;
- the builder and the typed syntax give the same orders: every random legal order, rebuilt step by step
  from the builder's choices (`builder_steps`), validates to the very order its typed text gives.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.engines import all_engines
from games.engines.base import Engine, OrderError, StepChoice

GAMES = 3
MAX_STEPS = 400


def builder_engines() -> list[Engine]:
    found = []
    for engine in all_engines():
        if any(field.kind == "steps" for state, seat, prompt in _asked(engine, 0, 40) for field in prompt.fields):
            found.append(engine)
    return found


def _asked(engine: Engine, seed: int, limit: int = MAX_STEPS) -> Iterator[tuple[Any, int, Any]]:
    """(state, seat, prompt) for every seat asked in a random game."""
    rng = random.Random(seed)
    players = engine.min_players + seed % (engine.max_players - engine.min_players + 1)
    state = engine.setup(players, {}, random.Random(f"{seed}:0"))
    for step in range(limit):
        prompts = engine.prompts(state)
        if not prompts:
            return
        for seat, prompt in prompts.items():
            yield state, seat, prompt
        orders = {seat: engine.random_order(state, seat, rng) for seat in prompts}
        state, _ = engine.resolve(state, orders, random.Random(f"{seed}:{step}"))


def offered(choices: tuple[StepChoice, ...], step: str) -> bool:
    """Whether `step` is one of the choices, a number in its range standing for "{n}"."""
    for choice in choices:
        if choice.amount is None:
            if choice.value == step:
                return True
            continue
        pattern = re.escape(choice.value).replace(re.escape("{n}"), r"(\d+)")
        match = re.fullmatch(pattern, step)
        if match and choice.amount[0] <= int(match.group(1)) <= choice.amount[1]:
            return True
    return False


ENGINES = builder_engines()


def test_the_three_typed_games_have_builders() -> None:
    assert sorted(engine.slug for engine in ENGINES) == ["genoa", "phoenician", "ports-of-call"]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_every_random_order_is_built_from_the_builders_choices_into_the_same_order(engine: Engine) -> None:
    rng = random.Random(5)
    compared = 0
    for seed in range(GAMES):
        for state, seat, prompt in _asked(engine, seed):
            fields = [field.name for field in prompt.fields if field.kind == "steps"]
            if not fields:
                continue
            typed = engine.validate(state, seat, engine.random_order(state, seat, rng))
            built = dict(typed)
            for name in fields:
                steps = engine.builder_steps(state, seat, name, typed[name])
                for number, step in enumerate(steps):
                    choices = engine.next_steps(state, seat, name, steps[:number]).choices
                    assert offered(choices, step), f"{prompt.kind}: {step!r} is not offered after {steps[:number]}"
                built[name] = "; ".join(steps)
            assert engine.validate(state, seat, built) == typed
            compared += 1
    assert compared >= 50


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_a_walk_through_the_builder_never_ends_stuck_and_a_complete_one_validates(engine: Engine) -> None:
    rng = random.Random(11)
    walks = 0
    for seed in range(GAMES):
        for state, seat, prompt in _asked(engine, seed):
            for field in prompt.fields:
                if field.kind != "steps" or rng.random() > 0.5:
                    continue
                chosen: list[str] = []
                while True:
                    after = engine.next_steps(state, seat, field.name, chosen)
                    assert after.complete or after.choices, f"{prompt.kind}: stuck after {chosen}: {after.problem}"
                    assert after.complete == (after.problem == "")
                    if not after.choices or (after.complete and rng.random() < 0.25) or len(chosen) > 12:
                        break
                    choice = rng.choice(after.choices)
                    chosen.append(choice.spelled(rng.randint(*choice.amount) if choice.amount else None))
                if after.complete:
                    order = {**engine.default_order(state, seat), field.name: "; ".join(chosen)}
                    engine.read_back(state, seat, engine.validate(state, seat, order))
                    walks += 1
    assert walks >= 20


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_only_an_asked_seat_and_a_steps_field_have_next_steps(engine: Engine) -> None:
    for state, seat, prompt in _asked(engine, 1, 60):
        steps_fields = [field.name for field in prompt.fields if field.kind == "steps"]
        if not steps_fields:
            continue
        others = [other for other in range(state["players"]) if other not in engine.prompts(state)]
        for other in others[:1]:
            with pytest.raises(OrderError):
                engine.next_steps(state, other, steps_fields[0], [])
        with pytest.raises(OrderError):
            engine.next_steps(state, seat, "no such field", [])
        with pytest.raises(OrderError):
            engine.next_steps(state, seat, steps_fields[0], "not a list")  # type: ignore[arg-type]
        return
    pytest.fail("no prompt with a steps field in 60 steps")
