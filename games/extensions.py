"""Where another app extends the core: each point is declared here, an app fills it in from its
AppConfig.ready(), and the core reads it without naming the app. With nothing registered the core works the
same (tests/test_core_alone.py runs it with the leagues app removed). The leagues app is the one user
(games/leagues/apps.py and games/leagues/policy.py).

Signals, sent by the service layer (games.turns, games.sweep):

- `phase_opened`, with `game`, `phase`, `previous` (None for the first phase) and `now`, inside the
  transaction that opens the phase, after its outbox rows are written (they are rendered when sent): a
  receiver may move `phase.deadline` or withdraw rows a player chose not to get;
- `deadline_passed`, with `phase_id` and `now` (the sweep's time), by the task of a phase the sweep found
  past its deadline (games/sweep.py), before it is resolved with default orders: a receiver returning True
  has dealt with the phase (e.g. extended its deadline);
- `game_finished`, with `game` and `now`, inside the transaction that ends the game, once its result and
  last emails are stored: a receiver tidies up what the end makes moot;
- `seat_replaced`, with `seat` (held by the newcomer now), `previous` (the Player who held it, or None) and
  `now`, by games.turns.replace_player inside its transaction, whoever asked for it (an organiser in the
  admin, a league's substitute claim): a receiver records who holds the seat from which phase.

Declared with `register(app_label, Extension(...))`:

- `phase_related`: rows a resolution reads with the phase it locks (select_related paths from Phase, beyond
  its game), so a `phase_opened` receiver needs no query of its own;
- `games_of` / `players_of`: which games and which players a staff user is responsible for in the admin,
  beyond the games they started and those games' players (a Q over Game, a Q over Player).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.dispatch import Signal

phase_opened = Signal()
deadline_passed = Signal()
game_finished = Signal()
seat_replaced = Signal()

# A staff user (django.contrib.auth's user model) -> the rows they are responsible for.
Responsible = Callable[[Any], Q]


@dataclass(frozen=True)
class Extension:
    """What one app adds to the core (see the module's docstring)."""

    phase_related: tuple[str, ...] = ()
    games_of: Responsible | None = None
    players_of: Responsible | None = None


_registered: dict[str, Extension] = {}


def register(app_label: str, extension: Extension) -> None:
    """Called from the app's AppConfig.ready(). Registering the same app again replaces its extension."""
    _registered[app_label] = extension


def phase_related() -> list[str]:
    """What resolve_phase reads with the phase it locks: its game, and what the apps asked for."""
    return ["game", *(path for extension in _registered.values() for path in extension.phase_related)]


def games_of(user: Any) -> list[Q]:
    """The apps' conditions for games `user` is responsible for (the core adds the games they started)."""
    return [extension.games_of(user) for extension in _registered.values() if extension.games_of]


def players_of(user: Any) -> list[Q]:
    """The apps' conditions for players `user` is responsible for (the core adds its games' players)."""
    return [extension.players_of(user) for extension in _registered.values() if extension.players_of]
