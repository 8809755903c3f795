"""A pseudo-locale for the tests (issue 40): every catalogue's every message, accented, about 40% longer and
between markers ("Your turn" reads "⟦Ŷöûûŕ ţûûŕñ⟧"), so that a page or an email shows at a glance which of its
words never went through gettext (they stay plain ASCII) and whether its layout holds words 40% longer.

`pseudo_locale` builds it at test time from the German and French catalogues' messages (ours, the engines' and
Django's own for the installed apps, the admin's among them): one django.po and one djangojs.po, compiled with
msgfmt into a temporary folder, never kept in git. `settings_for` returns the settings that make it a language
Django speaks (LANGUAGES, LOCALE_PATHS first). `plain_words` finds the words a text shows outside the
catalogue."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import django
import polib  # type: ignore[import-untyped]  # (no type hints of its own)
from django.apps import apps
from django.conf import settings

CODE = "en-xa"  # the pseudo-locale's language code (Android's en-XA): Django takes any code in LANGUAGES
LOCALE = "en_XA"
NAME = "⟦Ƥšéûðö⟧"  # its name in the language switcher, itself no plain word
OPEN, CLOSE = "⟦", "⟧"
ACCENTED = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
        strict=True,
    )
)
# What a message keeps as it is: %-style and {}-style placeholders, HTML tags and entities, addresses.
KEPT = re.compile(
    r"%%|%\([^)]+\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|%[-#0 +]*\d*(?:\.\d+)?[sdifrxXc]"
    r"|\{\{|\}\}|\{[^{}]*\}|<[^<>]+>|&#?\w+;|https?://\S+|[\w.+-]+@[\w.-]+"
)
WORD = re.compile(r"[A-Za-z]+")


def lengthened(word: str) -> str:
    """`word` accented and 40% longer: two letters in five doubled (a word of one or two letters, its first)."""
    out = []
    for index, letter in enumerate(word):
        out.append(ACCENTED[letter])
        if index * 2 // 5 != (index + 1) * 2 // 5 or (len(word) < 3 and index == 0):
            out.append(ACCENTED[letter.lower()])
    return "".join(out)


def pseudo(text: str) -> str:
    """`text` in the pseudo-locale: its words lengthened and accented, its placeholders and markup kept, between
    markers (inside its leading and trailing spaces and line ends). An empty text stays empty (the catalogue's
    header)."""
    core = text.strip()
    if not core or not re.search(r"[A-Za-z]{2}", KEPT.sub("", core)):
        return text  # empty (the catalogue's header), or a date's format ("j F Y, H:i": letters are its codes)
    start = text.index(core)
    before, after, text = text[:start], text[start + len(core) :], core
    parts, last = [], 0
    for kept in KEPT.finditer(text):
        parts.append(WORD.sub(lambda m: lengthened(m.group(0)), text[last : kept.start()]))
        parts.append(kept.group(0))
        last = kept.end()
    parts.append(WORD.sub(lambda m: lengthened(m.group(0)), text[last:]))
    return before + OPEN + "".join(parts) + CLOSE + after


def catalogue_folders() -> list[Path]:
    """Every folder Django reads catalogues from: its own, each installed app's, and LOCALE_PATHS."""
    folders = [Path(django.__file__).parent / "conf" / "locale"]
    folders += [Path(config.path) / "locale" for config in apps.get_app_configs()]
    folders += [Path(path) for path in settings.LOCALE_PATHS]
    return [folder for folder in folders if folder.is_dir()]


