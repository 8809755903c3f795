"""The organiser's routine jobs, each one path whatever page it is done from (the admin's bulk actions, a
membership's form, the organiser's console): it calls the league services and says exactly what it did, and
what it left alone and why, in lines the page shows as messages."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from django.contrib import messages
from django.utils import timezone
from django.utils.translation import ngettext

from games.leagues import services, substitutes
from games.leagues.models import League, Membership, Round
from games.models import Player
from games.outgoing.messages import zone_of
from games.play import turns
from games.play.organise import Said, Shown, outcome


def when(moment: datetime, league: League) -> str:
    local = moment.astimezone(zone_of(league.time_zone))
    return f"{local:%a %d %b %H:%M} {local.tzname()}"


def draw_round(league: League, starts_at: datetime | None = None, season: int | None = None) -> list[Said]:
    """Draw the current season's next round; start it now, or at `starts_at`. Says who sits it out for a
    vacation, and whose table's first deadline moved for one. `season`: the season the organiser's page named
    (0: none yet, so the first); refused if another was started since."""
    start = starts_at or timezone.now()
    try:
        current = services.current_season(league)
        if season is not None and current.number != max(season, 1):
            raise services.LeagueError(f"Season {current.number} was started meanwhile: nothing was drawn.")
        round_ = services.generate_round(current, start)
    except services.LeagueError as error:
        return [Said(messages.ERROR, f"{league}: {error}")]
    tables = round_.tables.count()
    if starts_at is None:
        services.start_round(round_.pk)
        said = [Said(messages.SUCCESS, f"{round_} drawn: {tables} table(s) started.")]
    else:
        said = [
            Said(messages.SUCCESS, f"{round_} drawn: {tables} table(s); it starts {when(round_.starts_at, league)}.")
        ]
    return said + vacation_notes(league, round_, start)


def vacation_notes(league: League, round_: Round, start: datetime) -> list[Said]:
    _, skipped = services.drawable(league, start)
    names = Player.objects.in_bulk(list(skipped))
    said = [
        Said(
            messages.WARNING,
            f"{names[p].display_name} is away {days} more day(s), longer than the league's "
            f"vacation cap ({league.vacation_cap_days}): not drawn this round.",
        )
        for p, days in sorted(skipped.items())
    ]
    for table in round_.tables.filter(vacation_added__gt=timedelta(0)).select_related("game"):
        phase = turns.current_phase(table.game) if table.game else None
        if phase is not None:
            said.append(
                Said(
                    messages.INFO,
                    f"Table {table.number}: a player is away, so its first deadline moved "
                    f"{table.vacation_added.days} day(s), to {when(phase.deadline, league)}.",
                )
            )
    return said


def start_round(round_: Round) -> list[Said]:
    if services.start_round(round_.pk):
        return [Said(messages.SUCCESS, f"{round_} started: {round_.tables.count()} game(s).")]
    round_.refresh_from_db()
    return [Said(messages.WARNING, f"{round_} not started: it is {round_.status} already.")]


def new_season(league: League, after: int | None = None) -> list[Said]:
    try:
        season = services.start_season(league, after)
    except services.LeagueError as error:
        return [Said(messages.ERROR, f"{league}: {error}")]
    return [Said(messages.SUCCESS, f"{season} started; the earlier seasons' standings stay on the league's page.")]


def close_round(round_: Round) -> list[Said]:
    try:
        closed = services.close_round(round_)
    except services.LeagueError as error:
        return [Said(messages.ERROR, str(error))]
    if not closed:
        return [Said(messages.WARNING, f"{round_} was closed already.")]
    return [Said(messages.SUCCESS, f"{round_} closed; the standings went to the members.")]


def extend_round(round_: Round, hours: int, shown: Mapping[int, Shown]) -> list[Said]:
    """The round's games extended as the organiser's page showed them (`shown`, by game id)."""
    verb = ngettext("Extended by %(hours)d hour", "Extended by %(hours)d hours", hours) % {"hours": hours}
    return outcome(verb, *services.extend_round(round_, timedelta(hours=hours), shown))


def pause_round(round_: Round) -> list[Said]:
    return outcome("Paused", *services.pause_round(round_))


def resume_round(round_: Round) -> list[Said]:
    return outcome("Resumed", *services.resume_round(round_))


def set_status(membership: Membership, status: str) -> list[Said]:
    """A member's status, as the membership's form or a bulk action sets it: dropping them vacates their
    seats in running games and offers each to the standby list, whichever page it is done from."""
    before = Membership.objects.get(pk=membership.pk).status
    membership.status = status
    name = membership.player.display_name
    if before == status:
        return [Said(messages.WARNING, f"{name}: {status} already; nothing changed.")]
    if status == Membership.Status.DROPPED:
        seats = substitutes.drop_member(membership, timezone.now())
        return [
            Said(messages.SUCCESS, f"{name} dropped; {seats} seat(s) in running games offered to the standby list.")
        ]
    Membership.objects.filter(pk=membership.pk).update(status=status)
    return [Said(messages.SUCCESS, f"{name}: {before} → {status}.")]
