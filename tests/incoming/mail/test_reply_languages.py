"""Issue 40 item 3: the reply reader accepts field names and option labels in the player's language and in English,
and a typed order's steps in the words of either (the steps' verbs, goods, places and colours: each engine's
typed words, games/words.py Vocabulary). What is stored is the engine's canonical order whatever the language.

Where the labels come from: the prompt a reply is read against is the stored prompt rendered in the active
language (Phase.prompt_for, games/words.py prompt), and inbound.handle_inbound activates the player's language
before reading, so a German label is read as the German email wrote it; the English label rides along ("english").
Pure: the prompts of seeded random games of each engine, no database."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from django.utils import translation

from games import words
from games.engines import all_engines, get_engine
from games.engines.base import OrderError, State
from games.engines.genoa.syntax import parse_offers, parse_route, parse_tiles
from games.engines.phoenician.syntax import parse
from games.incoming.forms import OrderForm
from games.incoming.mail import replies
from games.incoming.steps_form import StepsSource
from games.outgoing.order_text import choice_written, order_lines, written_prompt

LANGUAGES = ("de", "fr")
SLUGS = [engine.slug for engine in all_engines()]


@cache
def stored_prompts(slug: str) -> tuple[tuple[State, int, dict[str, Any]], ...]:
    """(state, seat, stored prompt JSON) of every seat asked over the first turns of a seeded random game."""
    engine = get_engine(slug)
    rng = random.Random(slug)
    state = engine.setup(engine.min_players + (engine.max_players > engine.min_players), {}, random.Random(slug))
    found = []
    for step in range(30):
        prompts = engine.prompts(state)
        if not prompts:
            break
        found += [(state, seat, prompt.to_json()) for seat, prompt in prompts.items()]
        orders = {seat: engine.validate(state, seat, engine.random_order(state, seat, rng)) for seat in prompts}
        state, _ = engine.resolve(state, orders, random.Random(f"{slug}:{step}"))
    return tuple(found)


def read(prompt: dict[str, Any], *lines: str) -> dict[str, Any]:
    return replies.read_order(prompt, replies.Texts("\n".join(lines), False, "")).order


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", SLUGS)
def test_a_choice_is_read_by_its_fields_label_and_its_own_in_the_players_language_and_in_english(slug, language):
    """Every choice field a game asks, named by its label and its choice by its label, as the German or French
    email shows them (the prompt rendered when the reply is read), and as the English one does."""
    tried = 0
    translated = 0
    for _state, _seat, stored in stored_prompts(slug):
        with translation.override(language):
            prompt = words.prompt(stored)
        for spec in prompt["fields"]:
            if spec["kind"] != "choice":
                continue
            keys = {replies.key(choice["label"]) for choice in spec["choices"]}
            for choice in spec["choices"]:
                if len(keys) < len(spec["choices"]) or ":" in spec["label"]:
                    continue  # two labels alike, read as the first: only its value names it
                with translation.override(language):
                    assert read(prompt, f"{spec['label']}: {choice['label']}")[spec["name"]] == choice["value"]
                    said = read(prompt, f"{spec['english']}: {choice['english']}")
                    assert said[spec["name"]] == choice["value"]
                tried += 1
                translated += choice["label"] != choice["english"]
    assert tried and translated, "no choice field, or none in the language"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", SLUGS)
def test_a_field_is_read_by_its_name_its_label_and_its_english_label(slug, language):
    _state, _seat, stored = stored_prompts(slug)[-1]
    with translation.override(language):
        prompt = words.prompt(stored)
        for spec in prompt["fields"]:
            keys = replies.field_keys(prompt)
            for name in (spec["name"], spec["label"], spec["english"]):
                assert keys[replies.key(name)]["name"] == spec["name"]


GENOA = [
    # (language, typed, the English it reads as)
    (
        "de",
        "Hafen: 20 Dukaten + Seide + Plättchen extra + 1 Besitzmarker",
        "Harbor: 20 ducats + silk + extra tile + 1 marker",
    ),
    ("fr", "Port: 20 ducats + soie; + tuile extra; + 1 marqueur", "Harbor: 20 ducats + silk + extra tile + 1 marker"),
    ("de", "Harbor: 20 Dukaten + silk; Straße 3-2: 5", "Harbor: 20 ducats + silk; Street 3-2: 5"),
    ("fr", "Remise: 3 + gain + livrer L3 + récompense extra", "Coach House: 3 + gained + deliver L3 + reward extra"),
]


@pytest.mark.parametrize(("language", "typed", "english"), GENOA)
def test_genoas_offers_typed_in_german_french_or_a_mix_read_as_the_english(language, typed, english):
    with translation.override(language):
        said = words.vocabulary("genoa").read(typed)
    assert parse_offers(said)[0] == parse_offers(english)[0]


def test_genoas_route_and_tile_plays_typed_in_german_and_french():
    with translation.override("de"):
        vocabulary = words.vocabulary("genoa")
        route = vocabulary.read("Start = ich; Straße 3-2; Kutscherei = Blau; Gewürzlager = niemand")
        tiles = vocabulary.read("Tausch Wein gegen Seide; wähle Pfeffer; Bau Gildehalle liefere S14")
    english_route = "start = me; Street 3-2; Coach House = Blue; Spices = nobody"
    assert parse_route(route, 3, 0, "harbor") == parse_route(english_route, 3, 0, "harbor")
    assert parse_tiles(tiles) == parse_tiles("trade wine for silk; choose pepper; build Guild Hall deliver S14")
    with translation.override("fr"):
        tiles = words.vocabulary("genoa").read("échange vin contre soie; choisir poivre; bâtiment Maison des guildes")
    assert parse_tiles(tiles) == parse_tiles("trade wine for silk; choose pepper; build Guild Hall")


@pytest.mark.parametrize(
    ("language", "typed", "english"),
    [
        (
            "de",
            "rudere NE; segle E 2; kaufe 2; verkaufe 2 Wein; "
            "biete Blau gib Laderaum Seide, Hand 2 Wein gegen Laderaum Öl",
            "row NE; sail E 2; buy 2; sell 2 wine; offer Blue give hold silk, hand 2 wine for hold oil",
        ),
        (
            "fr",
            "ramer NE; naviguer E 2; vendre tout; proposer Bleu; donner cale soie; demander main huile",
            "row NE; sail E 2; sell all; offer Blue; give hold silk; want hand oil",
        ),
        ("de", "Pirat 1 NE 2; Sturm C4", "pirate 1 NE 2; storm C4"),
        ("fr", "passer", "pass"),
    ],
)
def test_phoenicians_steps_typed_in_german_or_french_read_as_the_english(language, typed, english):
    with translation.override(language):
        said = words.vocabulary("phoenician").read(typed)
    assert parse(said, 3, complete=False) == parse(english, 3, complete=False)


@pytest.mark.parametrize(
    ("language", "typed", "english"),
    [
        (
            "de",
            "fahre S1 Kapstadt 2; kaufe Öl S1 L1; Auftrag verdeckt; Schiff groß; kaufe Aktien; Aktien kaufe",
            "move S1 Cape Town 2; buy oil S1 L1; order hidden; ship large; shares buy; shares buy",
        ),
        (
            "fr",
            "déplacer S1 Le Cap; produire Londres bonus acier gauche; construire Hambourg; vendre actions",
            "move S1 Cape Town; produce London bonus steel left; build Hamburg; shares sell",
        ),
        ("de", "move S1 Tokio; sell S1 Windturbinen", "move S1 Tokyo; sell S1 turbines"),
    ],
)
def test_ports_of_calls_actions_typed_in_german_or_french_read_as_the_english(language, typed, english):
    with translation.override(language):
        assert words.vocabulary("ports-of-call").read(typed) == english


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", SLUGS)
def test_each_typed_word_is_its_own_in_each_language_and_no_other_english_word(slug, language):
    """The catalogues' typed words: each translation's alternatives are words a step can hold (no separator) and
    none is another English word of the game's syntax (it would read as this one: the player's language wins)."""
    typed = get_engine(slug).typed_words()
    english = {word.lower() for word in typed}
    clashes, unusable = [], []
    with translation.override(language):
        for word, said in typed.items():
            for part in words.render(said).split("|"):
                if words.NOT_IN_A_WORD.search(part) or not part.strip():
                    unusable.append((word, part))
                elif part.strip().lower() in english - {word.lower()}:
                    clashes.append((word, part))
    assert (clashes, unusable) == ([], [])


def test_a_word_of_the_language_that_is_another_english_word_reads_in_the_language_and_ties_go_to_the_first():
    """Resolved the same way every time: the player's language wins over English (their email taught the word),
    and of two English words with one translation the first the engine declares is read."""
    clash = words.vocabulary_of({"buy": "kaufe", "sell": "buy", "markers": "Zähler", "marker": "Zähler"})
    assert clash.read("buy 2; kaufe 2") == "sell 2; buy 2"
    assert clash.read("2 Zähler; 1 ZÄHLER") == "2 markers; 1 markers"
    assert clash.write("sell 2; buy 1 marker") == "buy 2; kaufe 1 Zähler"
    assert words.vocabulary_of({"silk": "Seide", "wine": "wine"}).english == {"seide": "silk"}  # same word: skipped


def test_a_word_the_language_capitalises_is_taught_capitalised_and_english_keeps_its_declared_case():
    """German writes its nouns with a capital ("Hand", "Bonus"): the email teaches them so, and reads either case.
    English keeps the syntax's words as declared, even where a game's name for them is capitalised ("Silk")."""
    with translation.override("de"):
        german = words.vocabulary_of({"hand": "Hand", "wine": "wine"})
    assert german.write("give 1 hand; wine") == "give 1 Hand; wine"
    assert german.read("1 hand; 1 HAND") == "1 hand; 1 hand"
    with translation.override("en"):
        assert words.vocabulary_of({"silk": "Silk"}).write("sell silk") == "sell silk"


@pytest.mark.parametrize(
    ("language", "taught"),
    [("de", ("kaufe Aktien", "verkaufe Aktien", "Bonus")), ("fr", ("acheter actions", "vendre actions"))],
)
def test_ports_of_calls_help_teaches_the_share_steps_verb_first_as_the_language_says_them(language, taught):
    """A whole step declared as one typed word: German and French put the verb first, not English's order."""
    from games.engines.ports_of_call.prompts import ACTIONS_HELP

    with translation.override(language):
        help_text = words.render(ACTIONS_HELP)
        read = words.vocabulary("ports-of-call").read(" ; ".join(taught[:2]))
    assert all(word in help_text for word in taught), help_text
    assert read == "shares buy ; shares sell"


