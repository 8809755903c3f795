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
from django.utils.translation import gettext, ngettext, npgettext, pgettext

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
# Each unit in words, in the active language. "relative": as "in …" and "… ago" need it (German says "in 2 Tagen",
# "vor 2 Tagen", where a length alone is "2 Tage").
WORDS = {
    "day": lambda n: ngettext("%(count)s day", "%(count)s days", n),
    "hour": lambda n: ngettext("%(count)s hour", "%(count)s hours", n),
    "minute": lambda n: ngettext("%(count)s minute", "%(count)s minutes", n),
    "second": lambda n: ngettext("%(count)s second", "%(count)s seconds", n),
}
RELATIVE_WORDS = {
    "day": lambda n: npgettext("relative time", "%(count)s day", "%(count)s days", n),
    "hour": lambda n: npgettext("relative time", "%(count)s hour", "%(count)s hours", n),
    "minute": lambda n: npgettext("relative time", "%(count)s minute", "%(count)s minutes", n),
    "second": lambda n: npgettext("relative time", "%(count)s second", "%(count)s seconds", n),
}
# "2 days", "1d 12h", "90 min", "1 day, 4 hours and 30 minutes".
PART = re.compile(r"(\d+)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b", re.IGNORECASE)
JOINERS = re.compile(r"[\s,]+|\band\b", re.IGNORECASE)


def in_words(length: timedelta, approximate: bool = False, *, relative_to_now: bool = False) -> str:
    """`length` in days, hours, minutes and seconds ("1 day 30 minutes", "0 minutes"), in the active language.
    `approximate`: only the largest unit and the one after it, if not zero ("1 day 4 hours", "1 day", never "1 day
    4 minutes"), and no seconds ("less than a minute"). `relative_to_now`: the words as "in …" and "… ago" take
    them."""
    words = RELATIVE_WORDS if relative_to_now else WORDS
    seconds = int(abs(length).total_seconds())
    parts: list[str] = []
    for unit, size in UNITS if not approximate else UNITS[:-1]:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(words[unit](count) % {"count": count})
        if approximate and (len(parts) == 2 or (parts and not count)):
            break
    if parts:
        return " ".join(parts)
    return gettext("less than a minute") if approximate else words["minute"](0) % {"count": 0}


def relative(moment: datetime, now: datetime) -> str:
    """`moment` as seen from `now`: "in 1 day 4 hours" or "3 hours ago", to the two largest units."""
    if moment >= now:
        return gettext("in %(length)s") % {"length": in_words(moment - now, approximate=True, relative_to_now=True)}
    return gettext("%(length)s ago") % {"length": in_words(now - moment, approximate=True, relative_to_now=True)}


def from_words(text: str) -> timedelta | None:
    """What `in_words` writes, in English or in the active language (and the short forms: "1d 12h", "90 min"), or
    Django's own duration formats ("2 00:00:00", "48:00:00", ISO 8601 "P2D"); None if it is neither."""
    text = text.strip()
    parts = PART.findall(text)
    if parts and not JOINERS.sub("", PART.sub("", text)):
        sizes = {"d": 86400, "h": 3600, "m": 60, "s": 1}
        return timedelta(seconds=sum(int(count) * sizes[unit[0].lower()] for count, unit in parts))
    named = unit_names()
    parts = WORD_PART.findall(text)
    rest = WORD_PART.sub(" ", text).lower().replace(",", " ").split()
    joiner = pgettext("between lengths of time", "and")
    if parts and all(word.lower() in named for _, word in parts) and all(word == joiner for word in rest):
        return timedelta(seconds=sum(int(count) * named[word.lower()] for count, word in parts))
    return parse_duration(text)


WORD_PART = re.compile(r"(\d+)\s*([^\W\d_]+)")


def unit_names() -> dict[str, int]:
    """The active language's words for the units, singular and plural, lower case -> seconds."""
    return {
        (words[unit](count) % {"count": ""}).strip().lower(): size
        for words in (WORDS, RELATIVE_WORDS)
        for unit, size in UNITS
        for count in (1, 2, 5)
    }


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
