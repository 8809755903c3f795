"""The four decisions of a day, the table the engine kit reads: plan, sale, deal, bid."""

from __future__ import annotations

from games.engines.kit import Decision
from games.engines.piraeus import bots, flow, orders, prompts, readback

# The defaults of a missed deadline: buy, sell nothing, keep the token, withdraw.
DECISIONS = {
    "plan": Decision(
        prompts.plan_prompt,
        orders.validate_plan,
        lambda state, seat: {"role": "buyer"},
        bots.random_plan,
        flow.resolve_plan,
        read_back=readback.read_plan,
    ),
    "sale": Decision(
        prompts.sale_prompt,
        orders.validate_sale,
        lambda state, seat: {"cards": []},
        bots.random_sale,
        flow.resolve_sale,
        read_back=readback.read_sale,
    ),
    "deal": Decision(
        prompts.deal_prompt,
        orders.validate_deal,
        lambda state, seat: {"card": "none"},
        bots.random_deal,
        flow.resolve_deal,
        read_back=readback.read_deal,
    ),
    "bid": Decision(
        prompts.bid_prompt,
        orders.validate_bid,
        lambda state, seat: {"bid": orders.WITHDRAW},
        bots.random_bid,
        flow.resolve_bids,
        read_back=readback.read_bid,
    ),
}
