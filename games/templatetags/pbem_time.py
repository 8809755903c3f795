"""Times in words for templates: `{{ length|duration }}` ("2 days") and `{{ moment|from_now }}` ("in 1 day 4
hours", "3 hours ago"), the latter as of the moment the template is rendered: when a page is served, or when
an email is built (it says so)."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django import template
from django.utils import dateformat, timezone

from games import words
from games.outgoing import durations

register = template.Library()


@register.filter
def local(moment: datetime | None, layout: str) -> str:
    """`{{ moment|local:"D j M H:i T" }}`: as Django's `date` filter writes it, in the active time zone. The
    words are kept for the same moment, layout, zone and language: a batch of emails writes its deadline once
    per reader's zone, where Django's formatting took a tenth of a millisecond each time."""
    if not isinstance(moment, datetime):
        return ""
    return _written(moment, layout, timezone.get_current_timezone_name(), words.get_language())


@functools.lru_cache(maxsize=1024)
def _written(moment: datetime, layout: str, zone: str, language: str | None) -> str:
    return dateformat.format(timezone.localtime(moment, ZoneInfo(zone)), layout)


@register.filter
def duration(length: timedelta | None) -> str:
    return durations.in_words(length) if isinstance(length, timedelta) else ""


@register.filter
def from_now(moment: datetime | None) -> str:
    return durations.relative(moment, timezone.now()) if isinstance(moment, datetime) else ""
