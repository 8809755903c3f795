"""Times in words for templates: `{{ length|duration }}` ("2 days") and `{{ moment|from_now }}` ("in 1 day 4
hours", "3 hours ago"), the latter as of the moment the template is rendered: when a page is served, or when
an email is built (it says so)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django import template
from django.utils import timezone

from games import durations

register = template.Library()


@register.filter
def duration(length: timedelta | None) -> str:
    return durations.in_words(length) if isinstance(length, timedelta) else ""


@register.filter
def from_now(moment: datetime | None) -> str:
    return durations.relative(moment, timezone.now()) if isinstance(moment, datetime) else ""
