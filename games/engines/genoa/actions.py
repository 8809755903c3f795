"""What happens to the pieces: building actions, order deliveries, payments and special tiles.

Every function changes the (already copied) state in place and appends log events. Supplies may run
short: then the player takes what is left and the action still counts as used (RULES.md).
"""

from __future__ import annotations

from typing import Any

from games.engines.base import Event, M, Mn, Mp, Msg, State, joined
from games.engines.genoa.data import (
    CARD_KIND_TERMS,
    CONTRACT_PAY,
    CONTRACTS,
    LARGE_ORDER_PAY,
    LARGE_ORDERS,
    MESSAGE_PAY,
    MESSAGES,
    OWNER_FEE,
    SMALL_ORDER_PAY,
    SMALL_ORDERS,
    TILE_OF_BUILDING,
    TILE_PREFERENCE,
    WAREHOUSE_GOODS,
    card_kind,
    colour_term,
    ducats,
    good_term,
    markers,
    sort_cards,
    sort_commodities,
    sort_tiles,
    tile_name,
)
from games.engines.genoa.map import VILLAS, is_building, neighbours, space_name, space_term

DRAWS = {"guild_hall": ("L", 1), "city_hall": ("S", 2), "post_office": ("M", 2)}
CATHEDRAL_MARKERS = 2


def colour(seat: int) -> Msg:
    """A seat as the players call it: its colour, in the reader's language."""
    return colour_term(seat)


def join(words: list[Msg]) -> Msg:
    """ "A", "A and B", "A, B and C"; "nothing" for none."""
    return joined(words) if words else M("nothing")


def and_chain(items: list[Any]) -> Any:
    """ "A", "A and B", "A and B and C" (every pair joined by "and", as a message)."""
    head = items[0]
    for item in items[1:]:
        head = Mp("list", "{head} and {last}", head=head, last=item)
    return head


# --- holdings --------------------------------------------------------------------------------------


def draw_cards(state: State, seat: int, pile: str, count: int) -> list[str]:
    deck = state["decks"][pile]
    drawn, state["decks"][pile] = deck[:count], deck[count:]
    state["hands"][seat] = sort_cards(state["hands"][seat] + drawn)
    return list(drawn)


def take_goods(state: State, seat: int, goods: list[str]) -> list[str]:
    taken = []
    for good in goods:
        if state["supply"][good] > 0:
            state["supply"][good] -= 1
            taken.append(good)
    state["goods"][seat] = sort_commodities(state["goods"][seat] + taken)
    return taken


def return_goods(state: State, seat: int, goods: list[str]) -> None:
    for good in goods:
        state["goods"][seat].remove(good)
        state["supply"][good] += 1


def take_tile(state: State, seat: int, tile: str) -> bool:
    if state["tile_supply"][tile] <= 0:
        return False
    state["tile_supply"][tile] -= 1
    state["tiles"][seat] = sort_tiles(state["tiles"][seat] + [tile])
    return True


def spend_tile(state: State, seat: int, tile: str) -> None:
    """Tiles are single use (a house default, RULES.md): a played tile goes back to its supply space."""
    state["tiles"][seat].remove(tile)
    state["tile_supply"][tile] += 1


def take_markers(state: State, seat: int, count: int) -> int:
    taken = min(count, state["reserve"][seat])
    state["reserve"][seat] -= taken
    state["markers"][seat] += taken
    return taken


def has_all(held: list[str], wanted: list[str]) -> bool:
    pool = list(held)
    for item in wanted:
        if item not in pool:
            return False
        pool.remove(item)
    return True


# --- actions ---------------------------------------------------------------------------------------


def gains_text(gains: dict[str, Any]) -> Msg:
    parts: list[Msg] = []
    if gains["cards"]:
        kind = card_kind(gains["cards"][0])
        parts.append(Mn("{count} {kind} card", "{count} {kind} cards", len(gains["cards"]), kind=kind))
    parts += [good_term(good) for good in gains["goods"]]
    parts += [M("{tile} tile", tile=tile_name(tile)) for tile in gains["tiles"]]
    if gains["markers"]:
        parts.append(markers(gains["markers"]))
    return join(parts)


