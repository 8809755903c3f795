"""What a seat's position is worth in Manila before the end: its fortune as the end counts it (cash, the
shares at their current value, less what an encumbered share costs)."""

from __future__ import annotations

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.manila import fortune


def worth(state: State) -> list[float]:
    return [float(fortune(state, seat)[0]) for seat in range(state["players"])]


# A voyage (auction, three placing rounds with their dice, the payout) is about ten phases: the play-out
# goes on to the payout of the voyage the order is part of.
EVALUATION = Evaluation(worth=worth, scale=12.0, horizon=10)
