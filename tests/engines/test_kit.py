"""The engine kit (games/engines/kit.py), under every engine built on it: player counts, options read from their
OptionSpec, the guards of `validate`, and what `resolve` does with a missing or stale order."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engines import all_engines, get_engine
from games.engines.base import Engine, OptionSpec, OrderError
from games.engines.kit import Placing, ranked

ENGINES = all_engines()


def specs(*kinds: str) -> list[Any]:
    """(engine, spec) for every option of the given kinds (all kinds if none), named slug:option."""
    return [
        pytest.param(engine, spec, id=f"{engine.slug}:{spec.name}")
        for engine in ENGINES
        for spec in engine.options
        if not kinds or spec.kind in kinds
    ]


def setup(engine: Engine, options: Any, players: int | None = None) -> Any:
    return engine.setup(engine.min_players if players is None else players, options, random.Random(7))


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_a_player_count_outside_the_games_range_names_the_range(engine: Engine) -> None:
    expected = f"{engine.title} needs {engine.min_players} to {engine.max_players} players"
    for players in (engine.min_players - 1, engine.max_players + 1):
        with pytest.raises(ValueError, match=expected):
            setup(engine, {}, players)
    not_whole: list[Any] = [True, "3", 3.0]
    for wrong in not_whole:
        with pytest.raises(ValueError, match="The number of players must be a whole number"):
            setup(engine, {}, wrong)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_unknown_options_are_named_and_options_must_be_a_mapping(engine: Engine) -> None:
    with pytest.raises(ValueError, match=f"^{engine.title} has no option called 'alpha', 'zeta'.$"):
        setup(engine, {"zeta": 1, "alpha": 2})
    with pytest.raises(ValueError, match="Options must be a mapping of option names to values"):
        setup(engine, ["alpha"])


@pytest.mark.parametrize(("engine", "spec"), specs())
def test_an_option_left_blank_takes_its_default(engine: Engine, spec: OptionSpec) -> None:
    """Null, "" and [] all mean "not given" (a form's empty field, a JSON null or an empty list)."""
    blanks: list[Any] = [None, "", []]
    for blank in blanks:
        assert setup(engine, {spec.name: blank}) == setup(engine, {}), blank


@pytest.mark.parametrize(("engine", "spec"), specs())
def test_an_option_of_the_wrong_shape_is_refused_with_a_message_not_a_crash(engine: Engine, spec: OptionSpec) -> None:
    for value in (["x"], {"a": 1}, 4.0, 3.5, "zzz", -1):
        with pytest.raises(ValueError) as refused:
            setup(engine, {spec.name: value})
        assert spec.name in str(refused.value) or spec.error == str(refused.value) or spec.item in str(refused.value)


@pytest.mark.parametrize(("engine", "spec"), specs("integer"))
def test_an_integer_option_takes_its_bounds_also_typed_as_text_and_nothing_beyond(
    engine: Engine, spec: OptionSpec
) -> None:
    for value in (spec.min, spec.max, str(spec.min), str(spec.max)):
        setup(engine, {spec.name: value})
    for value in (spec.min - 1, spec.max + 1, str(spec.max + 1), True, " 2", "²"):
        with pytest.raises(ValueError):
            setup(engine, {spec.name: value})


@pytest.mark.parametrize(("engine", "spec"), specs("choice"))
def test_a_choice_option_takes_each_declared_value_and_nothing_else(engine: Engine, spec: OptionSpec) -> None:
    states = [setup(engine, {spec.name: choice.value}) for choice in spec.choices]
    assert all(states), "each choice starts a game"
    with pytest.raises(ValueError, match="must be one of|is 'yes' or 'no'"):
        setup(engine, {spec.name: "no such choice"})


def test_json_true_and_false_stand_for_yes_and_no() -> None:
    manila = get_engine("manila")
    assert setup(manila, {"displacing_pirates": True}) == setup(manila, {"displacing_pirates": "yes"})
    assert setup(manila, {"displacing_pirates": False}) == setup(manila, {"displacing_pirates": "no"})


def test_a_whole_number_picks_the_choice_of_its_digits() -> None:
    ports = get_engine("ports-of-call")
    assert setup(ports, {"years": 5}) == setup(ports, {"years": "5"})
    with pytest.raises(ValueError, match="^Option years must be one of 3, 4, 5.$"):
        setup(ports, {"years": 6})


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_validate_refuses_a_seat_that_does_not_exist_and_an_order_that_is_not_a_form(engine: Engine) -> None:
    state = setup(engine, {})
    players = engine.min_players
    for seat in (-1, players, True, "0"):
        with pytest.raises(OrderError, match=r"^There is no such (seat|ship) in this game.$"):
            engine.validate(state, seat, {})  # type: ignore[arg-type]
    asked = next(iter(engine.prompts(state)))
    not_forms: list[Any] = [None, [], "order"]
    for order in not_forms:
        with pytest.raises(OrderError, match="^An order must be a form with named fields.$"):
            engine.validate(state, asked, order)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_a_missing_or_stale_order_is_resolved_as_the_seats_default(engine: Engine) -> None:
    state = setup(engine, {})
    defaults = {seat: engine.default_order(state, seat) for seat in engine.prompts(state)}
    stale: dict[int, Any] = {seat: {"nonsense": "x" * 10} for seat in defaults}
    expected = engine.resolve(state, defaults, random.Random(3))
    assert engine.resolve(state, {}, random.Random(3)) == expected
    assert engine.resolve(state, stale, random.Random(3)) == expected


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_the_final_view_and_event_rank_every_seat_by_its_name(engine: Engine) -> None:
    rng = random.Random(11)
    state = setup(engine, {})
    events: list[Any] = []
    while engine.prompts(state):
        orders = {seat: engine.random_order(state, seat, rng) for seat in engine.prompts(state)}
        state, events = engine.resolve(state, orders, random.Random(rng.random()))
    standings = engine.outcome(state)
    assert standings is not None and events[-1].data == {"kind": "final"}
    names = [engine.seat_name(state, standing.seat) for standing in standings]
    assert all(name in events[-1].text for name in names)
    rows = engine.view(state, None)["final"]
    assert [row["seat"] for row in rows] == [standing.seat for standing in standings]
    for row, name in zip(rows, names, strict=True):
        named = [key for key in row if key not in {"seat", "score", "rank", "detail"}]
        assert len(named) == 1 and row[named[0]] == name, row  # the seat's name, and nothing else


# The shared ranking of final standings (ranked), which every engine but Ports of Call uses with its own order.
def test_equal_orders_share_the_first_rank_and_the_next_rank_skips():
    placings = [
        Placing(0, (-5,), 5, "a"),
        Placing(1, (-9,), 9, "b"),
        Placing(2, (-5,), 5, "c"),
        Placing(3, (-1,), 1, "d"),
    ]
    assert [(s.seat, s.rank, s.score, s.detail) for s in ranked(placings)] == [
        (1, 1, 9, "b"),
        (0, 2, 5, "a"),
        (2, 2, 5, "c"),
        (3, 4, 1, "d"),
    ]


def test_the_tie_break_decides_before_a_shared_rank():
    # Equal score, the second key apart: no shared rank; listed by the key, not by seat.
    placings = [Placing(0, (-5, 2), 5, ""), Placing(1, (-5, 1), 5, "")]
    assert [(s.seat, s.rank) for s in ranked(placings)] == [(1, 1), (0, 2)]
