"""What a seat's position is worth in Genoa before the end: its ducats, each ownership marker on a building
at what the end pays for it, and its cards, commodities and special tiles at a discount (they become ducats
only when delivered or traded, and break ties at the end)."""

from __future__ import annotations

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.genoa.data import MARKER_VALUE

CARD = 8.0  # an order, message or contract card: a delivery pays 30 to 100 ducats, but needs goods and a visit
GOOD = 6.0  # a commodity, on its way to a delivery or a trade
TILE = 5.0  # a special tile (a start, trade, choice, extra or build privilege)


def worth(state: State) -> list[float]:
    owned = [0] * state["players"]
    for owner in state["owners"].values():
        owned[owner] += 1
    return [
        state["ducats"][seat]
        + MARKER_VALUE * owned[seat]
        + CARD * len(state["hands"][seat])
        + GOOD * len(state["goods"][seat])
        + TILE * len(state["tiles"][seat])
        for seat in range(state["players"])
    ]


# A merchant's turn is four phases (start, offers, route, acquisitions): the play-out sees two of them.
EVALUATION = Evaluation(worth=worth, scale=20.0, horizon=8)
