"""The admin's index page: the health figures (games/incoming/health.py) and the apps' cards (games.extensions,
admin_home: a league organiser's consoles)."""

from __future__ import annotations

from typing import Any

from django import template

from games import extensions
from games.incoming import health

register = template.Library()


@register.simple_tag
def pbem_health() -> health.Health:
    return health.check()


@register.simple_tag(takes_context=True)
def pbem_admin_home(context: Any) -> list[extensions.Fragment]:
    return extensions.admin_home(context["request"])
