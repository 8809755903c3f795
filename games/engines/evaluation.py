"""Position evaluations for the bots' search (games/engines/search.py): what a seat's position is worth
before the game ends, so a play-out may stop a few phases after the order it tries and be scored there
rather than played at random to the end (random play to the end scores the random policy, not the order).

Each game's `evaluation` module beside its engine gives an `Evaluation`: every seat's worth in the game's
own terms (ducats, gold, fortune, share value), counting what is sure (money) in full and what is on its
way (goods in a hold, shares, order cards) at a discount; the worth difference that is a clear lead; and
how many phases a play-out plays at random before it is scored. Pure: no Django, like the engines.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.engines.base import Engine, Order, State

Worth = Callable[[State], list[float]]
# The orders a player would think of first for the decision a seat is asked (a game's `plans` module).
Planner = Callable[[State, int], list[Order]]


@dataclass(frozen=True)
class Evaluation:
    """`worth(state)`: each seat's worth, in the game's own unit; `scale`: a worth lead that makes a seat
    the clear favourite (about e to 1 on a rival); `horizon`: the phases a play-out plays before it stops."""

    worth: Worth
    scale: float
    horizon: int


def evaluation_of(engine: Engine) -> Evaluation | None:
    """The engine's evaluation (its package's `evaluation` module), None for a game without one."""
    found: Evaluation | None = _part_of(engine, "evaluation", "EVALUATION")
    return found


def planner_of(engine: Engine) -> Planner | None:
    """The engine's planner (its package's `plans` module's `plans`), None for a game without one."""
    found: Planner | None = _part_of(engine, "plans", "plans")
    return found


def _part_of(engine: Engine, module_name: str, name: str) -> Any:
    package = type(engine).__module__
    try:
        module = importlib.import_module(f"{package}.{module_name}")
    except ModuleNotFoundError:
        return None
    return getattr(module, name, None)


def win_chances(worths: list[float], scale: float) -> list[float]:
    """Each seat's chance to win read from the worths: a softmax, so a lead of `scale` is e to 1."""
    top = max(worths)
    weights = [math.exp((worth - top) / scale) for worth in worths]
    total = sum(weights)
    return [weight / total for weight in weights]
