"""One seat's turn: a list of actions, applied step by step against action points (AP) and cash.

`run_turn` applies the steps to the state it is given and returns their canonical text; any illegal
step raises OrderError naming the step, so callers validate on a throwaway copy and nothing is applied.
"""

from __future__ import annotations

import re

from games.engines.base import Event, M, OrderError, State
from games.engines.ports_of_call.actions import ACTION_STEPS, Turn, start_turn
from games.engines.ports_of_call.data import typed
from games.engines.ports_of_call.money import claim_achievements
from games.engines.ports_of_call.trade import TRADE_STEPS

MAX_STEPS = 40
SHIP_ID = re.compile(r"[SL][1-3]")
STEPS = {**ACTION_STEPS, **TRADE_STEPS}


def split_steps(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[;\n]", text) if part.strip()]


def apply_step(state: State, turn: Turn, step: str, events: list[Event]) -> str:
    """Apply one step of a turn; returns it in canonical form or raises OrderError saying why not."""
    words = step.split()
    verb = words[0].lower()
    args = [word.upper() if SHIP_ID.fullmatch(word.upper()) else word.lower() for word in words[1:]]
    # Aliases players will type: "buy shares", "sell shares", "buy ship large", "extra ap".
    if verb in {"buy", "sell"} and args[:1] == ["shares"]:
        verb, args = "shares", [verb]
    elif verb == "buy" and args[:1] == ["ship"]:
        verb, args = "ship", args[1:]
    elif verb == "extra":
        args = [arg for arg in args if arg not in {"ap", "action", "point"}]
    handler = STEPS.get(verb)
    if handler is None:
        raise OrderError(
            M(
                "unknown action {text}; actions are {actions}",
                text=typed(repr(verb)),
                actions=typed(", ".join(sorted(STEPS))),
            )
        )
    done = handler(state, turn, args, events)
    claim_achievements(state, events, first=turn.seat)
    return done


def run_turn(state: State, seat: int, text: str, events: list[Event]) -> list[str]:
    """Apply every step of `text` for `seat` to `state`; returns the steps in canonical form."""
    turn = start_turn(state, seat)
    steps = split_steps(text)
    if len(steps) > MAX_STEPS:
        raise OrderError(
            M("An order may hold at most {most} steps; yours has {count}.", most=MAX_STEPS, count=len(steps))
        )
    done = []
    for number, step in enumerate(steps, start=1):
        try:
            done.append(apply_step(state, turn, step, events))
        except OrderError as error:
            # Each step's refusal ends without a full stop: this sentence ends it.
            raise OrderError(
                M(
                    "Step {number} ({step}): {problem}.",
                    number=number,
                    step=typed(step[:60]),
                    problem=error.message,
                )
            ) from None
    return done
