"""Port of Piraeus: eight trading days of sealed buy/sell tokens, sales, deals and sealed bids.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules, named as in every game (docs/contributors.md, "Adding a game"): data (goods, countries, cards,
numbers), flow (the day's automatic steps and the decisions' handlers), decisions (the table the engine
kit reads), prompts (what a seat is asked), orders (validation), readback (an order in words), bots
(random orders), scoring (the best split into sets), view (what a seat sees).
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import register
from games.engines.base import Choice, M, Mp, Msg, OptionSpec, Standing, State
from games.engines.kit import DecisionEngine, Placing, copy_state, ranked, redealt
from games.engines.piraeus.data import (
    COUNTRIES,
    GOODS,
    GREEKS,
    START_CASH,
    START_PRICE,
    country_deck,
    country_name,
    greek_deck,
    sort_cards,
)
from games.engines.piraeus.decisions import DECISIONS
from games.engines.piraeus.flow import start_day
from games.engines.piraeus.orders import not_asked_reason
from games.engines.piraeus.scoring import final_score
from games.engines.piraeus.view import build_view


def _standings(state: State) -> list[Standing]:
    """Richest first; equal money: fewer own goods left first; still equal: a shared rank."""
    placings = []
    for seat in range(len(state["countries"])):
        own_left = len(state["hands"][seat])
        score, detail = final_score(state["cash"][seat], state["collected"][seat], own_left)
        placings.append(Placing(seat, (-score, own_left), score, detail))
    return ranked(placings)


class PiraeusEngine(DecisionEngine):
    slug = "piraeus"
    title = "Port of Piraeus"
    min_players = 3
    max_players = 6
    options = (
        OptionSpec(
            name="countries",
            label=M("Country of each seat (blank: dealt at random)"),
            kind="seat-list",
            default=None,
            choices=tuple(Choice(country, country_name(country)) for country in COUNTRIES),
            item=M("country"),
        ),
    )
    decisions = DECISIONS
    final_entry = Mp("final ranking", "{rank}. {name} {score} ({detail})")
    final_name_key = "country"
    not_asked_reason = staticmethod(not_asked_reason)

    def option_refusal(self, spec: OptionSpec, name: str) -> Msg | str:
        if name.strip().lower() == GREEKS.lower():
            return M("The Greeks cannot be chosen: they are the locals who own the market.")
        return ""

    def check_options(self, players: int, chosen: dict[str, Any]) -> None:
        named = [country for country in chosen["countries"] if country]
        if len(named) != len(set(named)):
            raise ValueError(M("Each country can be chosen by one seat only."))

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        options = self.read_setup(players, options)
        # Countries left blank (or no option at all) are dealt at random.
        named = [country for country in options["countries"] if country]
        free = [country for country in COUNTRIES if country not in named]
        dealt = rng.sample(free, options["countries"].count(None))
        countries = [country if country else dealt.pop() for country in options["countries"]]
        deck = greek_deck()
        rng.shuffle(deck)
        state: State = {
            "day": 1,
            "step": "plan",
            "round": 0,
            "prices": [START_PRICE] * len(GOODS),
            "greek_deck": deck,
            "greek_row": [],
            "foreign_row": [],
            "countries": countries,
            "cash": [START_CASH] * players,
            "hands": [country_deck(country) for country in countries],
            "collected": [[] for _ in countries],
            "roles": [None] * players,
            "asked": [],
            "contests": [],
            "finished": False,
        }
        start_day(state, [])
        return state

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat, self.phase_name(state), self.final_rows(state))

    def outcome(self, state: State) -> list[Standing] | None:
        return _standings(state) if state["finished"] else None

    def seat_count(self, state: State) -> int:
        return len(state["countries"])

    def phase_name(self, state: State) -> str:
        day, deal_round = state["day"], state["round"]
        step = state["step"]
        if step == "plan":
            return M("Day {day} — planning", day=day)
        if step == "sale":
            return M("Day {day} — sale", day=day)
        if step == "deal":
            return M("Day {day} — deals, round {round}", day=day, round=deal_round)
        if step == "bid":
            return M("Day {day} — deals, round {round}, bidding", day=day, round=deal_round)
        return M("Game over")

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        hidden = copy_state(state)
        for other, country in enumerate(hidden["countries"]):
            if other != seat:
                hidden["hands"][other] = sort_cards(rng.sample(country_deck(country), len(hidden["hands"][other])))
        hidden["greek_deck"] = redealt(hidden["greek_deck"], rng)
        return hidden

    def seat_name(self, state: State, seat: int) -> str:
        return country_name(state["countries"][seat])


register(PiraeusEngine())
