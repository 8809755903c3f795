"""The rules of ending a game early, as plain functions over plain data: the services apply them under the
game's lock (games/votes/services.py), the player's guide says them in words (games/votes/GUIDE.md), and the
state machine checks them after every step (tests/votes/test_machine.py).

- Draw and cancel are votes. Any player at the table may propose one; proposing is voting yes. Every seat
  held by a player is asked, and it passes only if every one of them votes yes (unanimity: one player can
  always keep playing for a win). A no closes the vote at once, as failed; so does its deadline with a vote
  missing (silence is not consent: a game never ends because someone was away). It closes as passed the
  moment the last yes comes in. The deadline is the game's phase length after the proposal: the time the
  table already agreed a player has to answer an email. A phase resolving meanwhile changes nothing.
- A yes may be changed to a no until the vote closes; a no cannot be taken back (it closed the vote).
- Ballots are secret, before and after the close, and so is who proposed: the game usually goes on after a
  failed vote, and a player who refused a draw must not be punished for it in the next turns. The table
  learns only the outcome and its reason (passed; a player voted no; the deadline passed with a vote
  missing); a passed vote says nothing more, since every player voted yes. Each player's page shows their
  own ballot.
- One vote at a time per table. A proposal that failed may be made again once the game has moved on to a
  later turn than the one it failed in, so a vote cannot be used to pester the table.
- A ballot counts only while its player holds the seat: a player who leaves (concedes, or is replaced) no
  longer counts, and whoever takes the seat over may vote.
- A passed draw ends the game with every seat held by a player sharing first place; seats played by a bot
  share the places after them. A passed cancel ends the game with no result. Either way the turn in
  progress is not played: its sealed orders are discarded unread.
- Conceding is a right, not a vote: a player can always leave (a vote could only keep them at the table
  missing turns). Their seat goes to a standby player in a league, to a bot otherwise; the game goes on.
  The last player at a table cannot concede: they may propose to cancel, which passes at once.
- In a league, the organiser decides what is allowed (games/leagues: none, by default), and a player who
  conceded ranks last at that table in the standings, below every seat played to the end, with no points
  (games/leagues/early.py): conceding a lost game is no way out of its last place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from datetime import datetime, timedelta

from games.engines.base import Standing

# A voter: (seat number, player id).
Voter = tuple[int, int]

REFUSED, AGREED, DEADLINE = "refused", "agreed", "deadline"
KINDS = ("draw", "cancel")
CONCEDE = "concede"


def closes_at(opened_at: datetime, phase_length: timedelta) -> datetime:
    return opened_at + phase_length


def decide(voters: Set[Voter], ballots: Mapping[Voter, bool], now: datetime, deadline: datetime) -> str | None:
    """How an open vote stands: REFUSED, AGREED or DEADLINE (it closes), or None (it stays open). Only
    ballots of players who still hold their seat count."""
    counted = {voter: yes for voter, yes in ballots.items() if voter in voters}
    if not all(counted.values()):
        return REFUSED
    if voters and len(counted) == len(voters):
        return AGREED
    if now >= deadline:
        return DEADLINE
    return None


def may_propose_again(failed_in_phase: int | None, phase_number: int) -> bool:
    """A kind whose last vote failed in `failed_in_phase` may be proposed again from a later turn on."""
    return failed_in_phase is None or phase_number > failed_in_phase


def draw_standings(seats: Iterable[tuple[int, bool]]) -> list[Standing]:
    """The result of a draw, from each seat's (number, held by a player): the players share first place,
    bots share the places after them."""
    seats = sorted(seats)
    players = sum(1 for _, held in seats if held)
    return [
        Standing(seat=number, score=0, rank=1 if held else players + 1, detail="draw agreed" if held else "bot")
        for number, held in seats
    ]


# The id the guide's heading of these rules ("## Ending a game early", games/votes/GUIDE.md) has on every game's
# guide page (games/outgoing/guides.py), which the panel's and the emails' links land on. Kept here, not in
# apps.py, whose ready() imports the modules that link to it.
GUIDE_SECTION = "ending-a-game-early"
