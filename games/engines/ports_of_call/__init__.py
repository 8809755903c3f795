"""Ports of Call: four fiscal years of shipping containers between fifteen port cities.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules, named as in every game (docs/contributors.md, "Adding a game"): data (every component and
number), money (cash, the stock exchange, the markets, bankruptcy, achievements), actions and trade (what
the steps of a turn do), turn (a whole turn's actions applied in order), flow (setup, news, accounts, the
end, the decisions' handlers), decisions (the table the engine kit reads), prompts (what a seat is asked),
orders (validation), readback (an order in words), builder (the order builder's steps), bots (default and
random orders), view (what a seat sees).
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import register
from games.engines.base import Choice, M, Mn, Msg, OptionSpec, Standing, State
from games.engines.kit import DecisionEngine, copy_state, redealt
from games.engines.ports_of_call.data import START_CASH
from games.engines.ports_of_call.decisions import DECISIONS
from games.engines.ports_of_call.flow import new_state, standings_rows
from games.engines.ports_of_call.money import name
from games.engines.ports_of_call.orders import not_asked_reason
from games.engines.ports_of_call.prompts import TYPED_WORDS
from games.engines.ports_of_call.view import build_view


class PortsOfCallEngine(DecisionEngine):
    slug = "ports-of-call"
    title = "Ports of Call"
    min_players = 2
    max_players = 4
    options = (
        OptionSpec(
            "years",
            M("Fiscal years"),
            "choice",
            "4",
            tuple(Choice(str(y), Mn("{count} year", "{count} years", y)) for y in (3, 4, 5)),
        ),
        OptionSpec(
            "news_order",
            M("News cards 1-16 (12 for 3 years, 20 for 5)"),
            "choice",
            "ordered",
            (Choice("ordered", M("in numerical order")), Choice("shuffled", M("shuffled"))),
        ),
        OptionSpec(
            "forecast",
            M("Optional rule: forecast news (the next two cards are shown)"),
            "choice",
            "off",
            (Choice("off", M("off")), Choice("on", M("on"))),
        ),
        OptionSpec(
            "bankruptcy",
            M("Bankruptcy at 60"),
            "choice",
            "eliminate",
            (
                Choice("eliminate", M("the player is eliminated")),
                Choice("sell-assets", M("alternative rule: sell assets")),
            ),
        ),
        OptionSpec(
            "start_cash",
            M("Starting cash in $M (house default)"),
            "integer",
            START_CASH,
            min=0,
            max=5000,
            error=M("Option start_cash must be a whole number of $M between 0 and 5000."),
        ),
    )
    decisions = DECISIONS
    not_asked_reason = staticmethod(not_asked_reason)

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        options = self.read_setup(players, options)
        chosen = {
            "years": int(options["years"]),
            "news_order": options["news_order"],
            "forecast": options["forecast"] == "on",
            "eliminate": options["bankruptcy"] == "eliminate",
            "start_cash": options["start_cash"],
        }
        return new_state(players, chosen, rng)

    def asked(self, state: State) -> list[int]:
        return [] if state["finished"] or not state["queue"] else [state["queue"][0]]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat, self.phase_name(state), self.final_rows(state))

    def outcome(self, state: State) -> list[Standing] | None:
        if not state["finished"]:
            return None
        return [Standing(r["seat"], r["score"], r["rank"], r["detail"]) for r in standings_rows(state)]

    def phase_name(self, state: State) -> Msg:
        if state["finished"]:
            return M("Game over")
        if state["step"] == "home":
            return M("Home cities — {seat} chooses", seat=name(state["queue"][0]))
        return M(
            "Year {year}, quarter {quarter} — {seat}'s turn",
            year=state["year"],
            quarter=state["quarter"],
            seat=name(state["queue"][0]),
        )

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Re-deal everything `seat` cannot see: both decks (but forecast cards), other seats' dealt and
        kept cards, and other seats' face-down completed orders."""
        hidden = copy_state(state)
        pool = list(hidden["order_deck"]) + list(hidden["order_discard"])
        others = [other for other in range(hidden["players"]) if other != seat]
        for other in others:
            pool += hidden["dealt"][other] + hidden["completed"][other]
            if hidden["kept"][other] is not None:
                pool.append(hidden["kept"][other])
        pool = redealt(pool, rng)
        for other in others:
            hidden["dealt"][other] = [pool.pop() for _ in hidden["dealt"][other]]
            hidden["completed"][other] = [pool.pop() for _ in hidden["completed"][other]]
            if hidden["kept"][other] is not None:
                hidden["kept"][other] = pool.pop()
        hidden["order_discard"] = [pool.pop() for _ in hidden["order_discard"]]
        hidden["order_deck"] = pool
        shown = 2 if hidden["options"]["forecast"] else 0
        hidden["news_deck"] = hidden["news_deck"][:shown] + redealt(hidden["news_deck"][shown:], rng)
        return hidden

    def typed_words(self) -> dict[str, Msg]:
        return TYPED_WORDS

    def seat_name(self, state: State, seat: int) -> str:
        return name(seat)


register(PortsOfCallEngine())