@pytest.mark.parametrize(
    ("language", "slug", "typed", "told"),
    [
        ("de", "genoa", "Hafen: 20 Dukaten; Taverne: 5 Taler", "Angebot 2 (Taverne: 5 Taler)"),
        ("fr", "genoa", "Port: 20 ducats; Taverne: 5 écus", "Offre 2 (Taverne: 5 écus)"),
        ("de", "phoenician", "kaufe; segle nach O 2", "Schritt 2 ('segle nach O 2')"),
        ("fr", "phoenician", "acheter; naviguer vers O 2", "Étape 2 ('naviguer vers O 2')"),
    ],
)
def test_a_word_the_reader_cannot_place_gets_the_engines_refusal_naming_the_step_as_typed(language, slug, typed, told):
    """The word stays as typed, the rest is read; the engine's refusal names the step, written back in the
    player's words (its step is a Typed parameter)."""
    with translation.override(language):
        said = words.vocabulary(slug).read(typed)
        with pytest.raises(OrderError) as refused:
            parse_offers(said) if slug == "genoa" else parse(said, 3)
        assert told in words.refusal(refused.value)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_turn_emails_example_writes_the_steps_in_the_players_words_and_reads_back(language):
    """Genoa's offers and tile plays as the German or French email's example writes them: no English typed word
    of the syntax left, and the reader reads them back as the order."""
    engine = get_engine("genoa")
    state, seat, stored = next(case for case in stored_prompts("genoa") if case[2]["kind"] == "offers")
    order = engine.validate(state, seat, {"offers": "Harbor: 3 ducats; Tavern: 2 ducats", "tiles": ""})
    with translation.override(language):
        prompt = words.prompt(stored)
        lines = order_lines(prompt, order)
        assert "Harbor" not in "\n".join(lines) and "Tavern:" not in "\n".join(lines)
        assert language != "de" or "ducats" not in "\n".join(lines)
        assert lines[0] == f"{prompt['fields'][0]['label']}:" != "offers:"  # the field by its label, in the language
        assert engine.validate(state, seat, read(prompt, *lines)) == order


