"""Each decision's order read back in words. A turn's actions are applied one by one on a copy of the state
and each is said with what it does and costs; a face-down order card is never named (the copy's deck is
not the real one). Warnings: no actions, a boost with no move after it, action points left unused."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import M, Mn, Mp, Msg, Order, ReadBack, State, joined
from games.engines.kit import copy_state
from games.engines.ports_of_call.actions import Turn, ship_place, start_turn
from games.engines.ports_of_call.data import ORDER_CARDS, REGION_OF, SHARE_BUY_AP
from games.engines.ports_of_call.money import city_name, good_name, money, order_label
from games.engines.ports_of_call.trade import containers
from games.engines.ports_of_call.turn import apply_step, split_steps


def points(count: int) -> Msg:
    return Mn("{count} action point", "{count} action points", count)


def read_home(state: State, seat: int, order: Order) -> ReadBack:
    card = order_label(int(order["keep"]))
    line = M(
        "You will make {city} your home city and keep the order card {card}.", city=city_name(order["home"]), card=card
    )
    return ReadBack((line,))


def _ship(state: State, seat: int, sid: str) -> dict:
    return next(ship for ship in state["ships"][seat] if ship["id"] == sid)


def _cost(before: State, after: State, seat: int) -> Msg | None:
    paid = before["cash"][seat] - after["cash"][seat]
    if paid > 0:
        return Mp("ports_of_call read-back", "paying {amount}", amount=money(paid))
    if paid < 0:
        return Mp("ports_of_call read-back", "receiving {amount}", amount=money(-paid))
    return None


def _words(before: State, after: State, seat: int, step: str, ap: int) -> Msg:
    """What one action does, as the rest of 'You will ...': its cost in brackets (" (paying $50M, 1 action
    point)") is the nested message `extra`, empty when it costs nothing."""
    words = step.split()
    verb = words[0]
    parts = [part for part in (_cost(before, after, seat), points(ap) if ap > 0 else None) if part is not None]
    extra: Any = Mp("ports_of_call read-back", " ({costs})", costs=joined(parts, ",")) if parts else ""
    if verb == "move":
        ship = _ship(after, seat, words[1])
        if ship["port"]:
            return M("move {ship} into {city}{extra}", ship=words[1], city=city_name(ship["port"]), extra=extra)
        return Mn(
            "move {ship} {count} space towards {city}{extra}: it is then {place}",
            "move {ship} {count} spaces towards {city}{extra}: it is then {place}",
            int(words[-1]),
            ship=words[1],
            city=city_name(" ".join(words[2:-1])),
            extra=extra,
            place=ship_place(ship),
        )
    if verb == "boost":
        return M("boost {ship} by 1 space{extra}", ship=words[1], extra=extra)
    if verb == "buy":
        ships = words[2:]
        what = containers(len(ships), words[1])
        return M(
            "buy {containers} for {ships}{extra}",
            containers=what,
            ships=joined(list(dict.fromkeys(ships)), ","),
            extra=extra,
        )
    if verb == "sell":
        ship = _ship(before, seat, words[1])
        sold = joined(
            [Mn("{count} {good}", "{count} {good}", n, good=good_name(good)) for good, n in Counter(words[2:]).items()]
        )
        steps = (after["stock"][seat] - before["stock"][seat]) // 10
        said = {"goods": sold, "ship": words[1], "city": city_name(ship["port"]), "extra": extra}
        if steps > 0:
            return M(
                "sell {goods} from {ship} in {city}{extra}, completing an order (+{steps} on the Stock Exchange)",
                steps=steps,
                **said,
            )
        return M("sell {goods} from {ship} in {city}{extra}", **said)
    if verb == "order":
        if words[1:] == ["hidden"]:
            return M("buy a face-down order card{extra}", extra=extra)
        card = next(c for c in before["market"] if " ".join(map(str, ORDER_CARDS[c])) == " ".join(words[1:]))
        return M("buy the order {card} from the market{extra}", card=order_label(card), extra=extra)
    if verb == "ship":
        if words[1] == "small":
            return M("buy a small ship{extra}; it brings its action point at once", extra=extra)
        return M("buy a large ship{extra}; it brings its action point at once", extra=extra)
    if verb == "build":
        return M("build a factory in {city}{extra}", city=city_name(" ".join(words[1:])), extra=extra)
    if verb == "produce":
        city = " ".join(words[1 : words.index("bonus")] if "bonus" in words else words[1:])
        said = {"good": good_name(REGION_OF[city]), "city": city_name(city), "extra": extra}
        if "bonus" in words:
            return M(
                "produce 1 {good} container in {city}{extra}, putting the bonus {bonus} container at place {spot} "
                "from the left",
                bonus=good_name(words[-2]),
                spot=words[-1],
                **said,
            )
        return M("produce 1 {good} container in {city}{extra}", **said)
    if verb == "shares":
        if words[1] == "buy":
            return M("buy shares{extra}", extra=extra)
        return M("sell shares{extra}", extra=extra)
    return M("buy an extra action point{extra}", extra=extra)


def _points_spent(action: str) -> int:
    words = action.split()
    if words[0] == "buy":
        return len(words) - 2
    if words == ["shares", "buy"]:
        return SHARE_BUY_AP
    return 1 if words[0] in ("boost", "order", "ship", "build", "produce") else 0


def read_turn(state: State, seat: int, order: Order) -> ReadBack:
    actions = split_steps(order["actions"])
    if not actions:
        return ReadBack((M("You will take no actions this quarter."),), (M("You do nothing this quarter."),))
    sim = copy_state(state)
    turn: Turn = start_turn(sim, seat)
    lines: list[Msg] = []
    for number, action in enumerate(actions):
        before = copy_state(sim)
        canonical = apply_step(sim, turn, action, [])
        said = _words(before, sim, seat, canonical, _points_spent(canonical))
        lines.append(M("You will {action}.", action=said) if number == 0 else M("Then you will {action}.", action=said))
    lines.append(M("You end the quarter with {cash}.", cash=money(sim["cash"][seat])))
    return ReadBack(tuple(lines), tuple(_warnings(actions, turn)))


def _warnings(actions: list[str], turn: Turn) -> list[Msg]:
    warnings = []
    moves: Counter[str] = Counter()
    for action in actions:
        words = action.split()
        if words[0] == "boost":
            moves[words[1]] = 0
        elif words[0] == "move" and words[1] in moves:
            moves[words[1]] += 1
    for sid, later in moves.items():
        if not later:
            warnings.append(
                M("{ship} is boosted but does not move after the boost: that action point buys nothing.", ship=sid)
            )
    if turn.ap > 0:
        if turn.extra_bought:
            warnings.append(M("You leave {points} unused although you buy an extra one.", points=points(turn.ap)))
        else:
            warnings.append(M("You leave {points} unused.", points=points(turn.ap)))
    return warnings
