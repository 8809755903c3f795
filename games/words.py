"""An engine's words in the reader's language: the one place its messages (games/engines/base.py Msg) are rendered.

An engine says everything as a message: the English template, which is the gettext msgid, and plain parameters
(numbers, ids, nested messages for the game's terms). `render` translates the id in the active language
(gettext, ngettext by the count, pgettext by the context) and formats it with its parameters, each rendered
first, so a good's or a country's name is in the same language as the sentence around it. A plain str is
returned as it is: the words stored before the engines spoke in messages (a log line's `text`, a phase's
prompts) stay their English, as nothing parses them back.

`prompt` renders every word of a stored prompt (Phase.prompt_for reads it), `read_back` a read-back, `refusal`
an OrderError's message. A translation that breaks its placeholders (a typo in a catalogue) falls back to the
English, never to an error page.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.functional import lazy
from django.utils.translation import gettext, ngettext, npgettext, pgettext, pgettext_lazy

from games.engines import all_engines, get_engine
from games.engines.base import TYPED, Msg, NextSteps, ReadBack, StepChoice, from_json

log = logging.getLogger(__name__)

# The language `speaking` made active, while it is: an email's render reads the active language some 150 times (each
# engine word, each kept {% translate %}), and Django's read of it (through asgiref's Local) cost about 1.3 µs each.
# A ContextVar is per thread and per task, as that Local is. Any other switch of Django's language inside it
# (translation.override or activate in Python, {% language %} in a template: a quoted line in another language, a
# recipient's language in a loop) forgets it (`_follow`), and the words read Django's language again until that
# `speaking` ends; a stale one would say the words in the wrong language, and keep them under its name.
_SPEAKING: ContextVar[str | None] = ContextVar("speaking", default=None)


def get_language() -> str | None:
    """The active language: the one `speaking` made active, else Django's."""
    return _SPEAKING.get() or translation.get_language()


def _follow(switch: Any) -> Any:
    """Django's `switch` (activate, deactivate, deactivate_all), forgetting what `speaking` keeps when the language
    it switches to may be another (switching back to the same one, as a nested `speaking` ends, keeps it)."""

    def switched(*language: str) -> Any:
        spoken = _SPEAKING.get()
        if spoken is not None and language != (spoken,):
            _SPEAKING.set(None)
        return switch(*language)

    switched.follows_speaking = True  # type: ignore[attr-defined]
    return switched


# In django.utils.translation, which translation.override and {% language %} call by these names: every switch of
# Django's language, wherever it is made, passes here.
for _name in ("activate", "deactivate", "deactivate_all"):
    if not getattr(getattr(translation, _name), "follows_speaking", False):
        setattr(translation, _name, _follow(getattr(translation, _name)))


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """translation.override(language), with the language kept where `get_language` reads it at once."""
    with translation.override(language):
        token = _SPEAKING.set(translation.get_language())  # as Django says it ("de", "en-us")
        try:
            yield
        finally:
            _SPEAKING.reset(token)


def render(value: Any) -> str:
    """`value` (a Msg, a message's JSON, a plain str, or None) as text in the active language."""
    return _words(value, get_language())


def _words(value: Any, language: str | None) -> str:
    """`render` in `language`, the active one (read once for a message and all its parameters)."""
    if isinstance(value, Msg):
        return _render(value.id, value.plural, value.n, value.context, value.params, language)
    if isinstance(value, dict) and "id" in value:  # a message's JSON: rendered as its Msg would be
        params = value.get("params") or {}
        return _render(
            value["id"], value.get("plural", ""), value.get("count"), value.get("context", ""), params, language
        )
    return "" if value is None else str(value)


# Each language's translation of each message id (with its plural's count), looked up in Django's catalogues once
# per process: a board's email says the same goods and countries dozens of times, and Django's lookup (the active
# translation, then each of a dozen catalogues in turn) was most of a word's cost. Emptied when the settings that
# choose the catalogues change (tests).
_TRANSLATED: dict[tuple[str | None, str, str, str, int | None], str] = {}