def test_the_game_pages_typed_form_reads_the_players_words_too():
    _state, _seat, stored = next(case for case in stored_prompts("genoa") if case[2]["kind"] == "offers")
    with translation.override("de"):
        prompt = words.prompt(stored)
        form = OrderForm(
            prompt, {"phase": 1, "how": "typed", "offers": "Hafen: 3 Dukaten + Seide", "tiles": ""}, typed=True
        )
        assert form.is_valid(), form.errors
        assert form.order()["offers"] == "Harbor: 3 ducats + silk"


@pytest.mark.parametrize("slug", ["genoa", "phoenician", "ports-of-call"])
def test_the_game_pages_typed_box_shows_a_stored_order_in_the_players_words_and_the_builder_reads_it(slug):
    """Revising a stored order on the page: the typed box holds it in the player's words (read back as the order),
    and the builder beside it, built from the same initial values, finds the same steps as for an English reader."""
    engine = get_engine(slug)
    rng = random.Random(40)
    asked = [case for case in stored_prompts(slug) if any(spec["kind"] == "steps" for spec in case[2]["fields"])]
    made = [(case, engine.validate(case[0], case[1], engine.random_order(case[0], case[1], rng))) for case in asked]
    (state, seat, stored), order = max(made, key=lambda pair: sum(len(str(value)) for value in pair[1].values()))
    source = StepsSource(
        lambda field, steps: words.next_steps(engine.next_steps(state, seat, field, steps)),
        lambda field, text: engine.builder_steps(state, seat, field, text),
    )
    shown, built = {}, {}
    for language in ("en", "de", "fr"):
        with translation.override(language):
            prompt = words.prompt(stored)
            initial = OrderForm.initial_from(prompt, order, 1)
            steps = [spec for spec in prompt["fields"] if spec["kind"] == "steps"]
            shown[language] = {spec["name"]: initial.get(spec["name"]) for spec in steps}
            assert {spec["name"]: replies._value(spec, initial[spec["name"]]) for spec in steps} == {
                spec["name"]: order[spec["name"]] for spec in steps
            }
            form = OrderForm(prompt, initial=initial, source=source)
            built[language] = {name: steps.steps for name, steps in form.built.items()}
    assert shown["de"] != shown["en"] != shown["fr"]
    assert built["de"] == built["fr"] == built["en"] and any(built["en"].values())


