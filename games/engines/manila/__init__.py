"""Manila: voyages of three punts to Manila, with a sealed auction for the harbor master, sealed ranked
placement lists, and dice.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules: data (printed numbers), money (cash, shares, loans), flow (the voyage's stages and automatic
steps), auction (the office and its duties), placing (accomplices), crews (pilots and pirates),
payout (profit distribution), steps (the decisions and `advance`), view (what a seat sees).
"""

from __future__ import annotations

import json
import random
from typing import Any

from games.engines import register
from games.engines.base import Choice, Engine, Event, OptionSpec, Order, OrderError, Prompt, Standing, State
from games.engines.manila.data import (
    COLOURS,
    REDEEM,
    SHARES_DEALT,
    SHARES_PER_WARE,
    START_CASH,
    WARES,
)
from games.engines.manila.flow import start_voyage
from games.engines.manila.steps import STEPS, advance, resolve_step, step_of
from games.engines.manila.view import build_view

STAGE_NAMES = {
    "bid": "harbor master auction",
    "duties": "harbor master's duties",
    "place": "placing accomplices",
    "pilot:small": "the small pilot",
    "pilot:large": "the large pilot",
    "board:captain": "the pirate captain boards",
    "board:second": "the second pirate boards",
    "plunder": "the pirates plunder",
}


def fortune(state: State, seat: int) -> tuple[int, str]:
    """Cash plus the value of every share, less 15 per encumbered share."""
    cash, shares, loans = state["cash"][seat], state["shares"][seat], state["loans"][seat]
    worth = sum(state["values"][ware] for ware in shares)
    detail = f"{cash} cash + {worth} in {len(shares)} share{'s' if len(shares) != 1 else ''}"
    if loans:
        detail += f" - {REDEEM * loans} for {loans} encumbered"
    return cash + worth - REDEEM * loans, detail


def standings(state: State) -> list[Standing]:
    """Largest fortune first; HOUSE DEFAULT (FACTS.md): tied fortunes share the rank."""
    rows = sorted(((*fortune(state, seat), seat) for seat in range(state["players"])), key=lambda r: (-r[0], r[2]))
    result: list[Standing] = []
    for place, (score, detail, seat) in enumerate(rows, start=1):
        rank = result[-1].rank if result and result[-1].score == score else place
        result.append(Standing(seat=seat, score=score, rank=rank, detail=detail))
    return result


def _read_options(options: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise ValueError("Options must be a mapping of option names to values.")
    unknown = sorted(set(options) - {"displacing_pirates"})
    if unknown:
        raise ValueError(f"Manila has no option called {', '.join(map(repr, unknown))}.")
    variant = options.get("displacing_pirates", "no")
    if variant not in ("yes", "no", True, False, None):
        raise ValueError("The displacing pirates option is 'yes' or 'no'.")
    return {"displacing_pirates": variant in ("yes", True)}


class ManilaEngine(Engine):
    slug = "manila"
    title = "Manila"
    min_players = 3
    max_players = 5
    options = (
        OptionSpec(
            name="displacing_pirates",
            label="Variant: pirates may board a full punt, sending an accomplice home",
            kind="choice",
            default="no",
            choices=(Choice("no", "No (the basic rule)"), Choice("yes", "Yes (the variant)")),
        ),
    )

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError("The number of players must be a whole number.")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Manila needs 3 to 5 players, not {players}.")
        chosen = _read_options(options)
        pile = [ware for ware in WARES for _ in range(SHARES_PER_WARE)]
        rng.shuffle(pile)
        shares = [sorted(pile[SHARES_DEALT * seat : SHARES_DEALT * (seat + 1)]) for seat in range(players)]
        supply = {ware: SHARES_PER_WARE - sum(hand.count(ware) for hand in shares) for ware in WARES}
        state: State = {
            "players": players,
            "names": list(COLOURS[:players]),
            "options": chosen,
            "cash": [START_CASH] * players,
            "shares": shares,
            "loans": [0] * players,
            "supply": supply,
            "values": {ware: 0 for ware in WARES},
            "voyage": 1,
            "opener": 0,  # the first voyage's auction opens with seat 1 (the rulebook: the oldest player)
            "harbor_master": None,
            "step": "bid",
            "step_stage": "bid",
            "asked": [],
            "boarded": None,
            "finished": False,
        }
        start_voyage(state)
        advance(state, [], rng)
        return state

    def prompts(self, state: State) -> dict[int, Prompt]:
        if state["finished"]:
            return {}
        step = STEPS[state["step"]]
        return {seat: step.prompt(state, seat) for seat in state["asked"]}

    def validate(self, state: State, seat: int, order: Order) -> Order:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["players"]:
            raise OrderError("There is no such seat in this game.")
        if state["finished"]:
            raise OrderError("The game is over: nobody is asked anything.")
        if seat not in state["asked"]:
            raise OrderError(f"Nothing is asked of you now ({self.phase_name(state)}); wait for your turn.")
        if not isinstance(order, dict):
            raise OrderError("An order must be a form with named fields.")
        return step_of(state).validate(state, seat, order)

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
                owed[seat] = self.validate(new_state, seat, self.default_order(new_state, seat))
        events: list[Event] = []
        resolve_step(new_state, owed, events, rng)
        if new_state["finished"]:
            events.append(Event(self._ranking_text(new_state), data={"kind": "final"}))
        return new_state, events

    def _ranking_text(self, state: State) -> str:
        rows = [f"{s.rank}. {state['names'][s.seat]} {s.score} ({s.detail})" for s in standings(state)]
        return "The game ends. Fortunes: " + "; ".join(rows) + "."

    def default_order(self, state: State, seat: int) -> Order:
        return step_of(state).default(state, seat)

    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        return step_of(state).random(state, seat, rng)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        final = None
        if state["finished"]:
            final = [
                {"seat": s.seat, "name": state["names"][s.seat], "score": s.score, "rank": s.rank, "detail": s.detail}
                for s in standings(state)
            ]
        return build_view(state, seat, self.phase_name(state), final)

    def outcome(self, state: State) -> list[Standing] | None:
        return standings(state) if state["finished"] else None

    def phase_name(self, state: State) -> str:
        if state["finished"]:
            return "Game over"
        stage = STAGE_NAMES.get(state["step_stage"], state["step_stage"])
        return f"Voyage {state['voyage']} — {stage}"

    def conceal(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Other seats' shares are face down: deal their wares out again among them, same counts."""
        hidden: State = json.loads(json.dumps(state))
        others = [other for other in range(hidden["players"]) if other != seat]
        pile = [ware for other in others for ware in hidden["shares"][other]]
        rng.shuffle(pile)
        for other in others:
            count = len(hidden["shares"][other])
            hidden["shares"][other], pile = sorted(pile[:count]), pile[count:]
        return hidden

    def seat_name(self, state: State, seat: int) -> str:
        return str(state["names"][seat])


register(ManilaEngine())
