"""What a merchant's position is worth in Piraeus before the last day: the score it would have if the game
ended now (cash, its collection's best sets and singles, its own goods left), which is what the end counts."""

from __future__ import annotations

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.piraeus.scoring import final_score


def worth(state: State) -> list[float]:
    return [
        float(final_score(cash, collected, len(hand))[0])
        for cash, collected, hand in zip(state["cash"], state["collected"], state["hands"], strict=True)
    ]


# A day is about eight phases (plan, sale, deal rounds, bids); a set of three is 27 points.
EVALUATION = Evaluation(worth=worth, scale=12.0, horizon=8)
