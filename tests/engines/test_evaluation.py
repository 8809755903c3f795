"""The position evaluations the bots' search scores its truncated play-outs with
(games/engines/evaluation.py and each game's evaluation module): a position that is clearly better for a
seat, in the game's own terms, is worth more to it and gives it a higher reward."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from games.engines import all_engines, get_engine
from games.engines.base import Engine, State
from games.engines.evaluation import Evaluation, evaluation_of, win_chances
from games.engines.kit import copy_state
from games.engines.piraeus.scoring import final_score
from games.engines.search import position_reward

ENGINES = all_engines()
# Where each game keeps the money its end counts: the richer seat is the better placed.
MONEY = {"genoa": "ducats", "manila": "cash", "phoenician": "gold", "piraeus": "cash", "ports-of-call": "stock"}


def midgame(engine: Engine, players: int = 3, phases: int = 12, seed: int = 1) -> State:
    """A game `phases` decisions in, every seat playing random legal orders."""
    rng = random.Random(seed)
    state = engine.setup(players, {}, random.Random(seed))
    for _ in range(phases):
        prompts = engine.prompts(state)
        state, _ = engine.resolve(state, {s: engine.random_order(state, s, rng) for s in prompts}, rng)
    assert engine.outcome(state) is None
    return state


def judge(engine: Engine) -> Evaluation:
    found = evaluation_of(engine)
    assert found is not None, f"{engine.slug} has no evaluation"
    return found


def altered(state: State, change: Callable[[State], None]) -> State:
    """A copy of `state` changed by `change`."""
    changed = copy_state(state)
    change(changed)
    return changed


def assert_better_for(engine: Engine, worse: State, better_state: State, seat: int) -> None:
    evaluation = judge(engine)
    assert evaluation.worth(better_state)[seat] > evaluation.worth(worse)[seat]
    assert position_reward(evaluation, better_state, seat) > position_reward(evaluation, worse, seat)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_every_game_has_an_evaluation_with_a_horizon(engine: Engine) -> None:
    evaluation = judge(engine)
    assert evaluation.scale > 0 and evaluation.horizon > 0
    worths = evaluation.worth(midgame(engine))
    assert len(worths) == 3 and all(isinstance(worth, float | int) for worth in worths)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_more_money_is_a_better_position(engine: Engine) -> None:
    """Money in the game's own terms (cash, gold, ducats, share value) raises the seat's worth and reward,
    and lowers its rivals' rewards."""
    state = midgame(engine)
    key = MONEY[engine.slug]

    def richer(changed: State) -> None:
        changed[key][0] += 30

    rich = altered(state, richer)
    assert_better_for(engine, state, rich, 0)
    evaluation = judge(engine)
    assert position_reward(evaluation, rich, 1) < position_reward(evaluation, state, 1)


def test_a_clear_lead_is_a_likely_win() -> None:
    chances = win_chances([10.0, 0.0, 0.0], scale=5.0)
    assert chances[0] > 0.75 and chances[1] == chances[2] and sum(chances) == pytest.approx(1)
    assert win_chances([3.0, 3.0], scale=1.0) == [0.5, 0.5]


def test_phoenician_goods_in_the_hold_are_worth_part_of_their_sale() -> None:
    engine = get_engine("phoenician")
    state = midgame(engine)

    def loaded(changed: State) -> None:
        changed["holds"][0] = ["Spices", "Spices"]

    empty = altered(state, lambda changed: changed["holds"].__setitem__(0, []))
    assert_better_for(engine, empty, altered(empty, loaded), 0)
    # Not worth as much as the most gold they may sell for: a sale is still a voyage away.
    sold = altered(empty, lambda changed: changed["gold"].__setitem__(0, changed["gold"][0] + 6))
    assert_better_for(engine, altered(empty, loaded), sold, 0)


def test_phoenician_the_winner_is_worth_most() -> None:
    engine = get_engine("phoenician")
    state = midgame(engine)
    won = altered(state, lambda changed: changed.update(winner=1))
    assert judge(engine).worth(won)[1] == max(judge(engine).worth(won))


def test_ports_of_call_a_bankrupt_company_is_worth_least_and_an_open_order_costs_late() -> None:
    engine = get_engine("ports-of-call")
    state = midgame(engine, phases=20)
    ruined = altered(state, lambda changed: changed["bankrupt"].__setitem__(0, True))
    assert judge(engine).worth(ruined)[0] < min(judge(engine).worth(state))
    late = altered(state, lambda changed: changed.update(year=changed["options"]["years"], quarter=4))
    fewer = altered(late, lambda changed: changed["orders"][0].clear())
    with_one = altered(fewer, lambda changed: changed["orders"][0].append({"card": 1, "delivered": []}))
    assert_better_for(engine, with_one, fewer, 0)


