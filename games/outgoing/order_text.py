"""The reply syntax: how an order is written as the lines of an email reply. One declaration (`SYNTAX`, and each
field's name, label and kind from the prompt) that the turn email's example and help are written from and that
games/incoming/mail/replies.py reads replies with, so the two cannot disagree. It is data (separators, the words
for "no pick"), not sentences: what the email says around it is the templates', which the languages issue
translates. Written here, where the turn email is built, so what goes out needs nothing of what comes in.

A reply is "name: value" lines, one field a line, by the field's name or its label. A value that is a sequence
of steps (a route, a list of actions) may span lines: its steps go one a line right under the field line (the
first may share it), between the step separator on one line, or both; it ends at the next field line, a blank
line or the quoted email.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import pgettext

from games.words import vocabulary


@dataclass(frozen=True)
class ReplySyntax:
    name_separator: str = ":"  # between a field's name or label and its value: "role: seller"
    pick_separators: tuple[str, ...] = (",", "and")  # between picks of a multichoice; the first is written
    no_pick: tuple[str, ...] = ("none", "nothing")  # a multichoice with no pick; the first is written
    step_separator: str = ";"  # between steps written on one line
    multi_line_kinds: frozenset[str] = frozenset({"text", "steps"})  # kinds whose value may span lines

    def spans_lines(self, spec: dict[str, Any]) -> bool:
        return spec["kind"] in self.multi_line_kinds

    def picks_joined(self) -> str:
        return f"{self.pick_separators[0]} "

    # A reply is read in its writer's language and in English (the active language when it is read, the player's:
    # games/incoming/mail/inbound.py): the words of the syntax in both; the example writes the reader's.
    def pick_words(self) -> tuple[str, ...]:
        translated = pgettext("reply syntax: between two picks, as in 'silk and wine'", "and")
        return tuple(dict.fromkeys((*self.pick_separators, translated.strip().lower())))

    def no_pick_words(self) -> tuple[str, ...]:
        translated = (pgettext("reply syntax: no pick", "none"), pgettext("reply syntax: no pick", "nothing"))
        return tuple(dict.fromkeys((*self.no_pick, *(word.strip().lower() for word in translated))))

    def no_pick_written(self) -> str:
        return pgettext("reply syntax: no pick", "none")

    def steps_joined(self) -> str:
        return f"{self.step_separator} "


SYNTAX = ReplySyntax()


def key(text: str) -> str:
    """How a reply's line names a field or a choice: its letters and digits, in lower case (punctuation, spaces and
    accents aside), so "My offers", "my-offers" and "MY OFFERS" name the same."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


# The longest label the example names a field by: a longer one (Manila's "Zuerst aufzunehmende Hypotheken (je 12
# Pesos, je eine unbelastete Aktie)") would make a line a mail client may break, and the reply be refused for it.
LABEL_WRITTEN = 32


def field_written(prompt: dict[str, Any], spec: dict[str, Any]) -> str:
    """How the example names a field: in a language other than English (the prompt rendered with each label's
    English beside it, games/words.py prompt) by its label, the reader's words, where that names this field alone,
    is short and holds no name separator; else by its name, as in English."""
    label = str(spec.get("label") or "")
    if not spec.get("english") or SYNTAX.name_separator in label or not key(label) or len(label) > LABEL_WRITTEN:
        return str(spec["name"])
    parts = ("name", "label", "english")
    others = {key(str(other.get(part) or "")) for other in prompt["fields"] if other is not spec for part in parts}
    return str(spec["name"]) if key(label) in others else label


def choice_written(spec: dict[str, Any], value: Any) -> str:
    """How the example and the help write a choice: in a language other than English by its label, the reader's
    word, where the reader takes it back as this choice alone (games/incoming/mail/replies.py choice_value: no
    other choice's value, label or English has its key) and it is short, holds no separator and is no "no pick"
    word; else by its value, as in English."""
    chosen = next((choice for choice in spec.get("choices", ()) if choice["value"] == value), None)
    label = str((chosen or {}).get("label") or "")
    if chosen is None or not chosen.get("english") or not key(label) or len(label) > LABEL_WRITTEN:
        return str(value)
    separators = (SYNTAX.name_separator, SYNTAX.step_separator, *SYNTAX.pick_words(), *SYNTAX.no_pick_words())
    if any(sep in label.lower().split() if sep.isalpha() else sep in label for sep in separators):
        return str(value)
    parts = ("value", "label", "english")
    others = {key(str(other.get(part) or "")) for other in spec["choices"] if other is not chosen for part in parts}
    return str(value) if key(label) in others else label


def written_prompt(prompt: dict[str, Any] | None) -> dict[str, Any] | None:
    """The prompt as the turn email's help shows it: each field's and each choice's `written`, the words its
    example writes them with (field_written, choice_written)."""
    if prompt is None:
        return None
    fields = [
        {
            **spec,
            "written": field_written(prompt, spec),
            "choices": [{**choice, "written": choice_written(spec, choice["value"])} for choice in spec["choices"]],
        }
        if spec.get("choices")
        else {**spec, "written": field_written(prompt, spec)}
        for spec in prompt["fields"]
    ]
    return {**prompt, "fields": fields}


def split_steps(value: str, syntax: ReplySyntax = SYNTAX) -> list[str]:
    """A multi-line value's steps: its parts between new lines and the step separator."""
    return [step.strip() for line in value.splitlines() for step in line.split(syntax.step_separator) if step.strip()]


def order_lines(
    prompt: dict[str, Any], order: dict[str, Any], one_line: bool = False, syntax: ReplySyntax = SYNTAX
) -> list[str]:
    """`order` as the lines of a reply that games/incoming/mail/replies.py reads back as it: "name: value" for
    each of the prompt's fields, in the prompt's order; fields and choices by label in the reader's language
    (field_written, choice_written), else by name and value; picks joined (`no_pick` for none), and a value of
    steps as the field line followed by one step a line (`one_line`: its steps joined on the field line instead),
    in the words of the active language. A field the order leaves blank (an optional number) is left out."""
    lines = []
    for spec in prompt["fields"]:
        value = order.get(spec["name"])
        if value is None:
            continue
        head = f"{field_written(prompt, spec)}{syntax.name_separator}"
        if spec["kind"] == "multichoice":
            picks = (choice_written(spec, pick) for pick in value)
            written = syntax.picks_joined().join(picks) or syntax.no_pick_written()
        elif syntax.spans_lines(spec) and isinstance(value, str):
            steps = written_steps(spec, split_steps(value, syntax))
            if not one_line:
                lines += [head, *steps]
                continue
            written = syntax.steps_joined().join(steps)
        elif spec["kind"] == "choice":
            written = choice_written(spec, value)
        else:
            written = str(value)
        lines.append(f"{head} {written}".rstrip())
    return lines


def written_steps(spec: dict[str, Any], steps: list[str]) -> list[str]:
    """A steps field's steps (the engine's English) as the reader types them: in their language's words, the
    ones its reply is read back with (games/words.py Vocabulary)."""
    if not spec.get("words"):
        return steps
    words = vocabulary(spec["words"])
    return [words.write(step) for step in steps]


def read_steps(spec: dict[str, Any], value: str) -> str:
    """A steps field's value as the player typed it (their language's words or English) in the engine's English."""
    return vocabulary(spec["words"]).read(value) if spec.get("words") else value
