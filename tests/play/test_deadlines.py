"""Deadline arithmetic at time-zone and daylight-saving edges (games/play/deadlines.py)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from games.play.deadlines import add_local, add_local_days, daily_deadline

PARIS = ZoneInfo("Europe/Paris")  # summer time from 2026-03-29 02:00, back on 2026-10-25 03:00
AUCKLAND = ZoneInfo("Pacific/Auckland")


def test_a_daily_deadline_is_the_first_local_time_after_the_minimum_open_time():
    opened = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)  # 12:00 in Paris
    deadline = daily_deadline(opened, time(20, 0), PARIS, timedelta(hours=24))
    assert deadline.astimezone(PARIS) == datetime(2026, 6, 2, 20, 0, tzinfo=PARIS)
    deadline = daily_deadline(opened, time(20, 0), PARIS, timedelta(hours=2))
    assert deadline.astimezone(PARIS) == datetime(2026, 6, 1, 20, 0, tzinfo=PARIS)


def test_a_daily_deadline_keeps_its_local_time_across_the_spring_change():
    opened = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    deadline = daily_deadline(opened, time(20, 0), PARIS, timedelta(hours=24))
    assert deadline == datetime(2026, 3, 29, 18, 0, tzinfo=UTC)  # 20:00 summer time (UTC+2)
    assert deadline.astimezone(PARIS).hour == 20


def test_a_daily_deadline_in_the_skipped_hour_falls_after_the_gap():
    opened = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    deadline = daily_deadline(opened, time(2, 30), PARIS, timedelta(hours=12))
    # 02:30 does not exist on 29 March in Paris; it is read as 03:30 summer time, 01:30 UTC.
    assert deadline == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)


def test_a_daily_deadline_in_the_repeated_hour_is_the_first_one():
    opened = datetime(2026, 10, 24, 12, 0, tzinfo=UTC)
    deadline = daily_deadline(opened, time(2, 30), PARIS, timedelta(hours=6))
    assert deadline == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 summer time (UTC+2)


def test_a_daily_deadline_south_of_the_equator_follows_its_own_change():
    # Auckland leaves summer time on 2026-04-05 (03:00 -> 02:00): UTC+13 before, UTC+12 after.
    opened = datetime(2026, 4, 4, 0, 0, tzinfo=UTC)
    deadline = daily_deadline(opened, time(21, 0), AUCKLAND, timedelta(hours=24))
    assert deadline == datetime(2026, 4, 5, 9, 0, tzinfo=UTC)


def test_adding_vacation_days_keeps_the_local_time_across_daylight_saving():
    deadline = datetime(2026, 3, 27, 19, 0, tzinfo=UTC)  # Friday 20:00 in Paris (winter time)
    moved = add_local_days(deadline, 3, PARIS)
    assert moved.astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 3, 30, 20, 0)
    assert moved - deadline == timedelta(days=3) - timedelta(hours=1)  # one day was 23 hours long
    back = add_local_days(datetime(2026, 10, 24, 18, 0, tzinfo=UTC), 1, PARIS)
    assert back - datetime(2026, 10, 24, 18, 0, tzinfo=UTC) == timedelta(hours=25)


def test_adding_days_in_utc_is_plain_arithmetic():
    start = datetime(2026, 3, 28, 23, 30, tzinfo=UTC)
    assert add_local_days(start, 2, ZoneInfo("UTC")) == start + timedelta(days=2)


def test_a_grace_of_whole_days_keeps_the_local_time_and_the_rest_is_elapsed_time():
    saturday = datetime(2026, 3, 28, 19, 0, tzinfo=UTC)  # 20:00 in Paris, the night before summer time
    day = add_local(saturday, timedelta(hours=24), PARIS)
    assert day.astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 3, 29, 20, 0)
    assert day - saturday == timedelta(hours=23)
    longer = add_local(saturday, timedelta(hours=30), PARIS)
    assert longer - day == timedelta(hours=6)
    assert add_local(saturday, timedelta(hours=12), PARIS) == saturday + timedelta(hours=12)
