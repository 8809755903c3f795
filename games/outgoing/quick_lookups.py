"""Quicker variables for the templates the project's loader compiles (games/outgoing/translating.py's Loader): the
same output as Django's, by a shorter path for what the templates show most.

An email's board is a few hundred `{{ view.x.y }}` and `{% if cell.current %}` over the engine's view, which is
plain dicts, strings and whole numbers. Django resolves each one by trying an item, an attribute, then an index,
calling what is callable, then localises and escapes the value through a dozen calls; together they were about a
third of an email's render (bench/README.md, issue 43). Here a lookup whose every step is a plain dict's key or a
dataclass's field (the emails' facts), with nothing callable on the way, is read directly; a string is escaped and a
whole number written as Django would; anything else (a model, a list's index, a date, a missing key, a translated
literal) goes Django's own way, so what a template renders is unchanged, byte for byte: every email kind in three
languages (tests/outgoing/test_translating.py) and every game's page (tests/outgoing/test_quick_lookups.py) render
as with Django's own loader."""

from __future__ import annotations

from html import escape
from typing import Any

from django.conf import settings
from django.template.base import FilterExpression, Node, NodeList, VariableNode, render_value_in_context
from django.template.context import Context
from django.template.smartif import TokenBase
from django.utils.safestring import SafeData, SafeString, mark_safe

_DJANGO = object()  # a lookup the quick path leaves to Django


def _lookup(expression: FilterExpression, context: Context) -> Any:
    """The variable's value when each step is a plain dict's key or a dataclass's field (the email's facts,
    games/outgoing/facts.py) and no value on the way is callable, else _DJANGO."""
    var = expression.var
    bits = var.lookups
    if bits is None or var.translate:
        return _DJANGO
    try:
        current = context[bits[0]]
    except KeyError:
        return _DJANGO
    for bit in bits[1:]:
        kind = type(current)
        if kind is dict:
            if bit not in current:
                return _DJANGO
            current = current[bit]
        elif bit in getattr(kind, "__dataclass_fields__", ()) and not hasattr(kind, "__getitem__"):
            current = getattr(current, bit)  # what Django reads once `current[bit]` has failed
        else:
            return _DJANGO
        if callable(current):
            return _DJANGO  # Django calls it (or not): its own way
    return _DJANGO if callable(current) else current


class QuickFilterExpression(FilterExpression):
    __slots__ = ()

    def resolve(self, context: Context, ignore_failures: bool = False) -> Any:
        obj = _lookup(self, context) if self.is_var else _DJANGO  # type: ignore[attr-defined]
        if obj is _DJANGO:
            return super().resolve(context, ignore_failures)
        # Django's filters, applied as FilterExpression.resolve applies them.
        for func, args in self.filters:
            values = [arg.resolve(context) if lookup else mark_safe(arg) for lookup, arg in args]  # noqa: S308  (as Django)
            if getattr(func, "expects_localtime", False):
                return super().resolve(context, ignore_failures)  # dates: Django's own way
            if getattr(func, "needs_autoescape", False):
                new_obj = func(obj, *values, autoescape=context.autoescape)
            else:
                new_obj = func(obj, *values)
            safe = getattr(func, "is_safe", False) and isinstance(obj, SafeData)
            obj = mark_safe(new_obj) if safe else new_obj  # noqa: S308  (as Django: a safe filter of safe text)
        return obj


def value_in_context(value: Any, context: Context) -> str:
    """Django's render_value_in_context: a string escaped (where the context escapes), a whole number written out
    (Django localises it to the same digits unless thousands are separated), the rest Django's own way."""
    kind = type(value)
    if kind is str:
        return SafeString(escape(value)) if context.autoescape else value
    if kind is SafeString:
        return value
    if kind is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    return str(render_value_in_context(value, context))


class QuickVariableNode(VariableNode):
    def render(self, context: Context) -> str:
        try:
            output = self.filter_expression.resolve(context)
        except UnicodeDecodeError:
            return ""  # as Django's VariableNode
        return value_in_context(output, context)


def _quicken(value: Any, seen: set[int]) -> None:
    """Every FilterExpression held by `value` (a node's attribute: a list, a tuple, a dict, an {% if %}'s
    condition) made quick."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if type(value) is FilterExpression:
        value.__class__ = QuickFilterExpression
    elif isinstance(value, (list, tuple)) and not isinstance(value, NodeList):
        for item in value:
            _quicken(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            _quicken(item, seen)
    elif isinstance(value, TokenBase):
        for name in ("value", "first", "second"):
            if hasattr(value, name):
                _quicken(getattr(value, name), seen)


def quicken(nodelist: NodeList) -> None:
    """Make a compiled template's variables quick, in place (its nodes are the cached loader's, compiled once)."""
    seen: set[int] = set()
    for node in nodelist.get_nodes_by_type(Node):
        if type(node) is VariableNode:
            node.__class__ = QuickVariableNode
        for name in getattr(node, "__dict__", {}):
            _quicken(getattr(node, name), seen)