@pytest.mark.parametrize(
    ("language", "slug", "field", "typed", "teaches"),
    [
        ("de", "genoa", "offers", "Hafen 20", "z. B. 'Hafen: 20 Dukaten + Seide'"),
        ("fr", "genoa", "tiles", "danser", "commence par échange, choisir ou bâtiment"),
        ("de", "genoa", "route", "Hafen = zz", "schreib ich, eine Farbe oder niemand"),
        ("de", "phoenician", "steps", "rudere", "z. B. 'rudere NE'"),
        ("fr", "phoenician", "steps", "voler", "ramer, naviguer, acheter, vendre, proposer, pirate, tempête ou passer"),
        ("de", "ports-of-call", "actions", "fahre", "schreibe es so: fahre <Schiff> <Stadt> [Felder], z. B. fahre S1"),
        ("fr", "ports-of-call", "actions", "actions", "écrivez-le ainsi : acheter actions ou vendre actions"),
        # What the reader could not place is quoted as the player typed it, not as its English read.
        ("de", "ports-of-call", "actions", "Öl S1", "'Öl'"),
        ("de", "ports-of-call", "actions", "fahre S1 Öl", "'Öl'"),
        ("fr", "ports-of-call", "actions", "vendre S1 Londres", "'Londres'"),
        ("de", "ports-of-call", "actions", "verkaufe S1 Tokio", "'Tokio'"),
        ("de", "genoa", "route", "Straße 9-9 = ich", "'Straße 9-9'"),
        ("fr", "genoa", "route", "Rue 9-9", "'rue 9-9'"),
    ],
)
def test_a_refusal_of_a_malformed_step_teaches_the_players_words(language, slug, field, typed, teaches):
    """What a refusal says to write ('write 'row' and one direction, e.g. 'row NE'') is in the words the player's
    email taught, not the English."""
    engine = get_engine(slug)
    state, seat, stored = next(case for case in stored_prompts(slug) if field in str(case[2]["fields"]))
    with translation.override(language):
        spec = next(spec for spec in words.prompt(stored)["fields"] if spec["name"] == field)
        order = {**engine.default_order(state, seat), field: replies._value(spec, typed)}
        with pytest.raises(OrderError) as refused:
            engine.validate(state, seat, order)
        assert teaches in words.refusal(refused.value)


