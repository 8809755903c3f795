"""Phoenician Sea Trader: sail an 8x8 sea, buy commodities at one trade centre and sell them at another;
the first ship to 25 gold wins. Turns are sequential: one ship's whole turn is one order, a sequence of
steps checked one by one (see `syntax` and `actions`).

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules, named as in every game (docs/contributors.md, "Adding a game"): data (components and numbers),
map (the generated map), syntax (the typed turn order), actions (what each step of a turn does), flow
(the wind draw, the decisions' handlers, the end of a turn), decisions (the table the engine kit reads),
prompts (what the asked ship reads), orders (validation), readback (an order in words), builder (the
order builder's steps), bots (random orders), view (what a seat sees).
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import register
from games.engines.base import M, Msg, OptionSpec, Standing, State
from games.engines.kit import DecisionEngine, Placing, copy_state, less, ranked, redealt
from games.engines.phoenician.data import DEFAULT_ROUND_LIMIT, HAND_SIZE, START_GOLD, WIN_GOLD, colour, full_deck, gold
from games.engines.phoenician.decisions import DECISIONS
from games.engines.phoenician.map import generate
from games.engines.phoenician.syntax import TYPED_WORDS
from games.engines.phoenician.view import build_view


def _standings(state: State) -> list[Standing]:
    """The winner first; then the richest. Equal gold shares a rank (the rules give no tie-break)."""
    placings = []
    for seat in range(state["players"]):
        coins, winner = state["gold"][seat], seat == state["winner"]
        detail = M("{gold}, first to {most}", gold=gold(coins), most=WIN_GOLD) if winner else gold(coins)
        placings.append(Placing(seat, (not winner, -coins), coins, detail))
    return ranked(placings)


class PhoenicianEngine(DecisionEngine):
    slug = "phoenician"
    title = "Phoenician Sea Trader"
    min_players = 2
    max_players = 6
    options = (
        OptionSpec(
            name="round_limit",
            label=M("Rounds before the richest ship wins, if nobody reaches 25 gold (0: no limit)"),
            kind="integer",
            default=DEFAULT_ROUND_LIMIT,
            min=0,
            max=500,
            error=M("The round limit must be a whole number from 0 (no limit) to 500."),
        ),
    )
    decisions = DECISIONS
    no_such_seat = M("There is no such ship in this game.")

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        options = self.read_setup(players, options)
        land, centres, pirates = generate(rng)
        deck = full_deck()
        rng.shuffle(deck)
        order = list(range(players))
        rng.shuffle(order)
        return {
            "players": players,
            "land": land,
            "centres": centres,
            "pirates": pirates,
            "storms": [],
            "ships": [None] * players,
            "gold": [START_GOLD] * players,
            "hands": [[deck.pop() for _ in range(HAND_SIZE)] for _ in range(players)],
            "holds": [[] for _ in range(players)],
            "deck": deck,
            "discard": [],
            "order": order,
            "round": 0,
            "round_limit": options["round_limit"],
            "turn_index": 0,
            "step": "start",
            "active": order[0],
            "part": 1,
            "drawn": [],
            "offered": [],
            "offer": None,
            "winner": None,
            "finished": False,
        }

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat, self.phase_name(state), self.final_rows(state))

    def outcome(self, state: State) -> list[Standing] | None:
        return _standings(state) if state["finished"] else None

    def asked(self, state: State) -> list[int]:
        if state["finished"]:
            return []
        return [int(state["offer"]["to"]) if state["step"] == "answer" else int(state["active"])]

    def not_asked_reason(self, state: State, seat: int) -> Msg:
        if state["finished"]:
            return M("The game is over.")
        return M("It is not your turn: {phase}.", phase=self.phase_name(state))

    def phase_name(self, state: State) -> Msg:
        if state["finished"]:
            return M("Game over")
        active = colour(state["active"])
        if state["step"] == "start":
            return M("Setup — {ship} chooses a starting trade centre", ship=active)
        if state["step"] == "answer":
            return M(
                "Round {round} — {other} answers {ship}'s trade offer",
                round=state["round"],
                other=colour(state["offer"]["to"]),
                ship=active,
            )
        return M("Round {round} — {ship}'s turn", round=state["round"], ship=active)

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Other hands and the deck order re-dealt at random (sizes kept), but for the cards the seat saw
        offered to it, which stay in the offerer's hand; offers hidden from third ships."""
        hidden = copy_state(state)
        others = [other for other in range(hidden["players"]) if other != seat]
        offer = hidden["offer"]
        shown: dict[int, list[str]] = {other: [] for other in others}
        if offer and seat == offer["to"]:
            shown[offer["from"]] = [good for place, good in offer["give"] if place == "hand"]
        free = {other: less(hidden["hands"][other], shown[other]) for other in others}
        pool = redealt(hidden["deck"] + [card for other in others for card in free[other]], rng)
        for other in others:
            size = len(free[other])
            hidden["hands"][other], pool = shown[other] + pool[:size], pool[size:]
        hidden["deck"] = pool
        if hidden["active"] != seat and hidden["drawn"]:
            hand = hidden["hands"][hidden["active"]]
            hidden["drawn"] = hand[len(hand) - len(hidden["drawn"]) :]
        if hidden["offer"] and seat not in (hidden["offer"]["from"], hidden["offer"]["to"]):
            hidden["offer"]["give"], hidden["offer"]["want"] = [], []
        return hidden

    def typed_words(self) -> dict[str, Msg]:
        return TYPED_WORDS

    def seat_name(self, state: State, seat: int) -> Msg:
        return colour(seat)


register(PhoenicianEngine())
