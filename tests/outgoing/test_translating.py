"""games/outgoing/translating.py: the templates keep each fixed text's translation per language, and say what
Django's own tags say, in whichever language is active at each render."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from django.template import Context, Template
from django.template.loader import get_template
from django.test import override_settings
from django.utils import translation

from games import words
from games.outgoing import messages
from games.outgoing.translating import KeptBlockTranslateNode, KeptTranslateNode, keep_translations
from tests.support.emails import game_emails
from tests.support.templates import djangos_own_loader

SOURCE = (
    "{% load i18n %}{% translate 'Hello there,' %}|{% translate 'Nothing new.' as nothing %}{{ nothing }}|"
    "{% blocktranslate count lines=n %}…and {{ lines }} earlier line on the game page.{% plural %}"
    "…and {{ lines }} earlier lines on the game page.{% endblocktranslate %}|"
    "{% blocktranslate with name=who %}Hello {{ name }},{% endblocktranslate %}|{% translate who %}"
)


def rendered(template: Template, language: str, n: int, who: str) -> str:
    with translation.override(language):
        return template.render(Context({"n": n, "who": who}))


def test_each_render_speaks_the_active_language_and_counts_as_django_does() -> None:
    kept = Template(SOURCE)
    keep_translations(kept)
    plain = Template(SOURCE)  # Django's own nodes
    nodes = kept.nodelist
    assert len(nodes.get_nodes_by_type(KeptTranslateNode)) == 2  # `{% translate who %}` is read at each render
    assert len(nodes.get_nodes_by_type(KeptBlockTranslateNode)) == 2
    for language, n, who in [("en", 1, "Ann"), ("de", 1, "Ann"), ("de", 3, "<b>"), ("en", 3, "Bo"), ("fr", 2, "Cy")]:
        assert rendered(kept, language, n, who) == rendered(plain, language, n, who)
    with translation.override("de"):
        assert kept.render(Context({"n": 3, "who": "Ann"})).startswith("Hallo,|Nichts Neues.|")


def test_the_projects_loader_keeps_the_translations_of_the_templates_it_compiles() -> None:
    template = get_template("emails/base-body.html").template  # type: ignore[attr-defined]
    assert template.nodelist.get_nodes_by_type(KeptTranslateNode)
    assert template.nodelist.get_nodes_by_type(KeptBlockTranslateNode)


LANGUAGES = ("en", "de", "fr")
FROZEN = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)  # a night the clocks change in Europe


@pytest.mark.django_db
def test_every_email_kind_renders_byte_for_byte_as_djangos_own_loader_renders_it(
    settings: Any, make_game: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    """translating.py re-implements part of Django's BlockTranslateNode.render (pinned Django): each email of
    every kind of every engine (tests/support/emails.py), rendered again in English, German and French by the
    project's loader and by Django's own, at one frozen instant, is the same to the byte: subject, text and
    HTML. A Django upgrade that changes what its tags render fails here."""
    asked: list[tuple[str, dict[str, Any], Any, str | None]] = []
    render = messages.render

    def recorded(
        templates: str,
        context: dict[str, Any],
        zone: Any,
        thread_subject: str | None = None,
        language: str | None = None,
    ) -> messages.Rendered:
        asked.append((templates, context, zone, thread_subject))
        return render(templates, context, zone, thread_subject, language)

    monkeypatch.setattr(messages, "render", recorded)
    kinds = {what for what, _ in game_emails(make_game, django_capture_on_commit_callbacks)}
    monkeypatch.undo()
    assert len(kinds) > 20 and {name for name, *_ in asked} >= {"emails/turn-started", "emails/sign-in"}

    def every_render() -> list[messages.Rendered]:
        # Each render with its batch's parts kept afresh ({% shared %}, {% once %}): what the batch kept was
        # rendered at the send's own time, not the frozen instant.
        with time_machine.travel(FROZEN, tick=False):
            return [
                render(name, {**context, "shared_renders": {}}, zone, thread_subject, language)
                for name, context, zone, thread_subject in asked
                for language in LANGUAGES
            ]

    kept = every_render()
    with override_settings(TEMPLATES=djangos_own_loader(settings.TEMPLATES)):
        djangos = get_template("emails/base-body.html").template  # type: ignore[attr-defined]
        assert not djangos.nodelist.get_nodes_by_type(KeptTranslateNode)
        plain = every_render()
    different = [
        f"{name} in {language}: {part}"
        for (name, *_), language, ours, djangos in zip(
            [case for case in asked for _ in LANGUAGES], LANGUAGES * len(asked), kept, plain, strict=True
        )
        for part in ("subject", "text", "html", "headline")
        if getattr(ours, part) != getattr(djangos, part)
    ]
    assert not different, f"{len(different)} of {len(kept)} renders differ:\n" + "\n".join(different[:20])
    assert {rendered.language for rendered in kept} == set(LANGUAGES)


def test_a_language_tag_inside_an_emails_language_says_its_own_words_and_keeps_none_for_the_reader() -> None:
    """`{% language %}` (a quoted line in another language) inside an email's `speaking`: each line in its own
    language, the same node kept apart per language."""
    template = Template(
        "{% load i18n %}{% for code in codes %}{% language code %}{% translate 'Nothing new.' %}|{% endlanguage %}"
        "{% endfor %}{% translate 'Nothing new.' %}"
    )
    keep_translations(template)
    with words.speaking("de"):
        shown = template.render(Context({"codes": ["en", "de", "fr"]}))
    assert shown == "Nothing new.|Nichts Neues.|Rien de nouveau.|Nichts Neues."
