"""Rule checks shared by validation (is this order legal?) and resolution (may this still happen?)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engines.base import M, Mn, Msg, State, joined
from games.engines.genoa.data import LARGE_ORDERS, SMALL_ORDERS, TILE_SHORT, amount_of, ducats, good_term


def clockwise(state: State, first: int) -> list[int]:
    """Every seat once, clockwise from `first` (seat numbers run clockwise)."""
    players = state["players"]
    return [(first + step) % players for step in range(players)]


def merchant_bonus(state: State, route: list[dict[str, Any]]) -> int:
    """Two players: the merchant gets a second action if the other player takes at least one."""
    if state["players"] != 2:
        return 0
    merchant = state["turn"]["merchant"]
    return int(any(entry["seat"] not in (None, -1, merchant) for entry in route if "-" not in entry["space"]))


def can_act(state: State, seat: int, bonus: int) -> bool:
    """One action a turn (plus the two-player bonus), more only with an Extra action tile."""
    return state["turn"]["acted"][seat] < 1 + bonus or "extra" in state["tiles"][seat]


def delivery_goods(deliver: list[str]) -> list[str]:
    goods: list[str] = []
    for card in deliver:
        goods += list(LARGE_ORDERS[card][1]) if card in LARGE_ORDERS else [SMALL_ORDERS[card][1]]
    return goods


def shortfall(state: State, seat: int, offers: list[dict[str, Any]]) -> Msg | None:
    """What `seat` cannot pay of these offers together (their deliveries included), or None."""
    owed = sum(offer["ducats"] for offer in offers)
    if owed > state["ducats"][seat]:
        return M("{amount} (you have {held})", amount=ducats(owed), held=state["ducats"][seat])
    markers = sum(offer["markers"] for offer in offers)
    if markers > state["markers"][seat]:
        return Mn(
            "{count} ownership marker (you have {held} in front of you)",
            "{count} ownership markers (you have {held} in front of you)",
            markers,
            held=state["markers"][seat],
        )
    needed_goods = Counter(good for offer in offers for good in offer["goods"] + delivery_goods(offer["deliver"]))
    held_goods = Counter(state["goods"][seat])
    for good, count in needed_goods.items():
        if count > held_goods[good]:
            return M("{amount} (you have {held})", amount=amount_of(count, good), held=held_goods[good])
    cards = Counter(card for offer in offers for card in offer["cards"] + offer["deliver"])
    for card, count in cards.items():
        if card not in state["hands"][seat] or count > 1:
            return M("card {card} (not in your hand, or named twice)", card=card)
    tiles = Counter(tile for offer in offers for tile in offer["tiles"])
    held_tiles = Counter(state["tiles"][seat])
    for tile, count in tiles.items():
        if count > held_tiles[tile]:
            return Mn(
                "{count} {tile} tile (you have {held})",
                "{count} {tile} tiles (you have {held})",
                count,
                tile=TILE_SHORT[tile],
                held=held_tiles[tile],
            )
    return None


def pays_a_good(offer: dict[str, Any]) -> bool:
    """Whether an offer pays with more than ducats (with two players it must)."""
    return bool(offer["goods"] or offer["cards"] or offer["tiles"] or offer["markers"] or offer["gained"])


def affordable(state: State, seat: int, offers: list[dict[str, Any]]) -> bool:
    return shortfall(state, seat, offers) is None


def delivery_problem(state: State, seat: int, space: str, deliver: list[str]) -> Msg | None:
    """Why `seat` cannot deliver these orders when taking `space`'s action, or None."""
    larges = [card for card in deliver if card in LARGE_ORDERS]
    if len(larges) > 1:
        return M("only one large order can be delivered at a villa per action")
    for card in deliver:
        if card not in state["hands"][seat]:
            return M("{card} is not in your hand", card=card)
        wanted = LARGE_ORDERS[card][0] if card in LARGE_ORDERS else SMALL_ORDERS[card][0]
        if wanted != space:
            return M("{card} is delivered at another building", card=card)
    needed = Counter(delivery_goods(deliver))
    held = Counter(state["goods"][seat])
    missing = [good for good, count in needed.items() if held[good] < count]
    if missing:
        return M("you lack {goods} for it", goods=joined([good_term(good) for good in missing], ","))
    return None


def can_take_offer(state: State, offer: dict[str, Any], taken: int, accepted: list[dict[str, Any]]) -> bool:
    """May the merchant still give this offer's building to its offerer, who already takes `taken`
    actions and pays for `accepted` offers on this route?"""
    return taken < 1 + state["tiles"][offer["seat"]].count("extra") and affordable(
        state, offer["seat"], [*accepted, offer]
    )