def test_ports_of_call_cargo_and_delivered_parts_are_worth_something() -> None:
    engine = get_engine("ports-of-call")
    state = midgame(engine, phases=20)

    def unload(changed: State) -> None:
        for ship in changed["ships"][0]:
            ship["cargo"] = []

    empty = altered(state, unload)
    assert empty["ships"][0], "the company has a ship"

    def load(changed: State) -> None:
        changed["ships"][0][0]["cargo"] = ["oil"]

    assert_better_for(engine, empty, altered(empty, load), 0)


def test_genoa_a_building_owned_and_goods_held_are_worth_ducats() -> None:
    engine = get_engine("genoa")
    state = midgame(engine)
    bare = altered(state, lambda changed: changed.update(owners={}))
    owner = altered(bare, lambda changed: changed["owners"].__setitem__("harbor", 0))
    assert_better_for(engine, bare, owner, 0)
    goods = altered(bare, lambda changed: changed["goods"].__setitem__(0, [*changed["goods"][0], "silk"]))
    assert_better_for(engine, bare, goods, 0)


def test_manila_a_share_is_worth_at_least_its_ware_value() -> None:
    engine = get_engine("manila")
    state = midgame(engine)
    ware = next(iter(state["values"]))
    richer = altered(state, lambda changed: changed["shares"][0].append(ware))
    assert judge(engine).worth(richer)[0] - judge(engine).worth(state)[0] >= state["values"][ware]


def manila_voyage(position: int, moves: int) -> State:
    """A 3-player voyage after the harbor master's duties: Red the one accomplice, on the first punt at
    `position`, the others on space 3, `moves` rolls made."""
    engine = get_engine("manila")
    state = midgame(engine, phases=2)
    assert state["punts"], "the harbor master has launched the punts"

    def place(changed: State) -> None:
        changed["moves"] = moves
        for punt in changed["punts"]:
            punt["crew"] = [None] * len(punt["crew"])
            punt["pos"], punt["berth"] = 3, None
        first = changed["punts"][0]
        first["crew"][0], first["pos"] = 0, position
        changed["spaces"] = dict.fromkeys(changed["spaces"])

    return altered(state, place)


def test_manila_an_accomplice_nearer_manila_is_worth_more() -> None:
    """The voyage in progress counts: an accomplice on a punt that is likelier to reach Manila is worth more,
    and one with fewer dice left to get there less."""
    engine = get_engine("manila")
    near, far = manila_voyage(11, moves=1), manila_voyage(4, moves=1)
    assert_better_for(engine, far, near, 0)
    assert_better_for(engine, manila_voyage(8, moves=2), manila_voyage(8, moves=1), 0)
    on_its_way = manila_voyage(8, moves=1)
    docked = altered(on_its_way, lambda changed: changed["punts"][0].update(pos=14, berth="port:A"))
    assert_better_for(engine, on_its_way, docked, 0)


def test_manila_a_port_space_is_worth_more_as_punts_near_manila() -> None:
    """Port space C pays when all three punts dock: more likely with the other two nearer Manila."""
    engine = get_engine("manila")
    state = manila_voyage(11, moves=1)

    def nearer(changed: State) -> None:
        for punt in changed["punts"][1:]:
            punt["pos"] = 12

    ahead = altered(state, nearer)
    with_port = [altered(s, lambda changed: changed["spaces"].update({"port:C": 1})) for s in (state, ahead)]
    assert_better_for(engine, with_port[0], with_port[1], 1)
    assert judge(engine).worth(with_port[0])[1] > judge(engine).worth(state)[1]


