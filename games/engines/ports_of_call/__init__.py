"""Ports of Call: four fiscal years of shipping containers between fifteen port cities.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules: data (every component and number), board (shared helpers), actions and trade (the steps of a
turn), flow (setup, news, accounts, the end), orders (prompts, validation, bots), view (what a seat sees).
"""

from __future__ import annotations

import json
import random
from typing import Any

from games.engines import register
from games.engines.base import Choice, Engine, Event, OptionSpec, Order, OrderError, Prompt, Standing, State
from games.engines.ports_of_call.board import name
from games.engines.ports_of_call.data import START_CASH
from games.engines.ports_of_call.flow import after_turn, choose_home, home_choices, new_state, standings_rows
from games.engines.ports_of_call.orders import (
    not_asked_reason,
    prompt_for,
    random_home,
    random_turn,
    run_events,
    validate_home,
    validate_turn,
)
from games.engines.ports_of_call.view import build_view

OPTION_DEFAULTS: dict[str, Any] = {
    "years": 4,
    "news_order": "ordered",
    "forecast": "off",
    "bankruptcy": "eliminate",
    "start_cash": START_CASH,
}
OPTION_VALUES: dict[str, set[Any]] = {
    "years": {3, 4, 5},
    "news_order": {"ordered", "shuffled"},
    "forecast": {"off", "on"},
    "bankruptcy": {"eliminate", "sell-assets"},
}


def parse_options(options: dict[str, Any]) -> dict[str, Any]:
    """Bad options raise ValueError, which the admin and `creategame` show to the organiser."""
    if not isinstance(options, dict):
        raise ValueError("Options must be a mapping of option names to values.")
    unknown = sorted(set(options) - set(OPTION_DEFAULTS))
    if unknown:
        raise ValueError(f"Ports of Call has no option called {', '.join(map(repr, unknown))}.")
    merged = {**OPTION_DEFAULTS, **{k: v for k, v in options.items() if v not in (None, "")}}
    if isinstance(merged["years"], str) and merged["years"].isdigit():
        merged["years"] = int(merged["years"])
    for key, allowed in OPTION_VALUES.items():
        if merged[key] not in allowed:
            raise ValueError(f"Option {key} must be one of {', '.join(sorted(map(str, allowed)))}.")
    cash = merged["start_cash"]
    if isinstance(cash, str) and cash.isdigit():
        cash = int(cash)
    if isinstance(cash, bool) or not isinstance(cash, int) or not 0 <= cash <= 5000:
        raise ValueError("Option start_cash must be a whole number of $M between 0 and 5000.")
    return {
        "years": merged["years"],
        "news_order": merged["news_order"],
        "forecast": merged["forecast"] == "on",
        "eliminate": merged["bankruptcy"] == "eliminate",
        "start_cash": cash,
    }


