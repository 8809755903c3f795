"""What a template may be handed: plain data and public facts (games/facts.py), never a model instance or
an engine. `unreadable` walks a context's values (dict items, list items, dataclass fields, the reader's
order form) and names every path to anything else; tests/conftest.py runs it on every audited template
any test renders, so a context that hands one a Game, a Phase or a Seat fails the test that renders it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Manager, Model, QuerySet
from django.forms import BaseForm, BaseModelForm
from django.template.base import Node

from games.engines.base import Engine

# Every email, every board, and these pages. Not audited: the organisers' admin (it works on the models
# themselves), Django's own widget templates (they draw the reader's own form), the development outbox
# (DEBUG only), My games (its settings form is a form of the player's own row) and the league pages
# (leagues/league.html, member.html, join.html, check_email.html: league-level facts, no board).
AUDITED_PREFIXES = ("emails/", "boards/")
AUDITED_PAGES = {
    "games/game.html",
    "games/history.html",
    "games/rules.html",
    "games/home.html",
    "games/sign_in.html",
    "games/link_error.html",
    "leagues/claim.html",
    "leagues/confirm.html",
}
LEAVES = (str, int, float, bool, type(None), datetime, date, time, timedelta, Decimal)
# Django's context processors (the request, the signed-in user, messages, the CSRF token) add the same
# values to every page; none of them leads to a game.
PROCESSORS = {"request", "user", "perms", "messages", "csrf_token", "DEFAULT_MESSAGE_LEVELS"}


def audited(template_name: str | None) -> bool:
    name = template_name or ""
    return name.startswith(AUDITED_PREFIXES) or name in AUDITED_PAGES


def unreadable(value: Any, path: str = "", seen: set[int] | None = None) -> Iterator[str]:
    """The paths from `value` to anything a template must not hold."""
    seen = set() if seen is None else seen
    if isinstance(value, (*LEAVES, Node)):  # a Node: the template's own code ({{ block.super }})
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, (Model, QuerySet, Manager, Engine, BaseModelForm)):
        yield f"{path}: {type(value).__name__}"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from unreadable(item, f"{path}[{key!r}]", seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            yield from unreadable(item, f"{path}[{index}]", seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from unreadable(getattr(value, field.name), f"{path}.{field.name}", seen)
    elif isinstance(value, BaseForm):  # the reader's order form: built from their prompt and their order
        for name in ("prompt", "initial", "data"):
            yield from unreadable(getattr(value, name, None), f"{path}.{name}", seen)
    else:
        yield f"{path}: unexpected {type(value).__name__}"


def context_problems(template_name: str | None, context: Any) -> list[str]:
    values = {key: value for key, value in context.flatten().items() if key not in PROCESSORS}
    return [f"{template_name}: {path}" for path in unreadable(values)]
