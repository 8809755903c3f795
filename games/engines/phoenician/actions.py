"""What the steps of a ship's turn do: `apply_steps` applies a parsed turn order step by step (sail, buy,
sell, offer, pirate, storm); flow.py runs the automatic steps around it (wind draw, end of turn).

`apply_steps` works on the state it is given and raises OrderError at the first illegal step; `validate`
runs it on a throwaway copy, so a rejected order changes nothing. The error names the step and why, in
the game's words, and never mentions another player's hand.
"""

from __future__ import annotations

from collections import Counter

from games.engines.base import Event, OrderError, State
from games.engines.phoenician.data import (
    BUY_PRICE,
    CENTRES,
    COLOURS,
    DESIRED_PRICE,
    HOLD_MAX,
    ROW,
    SAIL_CARDS,
    SELL_PRICE,
    STORM,
    WIN_GOLD,
    card_list,
    distance,
    square_name,
    step,
)
from games.engines.phoenician.syntax import Step, spell

CENTRE_NAMES = tuple(CENTRES)


def centre_at(state: State, square: int | None) -> str | None:
    if square is None or square not in state["centres"]:
        return None
    return CENTRE_NAMES[state["centres"].index(square)]


def storm_squares(state: State) -> set[int]:
    return {storm[0] for storm in state["storms"]}


def remove_old_storms(state: State, seat: int, events: list[Event]) -> None:
    """'Remove from play any Storm counters you played on previous turns.'"""
    kept = []
    for storm in state["storms"]:
        if storm[1] == seat and storm[2] != state["round"]:
            events.append(Event(f"{COLOURS[seat]}'s storm at {square_name(storm[0])} blows over."))
        else:
            kept.append(storm)
    state["storms"] = kept


# --- one turn order --------------------------------------------------------------------------------


def apply_steps(state: State, seat: int, steps: list[Step], events: list[Event]) -> None:
    """Apply every step in order; stops early when a sale wins the game. Raises OrderError."""
    for number, parsed in enumerate(steps, start=1):
        try:
            APPLY[parsed[0]](state, seat, parsed, events)
        except OrderError as error:
            raise OrderError(f"Step {number} ('{spell(parsed)}'): {error}") from None
        if state["finished"]:
            return


def _play_card(state: State, seat: int, card: str) -> None:
    if card not in state["hands"][seat]:
        raise OrderError(f"you have no {card} card in your hand.")
    state["hands"][seat].remove(card)
    state["discard"].append(card)


def ship_target(state: State, square: int, direction: str, spaces: int) -> int:
    """Where a ship at `square` ends after moving `spaces` in `direction`; OrderError if it cannot."""
    blocked = set(state["land"]) | storm_squares(state) | set(state["pirates"])
    for number in range(spaces):
        if number and centre_at(state, square):
            raise OrderError(f"a ship must stop on entering {centre_at(state, square)}.")
        ahead = step(square, direction)
        if ahead is None:
            raise OrderError("that would sail off the map.")
        if ahead in blocked:
            raise OrderError(f"{square_name(ahead)} is blocked by {_blocker(state, ahead)}.")
        square = ahead
    return square


