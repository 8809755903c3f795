"""Helpers under the engine contract (base.py) for the common shape of a game: a table of decisions.

`DecisionEngine` is an `Engine` whose current decision is a key of its `decisions` table (the state's
"step"); one `Decision` per kind of prompt says what an asked seat reads, how its order is checked, what a
missed deadline and a bot answer, how the orders are applied and read back. From that table the kit writes
the contract's `prompts`, `validate`, `resolve`, `default_order`, `random_order`, `read_back`,
`next_steps` and `builder_steps`, with their guards (a real seat, asked now, a form; a copy of the state,
every owed order checked or replaced by the seat's default, the final ranking once the game is over).

The engine writes the rest of the contract itself, in the contract's words: `setup` (starting with
`read_setup`, which checks the player count and reads the options from their `OptionSpec`s), `view`
(`final_rows` gives the final table once the game is over), `outcome`, `phase_name`, `conceal`,
`seat_name`, and `not_asked_reason`. The state keys the kit reads are `KitState`'s; the engine contract
test checks them in every state of random games.
"""

from __future__ import annotations

import json
import random
import re
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from games.engines.base import (
    Engine,
    Event,
    M,
    Mp,
    Msg,
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
    joined,
    split_steps,
)

# Every decision's handler: apply the owed orders (already checked, one per asked seat) to the copied state, then
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
class Decision:
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


class _KitStateAlways(TypedDict):
    step: str
    finished: bool


class KitState(_KitStateAlways, total=False):
    """The keys of a state that `DecisionEngine` reads; an engine's state holds these and its own.

    `step` is the key of the current decision in the engine's `decisions` (any word once `finished`; the
    name is older than the table and stays, as stored games carry it). `players` is read by `seat_count`
    and `asked` by `asked`: an engine that knows the seats or the asked seats otherwise (from its own keys)
    overrides that method instead of storing the key. tests/engines/test_contract.py checks every state
    of random games against this declaration and the engine's overrides. (Two classes because Python 3.11
    cannot tell NotRequired keys apart under postponed annotations; `total=False` it can.)
    """

    players: int
    asked: list[int]


def only(orders: dict[int, Order]) -> tuple[int, Order]:
    """The seat and order of a decision that asks one seat."""
    return next(iter(orders.items()))


# The types a JSON round trip gives back as they are (exactly these: a subclass, an Enum say, is not).
_PLAIN = frozenset({str, int, float, bool, type(None)})


class _NotPlain(Exception):
    """A value `_copied` does not copy as a JSON round trip would (a key that is not a str, a set, an object)."""


def copy_state(state: State) -> State:
    """What `json.loads(json.dumps(state))` gives, about twice as fast (the engines copy the state for every
    order checked and every step a bot tries). States are plain JSON (base.py), and for plain JSON the walk
    below gives the same: new dicts with the same str keys in order, new lists (a tuple becomes a list, as
    JSON makes it), and the immutable str, int, float, bool and None themselves, which JSON gives back equal.
    Anything else (another key or value type, a cycle) takes the round trip itself, with its conversions
    and its errors."""
    try:
        return _copied(state)
    except (_NotPlain, RecursionError):
        copied: State = json.loads(json.dumps(state))
        return copied


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            copied[key] = item if type(item) in _PLAIN else _copied(item)
        return copied
    if kind is list or kind is tuple:
        return [item if type(item) in _PLAIN else _copied(item) for item in value]
    if kind in _PLAIN:
        return value
    raise _NotPlain


def redealt(items: Iterable[Any], rng: random.Random) -> list[Any]:
    """`items` in an order drawn by `rng` alone: put in a fixed order first, so that a determinization
    does not depend on the hidden order they came in (other hands, a deck)."""
    pool = sorted(items, key=json.dumps)
    rng.shuffle(pool)
    return pool


def less(items: Iterable[Any], taken: Iterable[Any]) -> list[Any]:
    """`items` in their order, less one of them for each of `taken` (a hand less the cards it has shown)."""
    left = list(taken)
    rest = []
    for item in items:
        if item in left:
            left.remove(item)
        else:
            rest.append(item)
    return rest