def test_the_example_names_a_field_by_its_name_where_its_label_is_long_or_not_its_own():
    """A label longer than a line a client leaves whole, or one another field also answers to, is not written: the
    field's name is, as in English."""
    prompt = {
        "fields": [
            {"name": "bid", "kind": "integer", "label": "Mein Gebot", "english": "My bid"},
            {
                "name": "loans",
                "kind": "integer",
                "label": "Zuerst aufzunehmende Hypotheken (je 12 Pesos)",
                "english": "x",
            },
            {"name": "take", "kind": "integer", "label": "bid", "english": "Take"},
            {"name": "keep", "kind": "integer", "label": "Behalten", "english": ""},
        ]
    }
    order = {"bid": 3, "loans": 1, "take": 2, "keep": 0}
    assert order_lines(prompt, order) == ["Mein Gebot: 3", "loans: 1", "take: 2", "keep: 0"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", SLUGS)
def test_the_turn_email_teaches_each_choice_by_its_label_in_the_players_language(slug, language):
    """The help's "(reply with ...)" and the example write a choice by its label in the reader's language, not by
    its English id, wherever the reader takes that label back as this choice alone; and what they write is read
    back as the choice."""
    by_label = 0
    for _state, _seat, stored in stored_prompts(slug):
        with translation.override(language):
            prompt = words.prompt(stored)
            shown = written_prompt(prompt)
        assert shown is not None
        for spec, shown_spec in zip(prompt["fields"], shown["fields"], strict=True):
            if spec["kind"] not in ("choice", "multichoice"):
                continue
            for choice, shown_choice in zip(spec["choices"], shown_spec["choices"], strict=True):
                written = shown_choice["written"]
                assert written in (choice["label"], choice["value"])
                assert replies.choice_value(spec, written) == choice["value"]
                by_label += written == choice["label"] != choice["value"]
                if spec["kind"] == "choice":
                    with translation.override(language):
                        line = order_lines(prompt, {spec["name"]: choice["value"]})
                        assert line == [f"{shown_spec['written']}: {written}"]
                        assert read(prompt, *line)[spec["name"]] == choice["value"]
    if slug != "phoenician":  # its choices are compass letters and numbers, alike in every language
        assert by_label, "no choice written by its label"


def test_a_choice_label_another_choice_answers_to_or_with_a_separator_is_written_by_its_value():
    spec = {
        "name": "role",
        "kind": "choice",
        "label": "Rolle",
        "english": "Role",
        "choices": [
            {"value": "seller", "label": "Verkäufer", "english": "Seller"},
            {"value": "buyer", "label": "seller", "english": "Buyer"},  # answers to the other's value
            {"value": "both", "label": "Kauf und Verkauf", "english": "Both"},  # holds a pick separator
            {"value": "hold", "label": "Halten", "english": ""},  # English: no label to read in English
        ],
    }
    with translation.override("de"):
        assert [choice_written(spec, choice["value"]) for choice in spec["choices"]] == [
            "Verkäufer",
            "buyer",
            "both",
            "hold",
        ]
    english = {"name": "role", "kind": "choice", "label": "Role", "choices": [{"value": "seller", "label": "Seller"}]}
    assert order_lines({"fields": [english]}, {"role": "seller"}) == ["role: seller"]
