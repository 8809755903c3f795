"""The four decisions of a merchant's turn, the table the engine kit reads: the merchant's starting space,
the others' sealed offers, the merchant's route, and one seat's acquisitions."""

from __future__ import annotations

from games.engines.genoa import bots, builder, flow, orders, prompts, readback
from games.engines.kit import Decision

# The defaults of a missed deadline (RULES.md): roll the dice, offer nothing, the tower stays on its start
# (rule B may give that building to an offerer), acquire nothing.
DECISIONS = {
    "start": Decision(
        prompts.start_prompt,
        orders.validate_start,
        lambda state, seat: {"start": "roll"},
        bots.random_start,
        flow.resolve_start,
        read_back=readback.read_start,
    ),
    "offers": Decision(
        prompts.offers_prompt,
        orders.validate_offers,
        lambda state, seat: {"offers": "", "tiles": ""},
        bots.random_offers,
        flow.resolve_offers,
        read_back=readback.read_offers,
        builders={"offers": builder.OFFERS, "tiles": builder.TILE_PLAYS},
    ),
    "route": Decision(
        prompts.route_prompt,
        orders.validate_route,
        lambda state, seat: {"route": bots.default_route(state), "tiles": ""},
        bots.random_route,
        flow.resolve_route,
        read_back=readback.read_route,
        builders={"route": builder.ROUTE, "tiles": builder.TILE_PLAYS},
    ),
    "acquire": Decision(
        prompts.acquire_prompt,
        orders.validate_acquire,
        lambda state, seat: {"street": "pass", "buildings": []},
        bots.random_acquire,
        flow.resolve_acquire,
        read_back=readback.read_acquire,
    ),
}