def action_gives(building: str) -> Msg:
    """What `building`'s action gives whoever takes it, in words (the read-backs and the builder say it)."""
    if building in VILLAS:
        return M(
            "delivers a large order naming it ({pay} ducats and a tile), else draws a contract", pay=LARGE_ORDER_PAY
        )
    if building in DRAWS:
        pile, count = DRAWS[building]
        return Mn("draws {count} {kind} card", "draws {count} {kind} cards", count, kind=CARD_KIND_TERMS[pile])
    if building == "cathedral":
        return M("gives {markers}", markers=markers(CATHEDRAL_MARKERS))
    if building in TILE_OF_BUILDING:
        return M("gives a {tile} tile", tile=tile_name(TILE_OF_BUILDING[building]))
    return M("gives {goods}", goods=join([good_term(good) for good in WAREHOUSE_GOODS[building]]))


def named_for_a_newcomer(space: str) -> Msg:
    """A space's name with what it is for, where a player picks it: a building's action ("Palace (its action gives
    a Building action tile)"), a street's buildings beside it, the ones its disc lets a player buy ("Street 2-3
    (next to Spices, Villa Ricci)")."""
    name = space_term(space)
    if is_building(space):
        return M("{space} (its action {gives})", space=name, gives=action_gives(space))
    beside = [space_term(b) for b in sorted(neighbours(space), key=space_name) if is_building(b)]
    return M("{space} (next to {buildings})", space=name, buildings=joined(beside, ",")) if beside else name


def take_action(state: State, seat: int, building: str, choices: dict[str, Any], events: list[Event]) -> dict[str, Any]:
    """`seat` takes `building`'s action with its choices (orders to deliver, the reward tile). Returns
    what the action gave, so an offer that pays with "gained" goods can hand them on."""
    gains: dict[str, Any] = {"cards": [], "goods": [], "tiles": [], "markers": 0}
    who, where = colour(seat), space_term(building)
    delivered_large = False
    if building in VILLAS:
        delivered_large = _deliver_large(state, seat, building, choices, events)
        if not delivered_large:
            gains["cards"] = draw_cards(state, seat, "C", 1)
    elif building in DRAWS:
        pile, count = DRAWS[building]
        gains["cards"] = draw_cards(state, seat, pile, count)
    elif building == "cathedral":
        gains["markers"] = take_markers(state, seat, CATHEDRAL_MARKERS)
    elif building in TILE_OF_BUILDING:
        tile = TILE_OF_BUILDING[building]
        gains["tiles"] = [tile] if take_tile(state, seat, tile) else []
    elif building in WAREHOUSE_GOODS:
        gains["goods"] = take_goods(state, seat, list(WAREHOUSE_GOODS[building]))
    state["turn"]["used"].append(building)
    if not delivered_large:
        events.append(
            Event(
                M(
                    "{seat} takes the action of {building} and gets {gains}.",
                    seat=who,
                    building=where,
                    gains=gains_text(gains),
                ),
                data={"kind": "action", "seat": seat, "building": building},
            )
        )
    if gains["cards"]:
        shown = join(list(gains["cards"]))
        events.append(
            Event(
                M("You drew {cards} at {building}.", cards=shown, building=where),
                seat=seat,
                data={"kind": "draw", "cards": gains["cards"]},
            )
        )
    _deliver_small(state, seat, building, choices, events)
    owner = state["owners"].get(building)
    if owner is not None and owner != seat:
        state["ducats"][owner] += OWNER_FEE
        events.append(
            Event(
                M(
                    "{seat} owns {building} and receives {fee} ducats from the bank.",
                    seat=colour(owner),
                    building=where,
                    fee=OWNER_FEE,
                )
            )
        )
    return gains


