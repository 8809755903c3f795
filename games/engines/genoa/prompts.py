"""What each seat is asked: the text a player reads and the form fields."""

from __future__ import annotations

from games.engines.base import Choice, Field, M, Mn, Msg, Prompt, State, joined
from games.engines.genoa.actions import and_chain, colour, named_for_a_newcomer
from games.engines.genoa.data import COLOURS, COMMODITIES, MARKER_VALUE, MOVES, OWNER_FEE
from games.engines.genoa.map import (
    BUILDINGS,
    MARKET,
    SPACES,
    is_building,
    neighbours,
    reachable,
    space_name,
    space_term,
)
from games.engines.genoa.syntax import typed

OFFERS_HELP = M(
    "One offer per line or separated by ';': the space, a colon, what you pay. E.g. '{example}'. Pay with ducats, "
    "commodities ({goods}), your cards (L3), tiles ('{tile}'), ownership markers ('{marker}') or '{gained}' (what the "
    "action gives you). '{deliver}' delivers an order when you take the action; '{reward}' picks a large order's "
    "tile. A step starting with '+' adds to the offer before it ('{plus}'). Leave empty to offer nothing.",
    example=typed("Harbor: 20 ducats + silk; Street 3-2: 5; Villa Colini: 10 + gained + deliver L3 + reward extra"),
    goods=typed(", ".join(COMMODITIES)),
    tile=typed("extra tile"),
    marker=typed("1 marker"),
    gained=typed("gained"),
    deliver=typed("deliver L3"),
    reward=typed("reward extra"),
    plus=typed("Harbor: 20 ducats; + silk"),
)


def route_help(other: str) -> Msg:
    """{other} is another player's colour (as a reply types it): an example naming the merchant's own colour would
    read as "me"."""
    return M(
        "The spaces the tower moves to, in order, separated by ';' or ',' (at most 4 moves; never twice the "
        "same space). After a building, '= {me}' takes its action yourself, '= {other}' gives it to {other}'s "
        "offer, '= {nobody}' leaves it unused; after a street, '= {other}' accepts {other}'s offer for it. Name the "
        "start space first to give its action, e.g. '{example}'. Leave empty to stop on the start space.",
        me=typed("me"),
        nobody=typed("nobody"),
        other=typed(other),
        example=typed(f"start = me; Street 3-2; Coach House = {other}; Spices = me deliver S14"),
    )


TILES_HELP = M(
    "Special tiles to play, separated by ';': '{trade}' (Trade 1:1), '{choose}' (Commodity of your choice), "
    "'{build}' (Building action: that building's action without the tower, your action this turn). Trades and "
    "choices happen before the tower moves; building actions after it stops. Extra action tiles are played by "
    "themselves when you take a second action.",
    trade=typed("trade wine for silk"),
    choose=typed("choose pepper"),
    build=typed("build Guild Hall"),
)


def start_prompt(state: State, seat: int) -> Prompt:
    choices = [Choice("roll", M("Roll the dice"))]
    choices += [Choice(space, named_for_a_newcomer(space)) for space in SPACES if space != MARKET]
    text = M(
        "You are the merchant and hold a Starting space tile: play it to put the tower on a space of your choice "
        "(not the Market), or roll the dice as usual and keep the tile. What you hold is under the board."
    )
    return Prompt("start", text, (Field("start", "choice", M("Starting space"), tuple(choices)),))


