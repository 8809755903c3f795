"""Issue 37 item 2, and issue 40 item 3 in each language: every legal order of every game, written as the turn email
teaches in English, German and French (a step's words too: games/words.py Vocabulary; in German and French no
English word of the steps' syntax is left), one line a value and one step a line, or the steps between ";" on
their field's line, above, under or around what players add (a greeting, a phone's signature, their name), through
every client shape of tests/support/reply_shapes.py, is read back as that order, or refused with a receipt that says
why. Nothing else: never a different order.

The turns come from a seeded random game of each engine (every kind of prompt it asks), the orders from the
engine's random_order, and the quoted email from the turn email's own templates (its fields' help and the example,
whose lines read as fields if a quote were missed). Pure: no database, so Hypothesis may try many."""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from anymail.inbound import AnymailInboundMessage
from django.template.loader import render_to_string
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import words
from games.engines import all_engines, get_engine
from games.engines.base import State
from games.incoming.mail import inbound, replies
from games.incoming.mail.quotes import Ours
from games.outgoing.order_text import SYNTAX, order_lines
from tests.support import reply_shapes
from tests.support.reply_samples import Turn

SHAPES = reply_shapes.shapes()
SUBJECT = "Harbour League table 4 #12"
SENDER = "pbem <turns@pbem.example>"
REPLY_TO = "turns+41-0123456789abcdef@in.pbem.example"
OURS = Ours(("turns@pbem.example", REPLY_TO), SUBJECT, ("pbem",), ("Player 1",))
PHASES = 60  # of a random game: enough for every kind of prompt of each game
EXAMPLES = int(os.environ.get("PBEM_ROUNDTRIP_EXAMPLES", "40"))  # a game; more to hunt, few to keep CI fast


@dataclass(frozen=True)
class Asked:
    """A seat asked for an order: the state, the prompt, whether it is the turn's only seat."""

    state: State
    seat: int
    prompt: dict[str, Any]
    alone: bool
    phase: str
    slug: str


LANGUAGES = ("en", "de", "fr")


@cache
def asked(slug: str, language: str = "en") -> list[Asked]:
    """The game's turns, each prompt rendered in `language` (as Phase.prompt_for renders it for the player)."""
    with translation.override(language):
        return _asked(slug)


def _asked(slug: str) -> list[Asked]:
    engine = get_engine(slug)
    players = engine.min_players + 1 if engine.max_players > engine.min_players else engine.min_players
    rng = random.Random(slug)
    state = engine.setup(players, {}, random.Random(f"{slug}:setup"))
    found: list[Asked] = []
    for step in range(PHASES):
        prompts = engine.prompts(state)
        if not prompts:
            break
        name = engine.phase_name(state)
        # As Phase.prompt_for gives it: the stored prompt's words rendered (games/words.py).
        found += [
            Asked(state, seat, words.prompt(p.to_json()), len(prompts) == 1, name, slug) for seat, p in prompts.items()
        ]
        orders = {seat: engine.validate(state, seat, engine.random_order(state, seat, rng)) for seat in prompts}
        state, _ = engine.resolve(state, orders, random.Random(f"{slug}:{step}"))
    return found


def turn_email(case: Asked, example: list[str]) -> Turn:
    """The turn email's text as the player's client quotes it: the ask, the fields' help, the example."""
    context = {
        "prompt": case.prompt,
        "can_reply": True,
        "reply_example": example,
        "reply_syntax": SYNTAX,
        "reply_steps": any(SYNTAX.spans_lines(spec) for spec in case.prompt["fields"]),
    }
    text = (
        f"{case.phase}: your order is due Tue 8 Dec 04:40 UTC\n\nHello Player 1,\n\nIt is your turn: {case.phase}.\n\n"
        f">> {case.prompt['text']}\n"
        + render_to_string("emails/_fields.txt", context)
        + render_to_string("emails/_reply_example.txt", context)
        + "Submit your sealed order here (you can change it until the turn resolves):\nhttps://pbem.example/l/x/\n"
    )
    return Turn(REPLY_TO, SENDER, SUBJECT, "<pbem.12.41@pbem.example>", "", text)