def _deliver_large(state: State, seat: int, villa: str, choices: dict[str, Any], events: list[Event]) -> bool:
    card = next((c for c in choices.get("deliver", []) if c in LARGE_ORDERS), None)
    if card is None:
        return False
    goods = list(LARGE_ORDERS[card][1])
    if card not in state["hands"][seat] or LARGE_ORDERS[card][0] != villa or not has_all(state["goods"][seat], goods):
        events.append(
            Event(
                M(
                    "You could not deliver {card} any more at {villa}; you draw a contract.",
                    card=card,
                    villa=space_term(villa),
                ),
                seat=seat,
            )
        )
        return False
    state["hands"][seat].remove(card)
    return_goods(state, seat, goods)
    state["ducats"][seat] += LARGE_ORDER_PAY
    wanted = [choices["reward"]] if choices.get("reward") else []
    reward = next((tile for tile in (*wanted, *TILE_PREFERENCE) if state["tile_supply"][tile] > 0), None)
    said = {
        "seat": colour(seat),
        "villa": space_term(villa),
        "card": card,
        "goods": joined([good_term(good) for good in goods], "+"),
        "pay": LARGE_ORDER_PAY,
    }
    if reward and take_tile(state, seat, reward):
        text = M(
            "{seat} takes the action of {villa}: delivers large order {card} ({goods}) for {pay} ducats "
            "and the {tile} tile.",
            tile=tile_name(reward),
            **said,
        )
    else:
        text = M("{seat} takes the action of {villa}: delivers large order {card} ({goods}) for {pay} ducats.", **said)
    events.append(
        Event(
            text,
            data={"kind": "deliver", "seat": seat, "card": card},
        )
    )
    return True


def _deliver_small(state: State, seat: int, building: str, choices: dict[str, Any], events: list[Event]) -> None:
    for card in choices.get("deliver", []):
        if card not in SMALL_ORDERS:
            continue
        wanted_at, good = SMALL_ORDERS[card]
        if wanted_at != building or card not in state["hands"][seat] or good not in state["goods"][seat]:
            events.append(
                Event(
                    M(
                        "You could not deliver small order {card} at {building}.",
                        card=card,
                        building=space_term(building),
                    ),
                    seat=seat,
                )
            )
            continue
        state["hands"][seat].remove(card)
        return_goods(state, seat, [good])
        state["ducats"][seat] += SMALL_ORDER_PAY
        events.append(
            Event(
                M(
                    "{seat} delivers small order {card} (1 {good}) at {building} for {pay} ducats.",
                    seat=colour(seat),
                    card=card,
                    good=good_term(good),
                    building=space_term(building),
                    pay=SMALL_ORDER_PAY,
                ),
                data={"kind": "deliver", "seat": seat, "card": card},
            )
        )


def deliver_messages(state: State, events: list[Event]) -> None:
    """A message pays when the tower visited both its buildings this turn (a house default, RULES.md)."""
    visited = set(state["turn"]["path"])
    for seat, hand in enumerate(state["hands"]):
        for card in [c for c in hand if c in MESSAGES and set(MESSAGES[c]) <= visited]:
            hand.remove(card)
            state["ducats"][seat] += MESSAGE_PAY
            first, second = MESSAGES[card]
            events.append(
                Event(
                    M(
                        "{seat} delivers message {card} ({first} and {second}) for {pay} ducats.",
                        seat=colour(seat),
                        card=card,
                        first=space_term(first),
                        second=space_term(second),
                        pay=MESSAGE_PAY,
                    ),
                    data={"kind": "deliver", "seat": seat, "card": card},
                )
            )


def contract_value(state: State, seat: int) -> int:
    return sum(
        CONTRACT_PAY
        for card in state["hands"][seat]
        if card in CONTRACTS and state["owners"].get(CONTRACTS[card]) == seat
    )


# --- payments --------------------------------------------------------------------------------------


