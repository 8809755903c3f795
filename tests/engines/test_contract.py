"""The engine contract, for every registered engine: random play terminates, is deterministic for a
seed, survives a JSON round trip at every step, and neither a seat's view nor the read-back of its order
holds what it may not see (nor does the example order a turn email shows). An engine built on the kit keeps
the state keys the kit reads (`KitState`) in every state."""

from __future__ import annotations

import json
import random
from typing import Any, get_args, get_origin, get_type_hints

import pytest

from games.engines import all_engines
from games.engines.base import Engine, OrderError, ReadBack
from games.engines.kit import DecisionEngine, KitState, copy_state

ENGINES = all_engines()
MAX_STEPS = 5000
# A checked game checks the prompts, orders and read-backs of every step, and the views (every seat's twice,
# about two thirds of a checked game's time) at the first step of each kind of prompt in the game, then at every
# VIEW_EVERY-th step. Over the checked games this reaches every branch of the engines' code that checking every
# view reached (measured with coverage.py's branch arcs, December 2026).
VIEW_EVERY = 4
FIELD_KINDS = {"choice", "multichoice", "integer", "text", "steps"}


def roundtrip(value: Any) -> Any:
    return json.loads(json.dumps(value))


def play(engine: Engine, players: int, seed: int, check: bool = False) -> tuple[Any, list[list[dict]]]:
    """Random-play a whole game; returns the final state and the log, step by step."""
    rng = random.Random(seed)
    state = engine.setup(players, {}, random.Random(f"{seed}:0"))
    log: list[list[dict]] = []
    kinds_viewed: set[str] = set()
    for step in range(1, MAX_STEPS):
        if check:
            check_kit_state(engine, state)
        prompts = engine.prompts(state)
        if not prompts:
            return state, log
        orders = {seat: engine.random_order(state, seat, rng) for seat in prompts}
        if check:
            # Its own random numbers: a checked game plays as the same seed unchecked does.
            check_rng = random.Random(f"{seed}:check:{step}")
            check_step(engine, state, players, prompts, orders, check_rng)
            kinds = {prompt.kind for prompt in prompts.values()}
            if step % VIEW_EVERY == seed % VIEW_EVERY or not kinds <= kinds_viewed:
                kinds_viewed |= kinds
                check_views(engine, state, players, check_rng)
        state_rt = roundtrip(state)
        new_state, events = engine.resolve(
            state_rt, {s: engine.validate(state_rt, s, o) for s, o in orders.items()}, random.Random(f"{seed}:{step}")
        )
        if check:
            assert state_rt == roundtrip(state), "resolve mutated its input state"
            assert copy_state(state) == state_rt, "kit.copy_state is not the JSON round trip"
            assert roundtrip(new_state) == new_state, "state does not survive a JSON round trip"
            for event in events:
                assert event.seat is None or 0 <= event.seat < players
                assert event.text and roundtrip(event.to_json()) == event.to_json()
        log.append([e.to_json() for e in events])
        state = new_state
    pytest.fail(f"{engine.slug}: no end after {MAX_STEPS} steps")


# The method of DecisionEngine that reads each optional KitState key: an engine that overrides it need not
# store the key.
KIT_READERS = {"players": DecisionEngine.seat_count, "asked": DecisionEngine.asked}


def check_kit_state(engine: Engine, state: Any) -> None:
    """A kit engine's state holds each key of KitState with its declared type (an optional key unless the
    engine overrides the method that reads it), names one of its decisions while the game goes on, and asks
    real seats, the ones it prompts."""
    if not isinstance(engine, DecisionEngine):
        return
    assert set(KIT_READERS) == KitState.__optional_keys__, "a KitState key without a reader here"
    for key, declared in get_type_hints(KitState).items():
        reader = KIT_READERS.get(key)
        if reader is not None and getattr(type(engine), reader.__name__) is not reader:
            continue
        assert key in state, f"{engine.slug}: the state has no {key!r} (kit.KitState)"
        value = state[key]
        assert isinstance(value, get_origin(declared) or declared), f"{engine.slug}: {key} is {value!r}"
        for item in value if get_origin(declared) else ():
            assert isinstance(item, get_args(declared)[0]), f"{engine.slug}: {key} holds {item!r}"
    if not state["finished"]:
        assert state["step"] in engine.decisions, f"{engine.slug}: step {state['step']!r} is no decision"
    asked = engine.asked(state)
    assert all(0 <= seat < engine.seat_count(state) for seat in asked), asked
    assert sorted(asked) == sorted(engine.prompts(state)), "the asked seats are not the prompted ones"


def check_step(engine: Engine, state: Any, players: int, prompts: dict, orders: dict, rng: random.Random) -> None:
    for seat, prompt in prompts.items():
        assert prompt.text
        for field in prompt.fields:
            assert field.kind in FIELD_KINDS, field
            if field.kind in {"choice", "multichoice"}:
                assert field.choices, f"{prompt.kind}: {field.name} offers no choice"
        assert roundtrip(prompt.to_json()) == prompt.to_json()
        default = engine.validate(state, seat, engine.default_order(state, seat))  # defaults are legal
        assert engine.validate(state, seat, orders[seat]) == engine.validate(
            state, seat, roundtrip(engine.validate(state, seat, orders[seat]))
        )
        hidden = engine.conceal(state, seat, random.Random(rng.random()))
        for order in (engine.validate(state, seat, orders[seat]), default):
            check_read_back(engine, state, hidden, seat, order)
    not_asked = [s for s in range(players) if s not in prompts]
    for seat in not_asked[:1]:
        with pytest.raises(OrderError):
            engine.validate(state, seat, next(iter(orders.values())))


