"""What a seat's position is worth in Manila before the end: its fortune as the end counts it (cash, the
shares, less what an encumbered share costs), with the voyage in progress at what it is expected to pay.
Each punt afloat reaches Manila, is plundered on space 13 or is wrecked with the chances its position and the
dice still to roll give it; from those, each accomplice's expected profit (a share of the load, a port or
shipyard space's payout, the pirates' plunder, the insurance agent's repairs), and each share at its ware's
value, raised a step as far as its punt is likely to dock, and at least the price it would sell for."""

from __future__ import annotations

from functools import cache

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.manila.data import (
    BERTH_PAYOUTS,
    BERTHS,
    LAST_SPACE,
    LOAD_PROFITS,
    REDEEM,
    SHARE_MIN_PRICE,
    VALUE_TRACK,
    next_value,
)

ROLLS = 3  # movement rounds a voyage
LATE = VALUE_TRACK[-2]  # a ware this high may end the game this voyage


@cache
def finishes(position: int, rolls: int) -> tuple[float, float]:
    """The chances that a punt on `position` with `rolls` dice to come passes space 13 (reaches Manila) and
    that it stops on space 13 itself after the last roll."""
    if position > LAST_SPACE:
        return 1.0, 0.0
    if rolls == 0:
        return 0.0, 1.0 if position == LAST_SPACE else 0.0
    passed = on_13 = 0.0
    for die in range(1, 7):
        p, q = finishes(position + die, rolls - 1)
        passed += p / 6
        on_13 += q / 6
    return passed, on_13


def at_least(chances: list[float]) -> list[float]:
    """From independent events' chances, the chance that at least n of them happen, for n = 0, 1, 2, ..."""
    exactly = [1.0]
    for p in chances:
        exactly = [
            (exactly[n] if n < len(exactly) else 0.0) * (1 - p) + (exactly[n - 1] * p if n else 0.0)
            for n in range(len(exactly) + 1)
        ]
    return [sum(exactly[n:]) for n in range(len(exactly))]


def voyage(state: State) -> tuple[list[float], dict[str, float]]:
    """Each seat's expected profit from the voyage in progress, and each ware's chance to rise a step."""
    players = state["players"]
    profit = [0.0] * players
    rising: dict[str, float] = {}
    punts = state.get("punts") or []
    if not punts:
        return profit, rising
    spaces = state["spaces"]
    pirates = [seat for seat in (spaces["pirate:captain"], spaces["pirate:crew"]) if seat is not None]
    rolls = max(0, ROLLS - state.get("moves", 0))
    docks: list[float] = []
    wrecks: list[float] = []
    for punt in punts:
        ware, berth = punt["ware"], punt["berth"]
        if berth is not None:
            dock = 1.0 if berth.startswith("port") else 0.0
            plunder = 1.0 if punt["plundered"] else 0.0
        else:
            dock, on_13 = finishes(punt["pos"], rolls)
            plunder = on_13 if pirates else 0.0
            dock += 0.0 if pirates else on_13
        docks.append(dock)
        wrecks.append(1 - dock - plunder)
        rising[ware] = dock
        load = LOAD_PROFITS[ware]
        crew = [seat for seat in punt["crew"] if seat is not None]
        for seat in crew:
            profit[seat] += dock * load / len(crew)
        for seat in pirates:
            profit[seat] += plunder * load / len(pirates)
    # Port space A is paid if a punt docks, B if two do, C if three; the shipyard's likewise by wrecks, paid
    # by the insurance agent (who was paid 10 on taking the space: in his cash already).
    docked, wrecked = at_least(docks), at_least(wrecks)
    insurer = spaces["insurance"]
    for number, letter in enumerate(BERTHS, start=1):
        payout = BERTH_PAYOUTS[letter]
        for kind, chances in (("port", docked), ("yard", wrecked)):
            seat = spaces[f"{kind}:{letter}"]
            chance = chances[number] if number < len(chances) else 0.0
            if seat is not None:
                profit[seat] += chance * payout
            if kind == "yard" and insurer is not None:
                profit[insurer] -= chance * payout
    return profit, rising


def share_worth(state: State, ware: str, rise: float) -> float:
    """The ware's value, raised a step by the chance it docks; while no ware is a step from the end, at
    least the least price a share sells for (a ware at nothing has voyages to rise in)."""
    value = state["values"][ware]
    expected = value + rise * (next_value(value) - value)
    late = max(state["values"].values()) >= LATE
    return expected if late else max(expected, float(SHARE_MIN_PRICE))


def worth(state: State) -> list[float]:
    profit, rising = voyage(state) if not state["finished"] else ([0.0] * state["players"], {})
    if state["finished"]:
        values = state["values"]
        return [
            float(state["cash"][seat] + sum(values[w] for w in state["shares"][seat]) - REDEEM * state["loans"][seat])
            for seat in range(state["players"])
        ]
    return [
        state["cash"][seat]
        + profit[seat]
        + sum(share_worth(state, ware, rising.get(ware, 0.0)) for ware in state["shares"][seat])
        - REDEEM * state["loans"][seat]
        for seat in range(state["players"])
    ]


# A voyage (auction, three placing rounds with their dice, the payout) is about ten phases: with the voyage in
# progress counted at what it is expected to pay, the play-out need not go on to its payout.
EVALUATION = Evaluation(worth=worth, scale=12.0, horizon=4)
