"""What each seat is asked: the text a player reads and the form fields."""

from __future__ import annotations

from games.engines.base import Choice, Field, Prompt, State
from games.engines.genoa.actions import colour, join
from games.engines.genoa.board import BUILDINGS, MARKET, SPACES, is_building, neighbours, reachable, space_name
from games.engines.genoa.components import MOVES, card_text, counted, tile_name
from games.engines.genoa.parsing import offer_text

OFFERS_HELP = (
    "One offer per line or separated by ';': the space, a colon, what you pay. E.g. "
    "'Harbor: 20 ducats + silk; Street 3-2: 5; Villa Colini: 10 + gained + deliver L3 + reward extra'. "
    "Pay with ducats, commodities (ale, wine, silver, copper, linen, silk, pepper, saffron), your cards "
    "(L3), tiles ('extra tile'), ownership markers ('1 marker') or 'gained' (what the action gives you). "
    "'deliver L3' delivers an order when you take the action; 'reward extra' picks a large order's tile. "
    "A step starting with '+' adds to the offer before it ('Harbor: 20 ducats; + silk'). "
    "Leave empty to offer nothing."
)
# {other} is another player's colour: an example naming the merchant's own colour would read as "me".
ROUTE_HELP = (
    "The spaces the tower moves to, in order, separated by ';' or ',' (at most 4 moves; never twice the "
    "same space). After a building, '= me' takes its action yourself, '= {other}' gives it to {other}'s "
    "offer, '= nobody' leaves it unused; after a street, '= {other}' accepts {other}'s offer for it. Name the "
    "start space first to give its action, e.g. 'start = me; Street 3-2; Coach House = {other}; Spices = me "
    "deliver S14'. Leave empty to stop on the start space."
)
TILES_HELP = (
    "Special tiles to play, separated by ';': 'trade wine for silk' (Trade 1:1), 'choose pepper' "
    "(Commodity of your choice), 'build Guild Hall' (Building action: that building's action without the "
    "tower, your action this turn). Trades and choices happen before the tower moves; building actions after "
    "it stops. Extra action tiles are played by themselves when you take a second action."
)


def holdings_text(state: State, seat: int) -> str:
    cards = "; ".join(card_text(card) for card in state["hands"][seat]) or "none"
    tiles = join([tile_name(tile) for tile in state["tiles"][seat]]) if state["tiles"][seat] else "none"
    goods = join(state["goods"][seat]) if state["goods"][seat] else "none"
    markers = state["markers"][seat]
    return (
        f"You have {state['ducats'][seat]} ducats, commodities: {goods}, "
        f"tiles: {tiles}, {counted(markers, 'ownership marker')} in front of you. Cards: {cards}."
    )


def start_prompt(state: State, seat: int) -> Prompt:
    choices = [Choice("roll", "Roll the dice")]
    choices += [Choice(space, space_name(space)) for space in SPACES if space != MARKET]
    text = (
        "You are the merchant. You hold a Starting space tile: play it to put the tower on a space of your "
        "choice (not the Market), or roll the dice as usual and keep the tile. " + holdings_text(state, seat)
    )
    return Prompt("start", text, (Field("start", "choice", "Starting space", tuple(choices)),))


def offers_prompt(state: State, seat: int) -> Prompt:
    turn = state["turn"]
    start = turn["start"]
    near = sorted(space_name(space) for space in reachable(start, MOVES) if is_building(space))
    two = " With two players an offer must include at least one good, not only ducats." if state["players"] == 2 else ""
    text = (
        f"{colour(turn['merchant'])} is the merchant; the tower starts on {space_name(start)}. "
        f"Buildings the tower can reach this turn: {', '.join(near)}. Make sealed offers: only the merchant "
        "sees them. If he accepts one, you take that building's action (or the tower visits that street) and "
        "you pay when it happens. If the tower visits a building you offered for and he does not act there "
        f"himself, he must give it to an offerer.{two} " + holdings_text(state, seat)
    )
    fields = (
        Field("offers", "steps", "My offers", help=OFFERS_HELP),
        Field("tiles", "steps", "Special tiles I play", help=TILES_HELP),
    )
    return Prompt("offers", text, fields)


def route_prompt(state: State, seat: int) -> Prompt:
    turn = state["turn"]
    start = turn["start"]
    offers = "; ".join(f"{colour(o['seat'])} — {offer_text(o)}" for o in turn["offers"]) or "none"
    next_to = ", ".join(sorted(space_name(space) for space in neighbours(start)))
    text = (
        f"You are the merchant; the tower is on {space_name(start)} (next to: {next_to}). Move it up to "
        f"{MOVES} times and say who acts at each building. Offers received: {offers}. " + holdings_text(state, seat)
    )
    other = colour((seat + 1) % state["players"])
    fields = (
        Field("route", "steps", "Route and who acts", help=ROUTE_HELP.format(other=other)),
        Field("tiles", "steps", "Special tiles I play", help=TILES_HELP),
    )
    return Prompt("route", text, fields)


def acquire_prompt(state: State, seat: int) -> Prompt:
    streets = [space for space in state["turn"]["discs"] if "-" in space]
    choices = [Choice(street, space_name(street)) for street in streets] + [Choice("pass", "Pass")]
    targets: list[Choice] = []
    for building in BUILDINGS:
        if not any(building in neighbours(street) for street in streets):
            continue
        owner = state["owners"].get(building)
        if owner is None:
            targets.append(Choice(building, f"{space_name(building)} (place a marker)"))
        elif owner != seat:
            rival = colour(owner)
            targets.append(
                Choice(building, f"{space_name(building)} (remove {rival}'s marker, place yours: 2 markers)")
            )
            targets.append(Choice(f"remove:{building}", f"{space_name(building)} (only remove {rival}'s marker: 1)"))
    text = (
        f"Acquire buildings: choose a street with a disc, then put one or two of your {state['markers'][seat]} "
        "ownership markers on buildings next to it (removing a rival's marker costs one more marker). "
        "The discs on that street are then removed."
    )
    fields = (
        Field("street", "choice", "Street", tuple(choices)),
        Field("buildings", "multichoice", "Buildings", tuple(targets) or (Choice("pass", "none"),), min=0, max=2),
    )
    return Prompt("acquire", text, fields)
