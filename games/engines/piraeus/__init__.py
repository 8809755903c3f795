"""Port of Piraeus: eight trading days of sealed buy/sell tokens, sales, deals and sealed bids.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules: cards (components), flow (the day's automatic steps), orders (prompts and validation),
scoring (best split into sets), view (what a seat sees).
"""

from __future__ import annotations

import json
import random
from typing import Any

from games.engines import register
from games.engines.base import (
    Choice,
    Engine,
    Event,
    OptionSpec,
    Order,
    OrderError,
    Prompt,
    Standing,
    State,
)
from games.engines.piraeus.cards import (
    COUNTRIES,
    GOODS,
    GREEKS,
    START_CASH,
    START_PRICE,
    country_deck,
    greek_deck,
    sort_cards,
)
from games.engines.piraeus.flow import (
    resolve_bids,
    resolve_deal,
    resolve_plan,
    resolve_sale,
    start_day,
)
from games.engines.piraeus.orders import (
    VALIDATORS,
    default_order,
    not_asked_reason,
    prompt_for,
    random_order,
)
from games.engines.piraeus.scoring import final_score
from games.engines.piraeus.view import build_view

RESOLVERS = {"plan": resolve_plan, "sale": resolve_sale, "deal": resolve_deal, "bid": resolve_bids}


# Bad options raise ValueError, even for a wrong type: the admin and `creategame` show a ValueError from
# setup to the organiser, and nothing else.
def _countries_option(players: int, options: dict[str, Any], rng: random.Random) -> list[str]:
    """Countries by seat from the option, blanks (or no option at all) dealt at random."""
    unknown = sorted(set(options) - {"countries"})
    if unknown:
        raise ValueError(f"Port of Piraeus has no option called {', '.join(map(repr, unknown))}.")
    chosen = options.get("countries") or [None] * players
    if not isinstance(chosen, (list, tuple)):
        raise ValueError("The countries option must be a list with one country per seat.")
    if len(chosen) != players:
        raise ValueError(f"The countries option names {len(chosen)} countries for {players} seats.")
    by_name = {country.lower(): country for country in COUNTRIES}
    countries: list[str | None] = []
    for name in chosen:
        if name in (None, ""):
            countries.append(None)
            continue
        if not isinstance(name, str):
            raise ValueError(f"Countries are given by name; {name!r} is not a name.")
        if name.strip().lower() == GREEKS.lower():
            raise ValueError("The Greeks cannot be chosen: they are the locals who own the market.")
        if name.strip().lower() not in by_name:
            raise ValueError(f"Unknown country {name!r}; choose from {', '.join(COUNTRIES)}.")
        countries.append(by_name[name.strip().lower()])
    named = [country for country in countries if country]
    if len(named) != len(set(named)):
        raise ValueError("Each country can be chosen by one seat only.")
    free = [country for country in COUNTRIES if country not in named]
    dealt = rng.sample(free, countries.count(None))
    return [country if country else dealt.pop() for country in countries]


def _standings(state: State) -> list[Standing]:
    """Richest first; equal money: fewer own goods left first; still equal: a shared rank."""
    rows = []
    for seat in range(len(state["countries"])):
        own_left = len(state["hands"][seat])
        score, detail = final_score(state["cash"][seat], state["collected"][seat], own_left)
        rows.append((score, own_left, seat, detail))
    rows.sort(key=lambda row: (-row[0], row[1], row[2]))
    standings: list[Standing] = []
    for place, (score, own_left, seat, detail) in enumerate(rows, start=1):
        tied_with_previous = place > 1 and rows[place - 2][:2] == (score, own_left)
        rank = standings[-1].rank if tied_with_previous else place
        standings.append(Standing(seat=seat, score=score, rank=rank, detail=detail))
    return standings


class PiraeusEngine(Engine):
    slug = "piraeus"
    title = "Port of Piraeus"
    min_players = 3
    max_players = 6
    options = (
        OptionSpec(
            name="countries",
            label="Country of each seat (blank: dealt at random)",
            kind="seat-list",
            default=None,
            choices=tuple(Choice(country, country) for country in COUNTRIES),
        ),
    )

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError("The number of players must be a whole number.")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Port of Piraeus needs 3 to 6 players, not {players}.")
        if not isinstance(options, dict):
            raise ValueError("Options must be a mapping of option names to values.")
        countries = _countries_option(players, options, rng)
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

    def prompts(self, state: State) -> dict[int, Prompt]:
        return {seat: prompt_for(state, seat) for seat in state["asked"]}

    def validate(self, state: State, seat: int, order: Order) -> Order:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state["countries"]):
            raise OrderError("There is no such seat in this game.")
        if seat not in state["asked"]:
            raise OrderError(not_asked_reason(state, seat))
        if not isinstance(order, dict):
            raise OrderError("An order must be a form with named fields.")
        return VALIDATORS[state["step"]](state, seat, order)

    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        new_state: State = json.loads(json.dumps(state))
        if new_state["finished"]:
            return new_state, []
        by_seat = {int(seat): order for seat, order in orders.items()}
        owed: dict[int, Order] = {}
        for seat in new_state["asked"]:
            try:
                owed[seat] = self.validate(new_state, seat, by_seat[seat])
            except (KeyError, OrderError):
                # A missing or stale order counts as a missed deadline.
                owed[seat] = default_order(new_state, seat)
        events: list[Event] = []
        RESOLVERS[new_state["step"]](new_state, owed, events)
        if new_state["finished"]:
            events.append(Event(self._ranking_text(new_state), data={"kind": "final"}))
        return new_state, events

    def _ranking_text(self, state: State) -> str:
        lines = [
            f"{standing.rank}. {state['countries'][standing.seat]} {standing.score} ({standing.detail})"
            for standing in _standings(state)
        ]
        return "Final ranking: " + "; ".join(lines) + "."

    def default_order(self, state: State, seat: int) -> Order:
        return default_order(state, seat)

    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        return random_order(state, seat, rng)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        final = None
        if state["finished"]:
            final = [
                {
                    "seat": standing.seat,
                    "country": state["countries"][standing.seat],
                    "score": standing.score,
                    "rank": standing.rank,
                    "detail": standing.detail,
                }
                for standing in _standings(state)
            ]
        return build_view(state, seat, self.phase_name(state), final)

    def outcome(self, state: State) -> list[Standing] | None:
        return _standings(state) if state["finished"] else None

    def phase_name(self, state: State) -> str:
        day = f"Day {state['day']}"
        return {
            "plan": f"{day} — planning",
            "sale": f"{day} — sale",
            "deal": f"{day} — deals, round {state['round']}",
            "bid": f"{day} — deals, round {state['round']}, bidding",
        }.get(state["step"], "Game over")

    def conceal(self, state: State, seat: int | None, rng: random.Random) -> State:
        hidden: State = json.loads(json.dumps(state))
        for other, country in enumerate(hidden["countries"]):
            if other != seat:
                hidden["hands"][other] = sort_cards(rng.sample(country_deck(country), len(hidden["hands"][other])))
        rng.shuffle(hidden["greek_deck"])
        return hidden

    def seat_name(self, state: State, seat: int) -> str:
        return str(state["countries"][seat])


register(PiraeusEngine())