def forget_translations() -> None:
    """Look every message up anew (the catalogues, or the functions that read them, changed: tests)."""
    _TRANSLATED.clear()
    _vocabulary.cache_clear()  # the engines' typed words, each language's built from those translations


@receiver(setting_changed)
def _catalogues_changed(*, setting: str, **_: Any) -> None:
    if setting in ("INSTALLED_APPS", "LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "USE_I18N"):
        forget_translations()


def _translated(language: str | None, id: str, plural: str, n: int | None, context: str) -> str:
    key = (language, context, id, plural, n if plural else None)
    found = _TRANSLATED.get(key)
    if found is None:
        if plural:
            count = n if n is not None else 0
            found = npgettext(context, id, plural, count) if context else ngettext(id, plural, count)
        else:
            found = pgettext(context, id) if context else gettext(id)
        _TRANSLATED[key] = found
    return found


def _render(id: str, plural: str, n: int | None, context: str, params: dict[str, Any], language: str | None) -> str:
    """A message's fields (a Msg's, or its JSON's) in `language`, the active one, each parameter rendered first."""
    if not id:
        return ""  # gettext("") is the catalogue's header
    if context.startswith(TYPED):
        return _vocabulary(context.removeprefix(TYPED), language or "en").write(id)
    template = _translated(language, id, plural, n, context)
    if not params and n is None:
        return template
    values = {"count": n, **{name: _param(param, language) for name, param in params.items()}}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError, AttributeError):
        log.warning("translation of %r does not format with its parameters; the English is shown", id)
        return (plural if plural and n != 1 else id).format(**values)


# `value` rendered when it is read as text, in the language active then: facts shared by the emails of one batch
# (a final standing's detail, a log line) read in each recipient's language.
later = lazy(render, str)


def _param(value: Any, language: str | None) -> Any:
    # Numbers stay numbers (a template may format them: "{amount:+d}"); words are rendered.
    return _words(value, language) if isinstance(value, (str, dict)) else value


def message(value: Any) -> dict[str, Any] | None:
    """A word as a client reads it: the message's JSON (id, params, ...), None for plain text."""
    if isinstance(value, Msg):
        return value.to_json()
    return value if isinstance(value, dict) and "id" in value else None


def prompt(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored prompt (Prompt.to_json) with its words rendered: text, each field's label, help, step and
    choices' labels. In a language other than English, each label's English too ("english"): a reply names a
    field or a choice by either (games/incoming/mail/replies.py)."""
    english = not (get_language() or "en").startswith("en")

    def said(value: Any) -> dict[str, str]:
        return {"english": str(from_json(value) or "")} if english else {}

    fields = [
        {
            **field,
            "label": render(field.get("label")),
            "help": render(field.get("help")),
            "step": render(field.get("step")),
            "choices": [
                {**choice, "label": render(choice.get("label")), **said(choice.get("label"))}
                for choice in field.get("choices", ())
            ],
            **said(field.get("label")),
        }
        for field in stored.get("fields", ())
    ]
    return {**stored, "text": render(stored.get("text")), "fields": fields}


# --- a typed order's words ------------------------------------------------------------------------------------------

# What a translated word may not hold: the typed syntaxes' separators and marks (a word holding one would split).
NOT_IN_A_WORD = re.compile(r"[;:+,=|\n]")


@dataclass(frozen=True)
class Vocabulary:
    """An engine's typed words (Engine.typed_words) in one language: `written` each English word's word in it
    (the first of its translation's alternatives), `english` each word of it (lower case) back to the English.

    Reading replaces every word of the language by its English, whole words only, the longest first (a building
    of two words before a word of one); what is not a word of the language is left as typed, so English reads
    as English. When a word of the language is also an English word of the syntax with another meaning, the
    language's meaning wins (the player's email taught it); when two English words share one translation, the
    first the engine declares wins. Writing replaces each English word by its word in the language."""

    written: dict[str, str]
    english: dict[str, str]

    def read(self, text: str) -> str:
        """Typed steps in the language (or English, or a mix) as the engine's English."""
        found = _pattern(tuple(self.english))
        return text if found is None else found.sub(lambda match: self.english[match.group().lower()], text)

    def write(self, text: str) -> str:
        """Steps in the engine's English as a player of the language types them."""
        found = _pattern(tuple(self.written))
        return text if found is None else found.sub(lambda match: self.written[match.group().lower()], text)


@cache
def _pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=lambda word: (-len(word), word)))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def vocabulary_of(words: dict[str, Any]) -> Vocabulary:
    """The Vocabulary of typed words {English: message or its translation} in the active language."""
    written: dict[str, str] = {}
    english: dict[str, str] = {}
    # The syntax's own words keep the case they are declared in, where the language writes them as English does;
    # where it capitalises them (German nouns: "Hand", "Bonus"), the email teaches them so: the reader is
    # case-blind either way.
    english_words = (get_language() or "en").split("-")[0] == "en"
    for word, said in words.items():
        parts = (part.strip() for part in render(said).split("|"))
        alternatives = [part for part in parts if part and not NOT_IN_A_WORD.search(part)]
        same = [part.lower() for part in alternatives] == [word.lower()]
        if not alternatives or same and (english_words or alternatives == [word]):
            continue  # the same in this language
        written[word.lower()] = alternatives[0]
        for part in alternatives:
            english.setdefault(part.lower(), word)
    return Vocabulary(written, english)


