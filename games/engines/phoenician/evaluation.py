"""What a ship's position is worth in Phoenician Sea Trader: its gold; the goods in its hold at what the
best centre for them pays, less a share for each square of sailing to it (a sale a voyage away is worth less
than one in port, and a ship that sails toward its buyer is ahead of one that sails away); commodity cards in
its hand at what buying and selling them earns, less the voyage to the centre that sells them; and a little
for each movement card, the wind that takes it there. The first to 25 gold has won."""

from __future__ import annotations

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.phoenician.data import (
    BUY_PRICE,
    CENTRES,
    DESIRED_PRICE,
    HOLD_MAX,
    SELL_PRICE,
    SQUARES,
    neighbours,
)

CENTRE_NAMES = tuple(CENTRES)
SOLD = {commodity: name for name, (commodity, _) in CENTRES.items()}  # the centre that sells each commodity
IN_PORT = 0.9  # a hold at its buyer sells next turn, if no pirate comes first
PER_SQUARE = 0.9  # what a square of sailing leaves of a sale's worth (a turn's wind sails two or three)
HAND_GOOD = 0.5  # a commodity card's share of its profit: it must be carried to its centre, bought and sold
CARD = 0.15  # a movement or storm card: a little of a voyage
FAR = 20  # squares: a centre the ship cannot reach (walled in by storms and pirates for now)
WON = 100.0  # the winner's worth above its gold: the game is over


def sea_distances(state: State, square: int) -> list[int]:
    """Squares of sailing from `square` to every square, around land and pirates (storms blow over), never
    through a trade centre (a ship stops on entering one)."""
    blocked = set(state["land"]) | set(state["pirates"])
    centres = set(state["centres"])
    best = [FAR] * SQUARES
    best[square] = 0
    frontier = [square]
    while frontier:
        later = []
        for here in frontier:
            if here in centres and here != square:
                continue
            for there in neighbours(here):
                if there not in blocked and best[here] + 1 < best[there]:
                    best[there] = best[here] + 1
                    later.append(there)
        frontier = later
    return best


def sale(hold: list[str], centre: str) -> int:
    """What `centre` pays for the goods of `hold` it buys (all but its own commodity)."""
    commodity, desired = CENTRES[centre]
    return sum(DESIRED_PRICE if card == desired else SELL_PRICE for card in hold if card != commodity)


def reach(squares: int, port: bool = False) -> float:
    """What a sale `squares` away keeps of its worth."""
    return (1.0 if port else IN_PORT) * PER_SQUARE**squares


def ship_worth(state: State, seat: int) -> float:
    gold = float(state["gold"][seat])
    ship = state["ships"][seat]
    hold, hand = state["holds"][seat], state["hands"][seat]
    cards = sum(1 for card in hand if card not in SOLD) * CARD
    if ship is None:  # before the starting centres: only the cards
        return gold + cards
    far = sea_distances(state, ship)
    squares = {name: far[square] for name, square in zip(CENTRE_NAMES, state["centres"], strict=True)}
    # The hold sells at one centre: the best sale for the voyage to it.
    held = max((sale(hold, name) * reach(squares[name]) for name in CENTRE_NAMES), default=0.0)
    # A commodity card: bought at its centre for BUY_PRICE, sold for at least SELL_PRICE a voyage on.
    room = HOLD_MAX - len(hold)
    goods = 0.0
    for commodity, name in SOLD.items():
        count = min(hand.count(commodity), room)
        if count:
            room -= count
            goods += count * (SELL_PRICE - BUY_PRICE) * HAND_GOOD * reach(squares[name])
    return gold + held + goods + cards


def worth(state: State) -> list[float]:
    return [
        WON + state["gold"][seat] if state.get("winner") == seat else ship_worth(state, seat)
        for seat in range(state["players"])
    ]


# One turn a ship: the play-out lets every ship play once after the order and once more for the seat.
EVALUATION = Evaluation(worth=worth, scale=4.0, horizon=4)
