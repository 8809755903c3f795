"""The lobby's service layer, one call per thing a player does with a table: create it (with its
invitations), join an open seat, leave, cancel, and offer a finished game's table again (rematch).
Invitations' own answers are in games/lobby/invitations.py, the ready check in games/lobby/ready.py.

Every call takes the table's row lock first and checks what it may do under it, so two players racing for
the last open seat, or a join racing the start time, end with one winner and a clear refusal for the other.
A refusal (LobbyError) changes nothing: a creation whose fifth invitation is refused stores no table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import words
from games.engines import get_engine
from games.lobby import ready
from games.lobby.invitations import accept, invite, locked
from games.lobby.limits import AddressBusy, LobbyError, check_inviter_quota, check_open_tables, check_quotable
from games.lobby.models import Invitation, Table, TableSeat
from games.models import BotLevel, Game, Player, Seat
from games.play import newgame

SOONEST_START = timedelta(minutes=10)
LATEST_START = timedelta(days=30)
REMATCH_WAIT = timedelta(days=3)


@dataclass(frozen=True)
class TableSpec:
    """A table as its creator describes it (games/lobby/forms.py reads it from the form)."""

    engine: str
    size: int
    start_by: datetime
    phase_length: timedelta
    options: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    bots: int = 0  # bot seats from the start
    bots_fill: bool = False  # at the start time, empty seats become bots
    bot_level: str = BotLevel.STRONG  # how the bots play
    bot_levels: tuple[str, ...] = ()  # or one level a bot seat, in seat order
    private: bool = False
    daily_at: time | None = None
    time_zone: str = "UTC"


def check_spec(spec: TableSpec, invited: int, now: datetime) -> None:
    """LobbyError unless `spec` describes a table the engine can play (its own setup checks the options for
    every number of players the table may start with) with room for its creator and `invited` invitees."""
    engine = get_engine(spec.engine)
    if not engine.min_players <= spec.size <= engine.max_players:
        raise LobbyError(
            _("%(engine_title)s takes %(min_players)s to %(max_players)s players, not %(size)s.")
            % {
                "engine_title": words.game_title(engine.title),
                "min_players": engine.min_players,
                "max_players": engine.max_players,
                "size": spec.size,
            }
        )
    if 1 + invited + spec.bots > spec.size:
        raise LobbyError(
            _(
                "A table of %(size)s seats has room for you and %(more)s more: you asked for %(invited)s "
                "invitations and %(bots)s bots."
            )
            % {"size": spec.size, "more": spec.size - 1, "invited": invited, "bots": spec.bots}
        )
    if spec.bot_levels and len(spec.bot_levels) != spec.bots:
        raise LobbyError(
            _("Bot levels given: %(given)s, bot seats: %(bots)s; give one level for them all or one a seat.")
            % {"given": len(spec.bot_levels), "bots": spec.bots}
        )
    if not now + SOONEST_START <= spec.start_by <= now + LATEST_START:
        raise LobbyError(_("The start time must be between 10 minutes and 30 days from now."))
    sizes = [spec.size] if spec.bots_fill else range(max(engine.min_players, 2), spec.size + 1)
    try:
        for size in sizes:  # a per-seat option checked for the seats that game would have (ready.game_options)
            newgame.check_options(spec.engine, ready.game_options(spec.engine, spec.options, list(range(size))), [size])
    except ValueError as error:
        raise LobbyError(str(error)) from None


def create_table(
    creator: Player, spec: TableSpec, addresses: list[str], now: datetime | None = None, name: str = ""
) -> Table:
    """A new table: the creator in seat 1, an invitation emailed to each address, the bot seats, the rest
    open. If nothing waits for anyone (the creator and bots only), the game starts at once. `name`: the
    creator's name as others see it (their invitations name them by it), stored with the table."""
    now = now or timezone.now()
    name = " ".join(name.split())
    check_spec(spec, len(addresses), now)
    check_quotable(name or creator.name, _("Your name"))
    check_quotable(spec.title, _("The table's name"))
    if len({a.strip().lower() for a in addresses}) != len(addresses):
        raise LobbyError(_("An address is listed twice."))
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=creator.pk).first()  # one creation at a time per player
        check_open_tables(creator)
        check_inviter_quota(creator, len(addresses), now)
        if name and name != creator.name:
            creator.name = name
            creator.save(update_fields=["name"])
        table = Table.objects.create(
            creator=creator,
            engine=spec.engine,
            title=spec.title,
            options=spec.options,
            size=spec.size,
            phase_length=spec.phase_length,
            daily_at=spec.daily_at,
            time_zone=spec.time_zone,
            bots_fill=spec.bots_fill,
            bot_level=spec.bot_level,
            private=spec.private,
            start_by=spec.start_by,
            created_at=now,
        )
        states = [TableSeat.State.TAKEN] + [TableSeat.State.OPEN] * len(addresses)
        states += [TableSeat.State.BOT] * spec.bots
        states += [TableSeat.State.OPEN] * (spec.size - len(states))
        levels = iter(spec.bot_levels)
        seats = TableSeat.objects.bulk_create(
            TableSeat(
                table=table,
                number=n,
                state=state,
                player=creator if n == 0 else None,
                bot_level=next(levels, "") if state == TableSeat.State.BOT else "",
            )
            for n, state in enumerate(states)
        )
        table = locked(table.pk)
        for seat, address in zip(seats[1:], addresses, strict=False):
            invite(table, creator, address, now, seat=seat)
        ready.check(table, now)
    return table