def pay_offer(state: State, offer: dict[str, Any], gains: dict[str, Any], events: list[Event]) -> None:
    """The offerer hands the merchant what was offered, after the action (so gained goods exist)."""
    payer, merchant = offer["seat"], state["turn"]["merchant"]
    paid: list[Msg] = []
    short: list[Msg] = []
    coins = min(offer["ducats"], state["ducats"][payer])
    if coins:
        state["ducats"][payer] -= coins
        state["ducats"][merchant] += coins
        paid.append(ducats(coins))
    if coins < offer["ducats"]:
        short.append(ducats(offer["ducats"] - coins))
    goods = list(offer["goods"])
    if offer["gained"]:
        goods += gains["goods"]
    for good in goods:
        _move(state["goods"], payer, merchant, good, paid, short, good_term(good))
    cards = list(offer["cards"]) + (gains["cards"] if offer["gained"] else [])
    for card in cards:
        _move(state["hands"], payer, merchant, card, paid, short, M("a {kind} card", kind=card_kind(card)))
    tiles = list(offer["tiles"]) + (gains["tiles"] if offer["gained"] else [])
    for tile in tiles:
        _move(state["tiles"], payer, merchant, tile, paid, short, M("the {tile} tile", tile=tile_name(tile)))
    owed = offer["markers"] + (gains["markers"] if offer["gained"] else 0)
    given = min(owed, state["markers"][payer])
    if given:
        # Traded markers: the payer's go back to the general supply, the merchant takes as many of his own.
        state["markers"][payer] -= given
        state["reserve"][payer] += given
        take_markers(state, merchant, given)
        paid.append(markers(given))
    if given < owed:
        short.append(markers(owed - given))
    normalise_holdings(state, merchant)
    said = {
        "payer": colour(payer),
        "merchant": colour(merchant),
        "paid": join(paid),
        "space": space_term(offer["space"]),
    }
    if short:
        text = M(
            "{payer} pays {merchant} {paid} as agreed for {space}. {payer} could not pay {short}.",
            short=join(short),
            **said,
        )
    else:
        text = M("{payer} pays {merchant} {paid} as agreed for {space}.", **said)
    events.append(Event(text, data={"kind": "payment", "seat": payer, "space": offer["space"]}))
    private_cards = [card for card in cards if card in state["hands"][merchant]]
    if private_cards:
        events.append(
            Event(M("You receive {cards} from {payer}.", cards=join(private_cards), payer=colour(payer)), seat=merchant)
        )


def _move(
    table: list[list[str]], payer: int, merchant: int, item: str, paid: list[Msg], short: list[Msg], label: Msg
) -> None:
    if item in table[payer]:
        table[payer].remove(item)
        table[merchant].append(item)
        paid.append(label)
    else:
        short.append(label)


def normalise_holdings(state: State, seat: int) -> None:
    state["goods"][seat] = sort_commodities(state["goods"][seat])
    state["hands"][seat] = sort_cards(state["hands"][seat])
    state["tiles"][seat] = sort_tiles(state["tiles"][seat])


# --- special tiles played from the tiles field -----------------------------------------------------


def play_trade(state: State, seat: int, give: str, take: str, events: list[Event]) -> None:
    if "trade" not in state["tiles"][seat] or give not in state["goods"][seat] or state["supply"][take] <= 0:
        events.append(
            Event(
                M(
                    "Your Trade 1:1 ({give} for {take}) could not be played; you keep the tile.",
                    give=good_term(give),
                    take=good_term(take),
                ),
                seat=seat,
            )
        )
        return
    spend_tile(state, seat, "trade")
    return_goods(state, seat, [give])
    take_goods(state, seat, [take])
    events.append(
        Event(
            M(
                "{seat} plays a Trade 1:1 tile: {give} for {take}.",
                seat=colour(seat),
                give=good_term(give),
                take=good_term(take),
            )
        )
    )


def play_choice(state: State, seat: int, good: str, events: list[Event]) -> None:
    if "choice" not in state["tiles"][seat] or state["supply"][good] <= 0:
        events.append(
            Event(
                M(
                    "Your Commodity of your choice ({good}) could not be played; you keep the tile.",
                    good=good_term(good),
                ),
                seat=seat,
            )
        )
        return
    spend_tile(state, seat, "choice")
    take_goods(state, seat, [good])
    events.append(
        Event(
            M("{seat} plays a Commodity of your choice tile and takes {good}.", seat=colour(seat), good=good_term(good))
        )
    )
