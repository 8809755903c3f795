"""The open phase of a game and an email's headline: what most tests read after a step."""

from __future__ import annotations

from typing import Any

from games.models import Game, Phase
from games.play import turns


def headline(message: Any) -> str:
    """What an email says in a line: its body's first line (its subject is its thread's, games/outgoing/messages.py)."""
    return str(message.body).split("\n", 1)[0]


def open_phase(game: Game) -> Phase:
    game.refresh_from_db()
    phase = turns.current_phase(game)
    assert phase is not None, "the game has no open phase"
    return phase
