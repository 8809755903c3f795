"""What the steps of a ship's turn do: `apply_steps` applies a parsed turn order step by step (sail, buy,
sell, offer, pirate, storm); flow.py runs the automatic steps around it (wind draw, end of turn).

`apply_steps` works on the state it is given and raises OrderError at the first illegal step; `validate`
runs it on a throwaway copy, so a rejected order changes nothing. The error names the step and why, in
the game's words, and never mentions another player's hand.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import Event, M, Mp, Msg, OrderError, State, joined
from games.engines.phoenician.data import (
    BUY_PRICE,
    CENTRES,
    DESIRED_PRICE,
    HOLD_MAX,
    ROW,
    SAIL_CARDS,
    SELL_PRICE,
    STORM,
    WIN_GOLD,
    card_list,
    card_name,
    centre_name,
    colour,
    distance,
    gold,
    good_name,
    square_name,
    step,
)
from games.engines.phoenician.syntax import Step, spell, step_problem

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
            events.append(
                Event(M("{ship}'s storm at {square} blows over.", ship=colour(seat), square=square_name(storm[0])))
            )
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
            raise OrderError(step_problem(number, spell(parsed), error.message)) from None
        if state["finished"]:
            return


def _play_card(state: State, seat: int, card: str) -> None:
    if card not in state["hands"][seat]:
        raise OrderError(M("you have no {card} card in your hand.", card=card_name(card)))
    state["hands"][seat].remove(card)
    state["discard"].append(card)


def ship_target(state: State, square: int, direction: str, spaces: int) -> int:
    """Where a ship at `square` ends after moving `spaces` in `direction`; OrderError if it cannot."""
    blocked = set(state["land"]) | storm_squares(state) | set(state["pirates"])
    for number in range(spaces):
        if number and centre_at(state, square):
            raise OrderError(
                M("a ship must stop on entering {centre}.", centre=centre_name(centre_at(state, square) or ""))
            )
        ahead = step(square, direction)
        if ahead is None:
            raise OrderError(M("that would sail off the map."))
        if ahead in blocked:
            raise OrderError(
                M("{square} is blocked by {blocker}.", square=square_name(ahead), blocker=_blocker(state, ahead))
            )
        square = ahead
    return square


def _sail(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    kind, direction = parsed[0], parsed[1]
    spaces = parsed[2] if kind == "sail" else 1
    card = SAIL_CARDS[direction] if kind == "sail" else ROW
    square = ship_target(state, state["ships"][seat], direction, spaces)
    _play_card(state, seat, card)
    state["ships"][seat] = square
    centre = centre_at(state, square)
    said = {"ship": colour(seat), "direction": direction, "square": square_name(square)}
    if kind == "row":
        text = (
            M("{ship} rows {direction} to {square} ({centre}).", **said, centre=centre_name(centre))
            if centre
            else M("{ship} rows {direction} to {square}.", **said)
        )
    else:
        said |= {"spaces": spaces, "card": card_name(card)}
        text = (
            M("{ship} sails {direction} {spaces} ({card}) to {square} ({centre}).", **said, centre=centre_name(centre))
            if centre
            else M("{ship} sails {direction} {spaces} ({card}) to {square}.", **said)
        )
    events.append(Event(text))


def _blocker(state: State, square: int) -> Msg:
    if square in state["land"]:
        return Mp("phoenician blocker", "land")
    if square in state["pirates"]:
        return Mp("phoenician blocker", "a pirate ship")
    return Mp("phoenician blocker", "a storm")


def _here(state: State, seat: int, verb: str) -> tuple[str, str, str]:
    centre = centre_at(state, state["ships"][seat])
    if centre is None:
        if verb == "buy":
            raise OrderError(M("you can buy only in a trade centre, and your ship is at sea."))
        raise OrderError(M("you can sell only in a trade centre, and your ship is at sea."))
    return centre, *CENTRES[centre]


def _buy(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    centre, commodity, _ = _here(state, seat, "buy")
    good, amount = parsed[1], parsed[2]
    if good and good != commodity:
        raise OrderError(M("{centre} sells only {good}.", centre=centre_name(centre), good=good_name(commodity)))
    in_hand = state["hands"][seat].count(commodity)
    room = HOLD_MAX - len(state["holds"][seat])
    affordable = state["gold"][seat] // BUY_PRICE
    wanted = amount or min(in_hand, room, affordable)
    if in_hand < max(wanted, 1):
        raise OrderError(
            M("to buy {good} you need a {good} card in your hand for each card you buy.", good=good_name(commodity))
        )
    if room < max(wanted, 1):
        raise OrderError(M("your hold takes at most {most} cards.", most=HOLD_MAX))
    if affordable < max(wanted, 1):
        raise OrderError(M("you cannot pay {gold}.", gold=gold(max(wanted, 1) * BUY_PRICE)))
    for _ in range(wanted):
        state["hands"][seat].remove(commodity)
        state["holds"][seat].append(commodity)
    state["gold"][seat] -= wanted * BUY_PRICE
    events.append(
        Event(
            M(
                "{ship} buys {count} {good} at {centre} for {gold}.",
                ship=colour(seat),
                count=wanted,
                good=good_name(commodity),
                centre=centre_name(centre),
                gold=gold(wanted * BUY_PRICE),
            )
        )
    )


def _sell(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    centre, commodity, desired = _here(state, seat, "sell")
    good, amount = parsed[1], parsed[2]
    hold = state["holds"][seat]
    if good == commodity:
        raise OrderError(
            M(
                "{centre} will not buy back the {good} it produces.",
                centre=centre_name(centre),
                good=good_name(commodity),
            )
        )
    if good == "all":
        sold = [card for card in hold if card != commodity]
        if not sold:
            raise OrderError(M("your hold has nothing {centre} buys.", centre=centre_name(centre)))
    else:
        if hold.count(good) < max(amount, 1):
            raise OrderError(
                M(
                    "your hold does not have {count} {good}: only goods in your hold can be sold"
                    " (cards in your hand let you buy goods).",
                    count=max(amount, 1),
                    good=good_name(good),
                )
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
            M(
                "{ship} sells {cards} at {centre} for {gold} (now {total}).",
                ship=colour(seat),
                cards=card_list(Counter(sold)),
                centre=centre_name(centre),
                gold=gold(earned),
                total=state["gold"][seat],
            )
        )
    )
    if state["gold"][seat] >= WIN_GOLD:
        # HOUSE DEFAULT (RULES.md): the win is checked after every sale, and the game ends at once.
        state.update(step="over", finished=True, winner=seat, offer=None, drawn=[])
        text = M("{ship} has {gold} and wins!", ship=colour(seat), gold=gold(state["gold"][seat]))
        events.append(Event(text, data={"kind": "win"}))


def offer_problem(state: State, seat: int, target: int, give: list[list[str]], want: list[list[str]]) -> Any:
    """Why this offer cannot be made ('' if it can). Only public facts are checked: the other ship's
    hand is secret, so whether it holds the hand cards asked for is checked when it answers."""
    if target == seat:
        return M("you cannot trade with yourself.")
    if target in state["offered"]:
        return M("you have already made {ship} an offer this turn.", ship=colour(target))
    if distance(state["ships"][seat], state["ships"][target]) > 1:
        return M("{ship}'s ship is not next to yours.", ship=colour(target))
    lacking = _lacking(give, "hand", state["hands"][seat])
    if lacking:
        return M("your hand does not have {cards}.", cards=lacking)
    lacking = _lacking(give, "hold", state["holds"][seat])
    if lacking:
        return M("your hold does not have {cards}.", cards=lacking)
    lacking = _lacking(want, "hold", state["holds"][target])
    if lacking:
        return M("{ship}'s hold does not have {cards}.", ship=colour(target), cards=lacking)
    moved_in = sum(place == "hold" for place, _ in want) - sum(place == "hold" for place, _ in give)
    if len(state["holds"][seat]) + moved_in > HOLD_MAX or len(state["holds"][target]) - moved_in > HOLD_MAX:
        return M("a hold takes at most {most} cards.", most=HOLD_MAX)
    return ""


def _offer(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    _, target, give, want = parsed
    problem = offer_problem(state, seat, target, give, want)
    if problem:
        raise OrderError(problem)
    state["offered"].append(target)
    state["offer"] = {"from": seat, "to": target, "give": give, "want": want}
    state["step"] = "answer"
    ships = {"ship": colour(seat), "other": colour(target)}
    text = M("{ship} offers {other} {give} for {want}.", **ships, give=describe(give), want=describe(want))
    events.append(Event(M("{ship} makes {other} a trade offer.", **ships)))
    events += [Event(text, seat=seat), Event(text, seat=target)]


def describe(items: list[list[str]]) -> Any:
    """ "Wine from the hand and Silk from the hold", or "nothing"."""
    parts = []
    hand = Counter(good for where, good in items if where == "hand")
    if hand:
        parts.append(M("{cards} from the hand", cards=card_list(hand)))
    hold = Counter(good for where, good in items if where == "hold")
    if hold:
        parts.append(M("{cards} from the hold", cards=card_list(hold)))
    return joined(parts) or Mp("phoenician cards", "nothing")


def _lacking(items: list[list[str]], place: str, cards: list[str]) -> Any:
    """The goods of `items` from `place` that `cards` cannot cover, with the number asked ('' if none)."""
    needed = Counter(good for where, good in items if where == place)
    short = needed - Counter(cards)
    return card_list(Counter({good: needed[good] for good in short})) if short else ""


def accept_problem(state: State) -> Any:
    """Why the asked ship cannot accept the offer (a sentence), or ""."""
    offer = state["offer"]
    lacking = _lacking(offer["want"], "hand", state["hands"][offer["to"]])
    return M("Your hand does not have {cards}, so you can only decline.", cards=lacking) if lacking else ""


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
            raise OrderError(M("that would take the pirate off the map."))
        if ahead in blocked:
            what = Mp("phoenician blocker", "a trade centre") if ahead in state["centres"] else _blocker(state, ahead)
            raise OrderError(
                M("a pirate cannot enter {square}: {blocker} is there.", square=square_name(ahead), blocker=what)
            )
        path.append(ahead)
        square = ahead
    return path


def _pirate(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    _, number, direction, spaces = parsed
    card = SAIL_CARDS[direction]
    path = pirate_path(state, number, direction, spaces)
    _play_card(state, seat, card)
    robbed: list[Any] = []
    # Every space the pirate enters counts as "moved into": a pirate sailing through a ship robs it too.
    for square in path:
        for victim, ship in enumerate(state["ships"]):
            if ship == square and victim != seat and state["holds"][victim]:
                robbed.append(
                    M("{ship} loses {cards}", ship=colour(victim), cards=card_list(Counter(state["holds"][victim])))
                )
                state["discard"] += state["holds"][victim]
                state["holds"][victim] = []
    state["pirates"][number - 1] = path[-1]
    said = {
        "ship": colour(seat),
        "number": number,
        "direction": direction,
        "spaces": spaces,
        "card": card_name(card),
        "square": square_name(path[-1]),
    }
    if robbed:
        text = M(
            "{ship} moves pirate {number} {direction} {spaces} ({card}) to {square}: robbed! {robbed}.",
            **said,
            robbed=joined(robbed, ";"),
        )
    else:
        text = M("{ship} moves pirate {number} {direction} {spaces} ({card}) to {square}.", **said)
    events.append(Event(text))


def storm_problem(state: State, seat: int, square: int) -> Any:
    """Why a storm cannot go on `square` ('' if it can); the player's own old counters are leaving."""
    if square in state["land"] or square in state["centres"]:
        return M("{square} is not open sea.", square=square_name(square))
    own_old = {storm[0] for storm in state["storms"] if storm[1] == seat and storm[2] != state["round"]}
    if square in state["pirates"] or square in state["ships"] or square in storm_squares(state) - own_old:
        return M("{square} is not empty.", square=square_name(square))
    return ""


def _storm(state: State, seat: int, parsed: Step, events: list[Event]) -> None:
    square = parsed[1]
    if STORM not in state["hands"][seat]:
        raise OrderError(M("you have no {card} card in your hand.", card=card_name(STORM)))
    problem = storm_problem(state, seat, square)
    if problem:
        raise OrderError(problem)
    remove_old_storms(state, seat, events)
    _play_card(state, seat, STORM)
    state["storms"].append([square, seat, state["round"]])
    text = M(
        "{ship} plays a {card} card: a storm at {square}.",
        ship=colour(seat),
        card=card_name(STORM),
        square=square_name(square),
    )
    events.append(Event(text))


APPLY = {
    "row": _sail,
    "sail": _sail,
    "buy": _buy,
    "sell": _sell,
    "offer": _offer,
    "pirate": _pirate,
    "storm": _storm,
}