def check_views(engine: Engine, state: Any, players: int, rng: random.Random) -> None:
    viewers: list[int | None] = [None, *range(players)]
    for seat in viewers:
        view = engine.view(state, seat)
        assert roundtrip(view) == view
        hidden_changed = engine.conceal(state, seat, random.Random(rng.random()))
        assert engine.view(hidden_changed, seat) == view, f"the view of seat {seat} shows hidden information"


def check_read_back(engine: Engine, state: Any, hidden: Any, seat: int, order: dict) -> None:
    """A validated order reads back in sentences, and the same where everything the seat cannot see is
    re-dealt (`conceal`): its words name nothing hidden."""
    read = engine.read_back(state, seat, order)
    assert isinstance(read, ReadBack) and read.lines, f"{engine.slug}: {order} reads back as nothing"
    for line in (*read.lines, *read.warnings):
        assert isinstance(line, str) and line.strip() and line == line.strip(), repr(line)
    assert engine.read_back(hidden, seat, order) == read, f"the read-back of {order} shows hidden information"


# Random games an engine plays here: enough that the last seed to reach a branch (coverage.py arc) of the engine's
# code not reached before, of 200 seeds, comes well inside (December 2026: Ports of Call seed 20, Piraeus 46,
# Manila 87; Genoa 151 and Phoenician 199, which keep all 200).
GAMES = {"ports-of-call": 40, "piraeus": 80, "manila": 120}


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_random_games_end_with_ranked_standings(engine: Engine) -> None:
    for seed in range(GAMES.get(engine.slug, 200)):
        players = engine.min_players + seed % (engine.max_players - engine.min_players + 1)
        state, _ = play(engine, players, seed, check=seed < 20)
        standings = engine.outcome(state)
        assert standings is not None and sorted(s.seat for s in standings) == list(range(players))
        ranks = [s.rank for s in standings]
        assert ranks == sorted(ranks) and ranks[0] == 1


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_a_game_is_deterministic_for_a_seed(engine: Engine) -> None:
    first = play(engine, engine.min_players, seed=42)
    second = play(engine, engine.min_players, seed=42)
    assert json.dumps(first, default=str) == json.dumps(second, default=str)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_the_metadata_is_complete(engine: Engine) -> None:
    assert engine.slug and engine.title and 1 <= engine.min_players <= engine.max_players
    state = engine.setup(engine.min_players, {}, random.Random(1))
    assert engine.prompts(state), "a new game must ask something"
    assert engine.outcome(state) is None
    assert engine.phase_name(state)


def test_a_prompt_serialises_every_field_attribute() -> None:
    from dataclasses import asdict

    from games.engines.base import Choice, Field, Prompt

    field = Field("bid", "integer", "Your bid", (Choice("a", "A"),), min=2, max=9, repeat=True, help="h")
    prompt = Prompt("bid", "Bid now.", (field,))
    expected = {
        "kind": "bid",
        "text": "Bid now.",
        "fields": [{**asdict(field), "choices": [{"value": "a", "label": "A"}]}],
    }
    assert prompt.to_json() == expected


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_an_example_order_is_legal_shows_every_field_and_names_nothing_hidden(engine: Engine) -> None:
    """The turn email's reply example (`example_order`) at every 3rd decision of a few random games."""
    for seed in range(3):
        rng = random.Random(seed)
        players = engine.min_players + seed % (engine.max_players - engine.min_players + 1)
        state = engine.setup(players, {}, random.Random(f"{seed}:0"))
        for step in range(1, MAX_STEPS):
            prompts = engine.prompts(state)
            if not prompts:
                break
            for seat, prompt in prompts.items() if step % 3 == 1 else ():
                example = engine.example_order(state, seat)
                assert engine.validate(state, seat, example) == example
                assert {field.name for field in prompt.fields} <= set(example)
                hidden = engine.conceal(state, seat, random.Random(rng.random()))
                try:
                    concealed = engine.example_order(hidden, seat)
                except OrderError:
                    continue  # re-dealt so that the seat's default is no longer legal (Genoa's hidden ducats)
                assert concealed == example, f"the example for seat {seat} shows hidden information"
            orders = {seat: engine.random_order(state, seat, rng) for seat in prompts}
            state, _ = engine.resolve(state, orders, random.Random(f"{seed}:{step}"))
        for seat in range(players):
            if seat not in engine.prompts(state):
                with pytest.raises(OrderError):
                    engine.example_order(state, seat)


def test_copy_state_is_a_json_round_trip() -> None:
    """kit.copy_state gives what json.loads(json.dumps(...)) gives, sharing nothing changeable with its input:
    for plain JSON by its own walk, for anything else by the round trip itself (its conversions and errors)."""
    plain: dict[str, Any] = {"a": [1, -0.0, 2.5, True, None, "é", {"b": [[], {}]}], "c": {"d": [[1, 2], [3]]}}
    copied = copy_state(plain)
    assert copied == roundtrip(plain) and list(copied) == list(plain)
    assert copied["a"] is not plain["a"] and copied["c"]["d"][0] is not plain["c"]["d"][0]
    copied["a"][6]["b"].append(1)
    assert plain["a"][6]["b"] == [[], {}]
    odd: dict[Any, Any] = {"t": (1, [2]), "n": float("nan"), 3: "an int key", "bool": False}
    assert (
        json.dumps(copy_state(odd))
        == json.dumps(roundtrip(odd))
        == json.dumps({"t": [1, [2]], "n": float("nan"), "3": "an int key", "bool": False})
    )
    with pytest.raises(TypeError):
        copy_state({"s": {1, 2}})
