"""What a seat's position is worth in Genoa before the end, in ducats as the end counts them: its ducats, each
ownership marker on a building at what the end pays for it, each contract at its pay as far as the seat owns
(or may still come to own) its building, and each order card at its pay as far as it can still be delivered:
a large order by how many of its three commodities the seat holds, a small order by whether it holds its
one, all of it less as the rounds run out. Commodities count a little on their own (a trade, an offer, the
tie-break) and special tiles, privileges for an action, a little more, both less as the end nears (the end
counts neither). While the merchant chooses his route, the offers standing are a likely payment."""

from __future__ import annotations

from collections import Counter

from games.engines.base import State
from games.engines.evaluation import Evaluation
from games.engines.genoa.data import (
    CONTRACT_PAY,
    CONTRACTS,
    LARGE_ORDER_PAY,
    LARGE_ORDERS,
    MARKER_VALUE,
    MESSAGE_PAY,
    MESSAGES,
    SMALL_ORDER_PAY,
    SMALL_ORDERS,
)

GOOD = 4.0  # a commodity on its own: a trade, an offer's payment, the tie-break
TILE = 8.0  # a special tile: one more action, a building's action, a commodity, a trade or a start
TILE_REWARD = 10.0  # the special tile a large order pays besides its ducats
# The share of an order's pay it is worth by how much of it the seat holds: an order is delivered only with its
# goods and a visit of the tower (the seat's own turn, or an offer a merchant accepts).
LARGE_SHARE = (0.1, 0.2, 0.4, 0.7)  # by the commodities held of its three
SMALL_SHARE = (0.25, 0.6)  # by whether its one commodity is held
MESSAGE_SHARE = 0.2  # two buildings in one tower's route
CONTRACT_OWNED = 0.9  # owned now: kept unless a rival acquires it
CONTRACT_OPEN = 0.2  # not owned: an acquisition may still bring it
OFFER_TAKEN = 0.5  # a standing offer: the merchant takes about half (the route must pass it, and others bid)
CARD_GIVEN = 10.0  # a card given with an offer
ROUNDS_FOR_ALL = 4  # with this many rounds left an order is worth its full share; fewer, less


def seat_worth(state: State, seat: int, owned: int) -> float:
    held = Counter(state["goods"][seat])
    hand = state["hands"][seat]
    time = min(1.0, state["rounds_left"] / ROUNDS_FOR_ALL)
    cards = 0.0
    for card in hand:
        if card in CONTRACTS:
            mine = state["owners"].get(CONTRACTS[card]) == seat
            cards += CONTRACT_PAY * (CONTRACT_OWNED if mine else CONTRACT_OPEN * time)
        elif card in LARGE_ORDERS:
            have = sum(1 for good in LARGE_ORDERS[card][1] if held[good])
            cards += (LARGE_ORDER_PAY + TILE_REWARD) * LARGE_SHARE[have] * time
        elif card in SMALL_ORDERS:
            cards += SMALL_ORDER_PAY * SMALL_SHARE[held[SMALL_ORDERS[card][1]] > 0] * time
        elif card in MESSAGES:
            cards += MESSAGE_PAY * MESSAGE_SHARE * time
    spare = (GOOD * sum(held.values()) + TILE * len(state["tiles"][seat])) * time
    return state["ducats"][seat] + MARKER_VALUE * owned + cards + spare


def offered(state: State) -> list[float]:
    """While the merchant chooses his route: what each standing offer is likely to move, its payment from the
    offerer to the merchant, as far as the merchant is likely to take it."""
    moved = [0.0] * state["players"]
    turn = state.get("turn") or {}
    if state["step"] != "route":
        return moved
    for offer in turn.get("offers", []):
        payment = (
            offer["ducats"]
            + GOOD * len(offer["goods"])
            + TILE * len(offer["tiles"])
            + MARKER_VALUE * offer["markers"]
            + CARD_GIVEN * len(offer["cards"])
        )
        moved[offer["seat"]] -= OFFER_TAKEN * payment
        moved[turn["merchant"]] += OFFER_TAKEN * payment
    return moved


def worth(state: State) -> list[float]:
    owned = [0] * state["players"]
    for owner in state["owners"].values():
        owned[owner] += 1
    pending = offered(state)
    return [seat_worth(state, seat, owned[seat]) + pending[seat] for seat in range(state["players"])]


# A merchant's turn is four phases (start, offers, route, acquisitions): the play-out sees one (its route and
# acquisitions, with the offers it answers). Ducats run to hundreds: a lead of 40 is a clear one.
EVALUATION = Evaluation(worth=worth, scale=40.0, horizon=4)