def offers_prompt(state: State, seat: int) -> Prompt:
    turn = state["turn"]
    start = turn["start"]
    near = [space_term(space) for space in sorted(reachable(start, MOVES), key=space_name) if is_building(space)]
    merchant = colour(turn["merchant"])
    text = M(
        "{merchant} is the merchant and the tower starts on {start}; it can reach {near} this turn. Offer "
        "{merchant}, in secret, what you will pay for the tower to visit a space and for you to act there (you pay "
        "only if he accepts); what you hold is under the board.",
        merchant=merchant,
        start=space_term(start),
        near=joined(near, ","),
    )
    if state["players"] == 2:
        rule_b = M(
            "A building you offered for that the tower visits, and that the merchant does not take himself, must go "
            "to one of its offers. With two players an offer must include at least one good, not only ducats. {more}",
            more=OFFERS_HELP,
        )
    else:
        rule_b = M(
            "A building you offered for that the tower visits, and that the merchant does not take himself, must go "
            "to one of its offers. {more}",
            more=OFFERS_HELP,
        )
    fields = (
        Field("offers", "steps", M("My offers"), help=rule_b, step=M("offer item"), words="genoa"),
        Field("tiles", "steps", M("Special tiles I play"), help=TILES_HELP, step=M("tile play"), words="genoa"),
    )
    return Prompt("offers", text, fields)


def route_prompt(state: State, seat: int) -> Prompt:
    turn = state["turn"]
    start = turn["start"]
    offers = len(turn["offers"])
    next_to = joined([space_term(space) for space in sorted(neighbours(start), key=space_name)], ",")
    received = M("no offer") if not offers else Mn("{count} offer", "{count} offers", offers)
    text = M(
        "You are the merchant: move the tower from {start} (next to {next_to}) up to {moves} times and say who acts "
        "at each building. You received {received}, listed under the board with what you hold.",
        start=space_term(start),
        next_to=next_to,
        moves=MOVES,
        received=received,
    )
    other = COLOURS[(seat + 1) % state["players"]]
    fields = (
        Field("route", "steps", M("Route and who acts"), help=route_help(other), step=M("stop"), words="genoa"),
        Field("tiles", "steps", M("Special tiles I play"), help=TILES_HELP, step=M("tile play"), words="genoa"),
    )
    return Prompt("route", text, fields)


def acquire_prompt(state: State, seat: int) -> Prompt:
    streets = [space for space in state["turn"]["discs"] if "-" in space]
    # Each street with the buildings beside it, each building with its streets: a newcomer reads which is where.
    beside = {
        street: [space_term(b) for b in sorted(neighbours(street), key=space_name) if is_building(b)]
        for street in streets
    }
    choices = [
        Choice(
            street, M("{street}, next to {buildings}", street=space_term(street), buildings=joined(beside[street], ","))
        )
        for street in streets
    ]
    choices.append(Choice("pass", M("Pass")))
    targets: list[Choice] = []
    for building in BUILDINGS:
        its = [space_term(street) for street in streets if building in neighbours(street)]
        if not its:
            continue
        where = M("{building}, next to {streets}", building=space_term(building), streets=and_chain(its))
        owner = state["owners"].get(building)
        if owner is None:
            targets.append(Choice(building, M("{where} (1 marker)", where=where)))
        elif owner != seat:
            rival = colour(owner)
            targets.append(Choice(building, M("{where} (take it from {rival}: 2 markers)", where=where, rival=rival)))
            targets.append(
                Choice(
                    f"remove:{building}",
                    M("{where} (only remove {rival}'s marker: 1 marker)", where=where, rival=rival),
                )
            )
    markers = state["markers"][seat]
    text = Mn(
        "Acquire buildings: choose a street with a disc, then put one or two of your {count} ownership marker on "
        "buildings next to it (a rival's building costs one more marker). The discs on that street are then removed.",
        "Acquire buildings: choose a street with a disc, then put one or two of your {count} ownership markers on "
        "buildings next to it (a rival's building costs one more marker). The discs on that street are then removed.",
        markers,
    )
    fields = (
        Field("street", "choice", M("Street"), tuple(choices)),
        Field(
            "buildings",
            "multichoice",
            M("Buildings"),
            tuple(targets) or (Choice("pass", M("none")),),
            min=0,
            max=2,
            help=M(
                "An owner is paid {fee} ducats by the bank whenever someone else takes the building's action, and "
                "{value} ducats a marker at the end.",
                fee=OWNER_FEE,
                value=MARKER_VALUE,
            ),
        ),
    )
    return Prompt("acquire", text, fields)
