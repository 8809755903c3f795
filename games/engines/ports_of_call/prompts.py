"""What a seat is asked: its home city and the card it keeps, then each quarter its turn's actions."""

from __future__ import annotations

from games.engines.base import Choice, Field, M, Mp, Msg, Prompt, State, joined
from games.engines.ports_of_call import readback
from games.engines.ports_of_call.data import CITY_NAMES, GOOD_NAMES, GOODS, REGION_OF, typed
from games.engines.ports_of_call.flow import home_choices
from games.engines.ports_of_call.money import SIZE_NAMES, city_name, good_name, money, order_label

# The words of the typed syntax, each with what says it in a reader's language (Engine.typed_words): the goods and
# cities as the game names them, the ships' sizes, and the actions' own words. The help's examples and the reply
# reader both go through it.
TYPED_WORDS: dict[str, Msg] = {
    **{good: GOOD_NAMES[good] for good in GOODS if good != "turbines"},
    "turbines": Mp("ports_of_call reply word", "turbines"),
    **CITY_NAMES,
    **SIZE_NAMES,
    "move": Mp("ports_of_call reply word", "move"),
    "boost": Mp("ports_of_call reply word", "boost"),
    "buy": Mp("ports_of_call reply word", "buy"),
    "sell": Mp("ports_of_call reply word", "sell"),
    "order": Mp("ports_of_call reply word", "order"),
    "hidden": Mp("ports_of_call reply word", "hidden"),
    "ship": Mp("ports_of_call reply word", "ship"),
    "build": Mp("ports_of_call reply word", "build"),
    "produce": Mp("ports_of_call reply word", "produce"),
    "bonus": Mp("ports_of_call reply word", "bonus"),
    "left": Mp("ports_of_call reply word", "left"),
    "right": Mp("ports_of_call reply word", "right"),
    "shares": Mp("ports_of_call reply word", "shares"),
    # Whole steps where the languages put the verb first ("kaufe Aktien", "acheter actions"), not word by word.
    "shares buy": Mp("ports_of_call reply word", "shares buy"),
    "shares sell": Mp("ports_of_call reply word", "shares sell"),
    "extra": Mp("ports_of_call reply word", "extra"),
}


ACTIONS_HELP = M(
    "One action per line or separated by ';', applied in order: "
    "{move} <ship> <city> [spaces] (free; 3 spaces, a large ship with 2 containers 2; stops on entering a port); "
    "{boost} <ship> (1 AP, at sea, once per ship); "
    "{buy} <good> <ship> [<ship>...] (1 AP each, in a port producing the good; several at the first's price); "
    "{sell} <ship> [<good>...] (free, in port); "
    "{order_hidden} ($20M, 1 AP) or {order} <slot 1-4 | city good good> ($50M, 1 AP); "
    "{ship_small} ($50M) or {ship_large} ($200M) (1 AP, +1 AP at once); "
    "{build} <city> ($50M, 1 AP); {produce} <city> [{bonus} <good> <{left}|{right}|position>] ($20M, 1 AP); "
    "{shares_buy} ($1,000M, 2 AP) or {shares_sell} (+$100M, once per quarter); {extra} (one more AP for $250M). "
    "Goods: {goods}. Leave empty to do nothing.",
    move=typed("move"),
    boost=typed("boost"),
    buy=typed("buy"),
    sell=typed("sell"),
    order_hidden=typed("order hidden"),
    order=typed("order"),
    ship_small=typed("ship small"),
    ship_large=typed("ship large"),
    build=typed("build"),
    produce=typed("produce"),
    bonus=typed("bonus"),
    left=typed("left"),
    right=typed("right"),
    shares_buy=typed("shares buy"),
    shares_sell=typed("shares sell"),
    extra=typed("extra"),
    goods=typed(", ".join(GOODS)),
)


def home_prompt(state: State, seat: int) -> Prompt:
    dealt = joined([order_label(card) for card in state["dealt"][seat]], ";")
    text = M(
        "Choose your home city and the one order card you keep of your three ({cards}): your factory and two "
        "ships loaded with the city's good start there. The cards stay secret until every home city is chosen, "
        "and at most two home cities may share a production region.",
        cards=dealt,
    )
    home = Field(
        name="home",
        kind="choice",
        label=M("Home city"),
        choices=tuple(
            Choice(
                city, Mp("ports_of_call home", "{city} ({good})", city=city_name(city), good=good_name(REGION_OF[city]))
            )
            for city in home_choices(state)
        ),
    )
    keep = Field(
        name="keep",
        kind="choice",
        label=M("Order card to keep"),
        choices=tuple(Choice(str(card), order_label(card)) for card in state["dealt"][seat]),
    )
    return Prompt(kind="home", text=text, fields=(home, keep))


def turn_prompt(state: State, seat: int) -> Prompt:
    ap = len(state["ships"][seat]) + 1
    text = M(
        "Year {year}, quarter {quarter}: your turn, with {points} (AP) and {cash}. Build your actions one at a "
        "time; your ships, your orders, the Order Market, the terminal's prices and this quarter's news are on "
        "the board.",
        year=state["year"],
        quarter=state["quarter"],
        points=readback.points(ap),
        cash=money(state["cash"][seat]),
    )
    field = Field(
        name="actions", kind="steps", label=M("Your actions"), min=0, max=2000, help=ACTIONS_HELP, words="ports-of-call"
    )
    return Prompt(kind="turn", text=text, fields=(field,))