AROUND = {
    "alone": lambda lines: lines,
    "a greeting above": lambda lines: ["Hi,", "", "here is my turn:", "", *lines],
    "a sign-off and name under": lambda lines: [*lines, "", "Thanks!", "Player 1"],
    "the name under": lambda lines: [*lines, "", "Player 1"],
    **{f"under it: {phone}": (lambda lines, p=phone: [*lines, "", p]) for phone in reply_shapes.PHONE_SIGNATURES},
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_legal_order_written_as_taught_comes_back_through_every_client_or_is_refused_saying_why(
    slug, language, data
):
    engine = get_engine(slug)
    case = data.draw(st.sampled_from(asked(slug, language)), label="turn")
    order = engine.random_order(case.state, case.seat, random.Random(data.draw(st.integers(0, 2**32), label="seed")))
    meant = engine.validate(case.state, case.seat, order)
    with translation.override(language):  # the reply is read in its writer's language (inbound.handle_inbound)
        lines = order_lines(case.prompt, order, one_line=data.draw(st.booleans(), label="steps on one line"))
        assert language == "en" or english_left(case, order) == []
        around = data.draw(st.sampled_from(sorted(AROUND)), label="around")
        shape = data.draw(st.sampled_from(sorted(SHAPES)), label="client")
        example = order_lines(case.prompt, engine.example_order(case.state, case.seat))
        assert came_back(case, meant, shape, AROUND[around](lines), example) == ""


def english_left(case: Asked, order: dict[str, Any]) -> list[str]:
    """The English typed words of the game (each one that the active language says otherwise) in the steps written
    for `order` as the email teaches: none in German or French."""
    steps = {**case.prompt, "fields": [spec for spec in case.prompt["fields"] if SYNTAX.spans_lines(spec)]}
    text = "\n".join(line for line in order_lines(steps, order) if not line.endswith(SYNTAX.name_separator))
    typed = get_engine(case.slug).typed_words()
    said = {word.lower(): words.render(message).lower().split("|") for word, message in typed.items()}
    others = {part for parts in said.values() for part in parts}
    english = [word for word, parts in said.items() if word not in parts and word not in others]
    return [word for word in english if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE)]


def came_back(case: Asked, meant: dict[str, Any], shape: str, typed: list[str], example: list[str]) -> str:
    """ "" if the reply the player typed through this client is read as the order meant, or refused with a receipt
    that says why (only a client that breaks long lines and sends no HTML may cost the player a reply, and the
    receipt quotes the broken line); else what went wrong."""
    message = SHAPES[shape](turn_email(case, example), typed)
    parsed = AnymailInboundMessage.parse_raw_mime_bytes(message.as_bytes())
    reading = replies.read_order(case.prompt, replies.texts(parsed), OURS)
    refused = inbound.refusal(case.prompt, reading, case.alone, example)
    if refused:
        if shape in reply_shapes.WRAPPING and reading.broken is not None and reading.broken[0] in refused:
            return ""
        return f"refused: {refused[:200]}"
    try:
        read = get_engine(case.slug).validate(case.state, case.seat, reading.order)
    except Exception as error:  # noqa: BLE001  (the engine refusing what was read: not the order written)
        return f"read {reading.order}, which the engine refuses: {error}"
    return "" if read == meant else f"read {reading.order}, not {meant}"


def longest(slug: str, language: str = "en") -> tuple[Asked, dict[str, Any]]:
    """Of the game's turns, the one whose random order (seeded) takes the most lines written as taught: the most
    fields and steps a reply of this game carries."""
    engine = get_engine(slug)
    rng = random.Random(f"{slug}:longest")
    made = [(case, engine.random_order(case.state, case.seat, rng)) for case in asked(slug, language)]
    return max(made, key=lambda made: len(order_lines(made[0].prompt, made[1])))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_every_client_shape_carries_each_games_longest_order_both_ways_it_is_taught(slug, language):
    """The property test draws shapes at random, so one run may pass a shape by; here every shape carries the
    game's longest order, one step a line and between ";", under each way of writing around it in turn."""
    engine = get_engine(slug)
    case, order = longest(slug, language)
    meant = engine.validate(case.state, case.seat, order)
    wrong = {}
    with translation.override(language):
        example = order_lines(case.prompt, engine.example_order(case.state, case.seat))
        arounds = sorted(AROUND)
        for number, shape in enumerate(sorted(SHAPES)):
            for one_line in (False, True):
                typed = AROUND[arounds[number % len(arounds)]](order_lines(case.prompt, order, one_line=one_line))
                if went_wrong := came_back(case, meant, shape, typed, example):
                    wrong[shape, one_line] = went_wrong
    assert wrong == {}


def test_the_turns_tried_hold_every_kind_of_field_and_values_of_several_lines():
    slugs = [engine.slug for engine in all_engines()]
    kinds = {spec["kind"] for slug in slugs for case in asked(slug) for spec in case.prompt["fields"]}
    assert kinds >= {"choice", "multichoice", "integer", "steps"}
    assert len(SHAPES) >= 60 and sum(shape.startswith("Windows Mail") for shape in SHAPES) >= 20
