"""Engines speak in messages (games/engines/base.py Msg): an id (the English template, a gettext msgid) and params.

For every engine converted so far, over random whole games: everything a person reads (prompt texts, labels, help,
choices, read-backs and their warnings, refusals, log lines, final standings, phase names) is a Msg, not a sentence
built in English; each one's id (but a typed order's words quoted in it, base.Typed, written through the engine's
own typed words) (and those of the messages nested in its params) is one the catalogue extraction
finds in the engine's source (the literal first arguments of M, Mn and Mp, as makemessages' keywords M, Mn:1,2 and
Mp:1c,2 read them); and each formats with its params, as its English and through the server's renderer.
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from games import words
from games.engines import Engine, get_engine
from games.engines.base import TYPED, M, Mn, Mp, Msg, OrderError, joined

ROOT = Path(__file__).resolve().parents[2]
ENGINES_DIR = ROOT / "games" / "engines"
# The engines whose every word is a message; the rest still speak English sentences (issue 40, item 1).
CONVERTED = ["piraeus", "manila", "phoenician", "ports-of-call", "genoa"]
Key = tuple[str, str, str]  # (context, id, plural)


def extracted(paths: list[Path]) -> set[Key]:
    """The messages xgettext would extract from `paths` with the keywords M, Mn:1,2 and Mp:1c,2."""
    found: set[Key] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
            if node.func.id == "M" and args and args[0] is not None:
                found.add(("", args[0], ""))
            elif node.func.id == "Mn" and len(args) >= 2 and None not in args[:2]:
                found.add(("", str(args[0]), str(args[1])))
            elif node.func.id == "Mp" and len(args) >= 2 and None not in args[:2]:
                found.add((str(args[0]), str(args[1]), ""))
    return found


def catalogue(slug: str) -> set[Key]:
    shared = [ENGINES_DIR / "base.py", ENGINES_DIR / "kit.py"]
    return extracted([*shared, *sorted((ENGINES_DIR / slug.replace("-", "_")).glob("*.py"))])


def nested(message: Msg) -> Iterator[Msg]:
    yield message
    for value in message.params.values():
        if isinstance(value, Msg):
            yield from nested(value)


def said(engine: Engine, players: int, seed: int) -> Iterator[tuple[str, Any]]:
    """(where, word) for every word a person reads in a random whole game of `engine`."""
    rng = random.Random(seed)
    state = engine.setup(players, {}, random.Random(f"{seed}:0"))
    for option in engine.options:
        yield "option label", option.label
        yield from (("option choice", choice.label) for choice in option.choices)
    yield from ((f"seat name {seat}", engine.seat_name(state, seat)) for seat in range(players))
    for step in range(5000):
        yield "phase name", engine.phase_name(state)
        prompts = engine.prompts(state)
        if not prompts:
            for standing in engine.outcome(state) or []:
                yield "standing", standing.detail
            return
        for seat in range(players):
            if seat not in prompts:
                with pytest.raises(OrderError) as refused:
                    engine.validate(state, seat, {})
                yield "not asked", refused.value.message
        orders = {}
        for seat, prompt in prompts.items():
            yield f"prompt {prompt.kind}", prompt.text
            for spec in prompt.fields:
                yield "field label", spec.label
                if spec.help:
                    yield "field help", spec.help
                if spec.step:
                    yield "field step", spec.step
                yield from (("choice", choice.label) for choice in spec.choices)
                for wrong in (None, "zz-not-a-choice", ["zz", "yy", "xx"], -1):
                    try:
                        engine.validate(state, seat, {**engine.default_order(state, seat), spec.name: wrong})
                    except OrderError as error:
                        yield f"refusal of {spec.name}={wrong!r}", error.message
            orders[seat] = engine.validate(state, seat, engine.random_order(state, seat, rng))
            read = engine.read_back(state, seat, orders[seat])
            yield from (("read-back", line) for line in read.lines)
            yield from (("warning", warning) for warning in read.warnings)
        state, events = engine.resolve(state, orders, random.Random(f"{seed}:{step}"))
        yield from (("log", event.text) for event in events)
    pytest.fail(f"{engine.slug}: no end")


@pytest.mark.parametrize("slug", CONVERTED)
def test_every_word_of_a_random_game_is_a_message_of_the_catalogue_that_formats(slug: str) -> None:
    engine = get_engine(slug)
    known = catalogue(slug)
    problems: dict[str, str] = {}
    seen = 0
    for seed in (1, 2):
        players = engine.min_players + seed % (engine.max_players - engine.min_players + 1)
        for where, word in said(engine, players, seed):
            if not isinstance(word, Msg):
                problems.setdefault(f"{where}: not a message", repr(word))
                continue
            for message in nested(word):
                seen += 1
                key = (message.context, message.id, message.plural)
                if message.context.startswith(TYPED):  # a typed order's words: the engine's typed words, not a msgid
                    if message.context != TYPED + slug:
                        problems.setdefault(f"{where}: another game's typed words", repr(key))
                elif key not in known:
                    problems.setdefault(f"{where}: not in the catalogue", repr(key))
                params = {"count": message.n, **message.params}
                try:
                    (message.plural or message.id).format(**params)
                    message.id.format(**params)
                except (KeyError, IndexError, ValueError) as error:
                    problems.setdefault(f"{where}: does not format", f"{key!r}: {error!r}")
            # Through JSON and back, and through the renderer, the English is unchanged.
            again = Msg.from_json(json.loads(json.dumps(word.to_json())))
            if str(again) != str(word) or words.render(again) != str(word):
                problems.setdefault(f"{where}: changes through JSON or the renderer", str(word))
    assert seen > 100
    assert not problems, "\n".join(f"{key}: {value}" for key, value in problems.items())


def test_a_message_reads_as_its_english_and_survives_json() -> None:
    good = Mp("manila good", "jade")
    line = M("{seat} buys {good} for {amount} pesos.", seat="Blue", good=good, amount=12)
    assert line == "Blue buys jade for 12 pesos." and isinstance(line, str)
    data = json.loads(json.dumps(line.to_json()))
    assert data == {
        "id": "{seat} buys {good} for {amount} pesos.",
        "params": {"seat": "Blue", "good": {"id": "jade", "context": "manila good", "params": {}}, "amount": 12},
    }
    again = Msg.from_json(data)
    assert again == line and again.params["good"].context == "manila good"


def test_a_plural_message_takes_its_form_by_the_count() -> None:
    one = Mn("one of your {count} accomplice", "one of your {count} accomplices", 1)
    three = Mn("one of your {count} accomplice", "one of your {count} accomplices", 3)
    assert (one, three) == ("one of your 1 accomplice", "one of your 3 accomplices")
    assert Msg.from_json(json.loads(json.dumps(three.to_json()))).n == 3


def test_lists_join_as_each_language_joins_them() -> None:
    assert joined([]) == ""
    assert joined(["A"]) == "A"
    assert joined(["A", "B"]) == "A and B"
    assert joined(["A", "B", "C"]) == "A, B and C"
    assert joined(["A", "B", "C"], ";") == "A; B; C"
    assert joined(["A", "B"], "+") == "A + B"


@pytest.fixture(autouse=True)
def translations_looked_up_anew() -> Iterator[None]:
    # The tests below replace games.words' gettext functions: what the renderer kept from earlier lookups (each
    # message's translation, once per process) would hide them.
    words.forget_translations()
    yield
    words.forget_translations()


def test_the_renderer_translates_the_id_and_its_params(monkeypatch: pytest.MonkeyPatch) -> None:
    german = {
        ("manila good", "jade"): "Jade",
        ("", "{seat} buys {good} for {amount} pesos."): "{seat} kauft {good} für {amount} Pesos.",
        ("list", "{head} and {last}"): "{head} und {last}",
    }
    monkeypatch.setattr(words, "gettext", lambda text: german.get(("", text), text))
    monkeypatch.setattr(words, "pgettext", lambda context, text: german.get((context, text), text))
    line = M("{seat} buys {good} for {amount} pesos.", seat="Blau", good=Mp("manila good", "jade"), amount=12)
    assert words.render(line) == "Blau kauft Jade für 12 Pesos."
    assert words.render(line.to_json()) == "Blau kauft Jade für 12 Pesos."
    assert words.render(joined(["A", "B"])) == "A und B"
    assert words.render("plain English, stored before messages") == "plain English, stored before messages"
    assert words.render(None) == ""


def test_a_translation_that_breaks_its_placeholders_shows_the_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(words, "gettext", lambda text: "{sitz} kauft.")
    assert words.render(M("{seat} buys.", seat="Blue")) == "Blue buys."


def test_ngettext_chooses_the_plural(monkeypatch: pytest.MonkeyPatch) -> None:
    def ngettext(singular: str, plural: str, count: int) -> str:
        return "{count} Pesos" if count != 1 else "{count} Peso"

    monkeypatch.setattr(words, "ngettext", ngettext)
    assert words.render(Mn("{count} peso", "{count} pesos", 1)) == "1 Peso"
    assert words.render(Mn("{count} peso", "{count} pesos", 4)) == "4 Pesos"


def test_speaking_keeps_the_language_as_django_has_it_and_gives_it_back() -> None:
    """An email is rendered inside words.speaking (its reader's language read once, not at every word): inside,
    the words' language is Django's, nested or not; after it, the one active before, however it was activated."""
    fabrics = Mp("piraeus good", "Fabrics")
    with translation.override("fr"):
        assert words.get_language() == "fr" and words.render(fabrics) == "Étoffes"
        with words.speaking("de"):
            assert words.get_language() == translation.get_language() == "de"
            assert words.render(fabrics) == "Stoffe"
            with words.speaking("en"):
                assert words.get_language() == translation.get_language() == "en"
                assert words.render(fabrics) == "Fabrics"
            assert words.get_language() == "de" and words.render(fabrics) == "Stoffe"
        assert words.get_language() == translation.get_language() == "fr"
        assert words.render(fabrics) == "Étoffes"


def test_a_language_django_switches_to_inside_speaking_is_the_one_the_words_speak() -> None:
    """Inside an email's `speaking`, a line in another language switched to through Django (translation.override, as a
    loop over recipients or a quoted line would) is said in that language, and the reader's words after it in theirs,
    then and in the next email: no word is kept in one language under another's name."""
    fabrics = Mp("piraeus good", "Fabrics")
    words.forget_translations()
    with words.speaking("de"):
        with translation.override("fr"):
            assert words.get_language() == "fr" and words.render(fabrics) == "Étoffes"
            with translation.override("en"):
                assert words.render(fabrics) == "Fabrics"
        assert words.get_language() == translation.get_language() == "de"
        assert words.render(fabrics) == "Stoffe"
    with words.speaking("de"):
        assert words.render(fabrics) == "Stoffe"
    with words.speaking("fr"):
        assert words.render(fabrics) == "Étoffes"
