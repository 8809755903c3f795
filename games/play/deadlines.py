"""Deadline arithmetic in a time zone (a league's, a lobby table creator's): pure functions of aware datetimes,
correct across daylight-saving changes because they step in local wall-clock time and convert back. The core's,
so that the apps that set deadlines (games/leagues, games/lobby) share one and depend on no other app for it;
a zone by its name is games.outgoing.messages.zone_of."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo


def at_local(day_start: datetime, at: time, tz: ZoneInfo) -> datetime:
    """`at` o'clock on `day_start`'s local date. A time skipped by a spring-forward change is read with the
    offset before the change (02:30 becomes 03:30 summer time); a repeated autumn time is its first one."""
    local = datetime.combine(day_start.date(), at, tzinfo=tz)
    return local.astimezone(UTC)


def daily_deadline(opened: datetime, at: time, tz: ZoneInfo, at_least: timedelta) -> datetime:
    """The first `at` o'clock (local time) that leaves the phase open for at least `at_least`."""
    earliest = opened + at_least
    day = earliest.astimezone(tz)
    candidate = at_local(day, at, tz)
    while candidate < earliest:
        day += timedelta(days=1)
        candidate = at_local(day, at, tz)
    return candidate


def add_local_days(moment: datetime, days: int, tz: ZoneInfo) -> datetime:
    """`moment` moved by whole days of the calendar: a deadline at 20:00 local stays at 20:00 local even
    when a daylight-saving change falls in between (the elapsed time is then 23 or 25 hours a day)."""
    local = moment.astimezone(tz)
    shifted = datetime.combine(local.date() + timedelta(days=days), local.timetz().replace(tzinfo=None), tzinfo=tz)
    return shifted.astimezone(UTC)


def add_local(moment: datetime, delta: timedelta, tz: ZoneInfo) -> datetime:
    """`moment` moved by `delta`: its whole days as calendar days (the local time of day stays), the rest as
    elapsed time. A 24-hour grace moves a 20:00 deadline to 20:00 the next day, DST change or not."""
    days = delta.days
    return add_local_days(moment, days, tz) + (delta - timedelta(days=days))
