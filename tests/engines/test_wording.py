"""What a newcomer reads reads well, in a random game of every engine: each prompt says what is asked in at most
two sentences (the board shows the rest), and no prompt, field, choice, help, read-back, log line or board
(the page and both email bodies) puts a count beside the wrong number of a noun ("1 action points", "2 punt",
"1 punt(s)")."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.template import Context, Template
from django.utils.html import strip_tags

from games.engines import Engine, all_engines, board_templates
from games.engines.base import Prompt

# The nouns the games count, singular and plural.
NOUNS = {
    "accomplice": "accomplices", "achievement": "achievements", "action": "actions", "card": "cards",
    "commodity": "commodities",
    "container": "containers", "day": "days", "disc": "discs", "drachma": "drachmas", "ducat": "ducats",
    "factory": "factories", "loan": "loans", "marker": "markers", "move": "moves", "offer": "offers",
    "order": "orders", "peso": "pesos", "player": "players", "point": "points", "punt": "punts",
    "quarter": "quarters", "round": "rounds", "share": "shares", "ship": "ships", "space": "spaces",
    "square": "squares", "step": "steps", "tile": "tiles", "turn": "turns", "voyage": "voyages", "year": "years",
}  # fmt: skip
PLURALS = {plural: singular for singular, plural in NOUNS.items()}
# A number after one of these names a thing ("route 2", "space 13", "Day 1"): it counts nothing.
LABELS = {*NOUNS, *PLURALS, "route", "seat", "phase", "slot", "news", "position", "track", "value", "row", "column"}
# A count: a number not part of a name or a sum ("G1", "$20M", "3-2", "1/3").
COUNT = re.compile(r"(?<![\w$.,/-])(\d+) ")
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
# Where a board's reading stops: every element but inline text formatting (a track's "30" and the "share 5"
# beside it are two things, not "30 share").
BLOCKS = re.compile(r"<(?!/?(?:strong|em|b|i|a|code)\b)[^>]+>")
BOARD = Template("{% load l10n %}{% localize off %}{% include name %}{% endlocalize %}")


def miscounted(text: str) -> list[str]:
    """The "N noun" phrases of `text` whose noun has the wrong number for N, and every "(s)". The noun may follow
    up to two other words, and nouns in a row count as one ("3 action points", "1 order card"); punctuation,
    another number or a capital (a name, or the next element of a board) ends the phrase."""
    found = [match.group(0) for match in re.finditer(r"\w+\(s\)", text)]
    for match in COUNT.finditer(text):
        before = re.findall(r"[A-Za-z]+", text[max(0, match.start() - 20) : match.start()])
        if before and before[-1].lower() in LABELS and text[: match.start()].rstrip()[-1:].isalpha():
            continue
        words: list[str] = []
        for word in re.findall(r"[A-Za-z]+|\S", text[match.end() : match.end() + 60])[:3]:
            if not word.isalpha() or word[0].isupper():
                break
            words.append(word)
        first = next((i for i, word in enumerate(words) if word in NOUNS or word in PLURALS), None)
        if first is None:
            continue
        last = first
        while last + 1 < len(words) and (words[last + 1] in NOUNS or words[last + 1] in PLURALS):
            last += 1
        if (int(match.group(1)) == 1) != (words[last] in NOUNS):
            found.append(f"{match.group(1)} {' '.join(words[: last + 1])}")
    return found


def sentences(text: str) -> int:
    return len(SENTENCE_END.findall(text.replace("...", "…"))) or 1


def prompt_texts(prompt: Prompt) -> Iterator[str]:
    yield prompt.text
    for field in prompt.fields:
        yield field.label
        yield field.help
        yield from (choice.label for choice in field.choices)


def boards(engine: Engine, state: Any, seat: int | None) -> Iterator[str]:
    view = engine.view(state, seat)
    templates = board_templates(engine.slug)
    for name in (templates.page, templates.email_html, templates.email_text):
        html = BOARD.render(Context({"name": name, "view": view}))
        yield " ".join(strip_tags(BLOCKS.sub(" ; ", html)).split())


def walk(engine: Engine, players: int, seed: int) -> Iterator[tuple[str, str]]:
    """(where, text) for everything a player of a random game reads: every prompt with its fields, the read-back
    of every order played and of each default, every log line, and every few turns each seat's boards."""
    rng = random.Random(seed)
    state = engine.setup(players, {}, rng)
    for turn in range(3000):
        prompts = engine.prompts(state)
        if turn % 7 == 0 or not prompts:
            for seat in (None, *range(players)):
                yield from ((f"board of seat {seat} at turn {turn}", text) for text in boards(engine, state, seat))
        if not prompts:
            return
        orders = {seat: engine.validate(state, seat, engine.random_order(state, seat, rng)) for seat in prompts}
        for seat, prompt in prompts.items():
            yield from ((f"prompt '{prompt.kind}'", text) for text in prompt_texts(prompt))
            yield f"prompt '{prompt.kind}' (its question)", prompt.text
            for order in (orders[seat], engine.validate(state, seat, engine.default_order(state, seat))):
                read = engine.read_back(state, seat, order)
                yield from ((f"read-back of {order}", line) for line in (*read.lines, *read.warnings))
        state, events = engine.resolve(state, orders, rng)
        yield from (("log", event.text) for event in events)
    pytest.fail(f"{engine.slug}: no end")


def test_the_counting_check_finds_a_wrong_plural() -> None:
    assert miscounted("You have 1 action points, 2 punt and 1 punt(s); 3 ships, 1 card, 0 markers.") == [
        "punt(s)",
        "1 action points",
        "2 punt",
    ]
    assert miscounted("Day 1 of 8: 2 of 5 spaces from London, $20M, 1 steel container, 3 more ships.") == []


@pytest.mark.parametrize("engine", all_engines(), ids=lambda engine: engine.slug)
def test_every_prompt_asks_in_two_sentences_and_every_count_agrees(engine: Engine) -> None:
    problems: dict[str, str] = {}
    for seed in (3, 4):
        players = engine.min_players + seed % (engine.max_players - engine.min_players + 1)
        for where, text in walk(engine, players, seed):
            for phrase in miscounted(text):
                problems.setdefault(phrase, f"{where}: {text}")
            if where.endswith("(its question)") and sentences(text) > 2:
                problems.setdefault(where, f"{sentences(text)} sentences: {text}")
    assert not problems, "\n".join(f"{key!r} in {value}" for key, value in problems.items())
