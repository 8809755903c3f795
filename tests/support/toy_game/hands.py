"""Secret Hands, the toy game with something to hide, for tests/leagues/test_machine.py: each seat is dealt
three cards (random tokens such as "card3f9a1c07be"), and each of three rounds every seat plays one, sealed;
the highest card played scores the round's number. A seat's hand is in its prompt and its own view only; a
card is public once played. A missed deadline plays the first card in hand. Its board templates are the toy
game's (this module sits beside them). Registered only by the tests that use it."""

from __future__ import annotations

import random
from typing import Any

from games.engines.base import Choice, Event, Field, Order, OrderError, Prompt, ReadBack, State
from games.engines.kit import Decision
from tests.support.toy_game import ROUNDS, HighestUnique


def hand_prompt(state: State, seat: int) -> Prompt:
    cards = tuple(Choice(card, card) for card in state["hands"][seat])
    return Prompt(
        "play",
        f"Round {state['round']}: play a card; the highest scores.",
        (Field("card", "choice", "Your card", cards),),
    )


def check_card(state: State, seat: int, order: Order) -> Order:
    if order.get("card") not in state["hands"][seat]:
        raise OrderError("Play a card from your hand.")
    return {"card": order["card"]}


def score_cards(state: State, orders: dict[int, Order], rng: random.Random, events: list[Event]) -> None:
    played = {seat: order["card"] for seat, order in orders.items()}
    for seat, card in played.items():
        state["hands"][seat].remove(card)
        events.append(Event(f"Seat {seat + 1} played {card}."))
    winner = max(played, key=lambda seat: played[seat])
    state["scores"][winner] += state["round"]
    state["round"] += 1
    state["finished"] = state["round"] > ROUNDS


class SecretHands(HighestUnique):
    slug = "toy-hands"
    title = "Secret Hands"
    decisions = {
        "pick": Decision(
            prompt=hand_prompt,
            validate=check_card,
            default=lambda state, seat: {"card": state["hands"][seat][0]},
            random=lambda state, seat, rng: {"card": rng.choice(state["hands"][seat])},
            resolve=score_cards,
            read_back=lambda state, seat, order: ReadBack((f"You will play {order['card']}.",)),
        )
    }

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        state = super().setup(players, options, rng)
        state["hands"] = [[f"card{rng.getrandbits(40):010x}" for _ in range(ROUNDS)] for _ in range(players)]
        return state


HANDS = SecretHands()
