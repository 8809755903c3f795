"""games/outgoing/quick_lookups.py: the project's loader reads a template's plain-dict variables by a shorter path,
and renders what Django's own nodes render, byte for byte (every email kind: tests/outgoing/test_translating.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from django.template import Context, Template
from django.template.defaulttags import IfNode
from django.template.loader import get_template
from django.test import override_settings
from django.utils import translation
from django.utils.safestring import mark_safe

from games.engines import all_engines
from games.outgoing.quick_lookups import QuickFilterExpression, QuickVariableNode, quicken
from tests.support.game_renders import PLAYERS, pages, points, seat_clients
from tests.support.templates import djangos_own_loader


class Model:
    """Not a dict: Django's own way (an attribute, a method it calls)."""

    name = "<model>"

    def shout(self) -> str:
        return "called & shouted"


@dataclass(frozen=True)
class Facts:
    """A dataclass (the emails' facts): its fields read directly; a field holding a function, Django's way."""

    title: str = "<title>"
    nested: dict[str, Any] = field(default_factory=lambda: {"deep": 3})
    call: Any = Model().shout


@dataclass(frozen=True)
class Indexed(Facts):
    """A dataclass Django reads by index first."""

    def __getitem__(self, key: str) -> str:
        return f"item {key}"


class Keyed(dict[str, str]):
    """A dict's subclass: Django's own way too."""


SOURCE = (
    "{% load i18n l10n engine_words %}"
    "{{ view.name }}|{{ view.missing }}|{{ view.n }}|{{ view.yes }}|{{ view.safe }}|{{ view.price|add:2 }}|"
    "{{ view.name|upper }}|{{ view.name|default:'-' }}|{{ view.cells.0.value }}|{{ view.date|date:'Y-m-d' }}|"
    "{{ view.ratio }}|{{ view.big }}|{{ model.name }}|{{ model.shout }}|{{ keyed.name }}|{{ view.call }}|"
    "{{ view.items }}|{{ view.nested.deep }}|{{ 'literal' }}|{{ _('Nothing new.') }}|{{ view.name|escape }}|"
    "{{ facts.title }}|{{ facts.nested.deep }}|{{ facts.call }}|{{ facts.missing }}|{{ indexed.title }}|"
    "{{ view.words|words }}|{{ view.none }}|{{ view.list|join:', ' }}|{{ view.safe|safe }}|{{ view.name|safe }}|"
    "{% if view.yes and not view.missing %}yes{% endif %}{% if view.n > 3 %}big{% else %}small{% endif %}|"
    "{% if view.nested.deep == 'x<y' %}deep{% endif %}|{% for cell in view.cells %}{{ cell.value }}"
    "{% if cell.current %}*{% endif %}{% endfor %}|{% autoescape off %}{{ view.name }}{% endautoescape %}|"
    "{% localize off %}{{ view.big }}{% endlocalize %}|{% with shown=view.name %}{{ shown }}{% endwith %}|"
    "{% blocktranslate count lines=view.n with who=view.name %}…and {{ lines }} earlier line on the game page."
    "{% plural %}…and {{ lines }} earlier lines on the game page.{% endblocktranslate %}{{ who }}"
)


def view(**changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": "Ann & <Bo>",
        "n": 5,
        "yes": True,
        "safe": mark_safe("<b>bold</b>"),
        "price": 7,
        "cells": [{"value": 1, "current": False}, {"value": 2, "current": True}],
        "date": datetime(2026, 12, 7, 23, 30, tzinfo=UTC),
        "ratio": 1.5,
        "big": 1234567,
        "call": lambda: "called",
        "items": "a key named as a dict's method",
        "nested": {"deep": "x<y"},
        "words": {"id": "Nothing new.", "params": {}},
        "none": None,
        "list": ["<a>", "b"],
    }
    return {**values, **changes}


CONTEXTS: list[dict[str, Any]] = [
    {"view": view(), "model": Model(), "keyed": Keyed(name="<keyed>"), "facts": Facts(), "indexed": Indexed()},
    {"view": view(n=1, yes=False, nested={}, cells=[]), "model": Model(), "keyed": Keyed()},
    {"view": {}, "model": None, "keyed": {}},
    {},
]


def shown(template: Template, context: dict[str, Any]) -> str:
    """What a render gives: its text, or the error Django raises (a count that is no number)."""
    try:
        return template.render(Context(context))
    except Exception as error:  # noqa: BLE001  (the same error either way is the same behaviour)
        return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("thousands", [False, True])
@pytest.mark.parametrize("number", range(len(CONTEXTS)))
def test_a_quick_template_renders_what_djangos_own_renders(language: str, thousands: bool, number: int) -> None:
    """Every way a variable is read (a dict's key, a missing one, a number, a bool, safe text, a filter, a date,
    a model's attribute and method, a dict's subclass, a callable value, a key named as a dict's method, a literal,
    a translated literal, {% if %}, {% for %}, autoescape off, localize off, {% blocktranslate %}), in two
    languages, with and without thousands separated: the same output as Django's own nodes."""
    quick, plain = Template(SOURCE), Template(SOURCE)
    quicken(quick.nodelist)
    assert quick.nodelist.get_nodes_by_type(QuickVariableNode)
    with override_settings(USE_THOUSAND_SEPARATOR=thousands, LANGUAGE_CODE=language), translation.override(language):
        ours, djangos = shown(quick, CONTEXTS[number]), shown(plain, CONTEXTS[number])
    assert ours == djangos
    if number == 0:
        assert "Ann &amp; &lt;Bo&gt;|" in ours and "called &amp; shouted" in ours
        assert "|&lt;title&gt;|3|called &amp; shouted||item title|" in ours
    if number == 2:
        assert ours.startswith("TemplateSyntaxError")


def test_the_projects_loader_compiles_quick_variables_and_conditions() -> None:
    template = get_template("emails/base-body.html").template  # type: ignore[attr-defined]
    assert template.nodelist.get_nodes_by_type(QuickVariableNode)
    conditions = [
        condition
        for node in template.nodelist.get_nodes_by_type(IfNode)
        for condition, _ in node.conditions_nodelists
        if condition is not None and hasattr(condition, "text")  # a lone value, not an operator
    ]
    assert conditions and all(type(condition.value) is QuickFilterExpression for condition in conditions)


# What differs between two reads of one page whatever renders it: the request's CSP nonce and CSRF token.
PER_REQUEST = re.compile(r'(nonce|value|content)="[A-Za-z0-9_\-+/=]{20,}"')


@pytest.mark.django_db
@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_each_games_pages_render_as_djangos_own_loader_renders_them(slug: str, make_game: Any, settings: Any) -> None:
    """The game page of each seat and a spectator (the board, the order form, the log), at the first two stops of a
    seeded game: the same bytes from the project's loader and from Django's own (but each request's nonce and token)."""
    game = make_game(humans=PLAYERS, engine=slug, seed=13)
    clients = seat_clients(game)
    for stop, phase in enumerate(points(game, seed=f"quick:{slug}")):
        ours = [read.content for read in pages(game, phase, clients)]
        with override_settings(TEMPLATES=djangos_own_loader(settings.TEMPLATES)):
            djangos = [read.content for read in pages(game, phase, clients)]
        assert len(ours) == len(djangos) == PLAYERS + 1
        for mine, theirs in zip(ours, djangos, strict=True):
            assert PER_REQUEST.sub("", mine) == PER_REQUEST.sub("", theirs)
        if stop == 1:  # the start and the first resolution: CI stays under its 20 minutes
            break
