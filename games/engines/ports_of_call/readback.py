"""Each decision's order read back in words. A turn's actions are applied one by one on a copy of the state
and each is said with what it does and costs; a face-down order card is never named (the copy's deck is
not the real one). Warnings: no actions, a boost with no move after it, action points left unused."""

from __future__ import annotations

from collections import Counter

from games.engines.base import Order, ReadBack, State
from games.engines.kit import copy_state
from games.engines.ports_of_call.actions import Turn, ship_place, start_turn
from games.engines.ports_of_call.data import ORDER_CARDS, REGION_OF, SHARE_BUY_AP
from games.engines.ports_of_call.money import good_name, money, order_label
from games.engines.ports_of_call.turn import apply_step, split_steps


def points(count: int) -> str:
    return f"{count} action point{'' if count == 1 else 's'}"


def read_home(state: State, seat: int, order: Order) -> ReadBack:
    card = order_label(int(order["keep"]))
    return ReadBack((f"You will make {order['home']} your home city and keep the order card {card}.",))


def _ship(state: State, seat: int, sid: str) -> dict:
    return next(ship for ship in state["ships"][seat] if ship["id"] == sid)


def _cost(before: State, after: State, seat: int) -> str:
    paid = before["cash"][seat] - after["cash"][seat]
    return f"paying {money(paid)}" if paid > 0 else (f"receiving {money(-paid)}" if paid < 0 else "")


def _words(before: State, after: State, seat: int, step: str, ap: int) -> str:
    words = step.split()
    verb = words[0]
    spent = f"{points(ap)}" if ap > 0 else ""
    money_words = _cost(before, after, seat)
    extra = ", ".join(part for part in (money_words, spent) if part)
    extra = f" ({extra})" if extra else ""
    if verb == "move":
        ship = _ship(after, seat, words[1])
        if ship["port"]:
            return f"move {words[1]} into {ship['port']}{extra}"
        spaces = "1 space" if words[-1] == "1" else f"{words[-1]} spaces"
        return f"move {words[1]} {spaces} towards {' '.join(words[2:-1])}{extra}: it is then {ship_place(ship)}"
    if verb == "boost":
        return f"boost {words[1]} by 1 space{extra}"
    if verb == "buy":
        ships = words[2:]
        count = len(ships)
        what = f"{count} {good_name(words[1])} container{'s' if count > 1 else ''}"
        return f"buy {what} for {', '.join(dict.fromkeys(ships))}{extra}"
    if verb == "sell":
        ship = _ship(before, seat, words[1])
        sold = " and ".join(f"{n} {good_name(good)}" for good, n in Counter(words[2:]).items())
        steps = (after["stock"][seat] - before["stock"][seat]) // 10
        completed = f", completing an order (+{steps} on the Stock Exchange)" if steps > 0 else ""
        return f"sell {sold} from {words[1]} in {ship['port']}{extra}{completed}"
    if verb == "order":
        if words[1:] == ["hidden"]:
            return f"buy a face-down order card{extra}"
        card = next(c for c in before["market"] if " ".join(map(str, ORDER_CARDS[c])) == " ".join(words[1:]))
        return f"buy the order {order_label(card)} from the market{extra}"
    if verb == "ship":
        return f"buy a {words[1]} ship{extra}; it brings its action point at once"
    if verb == "build":
        return f"build a factory in {' '.join(words[1:])}{extra}"
    if verb == "produce":
        city = " ".join(words[1 : words.index("bonus")] if "bonus" in words else words[1:])
        text = f"produce 1 {good_name(REGION_OF[city])} container in {city}{extra}"
        if "bonus" in words:
            text += f", putting the bonus {good_name(words[-2])} container at place {words[-1]} from the left"
        return text
    if verb == "shares":
        return f"{'buy' if words[1] == 'buy' else 'sell'} shares{extra}"
    return f"buy an extra action point{extra}"


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
        return ReadBack(("You will take no actions this quarter.",), ("You do nothing this quarter.",))
    sim = copy_state(state)
    turn: Turn = start_turn(sim, seat)
    lines: list[str] = []
    for number, action in enumerate(actions):
        before = copy_state(sim)
        canonical = apply_step(sim, turn, action, [])
        lead = "You will" if number == 0 else "Then you will"
        lines.append(f"{lead} {_words(before, sim, seat, canonical, _points_spent(canonical))}.")
    lines.append(f"You end the quarter with {money(sim['cash'][seat])}.")
    return ReadBack(tuple(lines), tuple(_warnings(actions, turn)))


def _warnings(actions: list[str], turn: Turn) -> list[str]:
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
            warnings.append(f"{sid} is boosted but does not move after the boost: that action point buys nothing.")
    if turn.ap > 0:
        bought = " although you buy an extra one" if turn.extra_bought else ""
        warnings.append(f"You leave {points(turn.ap)} unused{bought}.")
    return warnings