def _sail(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    kind, direction = parsed[0], parsed[1]
    spaces = parsed[2] if kind == "sail" else 1
    card = SAIL_CARDS[direction] if kind == "sail" else ROW
    square = ship_target(state, state["ships"][seat], direction, spaces)
    _play_card(state, seat, card)
    state["ships"][seat] = square
    where = f" ({centre_at(state, square)})" if centre_at(state, square) else ""
    verb = f"rows {direction}" if kind == "row" else f"sails {direction} {spaces} ({card})"
    events.append(Event(f"{COLOURS[seat]} {verb} to {square_name(square)}{where}."))


def _blocker(state: State, square: int) -> str:
    if square in state["land"]:
        return "land"
    if square in state["pirates"]:
        return "a pirate ship"
    return "a storm"


def _here(state: State, seat: int, verb: str) -> tuple[str, str, str]:
    centre = centre_at(state, state["ships"][seat])
    if centre is None:
        raise OrderError(f"you can {verb} only in a trade centre, and your ship is at sea.")
    return centre, *CENTRES[centre]


def _buy(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    centre, commodity, _ = _here(state, seat, "buy")
    good, amount = parsed[1], parsed[2]
    if good and good != commodity:
        raise OrderError(f"{centre} sells only {commodity}.")
    in_hand = state["hands"][seat].count(commodity)
    room = HOLD_MAX - len(state["holds"][seat])
    affordable = state["gold"][seat] // BUY_PRICE
    wanted = amount or min(in_hand, room, affordable)
    if in_hand < max(wanted, 1):
        raise OrderError(f"to buy {commodity} you need a {commodity} card in your hand for each card you buy.")
    if room < max(wanted, 1):
        raise OrderError(f"your hold takes at most {HOLD_MAX} cards.")
    if affordable < max(wanted, 1):
        raise OrderError(f"you cannot pay {max(wanted, 1) * BUY_PRICE} gold.")
    for _ in range(wanted):
        state["hands"][seat].remove(commodity)
        state["holds"][seat].append(commodity)
    state["gold"][seat] -= wanted * BUY_PRICE
    events.append(Event(f"{COLOURS[seat]} buys {wanted} {commodity} at {centre} for {wanted * BUY_PRICE} gold."))


def _sell(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    centre, commodity, desired = _here(state, seat, "sell")
    good, amount = parsed[1], parsed[2]
    hold = state["holds"][seat]
    if good == commodity:
        raise OrderError(f"{centre} will not buy back the {commodity} it produces.")
    if good == "all":
        sold = [card for card in hold if card != commodity]
        if not sold:
            raise OrderError(f"your hold has nothing {centre} buys.")
    else:
        if hold.count(good) < max(amount, 1):
            raise OrderError(
                f"your hold does not have {max(amount, 1)} {good}: only goods in your hold can be sold"
                " (cards in your hand let you buy goods)."
            )
        sold = [good] * (amount or hold.count(good))
    earned = 0
    for card in sold:
        hold.remove(card)
        state["discard"].append(card)
        earned += DESIRED_PRICE if card == desired else SELL_PRICE
    state["gold"][seat] += earned
    events.append(
        Event(
            f"{COLOURS[seat]} sells {card_list(Counter(sold))} at {centre} for {earned} gold "
            f"(now {state['gold'][seat]})."
        )
    )
    if state["gold"][seat] >= WIN_GOLD:
        # HOUSE DEFAULT (RULES.md): the win is checked after every sale, and the game ends at once.
        state.update(step="over", finished=True, winner=seat, offer=None, drawn=[])
        events.append(Event(f"{COLOURS[seat]} has {state['gold'][seat]} gold and wins!", data={"kind": "win"}))


def offer_problem(state: State, seat: int, target: int, give: list[list[str]], want: list[list[str]]) -> str:
    """Why this offer cannot be made ('' if it can). Only public facts are checked: the other ship's
    hand is secret, so whether it holds the hand cards asked for is checked when it answers."""
    if target == seat:
        return "you cannot trade with yourself."
    if target in state["offered"]:
        return f"you have already made {COLOURS[target]} an offer this turn."
    if distance(state["ships"][seat], state["ships"][target]) > 1:
        return f"{COLOURS[target]}'s ship is not next to yours."
    for place, cards in (("hand", state["hands"][seat]), ("hold", state["holds"][seat])):
        lacking = _lacking(give, place, cards)
        if lacking:
            return f"your {place} does not have {lacking}."
    lacking = _lacking(want, "hold", state["holds"][target])
    if lacking:
        return f"{COLOURS[target]}'s hold does not have {lacking}."
    moved_in = sum(place == "hold" for place, _ in want) - sum(place == "hold" for place, _ in give)
    if len(state["holds"][seat]) + moved_in > HOLD_MAX or len(state["holds"][target]) - moved_in > HOLD_MAX:
        return f"a hold takes at most {HOLD_MAX} cards."
    return ""


def _offer(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    _, target, give, want = parsed
    problem = offer_problem(state, seat, target, give, want)
    if problem:
        raise OrderError(problem)
    state["offered"].append(target)
    state["offer"] = {"from": seat, "to": target, "give": give, "want": want}
    state["step"] = "answer"
    text = f"{COLOURS[seat]} offers {COLOURS[target]} {describe(give)} for {describe(want)}."
    events.append(Event(f"{COLOURS[seat]} makes {COLOURS[target]} a trade offer."))
    events += [Event(text, seat=seat), Event(text, seat=target)]


def describe(items: list[list[str]]) -> str:
    parts = [
        f"{card_list(Counter(good for where, good in items if where == place))} from the {place}"
        for place in ("hand", "hold")
        if any(where == place for where, _ in items)
    ]
    return " and ".join(parts) or "nothing"


def _lacking(items: list[list[str]], place: str, cards: list[str]) -> str:
    """The goods of `items` from `place` that `cards` cannot cover, with the number asked ('' if none)."""
    needed = Counter(good for where, good in items if where == place)
    short = needed - Counter(cards)
    return card_list(Counter({good: needed[good] for good in short})) if short else ""


def accept_problem(state: State) -> str:
    offer = state["offer"]
    lacking = _lacking(offer["want"], "hand", state["hands"][offer["to"]])
    return f"your hand does not have {lacking}, so you can only decline." if lacking else ""


def exchange(state: State) -> None:
    offer = state["offer"]
    for giver, taker, items in (
        (offer["from"], offer["to"], offer["give"]),
        (offer["to"], offer["from"], offer["want"]),
    ):
        for place, good in items:
            pile = "hands" if place == "hand" else "holds"
            state[pile][giver].remove(good)
            state[pile][taker].append(good)


def pirate_path(state: State, number: int, direction: str, spaces: int) -> list[int]:
    """The squares pirate `number` enters; OrderError if it cannot make the move."""
    square = state["pirates"][number - 1]
    blocked = set(state["land"]) | set(state["centres"]) | storm_squares(state) | set(state["pirates"])
    path = []
    for _ in range(spaces):
        ahead = step(square, direction)
        if ahead is None:
            raise OrderError("that would take the pirate off the map.")
        if ahead in blocked:
            what = "a trade centre" if ahead in state["centres"] else _blocker(state, ahead)
            raise OrderError(f"a pirate cannot enter {square_name(ahead)}: {what} is there.")
        path.append(ahead)
        square = ahead
    return path


def _pirate(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    _, number, direction, spaces = parsed
    card = SAIL_CARDS[direction]
    path = pirate_path(state, number, direction, spaces)
    _play_card(state, seat, card)
    robbed: list[str] = []
    # Every space the pirate enters counts as "moved into": a pirate sailing through a ship robs it too.
    for square in path:
        for victim, ship in enumerate(state["ships"]):
            if ship == square and victim != seat and state["holds"][victim]:
                robbed.append(f"{COLOURS[victim]} loses {card_list(Counter(state['holds'][victim]))}")
                state["discard"] += state["holds"][victim]
                state["holds"][victim] = []
    state["pirates"][number - 1] = path[-1]
    text = f"{COLOURS[seat]} moves pirate {number} {direction} {spaces} ({card}) to {square_name(path[-1])}"
    events.append(Event(text + (": robbed! " + "; ".join(robbed) if robbed else "") + "."))


def storm_problem(state: State, seat: int, square: int) -> str:
    """Why a storm cannot go on `square` ('' if it can); the player's own old counters are leaving."""
    if square in state["land"] or square in state["centres"]:
        return f"{square_name(square)} is not open sea."
    own_old = {storm[0] for storm in state["storms"] if storm[1] == seat and storm[2] != state["round"]}
    if square in state["pirates"] or square in state["ships"] or square in storm_squares(state) - own_old:
        return f"{square_name(square)} is not empty."
    return ""


def _storm(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    square = parsed[1]
    if STORM not in state["hands"][seat]:
        raise OrderError("you have no Storm card in your hand.")
    problem = storm_problem(state, seat, square)
    if problem:
        raise OrderError(problem)
    remove_old_storms(state, seat, events)
    _play_card(state, seat, STORM)
    state["storms"].append([square, seat, state["round"]])
    events.append(Event(f"{COLOURS[seat]} plays a Storm card: a storm at {square_name(square)}."))


APPLY = {
    "row": _sail,
    "sail": _sail,
    "buy": _buy,
    "sell": _sell,
    "offer": _offer,
    "pirate": _pirate,
    "storm": _storm,
}
