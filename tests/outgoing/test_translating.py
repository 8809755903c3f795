"""games/outgoing/translating.py: the templates keep each fixed text's translation per language, and say what
Django's own tags say, in whichever language is active at each render."""

from __future__ import annotations

from django.template import Context, Template
from django.template.loader import get_template
from django.utils import translation

from games.outgoing.translating import KeptBlockTranslateNode, KeptTranslateNode, keep_translations

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
