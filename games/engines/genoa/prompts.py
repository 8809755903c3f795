"""What each seat is asked: the text a player reads and the form fields."""

from __future__ import annotations

from games.engines.base import Choice, Field, Prompt, State
from games.engines.genoa.actions import colour, named_for_a_newcomer
from games.engines.genoa.data import MARKER_VALUE, MOVES, OWNER_FEE
from games.engines.genoa.map import BUILDINGS, MARKET, SPACES, is_building, neighbours, reachable, space_name

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


def start_prompt(state: State, seat: int) -> Prompt:
    choices = [Choice("roll", "Roll the dice")]
    choices += [Choice(space, named_for_a_newcomer(space)) for space in SPACES if space != MARKET]
    text = (
        "You are the merchant and hold a Starting space tile: play it to put the tower on a space of your choice "
        "(not the Market), or roll the dice as usual and keep the tile. What you hold is under the board."
    )
    return Prompt("start", text, (Field("start", "choice", "Starting space", tuple(choices)),))


def offers_prompt(state: State, seat: int) -> Prompt:
    turn = state["turn"]
    start = turn["start"]
    near = sorted(space_name(space) for space in reachable(start, MOVES) if is_building(space))
    two = " With two players an offer must include at least one good, not only ducats." if state["players"] == 2 else ""
    merchant = colour(turn["merchant"])
    text = (
        f"{merchant} is the merchant and the tower starts on {space_name(start)}; it can reach {', '.join(near)} "
        f"this turn. Offer {merchant}, in secret, what you will pay for the tower to visit a space and for you to "
        "act there (you pay only if he accepts); what you hold is under the board."
    )
    rule_b = (
        "A building you offered for that the tower visits, and that the merchant does not take himself, must go "
        f"to one of its offers.{two} "
    )
    fields = (
        Field("offers", "steps", "My offers", help=rule_b + OFFERS_HELP, step="offer item"),
        Field("tiles", "steps", "Special tiles I play", help=TILES_HELP, step="tile play"),
    )
    return Prompt("offers", text, fields)


def route_prompt(state: State, seat: int) -> Prompt:
    turn = state["turn"]
    start = turn["start"]
    offers = len(turn["offers"])
    next_to = ", ".join(sorted(space_name(space) for space in neighbours(start)))
    received = "no offer" if not offers else "1 offer" if offers == 1 else f"{offers} offers"
    text = (
        f"You are the merchant: move the tower from {space_name(start)} (next to {next_to}) up to {MOVES} times "
        f"and say who acts at each building. You received {received}, listed under the board with what you hold."
    )
    other = colour((seat + 1) % state["players"])
    fields = (
        Field("route", "steps", "Route and who acts", help=ROUTE_HELP.format(other=other), step="stop"),
        Field("tiles", "steps", "Special tiles I play", help=TILES_HELP, step="tile play"),
    )
    return Prompt("route", text, fields)


def acquire_prompt(state: State, seat: int) -> Prompt:
    streets = [space for space in state["turn"]["discs"] if "-" in space]
    # Each street with the buildings beside it, each building with its streets: a newcomer reads which is where.
    beside = {street: sorted(space_name(b) for b in neighbours(street) if is_building(b)) for street in streets}
    choices = [Choice(street, f"{space_name(street)}, next to {', '.join(beside[street])}") for street in streets]
    choices.append(Choice("pass", "Pass"))
    targets: list[Choice] = []
    for building in BUILDINGS:
        its = [space_name(street) for street in streets if building in neighbours(street)]
        if not its:
            continue
        where = f"{space_name(building)}, next to {' and '.join(its)}"
        owner = state["owners"].get(building)
        if owner is None:
            targets.append(Choice(building, f"{where} (1 marker)"))
        elif owner != seat:
            rival = colour(owner)
            targets.append(Choice(building, f"{where} (take it from {rival}: 2 markers)"))
            targets.append(Choice(f"remove:{building}", f"{where} (only remove {rival}'s marker: 1 marker)"))
    markers = state["markers"][seat]
    text = (
        f"Acquire buildings: choose a street with a disc, then put one or two of your {markers} ownership "
        f"marker{'' if markers == 1 else 's'} on buildings next to it (a rival's building costs one more marker). "
        "The discs on that street are then removed."
    )
    fields = (
        Field("street", "choice", "Street", tuple(choices)),
        Field(
            "buildings",
            "multichoice",
            "Buildings",
            tuple(targets) or (Choice("pass", "none"),),
            min=0,
            max=2,
            help=f"An owner is paid {OWNER_FEE} ducats by the bank whenever someone else takes the building's "
            f"action, and {MARKER_VALUE} ducats a marker at the end.",
        ),
    )
    return Prompt("acquire", text, fields)
