"""What a company's position is worth in Ports of Call: its share value (what ranks it at the end), its
cash at the Stock Exchange's rate, containers at sea at part of their sale, delivered parts of its orders
toward their steps, and its open orders at what each costs at the end if it is not completed, more of it
as the game runs out. A bankrupt company is worth nothing."""

from __future__ import annotations

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.ports_of_call.data import SHARE_BUY_PRICE, STOCK_STEP

QUARTERS = 4
# A step of share value costs SHARE_BUY_PRICE; cash counts at twice that rate, for the ships and factories it
# buys earn more than a share does.
CASH = 2 * STOCK_STEP / SHARE_BUY_PRICE
CONTAINER = 2.0  # a container aboard: sold, about $100M to $230M (at CASH, 2 to 4), and maybe a delivery
DELIVERED = 4.0  # a delivered part of a two-container order, toward its step or two
OPEN = 1.0 * STOCK_STEP  # an order open at the end costs a step
RUINED = -100.0


def worth(state: State) -> list[float]:
    total = QUARTERS * state["options"]["years"]
    played = (state["year"] - 1) * QUARTERS + state["quarter"] - 1
    late = min(1.0, played / total) if total else 1.0
    values = []
    for seat in range(state["players"]):
        if state["bankrupt"][seat]:
            values.append(RUINED)
            continue
        cargo = sum(len(ship["cargo"]) for ship in state["ships"][seat])
        delivered = sum(len(order["delivered"]) for order in state["orders"][seat])
        value = state["stock"][seat] + CASH * state["cash"][seat] + CONTAINER * cargo + DELIVERED * delivered
        values.append(value - OPEN * late * len(state["orders"][seat]))
    return values


# One turn a company: the play-out lets every company play once after the order.
EVALUATION = Evaluation(worth=worth, scale=8.0, horizon=4)
