"""What the lobby adds to the core's pages (games/extensions.py): on a signed-in player's My games, a card to
start a game with the tables waiting for them (account_section); on a finished game's page, the rematch
button for its players (game_panel). Plain values only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from games.extensions import AccountSection, Panel
from games.lobby.facts import table_facts
from games.lobby.models import Invitation, Table
from games.models import Game, Player, Seat


@dataclass(frozen=True)
class Rematch:
    game_id: int
    proposed: str  # the key of the rematch table already proposed, or ""


def waiting_for(player: Player) -> list[Table]:
    """The tables waiting for players where `player` sits or has an invitation waiting, soonest start first
    (My games' card, and the API's /lobby/mine)."""
    invited = Q(invitations__player=player) | Q(invitations__address=player.email)
    waiting = (
        Table.objects.filter(Q(seats__player=player) | invited & Q(invitations__answer=Invitation.Answer.PENDING))
        .filter(status=Table.Status.OPEN)
        .distinct()
        .select_related("creator")
        .order_by("start_by")
    )
    return list(waiting[:20])


def account_section(request: Any, player: Player) -> AccountSection:
    tables = [table_facts(table, player.pk) for table in waiting_for(player)]
    return AccountSection("lobby/_mine.html", {"tables": tables}, beside_games=True)


def game_panel(request: Any, game: Game, seat: Seat | None) -> Panel | None:
    if game.status != Game.Status.FINISHED or seat is None or seat.player_id is None:
        return None
    proposed = Table.objects.filter(rematch_of=game, status=Table.Status.OPEN).values_list("key", flat=True).first()
    return Panel("lobby/_rematch.html", Rematch(game_id=game.pk, proposed=proposed or ""))