def test_phoenician_a_hold_nearer_its_buyer_is_worth_more() -> None:
    """Goods in the hold are worth their best sale less the sailing to the centre that pays it: a ship beside
    that centre is ahead of the same ship across the sea."""
    from games.engines.phoenician.data import CENTRES, distance

    engine = get_engine("phoenician")
    state = midgame(engine)
    rome = state["centres"][list(CENTRES).index("Rome")]
    sea = [s for s in range(64) if s not in state["land"] and s not in state["centres"] and s not in state["pirates"]]
    beside = min(sea, key=lambda s: distance(s, rome))
    across = max(sea, key=lambda s: distance(s, rome))

    def at(square: int) -> State:
        """The seat's ship on `square`, its hold empty."""

        def move(changed: State) -> None:
            changed["ships"][0], changed["holds"][0] = square, []

        return altered(state, move)

    def silk(changed: State) -> None:
        changed["holds"][0] = ["Silk", "Silk", "Silk"]  # Rome desires silk: 3 gold each

    assert_better_for(engine, altered(at(across), silk), altered(at(beside), silk), 0)
    # Sold, it is worth more than held, however near.
    sold = altered(at(beside), lambda changed: changed["gold"].__setitem__(0, changed["gold"][0] + 9))
    assert_better_for(engine, altered(at(beside), silk), sold, 0)


def test_phoenician_a_commodity_card_is_worth_its_trade() -> None:
    engine = get_engine("phoenician")
    state = altered(midgame(engine), lambda changed: changed["holds"].__setitem__(0, []))
    more = altered(state, lambda changed: changed["hands"][0].append("Wine"))
    assert_better_for(engine, state, more, 0)


def test_genoa_an_order_is_worth_more_with_its_goods_and_a_contract_with_its_building() -> None:
    from games.engines.genoa.data import CONTRACTS, LARGE_ORDERS, SMALL_ORDERS

    engine = get_engine("genoa")

    def bare(changed: State) -> None:
        changed["hands"][0], changed["goods"][0] = [], []

    state = altered(midgame(engine), bare)
    large, small, contract = "L1", "S1", "C1"
    goods = LARGE_ORDERS[large][1]
    with_large = altered(state, lambda changed: changed["hands"][0].append(large))
    assert_better_for(engine, state, with_large, 0)
    # Each of its commodities held counts for more than the commodity alone.
    stocked = altered(with_large, lambda changed: changed["goods"][0].extend(goods[:2]))
    loose = altered(state, lambda changed: changed["goods"][0].extend(goods[:2]))
    gain = judge(engine).worth(stocked)[0] - judge(engine).worth(with_large)[0]
    assert gain > judge(engine).worth(loose)[0] - judge(engine).worth(state)[0]
    with_small = altered(state, lambda changed: changed["hands"][0].append(small))
    stocked_small = altered(with_small, lambda changed: changed["goods"][0].append(SMALL_ORDERS[small][1]))
    assert_better_for(
        engine, altered(state, lambda changed: changed["goods"][0].append(SMALL_ORDERS[small][1])), stocked_small, 0
    )
    with_contract = altered(state, lambda changed: changed["hands"][0].append(contract))
    owning = altered(with_contract, lambda changed: changed["owners"].__setitem__(CONTRACTS[contract], 0))
    rival = altered(with_contract, lambda changed: changed["owners"].__setitem__(CONTRACTS[contract], 1))
    assert_better_for(engine, rival, owning, 0)
    # Fewer rounds left, an order not delivered yet is worth less.
    late = altered(stocked, lambda changed: changed.update(rounds_left=1))
    assert_better_for(engine, late, stocked, 0)


def test_piraeus_worth_is_the_score_the_end_would_count() -> None:
    engine = get_engine("piraeus")
    state = midgame(engine)
    seat = 0
    expected = final_score(state["cash"][seat], state["collected"][seat], len(state["hands"][seat]))[0]
    assert judge(engine).worth(state)[seat] == expected
    fewer = altered(state, lambda changed: changed["hands"][0].clear())
    if state["hands"][0]:
        assert_better_for(engine, fewer, state, 0)


def test_genoa_a_standing_offer_is_a_likely_payment_to_the_merchant() -> None:
    """While the merchant chooses his route, an offer of ducats counts against the offerer and for the
    merchant (as far as he is likely to take it), so a search does not offer a fortune for a street."""
    from games.engines.genoa.syntax import empty_offer

    engine = get_engine("genoa")
    state = midgame(engine)
    while state["step"] != "route":
        prompts = engine.prompts(state)
        rng = random.Random(2)
        state, _ = engine.resolve(state, {s: engine.random_order(state, s, rng) for s in prompts}, rng)
    merchant = state["turn"]["merchant"]
    offerer = (merchant + 1) % state["players"]

    def offer(ducats: int) -> State:
        def made(changed: State) -> None:
            changed["turn"]["offers"] = [{**empty_offer("2-3"), "seat": offerer, "ducats": ducats}]

        return altered(state, made)

    assert_better_for(engine, offer(100), offer(5), offerer)
    assert_better_for(engine, offer(5), offer(100), merchant)