class DecisionEngine(Engine):
    decisions: Mapping[str, Decision]
    no_such_seat = M("There is no such seat in this game.")  # what `validate` says of a seat that does not exist
    final_text = M("Final ranking: {standings}.")  # the last event: the standings, one `final_entry` each
    # One standing; {rank}, {name}, {score} and {detail} (a message, or a plain str.format template).
    final_entry: Msg | str = Mp("final ranking", "{rank}. {name} {detail}")
    final_name_key = "name"  # the key of a seat's name in `final_rows`

    # --- what the engine writes besides the contract's setup, view, outcome, phase_name ---------------

    @abstractmethod
    def not_asked_reason(self, state: State, seat: int) -> Msg | str:
        """Why `seat` (a real seat) is not asked anything now, in the game's words."""

    def asked(self, state: State) -> list[int]:
        """The seats that owe an order now (KitState's `asked`)."""
        return [] if state["finished"] else state["asked"]

    def seat_count(self, state: State) -> int:
        """How many seats the game has (KitState's `players`)."""
        return int(state["players"])

    def option_refusal(self, spec: OptionSpec, name: str) -> Msg | str:
        """Why the named choice `name` of option `spec` may not be chosen, or "" (asked before it is looked
        up among the choices)."""
        return ""

    def check_options(self, players: int, chosen: dict[str, Any]) -> None:
        """Checks across the options or the seats once each has been read; ValueError to refuse."""

    # --- helpers for the engine's own setup and view ----------------------------------------------------

    def read_setup(self, players: int, options: Any) -> dict[str, Any]:
        """The first lines of `setup`: ValueError (shown to the organiser) for a player count outside the
        game's range or a refused option, else every option by name (`read_options`)."""
        check_players(self, players)
        return read_options(self, players, options)

    def final_rows(self, state: State) -> list[dict[str, Any]] | None:
        """The final table for the view once the game is over (`outcome` as rows), else None."""
        standings = self.outcome(state)
        return None if standings is None else [self.final_row(state, standing) for standing in standings]

    def final_row(self, state: State, standing: Standing) -> dict[str, Any]:
        return {
            "seat": standing.seat,
            self.final_name_key: self.seat_name(state, standing.seat),
            "score": standing.score,
            "rank": standing.rank,
            "detail": standing.detail,
        }

    # --- the contract, from the decisions table ---------------------------------------------------------

    def prompts(self, state: State) -> dict[int, Prompt]:
        seats = self.asked(state)
        if not seats:
            return {}
        prompt = self.decisions[state["step"]].prompt
        return {seat: prompt(state, seat) for seat in seats}

    def validate(self, state: State, seat: int, order: Order) -> Order:
        self._check_asked(state, seat)
        if not isinstance(order, dict):
            raise OrderError(M("An order must be a form with named fields."))
        return self.decisions[state["step"]].validate(state, seat, order)

    def _check_asked(self, state: State, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seat_count(state):
            raise OrderError(self.no_such_seat)
        if seat not in self.asked(state):
            raise OrderError(self.not_asked_reason(state, seat))

    def read_back(self, state: State, seat: int, order: Order) -> ReadBack:
        return self.decisions[state["step"]].read_back(state, seat, order)

    def _builder(self, state: State, seat: int, name: str) -> Builder:
        self._check_asked(state, seat)
        builder = self.decisions[state["step"]].builders.get(name)
        if builder is None:
            raise OrderError(M("This order has no {field} to build step by step.", field=repr(name)))
        return builder

    def next_steps(self, state: State, seat: int, field: str, steps: list[str]) -> NextSteps:
        """The engine's candidates that `validate` accepts after `steps` (or finds only incomplete), the
        order's other fields at their defaults: the rules live once, in `validate`."""
        builder = self._builder(state, seat, field)
        if not isinstance(steps, (list, tuple)) or not all(isinstance(step, str) for step in steps):
            raise OrderError(M("The steps so far must be a list of steps."))
        others = self.default_order(state, seat)

        def verdict(trial: list[str]) -> tuple[bool, Any]:
            """(may the builder offer these steps, why they are not yet a legal order or "")."""
            try:
                self.validate(state, seat, {**others, field: "; ".join(trial)})
            except OrderIncomplete as error:
                return True, error.message
            except OrderError as error:
                return False, error.message
            return True, ""

        allowed, problem = verdict(list(steps))
        if not allowed:
            return NextSteps((), False, problem)
        choices = tuple(c for c in builder.candidates(state, seat, list(steps)) if verdict([*steps, c.spelled()])[0])
        return NextSteps(choices, not problem, problem)

    def builder_steps(self, state: State, seat: int, field: str, text: str) -> list[str]:
        builder = self.decisions[state["step"]].builders.get(field) if not state["finished"] else None
        return builder.split(state, text) if builder else split_steps(text)

    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        new_state = copy_state(state)
        seats = self.asked(new_state)
        if not seats:
            return new_state, []
        by_seat = {int(seat): order for seat, order in orders.items()}
        owed = {seat: self._owed(new_state, seat, by_seat.get(seat)) for seat in seats}
        events: list[Event] = []
        self.decisions[new_state["step"]].resolve(new_state, owed, rng, events)
        standings = self.outcome(new_state)
        if standings is not None:
            entries = [self._final_entry(new_state, standing) for standing in standings]
            text = Msg(self.final_text.id, {"standings": joined(entries, ";")}, context=self.final_text.context)
            events.append(Event(text, data={"kind": "final"}))
        return new_state, events

    def _owed(self, state: State, seat: int, order: Order | None) -> Order:
        if order is not None:
            try:
                return self.validate(state, seat, order)
            except OrderError:
                pass  # a stale order counts as a missed deadline
        return self.validate(state, seat, self.default_order(state, seat))

    def _final_entry(self, state: State, standing: Standing) -> Msg | str:
        said = {
            "rank": standing.rank,
            "name": self.seat_name(state, standing.seat),
            "score": standing.score,
            "detail": standing.detail,
        }
        if isinstance(self.final_entry, Msg):
            return Msg(self.final_entry.id, said, context=self.final_entry.context)
        return self.final_entry.format(**said)

    def default_order(self, state: State, seat: int) -> Order:
        return self.decisions[state["step"]].default(state, seat)

    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        return self.decisions[state["step"]].random(state, seat, rng)


# --- players and options (a ValueError's message is shown to the organiser as it is) ------------------


def game_name(engine: Engine) -> Msg:
    """The game's name as a message (its catalogue entries, context "game name": games/words.py GAME_TITLES)."""
    return Mp("game name", engine.title)


def check_players(engine: Engine, players: Any) -> None:
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(M("The number of players must be a whole number."))
    if not engine.min_players <= players <= engine.max_players:
        raise ValueError(
            M(
                "{game} needs {least} to {most} players, not {count}.",
                game=game_name(engine),
                least=engine.min_players,
                most=engine.max_players,
                count=players,
            )
        )


def read_options(engine: DecisionEngine, players: int, options: Any) -> dict[str, Any]:
    """Every option of `engine` by name: its default where the organiser left it blank (missing, null, ""
    or []), else the value checked against its OptionSpec. Unknown names are refused."""
    if not isinstance(options, dict):
        raise ValueError(M("Options must be a mapping of option names to values."))
    unknown = sorted(set(options) - {spec.name for spec in engine.options})
    if unknown:
        raise ValueError(
            M("{game} has no option called {names}.", game=game_name(engine), names=", ".join(map(repr, unknown)))
        )
    chosen = {spec.name: _read_option(engine, spec, players, options.get(spec.name)) for spec in engine.options}
    engine.check_options(players, chosen)
    return chosen


def _read_option(engine: DecisionEngine, spec: OptionSpec, players: int, value: Any) -> Any:
    blank = value is None or value == "" or value == []
    if spec.kind == "integer":
        return spec.default if blank else _integer(spec, value)
    if spec.kind == "choice":
        return spec.default if blank else _choice(spec, value)
    if spec.kind == "seat-list":
        return [None] * players if blank else _seat_list(engine, spec, players, value)
    raise ValueError(M("Option {name} has an unknown kind {kind}.", name=spec.name, kind=repr(spec.kind)))


def _integer(spec: OptionSpec, value: Any) -> int:
    if isinstance(value, str) and DIGITS.fullmatch(value):
        value = int(value)  # typed as text, e.g. in a form
    if isinstance(value, bool) or not isinstance(value, int) or not spec.min <= value <= spec.max:
        raise ValueError(
            spec.error
            or M(
                "The {name} option must be a whole number from {least} to {most}.",
                name=spec.name,
                least=spec.min,
                most=spec.max,
            )
        )
    return value


def _choice(spec: OptionSpec, value: Any) -> str:
    """The choice's value; JSON true/false stand for "yes"/"no" and a whole number for its digits."""
    if isinstance(value, bool):
        value = "yes" if value else "no"
    elif isinstance(value, int):
        value = str(value)
    values = [choice.value for choice in spec.choices]
    if not isinstance(value, str) or value not in values:
        raise ValueError(
            spec.error or M("Option {name} must be one of {values}.", name=spec.name, values=", ".join(sorted(values)))
        )
    return value


def _seat_list(engine: DecisionEngine, spec: OptionSpec, players: int, value: Any) -> list[str | None]:
    """One choice per seat, named in any case; a blank entry is None (the engine decides it)."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(
            M("The {name} option must be a list with one {item} per seat.", name=spec.name, item=spec.item)
        )
    if len(value) != players:
        raise ValueError(
            M(
                "The {name} option names {count} {name} for {seats} seats.",
                name=spec.name,
                count=len(value),
                seats=players,
            )
        )
    by_name = {choice.value.lower(): choice.value for choice in spec.choices}
    chosen: list[str | None] = []
    for name in value:
        if name in (None, ""):
            chosen.append(None)
            continue
        if not isinstance(name, str):
            raise ValueError(
                M("{what} are given by name; {typed} is not a name.", what=spec.name.capitalize(), typed=repr(name))
            )
        refusal = engine.option_refusal(spec, name)
        if refusal:
            raise ValueError(refusal)
        if name.strip().lower() not in by_name:
            names = ", ".join(choice.value for choice in spec.choices)
            raise ValueError(
                M("Unknown {item} {typed}; choose from {names}.", item=spec.item, typed=repr(name), names=names)
            )
        chosen.append(by_name[name.strip().lower()])
    return chosen
