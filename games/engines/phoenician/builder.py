"""The order builder's candidate steps for a ship's turn, spelled as the typed syntax spells them
(`steps.spell`). They are worked out on the ship as the steps so far leave it; the engine kit keeps those
`validate` accepts, so the rules stay in `play`."""

from __future__ import annotations

from collections.abc import Iterator

from games.engines.base import OrderError, State, StepChoice
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
    distance,
    square_name,
)
from games.engines.phoenician.syntax import PASS_WORDS, PHASE_OF, Step, parse, spell

WIND = {
    "N": "north",
    "NE": "north-east",
    "E": "east",
    "SE": "south-east",
    "S": "south",
    "SW": "south-west",
    "W": "west",
    "NW": "north-west",
}


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
                    yield StepChoice(f"storm {square_name(square)}", f"Raise a storm at {square_name(square)}")


def _sailing(sim: State, seat: int) -> Iterator[StepChoice]:
    hand = sim["hands"][seat]
    for direction in DIRECTIONS:
        if ROW in hand:
            yield StepChoice(f"row {direction}", f"Row {WIND[direction]} 1 space (a Row card)")
        if SAIL_CARDS[direction] in hand:
            for spaces in (1, 2):
                word = "space" if spaces == 1 else "spaces"
                yield StepChoice(
                    f"sail {direction} {spaces}",
                    f"Sail {WIND[direction]} {spaces} {word} (a {SAIL_CARDS[direction]} card)",
                )


def _trading(sim: State, seat: int) -> Iterator[StepChoice]:
    centre = centre_at(sim, sim["ships"][seat])
    if centre is None:
        return
    commodity, desired = CENTRES[centre]
    most = min(sim["hands"][seat].count(commodity), HOLD_MAX - len(sim["holds"][seat]), sim["gold"][seat] // BUY_PRICE)
    if most:
        yield StepChoice("buy", f"Buy all the {commodity} you can ({most}, {most * BUY_PRICE} gold)")
        for count in range(1, most + 1):
            yield StepChoice(f"buy {count}", f"Buy {count} {commodity} ({count * BUY_PRICE} gold)")
    hold = sim["holds"][seat]
    if any(card != commodity for card in hold):
        yield StepChoice("sell all", f"Sell everything in your hold that {centre} buys")
    for good in COMMODITIES:
        count = hold.count(good)
        if good == commodity or not count:
            continue
        yield StepChoice(
            f"sell {good.lower()}",
            f"Sell all your {good} ({count})" + (" — most desired here" if good == desired else ""),
        )
        for some in range(1, count + 1):
            yield StepChoice(f"sell {some} {good.lower()}", f"Sell {some} {good}")


def _offers(sim: State, seat: int) -> Iterator[StepChoice]:
    here = sim["ships"][seat]
    for other, ship in enumerate(sim["ships"]):
        if other != seat and ship is not None and distance(ship, here) <= 1 and other not in sim["offered"]:
            yield StepChoice(f"offer {COLOURS[other]}", f"Offer a trade to {COLOURS[other]} (the cards come next)")


def _offer_cards(sim: State, seat: int, target: int) -> Iterator[StepChoice]:
    """Cards for the offer just begun: any of yours; any of the other hold, or any commodity from the other
    hand (that hand is secret: the other ship says whether it can when it answers)."""
    other = COLOURS[target]
    for place, cards in (("hand", sim["hands"][seat]), ("hold", sim["holds"][seat])):
        for good in COMMODITIES:
            if good in cards:
                yield StepChoice(f"give {place} {good.lower()}", f"Give 1 {good} from your {place}")
    for good in COMMODITIES:
        if good in sim["holds"][target]:
            yield StepChoice(f"want hold {good.lower()}", f"Ask for 1 {good} from {other}'s hold")
    for good in COMMODITIES:
        yield StepChoice(f"want hand {good.lower()}", f"Ask for 1 {good} from {other}'s hand")


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
                label = f"Move pirate {number} {WIND[direction]} {spaces} to {square_name(path[-1])} (a {card} card)"
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
