"""The template loader every page and email is read through (settings.TEMPLATES): Django's cached loader, whose
templates look their fixed texts up once per language.

Since every text a person reads went through `{% translate %}` (issue 40), a turn email holds some sixty of them,
and each render looked each one up again: Django's translation lookup (the active language, then each of a dozen
catalogues in turn, then the English fallback) made an email's render a third slower. A template is compiled once
(the cached loader keeps it); here, once compiled, its `{% translate "..." %}` of a fixed text (and fixed context)
keeps its output per language, and its `{% blocktranslate %}` keeps its message's translation per language, context
and count (the values put in it are read at each render). What a template renders is unchanged, byte
for byte."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import Template
from django.template.base import Node, Variable
from django.template.context import Context
from django.template.loaders import cached
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.utils import translation
from django.utils.safestring import SafeString

from games import words
from games.outgoing.quick_lookups import quicken, value_in_context

# Bumped when the settings that choose the catalogues change (tests), so no text kept before is shown after.
_generation = 0


def generation() -> int:
    """Bumped when the catalogues change (tests): what a cache rendered before is not shown after."""
    return _generation


@receiver(setting_changed)
def _catalogues_changed(*, setting: str, **_: Any) -> None:
    global _generation
    if setting in ("INSTALLED_APPS", "LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "USE_I18N"):
        _generation += 1


class KeptTranslateNode(TranslateNode):
    """`{% translate "text" %}` (`context "..."`, `as name` alike): its output in each language, rendered once."""

    kept: dict[tuple[int, str | None, bool], str]

    def render(self, context: Context) -> str:
        key = (_generation, words.get_language(), context.autoescape)
        value = self.kept.get(key)
        if value is None:
            out = super().render(context)
            value = self.kept[key] = context[self.asvar] if self.asvar else out
        if self.asvar:
            context[self.asvar] = value
            return ""
        return value


class KeptBlockTranslateNode(BlockTranslateNode):
    """`{% blocktranslate %}`: the message its tokens make and its translation (by language, context and count)
    looked up once; the values put in it are read at each render, as Django reads them."""

    kept: dict[tuple[int, str | None, Any, Any], tuple[str, list[str]]]

    def render(self, context: Context, nested: bool = False) -> str:
        if nested:  # Django's own retry in English, after a translation that does not take its values
            return str(super().render(context, nested=True))
        message_context = self.message_context.resolve(context) if self.message_context else None
        context.update({name: value.resolve(context) for name, value in self.extra_context.items()})
        count = None
        if self.plural and self.countervar and self.counter:
            count = self.counter.resolve(context)
            if not isinstance(count, (Decimal, float, int)):
                context.pop()
                return str(super().render(context))  # Django's error for a count that is no number
            context[self.countervar] = count
        text, names = self._translation(message_context, count)
        invalid = context.template.engine.string_if_invalid if context.template else ""
        values = {}
        for name in names:
            value = context[name] if name in context else (invalid % name if "%s" in invalid else invalid)
            values[name] = value_in_context(value, context)
        context.pop()
        try:
            result = text % values
        except (KeyError, ValueError):
            return str(super().render(context))  # the English, as Django falls back to it
        if self.asvar:
            context[self.asvar] = SafeString(result)
            return ""
        return result

    def _translation(self, message_context: str | None, count: Any) -> tuple[str, list[str]]:
        key = (_generation, words.get_language(), message_context, count)
        if key not in self.kept:
            singular, names = self.render_token_list(self.singular)
            if count is not None:
                plural, plural_names = self.render_token_list(self.plural)
                text = (
                    translation.npgettext(message_context, singular, plural, count)
                    if message_context
                    else translation.ngettext(singular, plural, count)
                )
                names += plural_names
            else:
                text = (
                    translation.pgettext(message_context, singular)
                    if message_context
                    else translation.gettext(singular)
                )
            self.kept[key] = (text, names)
        return self.kept[key]


def _fixed(node: TranslateNode) -> bool:
    """A `{% translate %}` of a quoted text without filters, and a quoted context if any."""
    text, context = node.filter_expression, node.message_context
    literal = isinstance(text.var, Variable) and text.var.literal is not None and not text.filters
    return literal and (context is None or (not isinstance(context.var, Variable) and not context.filters))


def keep_translations(template: Template) -> None:
    nodes: list[Node] = template.nodelist.get_nodes_by_type(TranslateNode)
    for node in nodes:
        if type(node) is TranslateNode and _fixed(node):
            node.__class__ = KeptTranslateNode
            node.kept = {}  # type: ignore[attr-defined]
    for node in template.nodelist.get_nodes_by_type(BlockTranslateNode):
        if type(node) is BlockTranslateNode:
            node.__class__ = KeptBlockTranslateNode
            node.kept = {}  # type: ignore[attr-defined]


class Loader(cached.Loader):
    """Django's cached loader; each template it compiles keeps its fixed translations (`keep_translations`), and its
    variables take the quick path (games/outgoing/quick_lookups.py)."""

    def get_template(self, template_name: str, skip: list[Any] | None = None) -> Template:
        template = super().get_template(template_name, skip)
        if not getattr(template, "translations_kept", False):
            keep_translations(template)
            quicken(template.nodelist)
            template.translations_kept = True  # type: ignore[attr-defined]
        return template
