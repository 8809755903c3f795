"""The order builder: a "steps" field of an order form as a drop-down per step, each listing what may follow the
steps before it (the engine's `next_steps`, through a `StepsSource`), with a number box where a step takes one.
"Add a step" and "Remove the last step" post the form and show it again, storing nothing; a drop-down changed
above later steps is checked again, and the first row that no longer holds says so.

A row has a number box only where its step takes a number, and the page works without JavaScript, so which box a
row shows is decided by the server from what was posted: a chosen step, by that step; the row for the next step,
only when every step it offers takes a number (else the box would sit under steps it means nothing to); a row
whose step takes a number that came without one (chosen where there was no box, or its box left blank), with its
box and a question at it. games/incoming/forms.py's OrderForm
is this form with the prompt's other fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from django import forms
from django.utils.translation import gettext, ngettext, pgettext

from games.engines.base import NextSteps, StepChoice
from games.outgoing.order_text import read_steps

EMPTY = ""
DIGITS = re.compile(r"[0-9]{1,9}")


def field_messages(spec: dict[str, Any]) -> dict[str, str]:
    """Errors in the player's words. Django's defaults echo the submitted value, which for a choice is
    the engine's key (e.g. "port:C"), and speak of "this field" and "valid choices"."""
    between = gettext("Enter a whole number from %(least)s to %(most)s.") % {"least": spec["min"], "most": spec["max"]}
    required = gettext("Please fill this in.") if spec["kind"] in ("integer", "text", "steps") else None
    return {
        "required": required or gettext("Please choose one."),
        "invalid_choice": gettext("That choice is not available now; pick one of those listed."),
        "invalid": between,
        "min_value": between,
        "max_value": between,
    }


@dataclass(frozen=True)
class StepsSource:
    """What the order builder asks the engine, bound by the view to the game's state and the seat:
    the steps that may follow those chosen in a field, and a stored value as steps."""

    next_steps: Callable[[str, list[str]], NextSteps]
    builder_steps: Callable[[str, str], list[str]]


def _template_pattern(choice: StepChoice) -> re.Pattern[str]:
    return re.compile(re.escape(choice.value).replace(re.escape("{n}"), r"(\d+)"))


def match_step(choices: tuple[StepChoice, ...], step: str) -> tuple[StepChoice, int | None] | None:
    """The choice `step` spells (with its number, for a choice that takes one), or None."""
    for choice in choices:
        if choice.amount is None:
            if choice.value == step:
                return choice, None
            continue
        found = _template_pattern(choice).fullmatch(step)
        if found and choice.amount[0] <= int(found.group(1)) <= choice.amount[1]:
            return choice, int(found.group(1))
    return None


# About as many characters as a builder's drop-down shows after its "Step n:" (in the order column beside the
# board on a desktop, the narrower; on a 390 px phone): a chosen step with a longer label is also written out
# in full under its drop-down, which shows only its start. tests/support/browser.py checks it on every builder.
DROP_DOWN_SHOWS = 20


@dataclass
class BuiltSteps:
    """One "steps" field as the builder shows it: the steps chosen so far that hold, one row each, then a
    row for the next step (or the row that no longer holds, with the number of rows dropped after it)."""

    spec: dict[str, Any]
    steps: list[str]
    rows: list[tuple[str, str | None]]  # (the select's field name, its number field's name or None)
    after: NextSteps
    dropped: int = 0
    problem_row: str = ""  # the row that does not hold any more
    choices_at: list[tuple[StepChoice, ...]] = dc_field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.spec["name"])


def _row(name: str, index: int) -> str:
    return f"{name}__{index}"