def join(table_id: int, player: Player, now: datetime | None = None) -> Table:
    """`player` takes the first open seat (an invitation of theirs to this table is accepted instead)."""
    now = now or timezone.now()
    with transaction.atomic():
        table = locked(table_id)
        if table.status != Table.Status.OPEN:
            raise LobbyError(_("This table is no longer waiting for players."))
        if table.seats.filter(player=player).exists():
            raise LobbyError(_("You sit at this table already."))
        mine = table.invitations.filter(player=player, answer=Invitation.Answer.PENDING).first()
        if mine is not None:
            return accept(mine.pk, player, now=now)
        seat = table.seats.filter(state=TableSeat.State.OPEN).order_by("number").first()
        if seat is None:
            raise LobbyError(_("This table is full: every seat is taken or waiting for an invited player."))
        seat.state, seat.player = TableSeat.State.TAKEN, player
        seat.save(update_fields=["state", "player"])
        ready.check(table, now)
    return table


def leave(table_id: int, player: Player, now: datetime | None = None) -> None:
    """`player` gives their seat back before the game starts: it is open again."""
    with transaction.atomic():
        table = locked(table_id)
        if table.status != Table.Status.OPEN:
            raise LobbyError(_("This table is no longer waiting for players: there is nothing to leave."))
        if table.creator_id == player.pk:
            raise LobbyError(_("You created this table: cancel it instead."))
        if not table.seats.filter(player=player).update(state=TableSeat.State.OPEN, player=None, invitation=None):
            raise LobbyError(_("You do not sit at this table."))


def cancel(table_id: int, player: Player, now: datetime | None = None) -> None:
    """The creator calls the table off; everyone who sat at it or was invited is told."""
    now = now or timezone.now()
    with transaction.atomic():
        table = locked(table_id)
        if table.creator_id != player.pk:
            raise LobbyError(_("Only the table's creator can cancel it."))
        if table.status != Table.Status.OPEN:
            raise LobbyError(_("This table is no longer waiting for players: it cannot be cancelled."))
        ready.cancel(table, str(ready.CANCELLED_BY_CREATOR), now, by=player)


def rematch(game: Game, player: Player, now: datetime | None = None) -> Table:
    """The same table again, after `game` ended: a new private table created by `player`, of the same game,
    options (a value per seat dealt again), deadlines and size, the bots as bots (each at the level it played)
    and the other players invited (as any invitation, within the limits). One rematch per finished game: the
    one proposed already (waiting, or started, as a table with bots starts at once) is returned instead, so a
    second click, or two players pressing at once, makes one table and invites nobody twice. An invitee who
    declined this player's invitations, or whose address bounces, leaves their seat open; one who has had the
    most invitations an address may get today refuses the whole rematch (LobbyError, nothing stored), as it
    refuses an invitation.

    Serialized by the finished game's row, locked first (no resolution writes it any more): the second of two
    rematches at once waits for the first and then returns its table."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update(no_key=True).get(pk=game.pk)  # one rematch at a time per game
        if game.status != Game.Status.FINISHED:
            raise LobbyError(_("A rematch can be offered once the game is over."))
        seats = list(Seat.objects.filter(game=game).select_related("player").order_by("number"))
        if player.pk not in {s.player_id for s in seats}:
            raise LobbyError(_("Only a player of this game can offer a rematch."))
        proposed = Table.objects.filter(rematch_of=game).exclude(status=Table.Status.CANCELLED).order_by("-pk")
        if (table := proposed.first()) is not None:
            return table
        others = [s.player for s in seats if s.player is not None and not s.is_bot and s.player_id != player.pk]
        check_inviter_quota(player, len(others), now)
        table = create_table(player, _rematch_spec(game, seats, player, now), [], now)
        table.rematch_of = game
        table.save(update_fields=["rematch_of"])
        for other in others:
            try:
                with transaction.atomic():
                    invite(table, player, other.email, now)
            except AddressBusy:
                raise
            except LobbyError:
                continue  # they declined this player's invitations before, or their address bounces
    return table


def _rematch_spec(game: Game, seats: list[Seat], player: Player, now: datetime) -> TableSpec:
    old = ready.lobby_table(game)
    # A value per seat (a country) is dealt again: the new table numbers its seats otherwise (who offers first).
    per_seat = {spec.name for spec in get_engine(game.engine).options if spec.kind == "seat-list"}
    bots = [s for s in seats if s.is_bot or s.player is None]
    return TableSpec(
        engine=game.engine,
        size=len(seats),
        start_by=now + REMATCH_WAIT,
        phase_length=old.phase_length if old else game.phase_length,
        options={name: value for name, value in game.options.items() if name not in per_seat},
        title=game.title,
        bots=len(bots),
        bot_levels=tuple(s.bot_level for s in bots),  # each bot as it played, in seat order
        private=True,
        daily_at=old.daily_at if old else None,
        time_zone=old.time_zone if old else player.time_zone,
    )
