"""The two decisions, the table the engine kit reads: a home city (and the order card kept), and a turn.
A missed turn takes no actions; a missed home choice is `default_home` (RULES.md)."""

from __future__ import annotations

from games.engines.kit import Decision
from games.engines.ports_of_call import builder
from games.engines.ports_of_call.bots import default_home, random_home, random_turn
from games.engines.ports_of_call.flow import resolve_home, resolve_turn
from games.engines.ports_of_call.orders import validate_home, validate_turn
from games.engines.ports_of_call.prompts import home_prompt, turn_prompt
from games.engines.ports_of_call.readback import read_home, read_turn

DECISIONS = {
    "home": Decision(home_prompt, validate_home, default_home, random_home, resolve_home, read_back=read_home),
    "turn": Decision(
        turn_prompt,
        validate_turn,
        lambda state, seat: {"actions": ""},
        random_turn,
        resolve_turn,
        read_back=read_turn,
        builders={"actions": builder.ACTIONS},
    ),
}
