"""What a seat is asked: its home city and the card it keeps, then each quarter its turn's actions."""

from __future__ import annotations

from games.engines.base import Choice, Field, M, Mp, Prompt, State, joined
from games.engines.ports_of_call import readback
from games.engines.ports_of_call.data import REGION_OF
from games.engines.ports_of_call.flow import home_choices
from games.engines.ports_of_call.money import city_name, good_name, money, order_label

ACTIONS_HELP = M(
    "One action per line or separated by ';', applied in order: "
    "move <ship> <city> [spaces] (free; 3 spaces, a large ship with 2 containers 2; stops on entering a port); "
    "boost <ship> (1 AP, at sea, once per ship); "
    "buy <good> <ship> [<ship>...] (1 AP each, in a port producing the good; several at the first's price); "
    "sell <ship> [<good>...] (free, in port); "
    "order hidden ($20M, 1 AP) or order <slot 1-4 | city good good> ($50M, 1 AP); "
    "ship small ($50M) or ship large ($200M) (1 AP, +1 AP at once); "
    "build <city> ($50M, 1 AP); produce <city> [bonus <good> <left|right|position>] ($20M, 1 AP); "
    "shares buy ($1,000M, 2 AP) or shares sell (+$100M, once per quarter); extra (one more AP for $250M). "
    "Goods: turbines, steel, oil, wine, electronics. Leave empty to do nothing."
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
    field = Field(name="actions", kind="steps", label=M("Your actions"), min=0, max=2000, help=ACTIONS_HELP)
    return Prompt(kind="turn", text=text, fields=(field,))
