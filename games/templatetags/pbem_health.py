"""The health figures (games/incoming/health.py) for the admin's index page."""

from __future__ import annotations

from django import template

from games.incoming import health

register = template.Library()


@register.simple_tag
def pbem_health() -> health.Health:
    return health.check()
