"""The two decisions, the table the engine kit reads: a home city (and the order card kept), and a turn.
A missed turn takes no actions; a missed home choice is `bots.default_home` (RULES.md)."""

from __future__ import annotations

from games.engines.kit import Decision
from games.engines.ports_of_call import bots, builder, flow, orders, prompts, readback

DECISIONS = {
    "home": Decision(
        prompts.home_prompt,
        orders.validate_home,
        bots.default_home,
        bots.random_home,
        flow.resolve_home,
        read_back=readback.read_home,
    ),
    "turn": Decision(
        prompts.turn_prompt,
        orders.validate_turn,
        lambda state, seat: {"actions": ""},
        bots.random_turn,
        flow.resolve_turn,
        read_back=readback.read_turn,
        builders={"actions": builder.ACTIONS},
    ),
}
