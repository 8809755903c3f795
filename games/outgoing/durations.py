"""Lengths of time in words, as people write them: "2 days", "1 day 12 hours", "in 3 hours", "20 minutes ago".

Python prints a timedelta as "2 days, 0:00:00" and Django's forms as "2 00:00:00"; the organisers' admin,
the league page, the game page and the emails say "2 days" instead, and the admin reads what it shows back
(and Django's own forms, "2 00:00:00" or "48:00:00", still).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django import forms
from django.utils.dateparse import parse_duration

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
# "2 days", "1d 12h", "90 min", "1 day, 4 hours and 30 minutes".
PART = re.compile(r"(\d+)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b", re.IGNORECASE)
JOINERS = re.compile(r"[\s,]+|\band\b", re.IGNORECASE)


def in_words(length: timedelta, approximate: bool = False) -> str:
    """`length` in days, hours, minutes and seconds ("1 day 30 minutes", "0 minutes"). `approximate`: only the
    largest unit and the one after it, if not zero ("1 day 4 hours", "1 day", never "1 day 4 minutes"), and
    no seconds ("less than a minute")."""
    seconds = int(abs(length).total_seconds())
    parts: list[str] = []
    for unit, size in UNITS if not approximate else UNITS[:-1]:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
        if approximate and (len(parts) == 2 or (parts and not count)):
            break
    return " ".join(parts) or ("less than a minute" if approximate else "0 minutes")


def relative(moment: datetime, now: datetime) -> str:
    """`moment` as seen from `now`: "in 1 day 4 hours" or "3 hours ago", to the two largest units."""
    if moment >= now:
        return f"in {in_words(moment - now, approximate=True)}"
    return f"{in_words(now - moment, approximate=True)} ago"


def from_words(text: str) -> timedelta | None:
    """What `in_words` writes (and its short forms: "1d 12h", "90 min"), or Django's own duration formats
    ("2 00:00:00", "48:00:00", ISO 8601 "P2D"); None if it is neither."""
    text = text.strip()
    parts = PART.findall(text)
    if parts and not JOINERS.sub("", PART.sub("", text)):
        sizes = {"d": 86400, "h": 3600, "m": 60, "s": 1}
        return timedelta(seconds=sum(int(count) * sizes[unit[0].lower()] for count, unit in parts))
    return parse_duration(text)


class DurationInput(forms.TextInput):
    def format_value(self, value: object) -> str | None:
        if isinstance(value, timedelta):
            return in_words(value)
        return super().format_value(value)


class DurationInWordsField(forms.DurationField):
    """A duration field that shows "2 days" and reads it back (the admin's `formfield_overrides`)."""

    widget = DurationInput
    default_error_messages = {"invalid": 'Enter a length of time such as "2 days", "1 day 12 hours" or "90 minutes".'}

    def prepare_value(self, value: timedelta | str | None) -> str | None:
        return in_words(value) if isinstance(value, timedelta) else super().prepare_value(value)

    def to_python(self, value: object) -> timedelta | None:
        if value in self.empty_values:
            return None
        if isinstance(value, timedelta):
            return value
        found = from_words(str(value))
        if found is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return found