def pseudo_locale(folder: Path, sources: Iterable[Path] | None = None) -> Path:
    """Write and compile the pseudo-locale's catalogues (django, djangojs) under `folder`, from the German and
    French catalogues of `sources` (every catalogue folder unless told); the folder to add to LOCALE_PATHS."""
    sources = list(catalogue_folders() if sources is None else sources)
    target = folder / LOCALE / "LC_MESSAGES"
    target.mkdir(parents=True, exist_ok=True)
    for domain in ("django", "djangojs"):
        made = polib.POFile()
        made.metadata = {
            "Content-Type": "text/plain; charset=UTF-8",
            "Language": LOCALE,
            "Plural-Forms": "nplurals=2; plural=(n != 1);",
        }
        seen: set[tuple[str | None, str]] = set()
        for source in sources:
            for language in ("de", "fr"):
                path = source / language / "LC_MESSAGES" / f"{domain}.po"
                if not path.exists():
                    continue
                for entry in polib.pofile(str(path)):
                    key = (entry.msgctxt, entry.msgid)
                    if entry.obsolete or key in seen:
                        continue
                    seen.add(key)
                    made.append(pseudo_entry(entry))
        if seen:
            made.save(str(target / f"{domain}.po"))
            subprocess.run(  # noqa: S603 (msgfmt on a file this module wrote)
                ["msgfmt", "--check-format", "-o", str(target / f"{domain}.mo"), str(target / f"{domain}.po")],
                check=True,
            )
    return folder


def pseudo_entry(entry: polib.POEntry) -> polib.POEntry:
    flags = [flag for flag in entry.flags if flag != "fuzzy"]
    if entry.msgid_plural:
        return polib.POEntry(
            msgctxt=entry.msgctxt,
            msgid=entry.msgid,
            msgid_plural=entry.msgid_plural,
            msgstr_plural={0: pseudo(entry.msgid), 1: pseudo(entry.msgid_plural)},
            flags=flags,
        )
    return polib.POEntry(msgctxt=entry.msgctxt, msgid=entry.msgid, msgstr=pseudo(entry.msgid), flags=flags)


def settings_for(folder: Path) -> dict[str, Any]:
    """The settings that make the pseudo-locale under `folder` a language of this site."""
    return {
        "LANGUAGES": [*settings.LANGUAGES, (CODE, NAME)],
        "LOCALE_PATHS": [folder, *settings.LOCALE_PATHS],
    }


# Addresses, links and paths are no words of a language.
NOT_WORDS = re.compile(r"https?://\S+|[\w.+-]+@[\w.-]+|\b[\w-]+\.(?:example|com|org|test)\b|(?<!\S)/[\w./-]+")
PLAIN = re.compile(r"[A-Za-z]{3,}")


def plain_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """The runs of three or more ASCII letters `text` shows that are not a catalogue's (whose letters are all
    accented), once `names` (games' and players' names: the players chose them) and addresses are left out."""
    text = NOT_WORDS.sub(" ", text)
    for name in sorted(names, key=len, reverse=True):
        if name:
            text = text.replace(name, " ")
    return PLAIN.findall(text)


# What splits a message into its literal stretches: placeholders (%-style, {}-style, a template's), tags, line ends.
BETWEEN = re.compile(r"%\([^)]+\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|%[sdif]|\{\{.*?\}\}|\{[^{}]*\}|<[^<>]+>|\n")


def english_left(language: str, sources: Iterable[Path] | None = None) -> set[str]:
    """The catalogues' English that `language` does not share: each msgid's literal stretches between its
    placeholders and tags, two words or more, that no msgstr of that language's catalogues (every catalogue folder
    unless told) contains. A city's name or a word both languages spell alike (German's "Markers", a marker's) is
    no sign of English; a stretch of these on a page in `language` is an English sentence left."""
    ids: set[str] = set()
    translated: list[str] = []
    for source in catalogue_folders() if sources is None else sources:
        path = source / language / "LC_MESSAGES" / "django.po"
        if not path.exists():
            continue
        for entry in polib.pofile(str(path)):
            if entry.obsolete:
                continue
            ids.update(filter(None, (entry.msgid, entry.msgid_plural)))
            translated += [entry.msgstr, *entry.msgstr_plural.values()]
    every = "\n".join(translated)
    stretches = {part.strip(" .,:;()'\"!?") for text in ids for part in BETWEEN.split(text)}
    return {part for part in stretches if re.search(r"[A-Za-z]{2,} +[A-Za-z]{2,}", part) and part not in every}
