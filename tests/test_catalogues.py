"""The German and French catalogues hold every string of the code, translated (issue 40): what CI asks of a change
that adds a string a person reads. `make messages` adds it to locale/ (or to its engine's catalogue), and someone
translates it (docs/translators.md). The check itself is tried on a small project of its own: it finds a string
missing, one untranslated and one fuzzy, and passes once they are translated."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.support.services import missing_service


@pytest.fixture
def gettext_tools() -> None:
    if not (shutil.which("msgcmp") and shutil.which("msgfmt") and shutil.which("xgettext")):
        missing_service("needs GNU gettext (apt-get install gettext)")


def test_every_string_of_the_code_is_in_the_german_and_french_catalogues(gettext_tools, monkeypatch):
    monkeypatch.chdir(settings.BASE_DIR)
    call_command("makemessages", check=True, verbosity=0)


# A plural made by hand in a translation: a letter, then an ending in brackets ("inutilisé(s)", "Spieler(n)").
HAND_PLURAL = re.compile(r"[^\W\d_]\((?:e|n|en|s|es|x)\)")


def hand_plurals(catalogue: str) -> list[str]:
    """The lines of the translations (msgstr, and the lines that continue one) in `catalogue` that make a plural by
    hand; "http(s)" is not one."""
    found: list[str] = []
    in_translation = False
    for line in catalogue.splitlines():
        if line.startswith("msgstr"):
            in_translation = True
        elif not line.startswith('"'):
            in_translation = False
        if in_translation and HAND_PLURAL.search(line.replace("http(s)", "")):
            found.append(line)
    return found


def test_no_translation_makes_a_plural_by_hand() -> None:
    """A number's noun and words agree with it by ngettext (an engine's Mn, {% blocktranslate count %}), which
    chooses the form by the count: a translation that writes "(s)" instead (Ports of Call's French once said
    "Vous laissez 2 points d'action inutilisé(s)") reads as a form, not a sentence. The check finds one."""
    assert hand_plurals('msgid "You leave {points} unused."\nmsgstr "Vous laissez {points} inutilisé(s)."\n')
    assert not hand_plurals('msgid "not an absolute http(s) URL"\nmsgstr "keine absolute http(s)-URL"\n')
    root = Path(settings.BASE_DIR)
    catalogues = [*root.glob("locale/*/LC_MESSAGES/django.po"), *root.glob("games/engines/*/locale/*/LC_MESSAGES/*.po")]
    assert len(catalogues) >= 12
    found = {str(path.relative_to(root)): hand_plurals(path.read_text()) for path in catalogues}
    assert {path: lines for path, lines in found.items() if lines} == {}


HEADER = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"
"""


def small_project(tmp_path: Path, entries: str) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.html").write_text(
        '{% load i18n %}<p>{% translate "Your turn" %}</p><p>{% translate "Game over" %}</p>'
    )
    (tmp_path / "engine.py").write_text('M("tower moved")\nMp("a ship", "Port")\n')
    for language in ("de", "fr"):
        folder = tmp_path / "locale" / language / "LC_MESSAGES"
        folder.mkdir(parents=True)
        (folder / "django.po").write_text(HEADER + entries)


TRANSLATED = """
msgid "Your turn"
msgstr "Du bist dran"

msgid "Game over"
msgstr "Spielende"

msgid "tower moved"
msgstr "Turm gezogen"

msgctxt "a ship"
msgid "Port"
msgstr "Backbord"
"""


def check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings, entries: str) -> str:
    small_project(tmp_path, entries)
    monkeypatch.chdir(tmp_path)
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    try:
        call_command("makemessages", check=True, verbosity=0)
    except CommandError as error:
        return str(error)
    return ""


def test_the_check_passes_a_complete_catalogue(gettext_tools, tmp_path, monkeypatch, settings):
    assert check(tmp_path, monkeypatch, settings, TRANSLATED) == ""


def test_the_check_finds_a_string_the_catalogues_lack(gettext_tools, tmp_path, monkeypatch, settings):
    lacking = TRANSLATED.replace('\nmsgid "Game over"\nmsgstr "Spielende"\n', "")
    said = check(tmp_path, monkeypatch, settings, lacking)
    assert "strings of the code not translated" in said and "make messages" in said


def test_the_check_finds_the_engines_message_keywords(gettext_tools, tmp_path, monkeypatch, settings):
    lacking = TRANSLATED.replace('\nmsgctxt "a ship"\nmsgid "Port"\nmsgstr "Backbord"\n', "")
    assert "strings of the code not translated" in check(tmp_path, monkeypatch, settings, lacking)


def test_the_check_finds_an_untranslated_entry(gettext_tools, tmp_path, monkeypatch, settings):
    untranslated = TRANSLATED.replace('msgstr "Spielende"', 'msgstr ""')
    assert "1 untranslated" in check(tmp_path, monkeypatch, settings, untranslated)


def test_the_check_finds_a_fuzzy_entry(gettext_tools, tmp_path, monkeypatch, settings):
    fuzzy = TRANSLATED.replace('msgid "Game over"', '#, fuzzy\nmsgid "Game over"')
    assert "1 fuzzy" in check(tmp_path, monkeypatch, settings, fuzzy)
