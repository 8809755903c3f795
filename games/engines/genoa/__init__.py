"""Genoa: merchants move the Trade tower through the city, sell the actions of the buildings it visits
for sealed offers, and buy the buildings themselves.

The rules note (RULES.md beside this file) lists every play-by-email change and house default.
Modules, named as in every game (docs/contributors.md, "Adding a game"): data (cards, tiles, numbers),
map (squares and spaces), syntax (the typed orders), rules (checks shared by orders and flow), actions
(what the pieces do), flow (the turn's automatic steps), decisions (the table the engine kit reads),
prompts (what a seat is asked), orders (validation), readback (an order in words), builder (the order
builder's steps), bots (default and random orders), view (what a seat sees).
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import register
from games.engines.base import M, Mn, Msg, OptionSpec, Standing, State
from games.engines.genoa.actions import colour
from games.engines.genoa.data import (
    COMMODITIES,
    COMMODITY_TILES_EACH,
    MARKERS_PER_PLAYER,
    PILES,
    ROUNDS_BY_PLAYERS,
    START_DUCATS,
    TILES,
    pile_cards,
    sort_cards,
)
from games.engines.genoa.decisions import DECISIONS
from games.engines.genoa.flow import begin_turn
from games.engines.genoa.orders import not_asked_reason
from games.engines.genoa.rules import delivery_goods
from games.engines.genoa.syntax import TYPED_WORDS
from games.engines.genoa.view import build_view
from games.engines.kit import DecisionEngine, Placing, copy_state, less, ranked, redealt


def _pledged(offers: list[dict[str, Any]]) -> tuple[list[str], int]:
    """What these offers of one seat name (cards, goods, tiles), and their ducats."""
    named = [*(item for o in offers for key in ("cards", "deliver", "goods", "tiles") for item in o[key])]
    named += [good for o in offers for good in delivery_goods(o["deliver"])]
    return named, sum(o["ducats"] for o in offers)


def _goods_count(state: State, seat: int) -> int:
    return len(state["hands"][seat]) + len(state["goods"][seat]) + len(state["tiles"][seat])


def _standings(state: State) -> list[Standing]:
    """Most ducats first; a tie goes to the most goods (cards, commodities, special tiles); still equal:
    a shared rank."""
    placings = []
    for seat in range(state["players"]):
        ducats, goods = state["ducats"][seat], _goods_count(state, seat)
        detail = Mn("{ducats} ducats, {count} good", "{ducats} ducats, {count} goods", goods, ducats=ducats)
        placings.append(Placing(seat, (-ducats, -goods), ducats, detail))
    return ranked(placings)


class GenoaEngine(DecisionEngine):
    slug = "genoa"
    title = "Genoa"
    min_players = 2
    max_players = 5
    options = (
        OptionSpec(
            name="rounds",
            label=M("Starting space of the round track (blank: house default 12/10/8/6 for 2/3/4/5 players)"),
            kind="integer",
            default=None,
            min=1,
            max=12,
        ),
    )
    decisions = DECISIONS
    final_name_key = "colour"
    not_asked_reason = staticmethod(not_asked_reason)

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        options = self.read_setup(players, options)
        rounds = options["rounds"] or ROUNDS_BY_PLAYERS[players]
        decks = {}
        for kind in PILES:
            cards = pile_cards(kind)
            rng.shuffle(cards)
            decks[kind] = cards
        hands = []
        for _ in range(players):
            hands.append(sort_cards([decks[kind].pop(0) for kind in PILES]))
        state: State = {
            "players": players,
            "first": 0,  # seat 1 (index 0) is the first player for the whole game
            "round": 1,
            "rounds_total": rounds,
            "rounds_left": rounds,
            "turn_in_round": 0,
            "step": "start",
            "asked": [],
            "finished": False,
            "ducats": [START_DUCATS] * players,
            "goods": [[] for _ in range(players)],
            "tiles": [[] for _ in range(players)],
            "hands": hands,
            "markers": [0] * players,
            "reserve": [MARKERS_PER_PLAYER] * players,
            "owners": {},
            "decks": decks,
            "supply": {good: COMMODITY_TILES_EACH for good in COMMODITIES},
            "tile_supply": {tile: count for tile, (_, count) in TILES.items()},
            "turn": {},
        }
        begin_turn(state, rng, [])
        return state

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat, self.phase_name(state), self.final_rows(state))

    def outcome(self, state: State) -> list[Standing] | None:
        return _standings(state) if state["finished"] else None

    def phase_name(self, state: State) -> Msg:
        if state["finished"]:
            return M("Game over")
        said = {"round": state["round"], "merchant": colour(state["turn"]["merchant"])}
        step = state["step"]
        if step == "start":
            return M("Round {round}, {merchant} merchant — starting space", **said)
        if step == "offers":
            return M("Round {round}, {merchant} merchant — offers", **said)
        if step == "route":
            return M("Round {round}, {merchant} merchant — the tower moves", **said)
        if state["asked"]:
            return M(
                "Round {round}, {merchant} merchant — acquisitions ({seat})", seat=colour(state["asked"][0]), **said
            )
        return M("Round {round}, {merchant} merchant", **said)

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Other hands, goods, tiles and purses dealt again, sizes kept, but for what the seat has seen offered
        to it or by it this turn: that stays with its offerer (an offerer can pay, so a merchant's route must
        give the building to him). Offers the seat has not seen are dropped: it does not know them."""
        hidden = copy_state(state)
        others = [other for other in range(hidden["players"]) if other != seat]
        turn = hidden["turn"]
        seen = [o for o in turn.get("offers", []) if seat is not None and seat in (turn.get("merchant"), o["seat"])]
        if "offers" in turn:
            turn["offers"] = seen
        pledged = {other: _pledged([o for o in seen if o["seat"] == other]) for other in others}
        for kind in PILES:
            # Card backs show the pile, so only the faces of other hands and of the deck are re-dealt.
            free = {o: less([c for c in hidden["hands"][o] if c[0] == kind], pledged[o][0]) for o in others}
            pool = redealt(hidden["decks"][kind] + [c for o in others for c in free[o]], rng)
            for other in others:
                kept = less(hidden["hands"][other], free[other])
                hidden["hands"][other] = sort_cards(kept + [pool.pop() for _ in free[other]])
            hidden["decks"][kind] = pool
        for key in ("goods", "tiles"):
            free = {o: less(hidden[key][o], pledged[o][0]) for o in others}
            pool = redealt([item for o in others for item in free[o]], rng)
            for other in others:
                kept = less(hidden[key][other], free[other])
                hidden[key][other] = sorted(kept + [pool.pop() for _ in free[other]])
        # Other purses are hidden: guessed near the seat's own (everyone starts alike and earns alike), but
        # never below what an offer it has seen promises.
        own = START_DUCATS if seat is None else hidden["ducats"][seat]
        for other in others:
            hidden["ducats"][other] = max(round(own * rng.uniform(0.6, 1.4)), pledged[other][1])
        return hidden

    def typed_words(self) -> dict[str, Msg]:
        return TYPED_WORDS

    def seat_name(self, state: State, seat: int) -> str:
        return colour(seat)


register(GenoaEngine())
