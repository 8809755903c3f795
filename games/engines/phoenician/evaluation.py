"""What a ship's position is worth in Phoenician Sea Trader: its gold, and the goods in its hold at part of
what they sell for (a centre that pays for them is a voyage away), so a ship that bought is not behind one
that did not; the first to 25 gold has won."""

from __future__ import annotations

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.phoenician.data import CENTRES, DESIRED_PRICE, SELL_PRICE

HOLD_SHARE = 0.7  # what a good in the hold is worth of its sale price before the ship reaches a buyer
HAND_GOOD = 0.4  # a commodity card in the hand: a good the ship may buy at its centre
WON = 100.0  # the winner's worth above its gold: the game is over
DESIRED = {desired for _, desired in CENTRES.values()}


def worth(state: State) -> list[float]:
    commodities = {commodity for commodity, _ in CENTRES.values()}
    values = []
    for seat in range(state["players"]):
        if state.get("winner") == seat:
            values.append(WON + state["gold"][seat])
            continue
        # A good is worth DESIRED_PRICE where a centre desires it, SELL_PRICE elsewhere.
        hold = sum(DESIRED_PRICE if card in DESIRED else SELL_PRICE for card in state["holds"][seat])
        hand = sum(1 for card in state["hands"][seat] if card in commodities)
        values.append(state["gold"][seat] + HOLD_SHARE * hold + HAND_GOOD * hand)
    return values


# One turn a ship: the play-out lets every ship play once after the order and once more for the seat.
EVALUATION = Evaluation(worth=worth, scale=4.0, horizon=4)