def vocabulary(slug: str) -> Vocabulary:
    """Engine `slug`'s typed words in the active language."""
    return _vocabulary(slug, get_language() or "en")


@cache
def _vocabulary(slug: str, language: str) -> Vocabulary:
    return vocabulary_of(get_engine(slug).typed_words())


def read_back(words: ReadBack) -> ReadBack:
    """A read-back's lines and warnings rendered."""
    return ReadBack(tuple(render(line) for line in words.lines), tuple(render(w) for w in words.warnings))


def next_steps(found: NextSteps) -> NextSteps:
    """What may follow in a "steps" field, its labels, units and problem rendered."""
    choices = tuple(
        StepChoice(choice.value, render(choice.label), choice.amount, render(choice.unit)) for choice in found.choices
    )
    return NextSteps(choices, found.complete, render(found.problem))


# The games' names, for the catalogues: each edition's name where a German or French one exists (Genoa's: Die
# Händler von Genua, Les marchands de Gênes; docs/glossary-<slug>.md), else the English name kept.
GAME_TITLES = (
    pgettext_lazy("game name", "Genoa"),
    pgettext_lazy("game name", "Manila"),
    pgettext_lazy("game name", "Phoenician Sea Trader"),
    pgettext_lazy("game name", "Port of Piraeus"),
    pgettext_lazy("game name", "Ports of Call"),
)


def game_title(title: str) -> str:
    """A game's name (an engine's `title`) in the active language."""
    return pgettext("game name", title)


def game_choices() -> list[tuple[str, str]]:
    """The registered games as a form's choices in the active language: each game's name and how many play it
    (games.engines.engine_choices is the English one the migrations name, as the engines import no gettext)."""
    return [
        (
            engine.slug,
            ngettext(
                "%(game)s (%(least)s–%(most)s player)", "%(game)s (%(least)s–%(most)s players)", engine.max_players
            )
            % {"game": game_title(engine.title), "least": engine.min_players, "most": engine.max_players},
        )
        for engine in all_engines()
    ]


def engine_name(slug: str) -> str:
    """The name of the game `slug` (an engine's slug) in the active language; the slug itself for an engine
    this server no longer has, so an old game's pages still open."""
    try:
        return game_title(get_engine(slug).title)
    except KeyError:
        return slug


# A game's name rendered when it is read as text (facts shared by the emails of one batch).
game_title_later = lazy(game_title, str)
engine_name_later = lazy(engine_name, str)


def refusal(error: Exception) -> str:
    """An OrderError's (or an option's ValueError's) message rendered."""
    return render(error.args[0]) if error.args else ""
