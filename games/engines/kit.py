"""The skeleton every engine shares, so that an engine's package holds only its rules.

`StepEngine` implements the contract of base.py from a table of decisions: one `Step` per kind of prompt,
picked by the state's "step". It checks the player count and the options (`read_options`, driven by the
engine's `OptionSpec`s), guards `validate` (a real seat, asked now, a form), and wraps `resolve`: a copy of
the state, every owed order checked or replaced by the seat's default, the step's handler, and the final
ranking once the game is over. An engine writes its first state (`start`), its steps, its standings and its
view (`board`); the hooks below let it word what the skeleton says in the game's terms.
"""

from __future__ import annotations

import json
import random
import re
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engines.base import (
    Engine,
    Event,
    NextSteps,
    OptionSpec,
    Order,
    OrderError,
    OrderIncomplete,
    Prompt,
    ReadBack,
    Standing,
    State,
    StepChoice,
    split_steps,
)

# Every step handler: apply the owed orders (already checked, one per asked seat) to the copied state, then
# run the automatic steps until some seat owes a decision or the game is over.
Handler = Callable[[State, dict[int, Order], random.Random, list[Event]], None]


@dataclass(frozen=True)
class Placing:
    """A seat's place in the final standings before it is ranked: `order` sorts the seats best first (smaller
    first) and decides ties; `score` and `detail` are what the players read."""

    seat: int
    order: tuple[Any, ...]
    score: int
    detail: str


def ranked(placings: Iterable[Placing]) -> list[Standing]:
    """Standings best first. Seats whose `order` is equal share the rank of the first of them (1, 2, 2, 4)
    and are listed by seat number."""
    rows = sorted(placings, key=lambda placing: (placing.order, placing.seat))
    standings: list[Standing] = []
    for place, row in enumerate(rows, start=1):
        tied = place > 1 and rows[place - 2].order == row.order
        rank = standings[-1].rank if tied else place
        standings.append(Standing(seat=row.seat, score=row.score, rank=rank, detail=row.detail))
    return standings


DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Builder:
    """How the order builder offers one "steps" field. `candidates` lists the steps worth offering after
    those given (the skeleton keeps the ones `validate` accepts); `split` turns a stored value into steps."""

    candidates: Callable[[State, int, list[str]], Iterable[StepChoice]]
    split: Callable[[State, str], list[str]] = lambda state, text: split_steps(text)


@dataclass(frozen=True)
class Step:
    """One kind of decision: what an asked seat reads, how its order is checked, what a missed deadline
    and a bot answer, how the orders are applied, how an order reads back in words, and the builders of
    its "steps" fields by field name."""

    prompt: Callable[[State, int], Prompt]
    validate: Callable[[State, int, Order], Order]
    default: Callable[[State, int], Order]
    random: Callable[[State, int, random.Random], Order]
    resolve: Handler
    read_back: Callable[[State, int, Order], ReadBack] = field(kw_only=True)
    builders: Mapping[str, Builder] = field(default_factory=dict, kw_only=True)


def only(orders: dict[int, Order]) -> tuple[int, Order]:
    """The seat and order of a step that asks one seat."""
    return next(iter(orders.items()))


def copy_state(state: State) -> State:
    # A JSON round trip: states are plain JSON, and this is faster than copy.deepcopy.
    copied: State = json.loads(json.dumps(state))
    return copied