class PortsOfCallEngine(Engine):
    slug = "ports-of-call"
    title = "Ports of Call"
    min_players = 2
    max_players = 4
    options = (
        OptionSpec("years", "Fiscal years", "choice", "4", tuple(Choice(str(y), f"{y} years") for y in (3, 4, 5))),
        OptionSpec(
            "news_order",
            "News cards 1-16 (12 for 3 years, 20 for 5)",
            "choice",
            "ordered",
            (Choice("ordered", "in numerical order"), Choice("shuffled", "shuffled")),
        ),
        OptionSpec(
            "forecast",
            "Optional rule: forecast news (the next two cards are shown)",
            "choice",
            "off",
            (Choice("off", "off"), Choice("on", "on")),
        ),
        OptionSpec(
            "bankruptcy",
            "Bankruptcy at 60",
            "choice",
            "eliminate",
            (Choice("eliminate", "the player is eliminated"), Choice("sell-assets", "alternative rule: sell assets")),
        ),
        OptionSpec("start_cash", "Starting cash in $M (house default)", "integer", START_CASH, min=0, max=5000),
    )

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError("The number of players must be a whole number.")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Ports of Call needs 2 to 4 players, not {players}.")
        return new_state(players, parse_options(options), rng)

    def prompts(self, state: State) -> dict[int, Prompt]:
        if state["finished"] or not state["queue"]:
            return {}
        seat = state["queue"][0]
        return {seat: prompt_for(state, seat)}

    def validate(self, state: State, seat: int, order: Order) -> Order:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["players"]:
            raise OrderError("There is no such seat in this game.")
        if state["finished"] or not state["queue"] or state["queue"][0] != seat:
            raise OrderError(not_asked_reason(state, seat))
        if not isinstance(order, dict):
            raise OrderError("An order must be a form with named fields.")
        if state["step"] == "home":
            return validate_home(state, seat, order)
        return validate_turn(state, seat, order)

    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        new: State = json.loads(json.dumps(state))
        if new["finished"] or not new["queue"]:
            return new, []
        seat = new["queue"][0]
        order = {int(k): v for k, v in orders.items()}.get(seat)
        try:
            checked = self.validate(new, seat, order if order is not None else {})
        except OrderError:
            checked = self.default_order(new, seat)  # a stale order counts as a missed deadline
        events: list[Event] = []
        if new["step"] == "home":
            choose_home(new, seat, checked["home"], int(checked["keep"]), events)
            return new, events
        events.extend(run_events(new, seat, checked))
        if not checked["actions"]:
            events.append(Event(f"{name(seat)} takes no actions this quarter."))
        after_turn(new, events)
        if new["finished"]:
            events.append(Event(self._ranking_text(new), data={"kind": "final"}))
        return new, events

    def _ranking_text(self, state: State) -> str:
        rows = standings_rows(state)
        return "Final ranking: " + "; ".join(f"{r['rank']}. {name(r['seat'])} {r['detail']}" for r in rows) + "."

    def default_order(self, state: State, seat: int) -> Order:
        if state["step"] == "home":
            # A missed home choice: the first free city and the first dealt card (documented in RULES.md).
            return validate_home(state, seat, {"home": home_choices(state)[0], "keep": str(state["dealt"][seat][0])})
        return {"actions": ""}

    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        if state["step"] == "home":
            return random_home(state, seat, rng)
        return random_turn(state, seat, rng)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        final = None
        if state["finished"]:
            final = [{**row, "name": name(row["seat"]), "key": None} for row in standings_rows(state)]
        return build_view(state, seat, self.phase_name(state), final)

    def outcome(self, state: State) -> list[Standing] | None:
        if not state["finished"]:
            return None
        return [Standing(r["seat"], r["score"], r["rank"], r["detail"]) for r in standings_rows(state)]

    def phase_name(self, state: State) -> str:
        if state["finished"]:
            return "Game over"
        if state["step"] == "home":
            return f"Home cities — {name(state['queue'][0])} chooses"
        return f"Year {state['year']}, quarter {state['quarter']} — {name(state['queue'][0])}'s turn"

    def conceal(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Re-deal everything `seat` cannot see: both decks (but forecast cards), other seats' dealt and
        kept cards, and other seats' face-down completed orders."""
        hidden: State = json.loads(json.dumps(state))
        pool = list(hidden["order_deck"]) + list(hidden["order_discard"])
        others = [other for other in range(hidden["players"]) if other != seat]
        for other in others:
            pool += hidden["dealt"][other] + hidden["completed"][other]
            if hidden["kept"][other] is not None:
                pool.append(hidden["kept"][other])
        rng.shuffle(pool)
        for other in others:
            hidden["dealt"][other] = [pool.pop() for _ in hidden["dealt"][other]]
            hidden["completed"][other] = [pool.pop() for _ in hidden["completed"][other]]
            if hidden["kept"][other] is not None:
                hidden["kept"][other] = pool.pop()
        hidden["order_discard"] = [pool.pop() for _ in hidden["order_discard"]]
        hidden["order_deck"] = pool
        shown = 2 if hidden["options"]["forecast"] else 0
        rest = hidden["news_deck"][shown:]
        rng.shuffle(rest)
        hidden["news_deck"] = hidden["news_deck"][:shown] + rest
        return hidden

    def seat_name(self, state: State, seat: int) -> str:
        return name(seat)


register(PortsOfCallEngine())
