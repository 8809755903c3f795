"""The four decisions of a day, the table the engine kit reads: plan, sale, deal, bid."""

from __future__ import annotations

from games.engines.kit import Decision
from games.engines.piraeus.bots import random_bid, random_deal, random_plan, random_sale
from games.engines.piraeus.flow import resolve_bids, resolve_deal, resolve_plan, resolve_sale
from games.engines.piraeus.orders import WITHDRAW, validate_bid, validate_deal, validate_plan, validate_sale
from games.engines.piraeus.prompts import bid_prompt, deal_prompt, plan_prompt, sale_prompt
from games.engines.piraeus.readback import read_bid, read_deal, read_plan, read_sale

# The defaults of a missed deadline: buy, sell nothing, keep the token, withdraw.
DECISIONS = {
    "plan": Decision(
        plan_prompt,
        validate_plan,
        lambda state, seat: {"role": "buyer"},
        random_plan,
        resolve_plan,
        read_back=read_plan,
    ),
    "sale": Decision(
        sale_prompt, validate_sale, lambda state, seat: {"cards": []}, random_sale, resolve_sale, read_back=read_sale
    ),
    "deal": Decision(
        deal_prompt,
        validate_deal,
        lambda state, seat: {"card": "none"},
        random_deal,
        resolve_deal,
        read_back=read_deal,
    ),
    "bid": Decision(
        bid_prompt, validate_bid, lambda state, seat: {"bid": WITHDRAW}, random_bid, resolve_bids, read_back=read_bid
    ),
}
