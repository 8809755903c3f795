"""What a template may be handed: plain data and public facts (games/outgoing/facts.py), never a model instance or
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
from django.utils.functional import Promise

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
    "lobby/choose.html",
    "lobby/new.html",
    "lobby/open.html",
    "lobby/table.html",
    "lobby/decline.html",
}
# A Promise: a lazy string (gettext_lazy, games/words.py's `later`), text read in the language active when shown.
LEAVES = (str, int, float, bool, type(None), datetime, date, time, timedelta, Decimal, Promise)
# Django's context processors (the request, the signed-in user, messages, the CSRF token) add the same
# values to every page; none of them leads to a game.
PROCESSORS = {"request", "user", "perms", "messages", "csrf_token", "DEFAULT_MESSAGE_LEVELS"}


def audited(template_name: str | None) -> bool:
    name = template_name or ""
    return name.startswith(AUDITED_PREFIXES) or name in AUDITED_PAGES


LEAVES_OR_NODES = (*LEAVES, Node)  # a Node: the template's own code ({{ block.super }})
FORBIDDEN = (Model, QuerySet, Manager, Engine, BaseModelForm)
# Every email renders its board's parts with the whole context, so the walk runs over large contexts
# thousands of times in a run: these let it pass the plain values (almost all of them) without a call.
EXACT_LEAVES = frozenset(LEAVES)
FORM_PARTS = ("prompt", "initial", "data")
_fields: dict[type, tuple[str, ...]] = {}


def unreadable(value: Any, path: str = "", seen: set[int] | None = None) -> Iterator[str]:
    """The paths from `value` to anything a template must not hold."""
    found: list[str] = []
    if seen is not None or not _plain(value):
        _walk(value, path, set() if seen is None else seen, found)
    return iter(found)


def _plain(value: Any) -> bool:
    """Whether `unreadable` finds nothing in `value`: the same walk without the paths, which only a finding
    needs (whatever the order of a walk, it reaches the same values, so it finds something or nothing alike)."""
    leaves = EXACT_LEAVES
    seen: set[int] = set()
    stack = [value]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in leaves:
            continue
        if kind is dict or kind is list or kind is tuple:
            if id(value) not in seen:
                seen.add(id(value))
                stack.extend(value.values() if kind is dict else value)
            continue
        if isinstance(value, LEAVES_OR_NODES) or id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, FORBIDDEN):
            return False
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            stack.extend(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            stack.extend(getattr(value, name) for name in _dataclass_fields(value))
        elif isinstance(value, BaseForm):
            stack.extend(getattr(value, name, None) for name in FORM_PARTS)
        else:
            return False
    return True


def _dataclass_fields(value: Any) -> tuple[str, ...]:
    kind = type(value)
    if kind not in _fields:
        _fields[kind] = tuple(field.name for field in dataclasses.fields(value))
    return _fields[kind]


def _walk(value: Any, path: str, seen: set[int], found: list[str]) -> None:
    """Appends to `found` each path from `value` to anything a template must not hold, depth first."""
    leaves = EXACT_LEAVES
    kind = type(value)
    if kind is dict or kind is list or kind is tuple:  # neither a leaf nor forbidden: straight to the items
        if id(value) in seen:
            return
        seen.add(id(value))
        if kind is dict:
            for key, item in value.items():
                if type(item) not in leaves:
                    _walk(item, f"{path}[{key!r}]", seen, found)
        else:
            for index, item in enumerate(value):
                if type(item) not in leaves:
                    _walk(item, f"{path}[{index}]", seen, found)
        return
    if isinstance(value, LEAVES_OR_NODES) or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, FORBIDDEN):
        found.append(f"{path}: {type(value).__name__}")
    elif isinstance(value, dict):
        for key, item in value.items():
            if type(item) not in leaves:
                _walk(item, f"{path}[{key!r}]", seen, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            if type(item) not in leaves:
                _walk(item, f"{path}[{index}]", seen, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for name in _dataclass_fields(value):
            item = getattr(value, name)
            if type(item) not in leaves:
                _walk(item, f"{path}.{name}", seen, found)
    elif isinstance(value, BaseForm):  # the reader's order form: built from their prompt and their order
        for name in FORM_PARTS:
            item = getattr(value, name, None)
            if type(item) not in leaves:
                _walk(item, f"{path}.{name}", seen, found)
    else:
        found.append(f"{path}: unexpected {type(value).__name__}")


def context_problems(template_name: str | None, context: Any) -> list[str]:
    values = {key: value for key, value in context.flatten().items() if key not in PROCESSORS}
    return [f"{template_name}: {path}" for path in unreadable(values)]
