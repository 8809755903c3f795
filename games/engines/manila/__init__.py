"""Manila: voyages of three punts to Manila, with a sealed auction for the harbor master, sealed ranked
placement lists, and dice.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules, named as in every game where they hold the same kind of thing (docs/contributors.md, "Adding a
game"): data (printed numbers), money (cash, shares, loans), flow (the voyage's stages and automatic
steps), decisions (the table the engine kit reads, and `advance`), view (what a seat sees). Manila's
decisions are grouped by who takes them, each module holding their prompts, checks, read-backs, handlers
and bots: auction (the office and its duties), placing (accomplices), crews (pilots, and pirates
boarding and plundering); fields (the loan fields every prompt has), payout (profit distribution).
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import register
from games.engines.base import Choice, M, Mn, Mp, Msg, OptionSpec, Standing, State
from games.engines.kit import DecisionEngine, Placing, copy_state, ranked, redealt
from games.engines.manila.data import (
    COLOUR_NAMES,
    COLOURS,
    REDEEM,
    SHARES_DEALT,
    SHARES_PER_WARE,
    START_CASH,
    WARES,
)
from games.engines.manila.decisions import DECISIONS, advance
from games.engines.manila.flow import start_voyage
from games.engines.manila.view import build_view

STAGE_NAMES = {
    "bid": Mp("manila stage", "harbor master auction"),
    "duties": Mp("manila stage", "harbor master's duties"),
    "place": Mp("manila stage", "placing accomplices"),
    "pilot:small": Mp("manila stage", "the small pilot"),
    "pilot:large": Mp("manila stage", "the large pilot"),
    "board:captain": Mp("manila stage", "the pirate captain boards"),
    "board:second": Mp("manila stage", "the second pirate boards"),
    "plunder": Mp("manila stage", "the pirates plunder"),
}


def fortune(state: State, seat: int) -> tuple[int, Msg]:
    """Cash plus the value of every share, less 15 per encumbered share."""
    cash, shares, loans = state["cash"][seat], state["shares"][seat], state["loans"][seat]
    worth = sum(state["values"][ware] for ware in shares)
    said = {"cash": cash, "worth": worth}
    if loans:
        detail = Mn(
            "{cash} cash + {worth} in {count} share - {debt} for {loans} encumbered",
            "{cash} cash + {worth} in {count} shares - {debt} for {loans} encumbered",
            len(shares),
            debt=REDEEM * loans,
            loans=loans,
            **said,
        )
    else:
        detail = Mn(
            "{cash} cash + {worth} in {count} share", "{cash} cash + {worth} in {count} shares", len(shares), **said
        )
    return cash + worth - REDEEM * loans, detail


def standings(state: State) -> list[Standing]:
    """Largest fortune first; HOUSE DEFAULT (RULES.md): tied fortunes share the rank."""
    placings = []
    for seat in range(state["players"]):
        score, detail = fortune(state, seat)
        placings.append(Placing(seat, (-score,), score, detail))
    return ranked(placings)


class ManilaEngine(DecisionEngine):
    slug = "manila"
    title = "Manila"
    min_players = 3
    max_players = 5
    options = (
        OptionSpec(
            name="displacing_pirates",
            label=M("Variant: pirates may board a full punt, sending an accomplice home"),
            kind="choice",
            default="no",
            choices=(Choice("no", M("No (the basic rule)")), Choice("yes", M("Yes (the variant)"))),
            error=M("The displacing pirates option is 'yes' or 'no'."),
        ),
    )
    decisions = DECISIONS
    final_text = M("The game ends. Fortunes: {standings}.")
    final_entry = Mp("final ranking", "{rank}. {name} {score} ({detail})")

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        options = self.read_setup(players, options)
        pile = [ware for ware in WARES for _ in range(SHARES_PER_WARE)]
        rng.shuffle(pile)
        shares = [sorted(pile[SHARES_DEALT * seat : SHARES_DEALT * (seat + 1)]) for seat in range(players)]
        supply = {ware: SHARES_PER_WARE - sum(hand.count(ware) for hand in shares) for ware in WARES}
        state: State = {
            "players": players,
            "names": list(COLOURS[:players]),
            "options": {"displacing_pirates": options["displacing_pirates"] == "yes"},
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

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat, self.phase_name(state), self.final_rows(state))

    def outcome(self, state: State) -> list[Standing] | None:
        return standings(state) if state["finished"] else None

    def not_asked_reason(self, state: State, seat: int) -> Msg:
        if state["finished"]:
            return M("The game is over: nobody is asked anything.")
        return M("Nothing is asked of you now ({phase}); wait for your turn.", phase=self.phase_name(state))

    def phase_name(self, state: State) -> str:
        if state["finished"]:
            return M("Game over")
        stage = STAGE_NAMES.get(state["step_stage"], state["step_stage"])
        return M("Voyage {voyage} — {stage}", voyage=state["voyage"], stage=stage)

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Other seats' shares are face down: deal their wares out again among them, same counts."""
        hidden = copy_state(state)
        others = [other for other in range(hidden["players"]) if other != seat]
        pile = redealt([ware for other in others for ware in hidden["shares"][other]], rng)
        for other in others:
            count = len(hidden["shares"][other])
            hidden["shares"][other], pile = sorted(pile[:count]), pile[count:]
        return hidden

    def seat_name(self, state: State, seat: int) -> str:
        return COLOUR_NAMES[state["names"][seat]]


register(ManilaEngine())
