"""A league's rules for ending its games early (the votes app's extension points, games/extensions.py): the
organiser chooses per league what its tables may do (League.early_endings), and a player who concedes a
league seat leaves it to a standby player like any dropped seat (games/leagues/substitutes.py drop_seat).

In the standings a draw is a result with shared first places (the league's points per place, shared as for any
tie: games/leagues/standings.py), and a cancelled game has no result and scores nothing for anyone. A conceded
seat's result goes to whoever holds it at the end, as for a substitute; the player who conceded ranks last at
that table, below every seat still played at the end whatever their score when they left (their Seating is
marked `conceded`; games/leagues/results.py places them): conceding a lost game must not be a way to escape its
last place, nor its weight on the rating."""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext_lazy

from games.leagues.models import League, Seating
from games.leagues.policy import table_of
from games.leagues.substitutes import drop_seat
from games.models import Game, Seat

ALLOWED: dict[str, set[str]] = {
    League.EarlyEndings.NONE: set(),
    League.EarlyEndings.DRAWS: {"draw", "concede"},
    League.EarlyEndings.ALL: {"draw", "cancel", "concede"},
}
REFUSED = {
    "draw": gettext_lazy("In %(league)s a table may not agree a draw: its organiser has not allowed it."),
    "cancel": gettext_lazy("In %(league)s a table may not cancel a game: its organiser has not allowed it."),
    "concede": gettext_lazy("In %(league)s a player may not concede: its organiser has not allowed it."),
}


def ending_refused(game: Game, kind: str) -> str | None:
    """Why the game's league does not let its tables end a game early by `kind`, or None."""
    # One query, whatever the game: the game page asks for each kind.
    found = League.objects.filter(seasons__rounds__tables__game=game).values_list("name", "early_endings").first()
    if found is None:
        return None
    name, allowed = found
    if kind in ALLOWED.get(allowed, set()):
        return None
    return str(REFUSED[kind]) % {"league": name}


def seat_left(seat: Seat, now: datetime) -> bool:
    """A league seat its player gave up: offered to the first standby player (a bot plays it otherwise)."""
    table = table_of(seat.game)
    if table is None:
        return False
    seating = Seating.objects.filter(table=table, seat_number=seat.number, until_phase__isnull=True).first()
    if seating is None:
        return False
    Seating.objects.filter(pk=seating.pk).update(conceded=True)
    drop_seat(seating, now)
    return True
