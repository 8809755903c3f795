"""The organiser's routine jobs, each one path whatever page it is done from (the admin's bulk actions, a
membership's form, the organiser's console): it calls the league services and says exactly what it did, and
what it left alone and why, in lines the page shows as messages."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from django.contrib import messages
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.leagues import services, substitutes
from games.leagues.models import League, Membership, Round
from games.models import Player
from games.outgoing.messages import zone_of
from games.play import turns
from games.play.organise import PAUSED, RESUMED, Said, Shown, StrOrPromise, Verb, outcome


def when(moment: datetime, league: League) -> str:
    local = moment.astimezone(zone_of(league.time_zone))
    return f"{dateformat.format(local, 'D d M H:i')} {local.tzname()}"  # day and month in the reader's language


def draw_round(league: League, starts_at: datetime | None = None, season: int | None = None) -> list[Said]:
    """Draw the current season's next round; start it now, or at `starts_at`. Says who sits it out for a
    vacation, and whose table's first deadline moved for one. `season`: the season the organiser's page named
    (0: none yet, so the first); refused if another was started since."""
    start = starts_at or timezone.now()
    try:
        current = services.current_season(league)
        if season is not None and current.number != max(season, 1):
            raise services.LeagueError(
                _("Season %(number)s was started meanwhile: nothing was drawn.") % {"number": current.number}
            )
        round_ = services.generate_round(current, start)
    except services.LeagueError as error:
        return [Said(messages.ERROR, _("%(league)s: %(error)s") % {"league": league, "error": error})]
    tables = round_.tables.count()
    if starts_at is None:
        services.start_round(round_.pk)
        drawn = ngettext(
            "%(round)s drawn: %(count)d table started.", "%(round)s drawn: %(count)d tables started.", tables
        )
        said = [Said(messages.SUCCESS, drawn % {"round": round_, "count": tables})]
    else:
        drawn = ngettext(
            "%(round)s drawn: %(count)d table; it starts %(when)s.",
            "%(round)s drawn: %(count)d tables; it starts %(when)s.",
            tables,
        )
        said = [
            Said(messages.SUCCESS, drawn % {"round": round_, "count": tables, "when": when(round_.starts_at, league)})
        ]
    return said + vacation_notes(league, round_, start)


def vacation_notes(league: League, round_: Round, start: datetime) -> list[Said]:
    skipped = services.drawable(league, start)[1]
    names = Player.objects.in_bulk(list(skipped))
    said = [
        Said(
            messages.WARNING,
            ngettext(
                "%(name)s is away %(days)d more day, longer than the league's vacation cap (%(cap)d): "
                "not drawn this round.",
                "%(name)s is away %(days)d more days, longer than the league's vacation cap (%(cap)d): "
                "not drawn this round.",
                days,
            )
            % {"name": names[p].display_name, "days": days, "cap": league.vacation_cap_days},
        )
        for p, days in sorted(skipped.items())
    ]
    for table in round_.tables.filter(vacation_added__gt=timedelta(0)).select_related("game"):
        phase = turns.current_phase(table.game) if table.game else None
        if phase is not None:
            said.append(
                Said(
                    messages.INFO,
                    ngettext(
                        "Table %(number)s: a player is away, so its first deadline moved %(days)d day, to %(when)s.",
                        "Table %(number)s: a player is away, so its first deadline moved %(days)d days, to %(when)s.",
                        table.vacation_added.days,
                    )
                    % {"number": table.number, "days": table.vacation_added.days, "when": when(phase.deadline, league)},
                )
            )
    return said


def start_round(round_: Round) -> list[Said]:
    if services.start_round(round_.pk):
        count = round_.tables.count()
        started = ngettext("%(round)s started: %(count)d game.", "%(round)s started: %(count)d games.", count)
        return [Said(messages.SUCCESS, started % {"round": round_, "count": count})]
    round_.refresh_from_db()
    already = _("%(round)s not started: it is %(status)s already.")
    return [
        Said(messages.WARNING, already % {"round": round_, "status": ROUND_WORDS.get(round_.status, round_.status)})
    ]


def new_season(league: League, after: int | None = None) -> list[Said]:
    try:
        season = services.start_season(league, after)
    except services.LeagueError as error:
        return [Said(messages.ERROR, _("%(league)s: %(error)s") % {"league": league, "error": error})]
    started = _("%(season)s started; the earlier seasons' standings stay on the league's page.")
    return [Said(messages.SUCCESS, started % {"season": season})]


def close_round(round_: Round) -> list[Said]:
    try:
        closed = services.close_round(round_)
    except services.LeagueError as error:
        return [Said(messages.ERROR, str(error))]
    if not closed:
        return [Said(messages.WARNING, _("%(round)s was closed already.") % {"round": round_})]
    return [Said(messages.SUCCESS, _("%(round)s closed; the standings went to the members.") % {"round": round_})]


def extend_round(round_: Round, hours: int, shown: Mapping[int, Shown]) -> list[Said]:
    """The round's games extended as the organiser's page showed them (`shown`, by game id)."""
    return outcome(extended_by(hours), *services.extend_round(round_, timedelta(hours=hours), shown))


def extended_by(hours: int) -> Verb:
    values = {"hours": hours, "count": "%(count)s", "rows": "%(rows)s"}  # the hours now, the rows in outcome
    return Verb(
        ngettext(
            "Extended by %(hours)d hour %(count)s: %(rows)s.", "Extended by %(hours)d hours %(count)s: %(rows)s.", hours
        )
        % values,
        ngettext(
            "Not extended by %(hours)d hour (%(count)s): %(rows)s.",
            "Not extended by %(hours)d hours (%(count)s): %(rows)s.",
            hours,
        )
        % values,
        ngettext(
            "Nothing extended by %(hours)d hour: no games.", "Nothing extended by %(hours)d hours: no games.", hours
        )
        % values,
    )


def pause_round(round_: Round) -> list[Said]:
    return outcome(PAUSED, *services.pause_round(round_))


def resume_round(round_: Round) -> list[Said]:
    return outcome(RESUMED, *services.resume_round(round_))


def set_status(membership: Membership, status: str) -> list[Said]:
    """A member's status, as the membership's form or a bulk action sets it: dropping them vacates their
    seats in running games and offers each to the standby list, whichever page it is done from."""
    before = Membership.objects.get(pk=membership.pk).status
    membership.status = status
    name = membership.player.display_name
    if before == status:
        already = _("%(name)s: %(status)s already; nothing changed.")
        return [Said(messages.WARNING, already % {"name": name, "status": status_word(status)})]
    if status == Membership.Status.DROPPED:
        seats = substitutes.drop_member(membership, timezone.now())
        dropped = ngettext(
            "%(name)s dropped; %(count)d seat in running games offered to the standby list.",
            "%(name)s dropped; %(count)d seats in running games offered to the standby list.",
            seats,
        )
        return [Said(messages.SUCCESS, dropped % {"name": name, "count": seats})]
    Membership.objects.filter(pk=membership.pk).update(status=status)
    changed = _("%(name)s: %(before)s → %(status)s.")
    return [
        Said(messages.SUCCESS, changed % {"name": name, "before": status_word(before), "status": status_word(status)})
    ]


def status_word(status: str) -> str:
    """A member's status as the organiser's messages name it (the stored word in English)."""
    return str(STATUS_WORDS.get(status, status))


STATUS_WORDS: dict[str, StrOrPromise] = {
    Membership.Status.ACTIVE: gettext_lazy("active"),
    Membership.Status.STANDBY: gettext_lazy("standby"),
    Membership.Status.INACTIVE: gettext_lazy("inactive"),
    Membership.Status.DROPPED: gettext_lazy("dropped"),
}
ROUND_WORDS: dict[str, StrOrPromise] = {
    Round.Status.SCHEDULED: gettext_lazy("scheduled"),
    Round.Status.STARTED: gettext_lazy("started"),
    Round.Status.FINISHED: gettext_lazy("finished"),
}
