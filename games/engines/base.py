"""The engine contract: one pure-Python rules engine per game.

An engine knows nothing of Django, clocks or global randomness. The server stores the state (plain JSON),
asks the engine who owes what (`prompts`), checks each order (`validate`), and once every owed order is in
(or the deadline has filled the gaps with `default_order`) calls `resolve` with all of them at once.

Seats are numbered 0..n-1. Orders are plain dicts whose keys are the prompt's field names. Every structure
crossing this boundary must survive `json.loads(json.dumps(x))` unchanged, so states never use int
dictionary keys (use lists indexed by seat, or str keys).
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

State = dict[str, Any]
Order = dict[str, Any]
# How many steps a "steps" field's example takes at most: enough to show how steps are joined.
EXAMPLE_STEPS = 3


def split_steps(text: str) -> list[str]:
    """A "steps" value as its steps: the parts between ";" and new lines."""
    return [part.strip() for part in re.split(r"[;\n]+", text or "") if part.strip()]


# --- messages: what an engine says to a person --------------------------------------------------------------
#
# An engine never writes a sentence in one language: it writes a message, the English source template (the
# gettext msgid, python-brace-format: "{seat} bids {amount} pesos.") with its parameters (numbers, seat numbers,
# ids, or nested messages for the game's terms, e.g. Mp("manila good", "jade")). The server renders it in the
# reader's language (games/words.py): gettext of the id, then .format of the rendered parameters. The Msg is
# also a str whose value is the English, so code and tests that read it as text keep working.
# The makemessages extraction knows the keywords M, Mn:1,2 and Mp:1c,2: their templates must be literals.

Params = dict[str, Any]


class Msg(str):
    """A message: `id` (the English template), `plural` and `n` (the count, for Mn), `context` (for Mp),
    `params`. Its str value is the English. Build it with M, Mn or Mp; `to_json` and `from_json` go both ways.
    (`n`, not `count`: a str has a count method.)"""

    id: str
    plural: str
    n: int | None
    context: str
    params: Params

    def __new__(
        cls, id: str, params: Params | None = None, *, plural: str = "", count: int | None = None, context: str = ""
    ) -> Msg:
        params = dict(params or {})
        template = plural if plural and count != 1 else id
        english = template.format(**{"count": count, **params}) if params or count is not None else template
        msg = super().__new__(cls, english)
        msg.id, msg.plural, msg.n, msg.context, msg.params = id, plural, count, context, params
        return msg

    def __reduce__(self) -> Any:  # copy and pickle keep the message, not only its English
        return (_rebuild, (self.to_json(),))

    def to_json(self) -> dict[str, Any]:
        """The message as plain JSON: {"id", "params"} and "plural", "count", "context" when it has them."""
        out: dict[str, Any] = {"id": self.id}
        if self.plural:
            out["plural"], out["count"] = self.plural, self.n
        if self.context:
            out["context"] = self.context
        out["params"] = {name: as_json(value) for name, value in self.params.items()}
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Msg:
        params = {name: from_json(value) for name, value in (data.get("params") or {}).items()}
        return cls(
            data["id"], params, plural=data.get("plural", ""), count=data.get("count"), context=data.get("context", "")
        )


def _rebuild(data: dict[str, Any]) -> Msg:
    return Msg.from_json(data)


def M(template: str, **params: Any) -> Msg:
    """A message: `template` is its English and its id."""
    return Msg(template, params)


def Mn(singular: str, plural: str, count: int, **params: Any) -> Msg:
    """A message whose form follows `count` (the renderer's ngettext); `{count}` in the templates is the count."""
    return Msg(singular, params, plural=plural, count=count)


def Mp(context: str, template: str, **params: Any) -> Msg:
    """A message with a context: the same English in two meanings, or a game's term ("manila good", "jade")."""
    return Msg(template, params, context=context)


# A typed order's words (a "steps" field's syntax: "Harbor: 20 ducats + silk") quoted in a message, in English: the
# server writes them in the reader's language through the engine's typed words (Engine.typed_words), the same
# declaration its reply reader reads them back with (games/words.py Vocabulary). Not a catalogue message.
TYPED = "typed in "


def Typed(slug: str, text: str) -> Msg:
    """`text`, steps of engine `slug`'s typed syntax in English, as a message's parameter the reader reads in their
    language."""
    return Msg(text, context=TYPED + slug)


def as_json(value: Any) -> Any:
    """An engine's word as plain JSON: a message as its JSON, anything else (a str, a number) as it is."""
    return value.to_json() if isinstance(value, Msg) else value


def from_json(value: Any) -> Any:
    """The inverse of `as_json`: a message's JSON (a dict with an "id") back to its Msg."""
    return Msg.from_json(value) if isinstance(value, dict) and "id" in value else value


def joined(items: list[Any], last: str = "and") -> Any:
    """ "A", "A and B", "A, B and C" (`last` "and"), or with "; " between every item (`last` ";"), ", "
    (`last` ",") or " + " (`last` "+"): a nested message, so that each language joins its own way. Empty: ""."""
    if not items:
        return ""
    head = items[0]
    for position, item in enumerate(items[1:], start=2):
        final = position == len(items)
        if last == ";":
            head = Mp("list", "{head}; {next}", head=head, next=item)
        elif last == "+":
            head = Mp("list", "{head} + {next}", head=head, next=item)
        elif final and last == "and":
            head = Mp("list", "{head} and {last}", head=head, last=item)
        else:
            head = Mp("list", "{head}, {next}", head=head, next=item)
    return head


class OrderError(ValueError):
    """A player's order is malformed or breaks a rule. The message (a Msg; `message` gives it back) is shown to
    that player in their language, so it must name the problem in the game's words and never reveal anything
    hidden."""

    @property
    def message(self) -> Any:
        return self.args[0] if self.args else ""


class OrderIncomplete(OrderError):
    """An order that is not legal yet but becomes legal with more steps (an offer that names nothing to give
    yet): the order builder offers such a step, and `next_steps` reports the order as not complete."""


@dataclass(frozen=True)
class Choice:
    value: str
    label: str


@dataclass(frozen=True)
class Field:
    """One input of an order form.

    kind "choice": pick one value of `choices`.
    kind "multichoice": pick between `min` and `max` values of `choices` (repeats allowed only when
        `repeat` is true, e.g. two cards of the same good); with `ranked` the picks are a list in order of
        preference, which the page shows as one list the player orders (games/incoming/ranked.py).
    kind "integer": a whole number between `min` and `max`; with `optional` it may be left blank, and the
        order then carries None, which the engine reads as its documented default (e.g. no loans).
    kind "text": free text of at most `max` characters (0: 2000), required when `min` > 0, for orders
        that are a sequence of steps (a route, a list of actions). The engine's `validate` parses it, and
        `help` gives the syntax. Steps must be separable by new lines or ";", because an email reply
        gives each field one line.
    kind "steps": a "text" field whose steps can also be chosen one at a time from what is legal: the
        engine's `next_steps` lists the steps that may follow those chosen so far, each spelled in the typed
        syntax of `help`. The order carries the chosen steps joined by "; ", the same text a player may
        type instead, so both go through `validate`. `builder_steps` turns a stored value back into steps.
    """

    name: str
    kind: str
    label: str
    choices: tuple[Choice, ...] = ()
    min: int = 0
    max: int = 0
    repeat: bool = False
    help: str = ""
    optional: bool = False
    ranked: bool = False
    # A "steps" field's word for one of its steps, in the game's own terms ("offer item", "stop"): the builder
    # says "Offer item 1" and "Add this offer item" rather than the vaguer "Step 1" and "Add a step".
    step: str = ""
    # A "steps" field's typed syntax is written in the words of this engine (its slug; Engine.typed_words): the
    # server reads and writes them in the player's language as well as in English.
    words: str = ""


@dataclass(frozen=True)
class Prompt:
    """What one seat is asked now: the text a player reads and the machine-readable form."""

    kind: str
    text: str
    fields: tuple[Field, ...] = ()

    def to_json(self) -> dict[str, Any]:
        # Written out rather than dataclasses.asdict: this runs for every seat of every phase, and asdict's
        # recursive deep copy was a tenth of a resolution.
        fields = [
            {
                "name": f.name,
                "kind": f.kind,
                "label": as_json(f.label),
                "choices": [{"value": c.value, "label": as_json(c.label)} for c in f.choices],
                "min": f.min,
                "max": f.max,
                "repeat": f.repeat,
                "help": as_json(f.help),
                "optional": f.optional,
                "ranked": f.ranked,
                "step": as_json(f.step),
                "words": f.words,
            }
            for f in self.fields
        ]
        return {"kind": self.kind, "text": as_json(self.text), "fields": fields}


@dataclass(frozen=True)
class StepChoice:
    """A step a "steps" field may take next: `value` in the typed syntax, `label` in words. A step that
    takes a number has `amount` (least, most) and "{n}" where the number goes in `value`; `unit` says what
    it counts ("ducats")."""

    value: str
    label: str
    amount: tuple[int, int] | None = None
    unit: str = ""

    def spelled(self, number: int | None = None) -> str:
        """The step as typed, with `number` (else the least amount) in place of "{n}"."""
        if self.amount is None:
            return self.value
        return self.value.replace("{n}", str(self.amount[0] if number is None else number))


@dataclass(frozen=True)
class NextSteps:
    """What may follow the steps chosen so far in a "steps" field: `choices`, and whether those steps are a
    legal order as they stand (`complete`; if not, `problem` is what `validate` says)."""

    choices: tuple[StepChoice, ...]
    complete: bool
    problem: str = ""


@dataclass(frozen=True)
class ReadBack:
    """A validated order in words, as the engine read it ("You will sail west 2 spaces to C4 (Rome)."), and
    warnings for what is legal but likely not meant (an empty route, a step that does nothing). Shown
    before a one-seat order is confirmed, beside a stored order and in an email receipt: it names only
    what the seat may see."""

    lines: tuple[str, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Event:
    """One line of the game log. `seat` None is public; a seat number makes it private to that seat."""

    text: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The English `text`, and the message it is (None for a plain str)."""
        message = self.text.to_json() if isinstance(self.text, Msg) else None
        return {"text": str(self.text), "message": message, "seat": self.seat, "data": self.data}


@dataclass(frozen=True)
class Standing:
    seat: int
    score: int
    rank: int  # 1 is first; tied seats share a rank
    detail: str = ""


@dataclass(frozen=True)
class OptionSpec:
    """A game option an organiser may set at creation; kit.read_options checks a value against it.

    kind "integer": a whole number between `min` and `max`. kind "choice": one value of `choices`. kind
    "seat-list": one of `choices` by name, or blank, for each seat; `item` names what an entry is (a country).
    `error` is what an organiser reads when a value is refused (blank: a sentence built from the spec).
    """

    name: str
    label: str
    kind: str  # "integer", "choice" or "seat-list"
    default: Any = None
    choices: tuple[Choice, ...] = ()
    min: int = 0
    max: int = 0
    error: str = ""
    item: str = ""


class Engine(ABC):
    slug: str
    title: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = ()

    @abstractmethod
    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        """A new game for `players` seats, already advanced to its first decision."""

    @abstractmethod
    def prompts(self, state: State) -> dict[int, Prompt]:
        """Who owes a decision now and what it is. Empty means the game is over."""

    @abstractmethod
    def validate(self, state: State, seat: int, order: Order) -> Order:
        """The normalised order, or OrderError with a message the player understands."""

    @abstractmethod
    def resolve(self, state: State, orders: dict[int, Order], rng: random.Random) -> tuple[State, list[Event]]:
        """Apply every owed order at once (already validated), then run automatic steps until the next
        decision or the end. Must not mutate `state`."""

    @abstractmethod
    def default_order(self, state: State, seat: int) -> Order:
        """What a missed deadline means for `seat`: harmless and documented in the rules note."""

    @abstractmethod
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator). Never another seat's hidden hand or sealed choice."""

    @abstractmethod
    def outcome(self, state: State) -> list[Standing] | None:
        """Final standings in rank order, or None while the game goes on."""

    @abstractmethod
    def random_order(self, state: State, seat: int, rng: random.Random) -> Order:
        """A random legal order for `seat`: bots, the demo and the tests use it."""

    @abstractmethod
    def phase_name(self, state: State) -> str:
        """A short human name of the current decision, e.g. "Day 3 — deals, round 2"."""

    @abstractmethod
    def read_back(self, state: State, seat: int, order: Order) -> ReadBack:
        """`order` (as `validate` returned it for `seat` in `state`) in words, with warnings for what is
        legal but surprising. Never raises for a validated order, and names nothing `seat` may not see: the
        contract test checks that it does not change under `conceal`, as `view` does not."""

    def next_steps(self, state: State, seat: int, field: str, steps: list[str]) -> NextSteps:
        """The steps that may follow `steps` (each as a StepChoice's `spelled` text) in the "steps" field
        `field` of `seat`'s prompt: every one keeps the order legal, or not legal yet only for want of more
        steps (OrderIncomplete). OrderError if `seat` is not asked or `field` is not a "steps" field."""
        raise OrderError(M("This order is not built step by step."))

    def builder_steps(self, state: State, seat: int, field: str, text: str) -> list[str]:
        """A value of the "steps" field `field` (typed, or as `validate` wrote it) as the steps the builder
        offers, so that a stored order is revised step by step."""
        return split_steps(text)

    def example_order(self, state: State, seat: int) -> Order:
        """A legal order for `seat` now that shows a value in each field: the turn email's example of the lines
        a reply holds. By default the default order, then field by field the first value that keeps it legal
        (another choice, the first picks, the first steps the builder offers); an engine may choose better.
        It names only what `seat` may see: the contract test checks it does not change under `conceal`.
        OrderError if `seat` is not asked."""
        prompt = self.prompts(state).get(seat)
        if prompt is None:
            raise OrderError(M("This seat is not asked anything now."))
        order = self.validate(state, seat, self.default_order(state, seat))
        for spec in prompt.fields:
            for value in self._example_values(state, seat, spec, order):
                try:
                    order = self.validate(state, seat, {**order, spec.name: value})
                except OrderError:
                    continue
                break
        return order

    def _example_values(self, state: State, seat: int, spec: Field, order: Order) -> Iterator[Any]:
        """Values worth trying in `spec` for an example, best first (none: the default stays)."""
        current = order.get(spec.name)
        values = [choice.value for choice in spec.choices]
        if spec.kind == "choice":
            yield from (value for value in values if value != current)
        elif spec.kind == "multichoice" and not current:
            picks = max(spec.min, 1)
            yield values[:picks]
            yield from ([value] * picks for value in values[1:] if spec.repeat or picks == 1)
        elif spec.kind == "steps":  # a default ("pass", nothing) shows no step
            chain: list[str] = []
            legal: list[str] = []
            while True:
                after = self.next_steps(state, seat, spec.name, chain)
                if chain and after.complete:
                    legal.append("; ".join(chain))
                if not after.choices or len(chain) == EXAMPLE_STEPS:
                    break
                chain.append(after.choices[0].spelled())
            yield from reversed(legal)  # the longest legal chain first

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        """A full state drawn at random among those `seat` cannot tell from `state`: everything it may not
        see (other hands, deck order, hidden money) dealt again from what it knows, sizes kept. It depends on
        what `seat` sees and on `rng` alone, so two states that differ only where `seat` cannot see give the
        same state under the same `rng`: the bots' search (games/engines/search.py) plays on these and never
        on the true hidden state, and the contract test checks both. An engine without hidden information
        returns the state as it is."""
        return state

    def conceal(self, state: State, seat: int | None, rng: random.Random) -> State:
        """A copy of `state` with everything `seat` may not see re-randomised: the determinization. The
        contract test checks that `view(state, seat)` does not change under it: that is how we know a view
        leaks nothing."""
        return self.determinize(state, seat, rng)

    def typed_words(self) -> dict[str, Msg]:
        """The English words the typed steps of this engine's "steps" fields are written with (verbs, goods,
        places, colours), each with the message that says it in a reader's language: the server writes each as
        that message's translation and reads it back, and English too (games/words.py Vocabulary). A translation
        may give alternatives between "|", the first written ("tausche|Tausch"). The engine parses English only."""
        return {}

    def seat_name(self, state: State, seat: int) -> str:
        """How the rules name a seat (a country, a colour); the server adds the player's own name."""
        return M("Seat {number}", number=seat + 1)