class StepsForm(forms.Form):
    """A form whose "steps" fields are builders; `built` holds each builder's state once it is added."""

    built: dict[str, BuiltSteps]

    # --- the builder ----------------------------------------------------------------------------------

    def _posted_steps(self, name: str) -> Iterator[tuple[str, str]]:
        """(chosen value, its number as posted) of each row, up to the first blank one."""
        index = 0
        while True:
            value = self.data.get(_row(name, index), "")
            if not value:
                return
            yield value, self.data.get(f"{_row(name, index)}__n", "")
            index += 1

    def _build_steps(self, spec: dict[str, Any], source: StepsSource, remove: bool) -> None:
        name = spec["name"]
        if self.is_bound:
            wanted = list(self._posted_steps(name))
        else:
            stored = self.initial.get(name) or []
            if isinstance(stored, str):  # the typed box's text, in the player's words (forms.initial_from)
                stored = source.builder_steps(name, read_steps(spec, stored))
            wanted = [(step, "") for step in stored]
        steps: list[str] = []
        choices_at: list[tuple[StepChoice, ...]] = []
        after = source.next_steps(name, [])
        problem_row, dropped = "", 0
        for index, (value, number) in enumerate(wanted):
            found = self._chosen(after.choices, value, number)
            if found is None:
                problem_row, dropped = _row(name, index), len(wanted) - index - 1
                break
            choices_at.append(after.choices)
            steps.append(found)
            after = source.next_steps(name, steps)
        if remove and steps and not problem_row:
            steps.pop()
            after = source.next_steps(name, steps)
            choices_at.pop()
        built = BuiltSteps(spec, steps, [], after, dropped, problem_row, choices_at)
        self.built[name] = built
        for index, step in enumerate(steps):
            self._add_row(built, index, choices_at[index], step)
        if problem_row or after.choices:
            posted_step = wanted[len(steps)][0] if problem_row else None
            self._add_row(built, len(steps), after.choices, None, posted_step)
        if self.is_bound:
            # What the page shows again is what was read: the rows that hold, then the next one.
            posted: Any = self.data  # a copy (see __init__)
            kept = {row for pair in built.rows for row in pair if row}
            for key in [key for key in posted if key.startswith(f"{name}__") and key not in kept]:
                del posted[key]
            for index, step in enumerate(steps):
                matched = match_step(choices_at[index], step)
                assert matched is not None
                posted[_row(name, index)] = matched[0].value
                if matched[1] is not None:
                    posted[f"{_row(name, index)}__n"] = str(matched[1])
            if not problem_row:
                posted[_row(name, len(steps))] = ""

    def _chosen(self, choices: tuple[StepChoice, ...], value: str, number: str) -> str | None:
        """The step a row spells: a choice's value (with its number) or, from a stored order, the step."""
        for choice in choices:
            if choice.value == value:
                if choice.amount is None:
                    return choice.value
                if DIGITS.fullmatch(number.strip()) and choice.amount[0] <= int(number) <= choice.amount[1]:
                    return choice.spelled(int(number))
                return None
        found = match_step(choices, value)
        return value if found else None

    def _add_row(
        self,
        built: BuiltSteps,
        index: int,
        choices: tuple[StepChoice, ...],
        step: str | None,
        posted: str | None = None,
    ) -> None:
        """A row: its drop-down of `choices` (with `step` chosen, if it holds), and a number box if its step
        takes a number. `posted` is the value of the row that no longer holds, as posted."""
        name = _row(built.name, index)
        last = step is None
        noun = built.spec.get("step") or ""  # the game's word for a step (prompts stored before it have none)
        next_one = gettext("— next %(step)s —") % {"step": noun} if noun else gettext("— choose the next step —")
        options = [(EMPTY, next_one if last else gettext("— end here —"))]
        options += [(choice.value, choice.label) for choice in choices]
        initial: str | None = None
        number: int | None = None
        if step is not None:
            found = match_step(choices, step)
            if found:
                initial, number = found[0].value, found[1]
        self.fields[name] = forms.ChoiceField(
            label=f"{noun.capitalize()} {index + 1}" if noun else gettext("Step %(number)s") % {"number": index + 1},
            choices=options,
            required=False,
            initial=initial,
            error_messages={
                "invalid_choice": gettext("That step is not possible after the steps before it; choose again.")
            },
        )
        amounts = self._numbered(choices, step, posted)
        amount_name = None
        if amounts:
            amount_name = f"{name}__n"
            least, most, counted = self._amount_range(amounts)
            self.fields[amount_name] = forms.IntegerField(
                label=gettext("%(counted)s for this %(step)s") % {"counted": counted, "step": noun}
                if noun
                else gettext("%(counted)s for this step") % {"counted": counted},
                min_value=least,
                max_value=most,
                required=False,
                initial=number if number is not None else least,
                error_messages=field_messages({"kind": "integer", "min": least, "max": most}),
            )
        built.rows.append((name, amount_name))

    @staticmethod
    def _numbered(choices: tuple[StepChoice, ...], step: str | None, posted: str | None) -> list[StepChoice]:
        """The steps a row's number box is for; none, and the row has no box."""
        if step is not None:
            found = match_step(choices, step)
            return [found[0]] if found and found[0].amount is not None else []
        if posted is not None:
            return [choice for choice in choices if choice.value == posted and choice.amount is not None]
        if choices and all(choice.amount is not None for choice in choices):
            return list(choices)
        return []

    @staticmethod
    def _amount_range(amounts: list[StepChoice]) -> tuple[int, int, str]:
        """(least, most, what is counted) of a number box for `amounts`."""
        units = sorted({choice.unit for choice in amounts if choice.unit})
        least = min(choice.amount[0] for choice in amounts if choice.amount)
        most = max(choice.amount[1] for choice in amounts if choice.amount)
        either = pgettext("between a step's units: steps or bags", "or")
        return least, most, f" {either} ".join(units).capitalize() or gettext("Number")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for built in self.built.values():
            row = built.problem_row
            amount = f"{row}__n"
            if not row or row in self.errors or amount in self.errors:
                pass
            elif amount in self.fields:  # only a step that takes a number has one (see _numbered)
                # Its step takes a number and none came: the step was chosen on a row without a box (a changed
                # row, or the next step's row where not every step takes one), or its box was left blank.
                self.add_error(amount, self._how_many(built, row))
            else:
                self.add_error(row, gettext("That step is not possible after the steps before it; choose again."))
            if built.dropped and built.problem_row:
                dropped = ngettext(
                    "The step after it was taken away.", "The %(count)s steps after it were taken away.", built.dropped
                )
                self.add_error(built.problem_row, dropped % {"count": built.dropped})
        return cleaned

    def _how_many(self, built: BuiltSteps, row: str) -> str:
        value = self.data.get(row, "")
        chosen = [choice for choice in built.after.choices if choice.value == value and choice.amount is not None]
        least, most, _ = self._amount_range(chosen)
        unit = chosen[0].unit
        if unit:
            return gettext("How many %(unit)s? Type a whole number from %(least)s to %(most)s in this box.") % {
                "unit": unit,
                "least": least,
                "most": most,
            }
        return gettext("How many? Type a whole number from %(least)s to %(most)s in this box.") % {
            "least": least,
            "most": most,
        }

    def steps_rows(self) -> list[dict[str, Any]]:
        """For the template: each steps field with its rows (a drop-down and maybe a number) and status."""
        shown = []
        for built in self.built.values():
            rows = [
                {
                    "select": self[select],
                    "amount": self[amount] if amount else None,
                    "chosen": self._written_out(built, index),
                }
                for index, (select, amount) in enumerate(built.rows)
            ]
            shown.append(
                {
                    "name": built.name,
                    "label": built.spec["label"],
                    "rows": rows,
                    "steps": built.steps,
                    "complete": built.after.complete and not built.problem_row,
                    "problem": "" if built.problem_row else built.after.problem,
                    # A row waiting for its number may be added once it has one (its box is there to fill).
                    "can_add": bool(built.after.choices) and (not built.problem_row or self._waits_for_number(built)),
                    **self._buttons(built.spec.get("step") or ""),
                }
            )
        return shown

    @staticmethod
    def _waits_for_number(built: BuiltSteps) -> bool:
        """The row that does not hold is one whose step takes a number, shown with its box."""
        return bool(built.problem_row and built.rows and built.rows[-1][1])

    @staticmethod
    def _buttons(noun: str) -> dict[str, str]:
        """The builder's two buttons, in the game's word for a step where it has one."""
        if not noun:
            return {"add": gettext("Add a step"), "remove": gettext("Remove the last step")}
        words = {"step": noun}
        return {"add": gettext("Add this %(step)s") % words, "remove": gettext("Remove the last %(step)s") % words}

    def _written_out(self, built: BuiltSteps, index: int) -> str:
        """The step chosen on row `index`, in full, if a phone's drop-down would cut it short (else "")."""
        if index < len(built.steps):
            matched = match_step(built.choices_at[index], built.steps[index])
            label = matched[0].label if matched else ""
        elif built.problem_row:  # the row that does not hold shows what was chosen on it too
            posted = self.data.get(built.problem_row, "")
            label = next((choice.label for choice in built.after.choices if choice.value == posted), "")
        else:
            return ""
        return label if len(label) > DROP_DOWN_SHOWS else ""