class StepEngine(Engine):
    steps: Mapping[str, Step]
    seat_word = "seat"  # what `validate` calls a seat that does not exist
    final_text = "Final ranking: {}."  # the last event; {} is the standings, one `final_entry` each
    final_entry = "{rank}. {name} {detail}"
    final_name_key = "name"  # the key of a seat's name in the view's final rows

    # --- what each engine writes ----------------------------------------------------------------------

    @abstractmethod
    def start(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        """The first state, advanced to the first decision; `options` are read already (`read_options`)."""

    @abstractmethod
    def standings(self, state: State) -> list[Standing]:
        """The standings in rank order, with the rulebook's tie-breaks (asked once the game is over)."""

    @abstractmethod
    def board(self, state: State, seat: int | None, phase: str, final: list[dict[str, Any]] | None) -> dict[str, Any]:
        """The view of `seat` (see `Engine.view`), given the phase name and, at the end, the final rows."""

    @abstractmethod
    def not_asked_reason(self, state: State, seat: int) -> str:
        """Why `seat` (a real seat) is not asked anything now, in the game's words."""

    def asked(self, state: State) -> list[int]:
        """The seats that owe an order now."""
        return [] if state["finished"] else state["asked"]

    def seat_count(self, state: State) -> int:
        return int(state["players"])

    def option_refusal(self, spec: OptionSpec, name: str) -> str:
        """Why the named choice `name` of option `spec` may not be chosen, or "" (asked before it is looked
        up among the choices)."""
        return ""

    def check_options(self, players: int, chosen: dict[str, Any]) -> None:
        """Checks across the options or the seats once each has been read; ValueError to refuse."""

    def apply(self, state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
        """Apply the owed orders: the current step's handler."""
        self.steps[state["step"]].resolve(state, orders, rng, events)

    def final_row(self, state: State, standing: Standing) -> dict[str, Any]:
        return {
            "seat": standing.seat,
            self.final_name_key: self.seat_name(state, standing.seat),
            "score": standing.score,
            "rank": standing.rank,
            "detail": standing.detail,
        }

    # --- the contract ---------------------------------------------------------------------------------

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        check_players(self, players)
        return self.start(players, read_options(self, players, options), rng)

    def prompts(self, state: State) -> dict[int, Prompt]:
        seats = self.asked(state)
        if not seats:
            return {}
        prompt = self.steps[state["step"]].prompt
        return {seat: prompt(state, seat) for seat in seats}

    def validate(self, state: State, seat: int, order: Order) -> Order:
        self._check_asked(state, seat)
        if not isinstance(order, dict):
            raise OrderError("An order must be a form with named fields.")
        return self.steps[state["step"]].validate(state, seat, order)

    def _check_asked(self, state: State, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seat_count(state):
            raise OrderError(f"There is no such {self.seat_word} in this game.")
        if seat not in self.asked(state):
            raise OrderError(self.not_asked_reason(state, seat))

    def read_back(self, state: State, seat: int, order: Order) -> ReadBack:
        return self.steps[state["step"]].read_back(state, seat, order)

    def _builder(self, state: State, seat: int, name: str) -> Builder:
        self._check_asked(state, seat)
        builder = self.steps[state["step"]].builders.get(name)
        if builder is None:
            raise OrderError(f"This order has no {name!r} to build step by step.")
        return builder

    def next_steps(self, state: State, seat: int, field: str, steps: list[str]) -> NextSteps:
        """The engine's candidates that `validate` accepts after `steps` (or finds only incomplete), the
        order's other fields at their defaults: the rules live once, in `validate`."""
        builder = self._builder(state, seat, field)
        if not isinstance(steps, (list, tuple)) or not all(isinstance(step, str) for step in steps):
            raise OrderError("The steps so far must be a list of steps.")
        others = self.default_order(state, seat)

        def verdict(trial: list[str]) -> tuple[bool, str]:
            """(may the builder offer these steps, why they are not yet a legal order or "")."""
            try:
                self.validate(state, seat, {**others, field: "; ".join(trial)})
            except OrderIncomplete as error:
                return True, str(error)
            except OrderError as error:
                return False, str(error)
            return True, ""

        allowed, problem = verdict(list(steps))
        if not allowed:
            return NextSteps((), False, problem)
        choices = tuple(c for c in builder.candidates(state, seat, list(steps)) if verdict([*steps, c.spelled()])[0])
        return NextSteps(choices, not problem, problem)

    def builder_steps(self, state: State, seat: int, field: str, text: str) -> list[str]:
        builder = self.steps[state["step"]].builders.get(field) if not state["finished"] else None
        return builder.split(state, text) if builder else split_steps(text)

    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        new_state = copy_state(state)
        seats = self.asked(new_state)
        if not seats:
            return new_state, []
        by_seat = {int(seat): order for seat, order in orders.items()}
        owed = {seat: self._owed(new_state, seat, by_seat.get(seat)) for seat in seats}
        events: list[Event] = []
        self.apply(new_state, owed, rng, events)
        if new_state["finished"]:
            entries = [self._final_entry(new_state, standing) for standing in self.standings(new_state)]
            events.append(Event(self.final_text.format("; ".join(entries)), data={"kind": "final"}))
        return new_state, events

    def _owed(self, state: State, seat: int, order: Order | None) -> Order:
        if order is not None:
            try:
                return self.validate(state, seat, order)
            except OrderError:
                pass  # a stale order counts as a missed deadline
        return self.validate(state, seat, self.default_order(state, seat))

    def _final_entry(self, state: State, standing: Standing) -> str:
        return self.final_entry.format(
            rank=standing.rank, name=self.seat_name(state, standing.seat), score=standing.score, detail=standing.detail
        )

    def default_order(self, state: State, seat: int) -> Order:
        return self.steps[state["step"]].default(state, seat)

    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        return self.steps[state["step"]].random(state, seat, rng)

    def outcome(self, state: State) -> list[Standing] | None:
        return self.standings(state) if state["finished"] else None

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        final = [self.final_row(state, standing) for standing in self.standings(state)] if state["finished"] else None
        return self.board(state, seat, self.phase_name(state), final)


# --- players and options (a ValueError's message is shown to the organiser as it is) ------------------


def check_players(engine: Engine, players: Any) -> None:
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError("The number of players must be a whole number.")
    if not engine.min_players <= players <= engine.max_players:
        raise ValueError(f"{engine.title} needs {engine.min_players} to {engine.max_players} players, not {players}.")


def read_options(engine: StepEngine, players: int, options: Any) -> dict[str, Any]:
    """Every option of `engine` by name: its default where the organiser left it blank (missing, null, ""
    or []), else the value checked against its OptionSpec. Unknown names are refused."""
    if not isinstance(options, dict):
        raise ValueError("Options must be a mapping of option names to values.")
    unknown = sorted(set(options) - {spec.name for spec in engine.options})
    if unknown:
        raise ValueError(f"{engine.title} has no option called {', '.join(map(repr, unknown))}.")
    chosen = {spec.name: _read_option(engine, spec, players, options.get(spec.name)) for spec in engine.options}
    engine.check_options(players, chosen)
    return chosen


def _read_option(engine: StepEngine, spec: OptionSpec, players: int, value: Any) -> Any:
    blank = value is None or value == "" or value == []
    if spec.kind == "integer":
        return spec.default if blank else _integer(spec, value)
    if spec.kind == "choice":
        return spec.default if blank else _choice(spec, value)
    if spec.kind == "seat-list":
        return [None] * players if blank else _seat_list(engine, spec, players, value)
    raise ValueError(f"Option {spec.name} has an unknown kind {spec.kind!r}.")


def _integer(spec: OptionSpec, value: Any) -> int:
    if isinstance(value, str) and DIGITS.fullmatch(value):
        value = int(value)  # typed as text, e.g. in a form
    if isinstance(value, bool) or not isinstance(value, int) or not spec.min <= value <= spec.max:
        raise ValueError(spec.error or f"The {spec.name} option must be a whole number from {spec.min} to {spec.max}.")
    return value


def _choice(spec: OptionSpec, value: Any) -> str:
    """The choice's value; JSON true/false stand for "yes"/"no" and a whole number for its digits."""
    if isinstance(value, bool):
        value = "yes" if value else "no"
    elif isinstance(value, int):
        value = str(value)
    values = [choice.value for choice in spec.choices]
    if not isinstance(value, str) or value not in values:
        raise ValueError(spec.error or f"Option {spec.name} must be one of {', '.join(sorted(values))}.")
    return value


def _seat_list(engine: StepEngine, spec: OptionSpec, players: int, value: Any) -> list[str | None]:
    """One choice per seat, named in any case; a blank entry is None (the engine decides it)."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"The {spec.name} option must be a list with one {spec.item} per seat.")
    if len(value) != players:
        raise ValueError(f"The {spec.name} option names {len(value)} {spec.name} for {players} seats.")
    by_name = {choice.value.lower(): choice.value for choice in spec.choices}
    chosen: list[str | None] = []
    for name in value:
        if name in (None, ""):
            chosen.append(None)
            continue
        if not isinstance(name, str):
            raise ValueError(f"{spec.name.capitalize()} are given by name; {name!r} is not a name.")
        refusal = engine.option_refusal(spec, name)
        if refusal:
            raise ValueError(refusal)
        if name.strip().lower() not in by_name:
            names = ", ".join(choice.value for choice in spec.choices)
            raise ValueError(f"Unknown {spec.item} {name!r}; choose from {names}.")
        chosen.append(by_name[name.strip().lower()])
    return chosen
