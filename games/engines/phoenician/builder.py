"""The order builder's candidate steps for a ship's turn, spelled as the typed syntax spells them
(`steps.spell`). They are worked out on the ship as the steps so far leave it; the engine kit keeps those
`validate` accepts, so the rules stay in `play`."""

from __future__ import annotations

from collections.abc import Iterator

from games.engines.base import M, Mn, OrderError, State, StepChoice
from games.engines.kit import Builder, copy_state
from games.engines.phoenician.actions import apply_steps, centre_at, pirate_path, storm_problem
from games.engines.phoenician.data import (
    BUY_PRICE,
    CENTRES,
    COLOURS,
    COMMODITIES,
    DIRECTIONS,
    HOLD_MAX,
    ROW,
    SAIL_CARDS,
    SQUARES,
    STORM,
    WIND,
    card_name,
    centre_name,
    colour,
    distance,
    gold,
    good_name,
    square_name,
)
from games.engines.phoenician.syntax import PASS_WORDS, PHASE_OF, Step, parse, spell


def _after(state: State, seat: int, chosen: list[str]) -> tuple[State, list[Step]] | None:
    """The state the steps so far leave (on a copy) and those steps; None if they cannot be played."""
    sim = copy_state(state)
    try:
        steps = parse("; ".join(chosen), state["players"], complete=False)
        apply_steps(sim, seat, steps, [])
    except OrderError:
        return None
    return sim, steps


def turn_candidates(state: State, seat: int, chosen: list[str]) -> Iterator[StepChoice]:
    after = _after(state, seat, chosen)
    if after is None:
        return
    sim, steps = after
    if sim["finished"]:
        return
    if steps and steps[-1][0] == "offer":
        yield from _offer_cards(sim, seat, steps[-1][1])
        return
    phase = PHASE_OF[steps[-1][0]] if steps else 0
    if phase == 0:
        yield from _sailing(sim, seat)
        yield from _trading(sim, seat)
        yield from _offers(sim, seat)
    if phase <= 2:
        yield from _piracy(sim, seat)
        if STORM in sim["hands"][seat]:
            for square in range(SQUARES):
                if not storm_problem(sim, seat, square):
                    label = M("Raise a storm at {square}", square=square_name(square))
                    yield StepChoice(f"storm {square_name(square)}", label)


def _sailing(sim: State, seat: int) -> Iterator[StepChoice]:
    hand = sim["hands"][seat]
    for direction in DIRECTIONS:
        if ROW in hand:
            label = M("Row {direction} 1 space (a {card} card)", direction=WIND[direction], card=card_name(ROW))
            yield StepChoice(f"row {direction}", label)
        if SAIL_CARDS[direction] in hand:
            for spaces in (1, 2):
                yield StepChoice(
                    f"sail {direction} {spaces}",
                    Mn(
                        "Sail {direction} {count} space (a {card} card)",
                        "Sail {direction} {count} spaces (a {card} card)",
                        spaces,
                        direction=WIND[direction],
                        card=card_name(SAIL_CARDS[direction]),
                    ),
                )


def _trading(sim: State, seat: int) -> Iterator[StepChoice]:
    centre = centre_at(sim, sim["ships"][seat])
    if centre is None:
        return
    commodity, desired = CENTRES[centre]
    most = min(sim["hands"][seat].count(commodity), HOLD_MAX - len(sim["holds"][seat]), sim["gold"][seat] // BUY_PRICE)
    if most:
        sold = good_name(commodity)
        yield StepChoice(
            "buy", M("Buy all the {good} you can ({count}, {gold})", good=sold, count=most, gold=gold(most * BUY_PRICE))
        )
        for count in range(1, most + 1):
            label = M("Buy {count} {good} ({gold})", count=count, good=sold, gold=gold(count * BUY_PRICE))
            yield StepChoice(f"buy {count}", label)
    hold = sim["holds"][seat]
    if any(card != commodity for card in hold):
        yield StepChoice("sell all", M("Sell everything in your hold that {centre} buys", centre=centre_name(centre)))
    for good in COMMODITIES:
        count = hold.count(good)
        if good == commodity or not count:
            continue
        said = {"good": good_name(good), "count": count}
        yield StepChoice(
            f"sell {good.lower()}",
            M("Sell all your {good} ({count}) — most desired here", **said)
            if good == desired
            else M("Sell all your {good} ({count})", **said),
        )
        for some in range(1, count + 1):
            yield StepChoice(f"sell {some} {good.lower()}", M("Sell {count} {good}", count=some, good=good_name(good)))


def _offers(sim: State, seat: int) -> Iterator[StepChoice]:
    here = sim["ships"][seat]
    for other, ship in enumerate(sim["ships"]):
        if other != seat and ship is not None and distance(ship, here) <= 1 and other not in sim["offered"]:
            label = M("Offer a trade to {ship} (the cards come next)", ship=colour(other))
            yield StepChoice(f"offer {COLOURS[other]}", label)


def _offer_cards(sim: State, seat: int, target: int) -> Iterator[StepChoice]:
    """Cards for the offer just begun: any of yours; any of the other hold, or any commodity from the other
    hand (that hand is secret: the other ship says whether it can when it answers)."""
    other = colour(target)
    for good in COMMODITIES:
        if good in sim["hands"][seat]:
            yield StepChoice(f"give hand {good.lower()}", M("Give 1 {good} from your hand", good=good_name(good)))
    for good in COMMODITIES:
        if good in sim["holds"][seat]:
            yield StepChoice(f"give hold {good.lower()}", M("Give 1 {good} from your hold", good=good_name(good)))
    for good in COMMODITIES:
        if good in sim["holds"][target]:
            label = M("Ask for 1 {good} from {ship}'s hold", good=good_name(good), ship=other)
            yield StepChoice(f"want hold {good.lower()}", label)
    for good in COMMODITIES:
        label = M("Ask for 1 {good} from {ship}'s hand", good=good_name(good), ship=other)
        yield StepChoice(f"want hand {good.lower()}", label)


def _piracy(sim: State, seat: int) -> Iterator[StepChoice]:
    for direction, card in SAIL_CARDS.items():
        if card not in sim["hands"][seat]:
            continue
        for number in range(1, len(sim["pirates"]) + 1):
            for spaces in (1, 2):
                try:
                    path = pirate_path(sim, number, direction, spaces)
                except OrderError:
                    continue
                label = M(
                    "Move pirate {number} {direction} {spaces} to {square} (a {card} card)",
                    number=number,
                    direction=WIND[direction],
                    spaces=spaces,
                    square=square_name(path[-1]),
                    card=card_name(card),
                )
                yield StepChoice(f"pirate {number} {direction} {spaces}", label)


def builder_steps(state: State, text: str) -> list[str]:
    """A turn as the builder's steps: an offer becomes 'offer <ship>' and one 'give'/'want' per card."""
    try:
        steps = parse(text, state["players"], complete=False)
    except OrderError:
        return [part for part in text.split(";") if part.strip().lower() not in PASS_WORDS]
    result: list[str] = []
    for step in steps:
        if step[0] != "offer":
            result.append(spell(step))
            continue
        result.append(f"offer {COLOURS[step[1]]}")
        result += [f"give {place} {good.lower()}" for place, good in step[2]]
        result += [f"want {place} {good.lower()}" for place, good in step[3]]
    return result


TURN = Builder(turn_candidates, builder_steps)
