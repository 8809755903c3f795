"""`{% shared %}…{% endshared %}`: a part of an email board every reader sees alike, rendered once per batch; and
`{% once name=value … %}…{% endonce %}`, a part of an email rendered once per batch for each set of its values.

A phase's emails go to every seat, and most of a board (the map, the market, the ships) is the same for all
of them: only a few rows depend on the reader (their hand, "you"). A board template wraps each such common
part in `{% shared %}`. Its content is rendered in a context of its own holding only `view`, the spectator's
view of the game (the engine's view for no seat), so it cannot show anything of the reader's: what it
renders may go to every reader. The email batch (games/outgoing/emails.py) hands the templates that view as
`public_view` and a dict, `shared_renders`, that keeps each part's output for the next reader in the same
time zone and language. Without them (a template rendered outside a batch), the part is rendered for the reader as
usual.
A part must therefore read only what the spectator's view holds as the reader's does; tests/outgoing/test_boards.py
checks every board's emails against the same emails rendered with no part shared, byte for byte.

`{% once %}` is for a line many readers of a batch read alike that is not the board's (the deadline, which a
phase's readers in one time zone and language read alike): its content sees only the values it is given, so its
output depends on those values, the zone, the language and the context's settings, which are its key.

`{% keep name=value … %}` is `{% once %}` kept for the process, across games and batches: for a small piece of a
board that many games draw alike (a price track's row at one price, a card of the market), so each is rendered once
in the process, not once per game. Its values may be the view's lists and dicts (they are keyed by their content), and
its content must not read the clock (the deadline's "in 3 hours" is `{% once %}`'s, per batch). The process keeps at
most KEEP_MOST parts. Outside a batch (no `shared_renders`: a page, a test of the board alone) it renders as usual.
"""

from __future__ import annotations

import itertools

from django import template
from django.template.base import FilterExpression, Node, NodeList, Parser, Token, token_kwargs
from django.template.context import Context
from django.utils import timezone

from games import words
from games.engines.base import Msg
from games.outgoing import translating

register = template.Library()


_parts = itertools.count()  # each part parsed gets its own number, never reused in the process


class SharedNode(Node):
    def __init__(self, nodelist: NodeList) -> None:
        self.nodelist = nodelist
        self.part = next(_parts)

    def render(self, context: Context) -> str:
        public, renders = context.get("public_view"), context.get("shared_renders")
        if public is None or renders is None:
            return str(self.nodelist.render(context))
        key = _key(self.part, context, {})
        if key not in renders:
            # The batch's renders go in too (not a reader's), so a `{% keep %}` inside is kept for the process.
            renders[key] = self.nodelist.render(context.new({"view": public, "shared_renders": renders}))
        return str(renders[key])


def _key(part: int, context: Context, values: dict[str, object]) -> tuple[object, ...]:
    """What a part's output depends on besides its content: datetimes show in the active zone, words in the active
    language and numbers by the context's settings."""
    return (
        part,
        timezone.get_current_timezone_name(),
        words.get_language(),
        context.autoescape,
        context.use_l10n,
        *sorted(values.items()),
    )


class OnceNode(Node):
    def __init__(self, nodelist: NodeList, values: dict[str, FilterExpression]) -> None:
        self.nodelist = nodelist
        self.values = values
        self.part = next(_parts)

    def render(self, context: Context) -> str:
        values = {name: value.resolve(context) for name, value in self.values.items()}
        renders = context.get("shared_renders")
        if renders is None:
            return str(self.nodelist.render(context.new(values)))
        key = _key(self.part, context, values)
        try:
            if key not in renders:
                renders[key] = self.nodelist.render(context.new(values))
        except TypeError:  # a value that cannot be a key (a list): rendered for this reader alone
            return str(self.nodelist.render(context.new(values)))
        return str(renders[key])


KEEP_MOST = 5000  # parts: a few hundred bytes each; a full cache starts again
_kept: dict[tuple[object, ...], str] = {}


_PLAIN = frozenset({str, int, float, bool, type(None)})


def frozen(value: object) -> object:
    """`value` as a key: by its content, each value with its type (True, 1 and 1.0 render differently), a message
    by its id, context, count and parameters (its English alone could be two messages). TypeError for anything
    else. (Called for every kept part of every email: the common types first.)"""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is dict:
        return (dict, tuple([(key, frozen(item)) for key, item in value.items()]))  # type: ignore[attr-defined]
    if kind is Msg:
        msg: Msg = value  # type: ignore[assignment]
        return (Msg, msg.id, msg.context, msg.plural, msg.n, frozen(msg.params))
    if kind is list or kind is tuple:
        return (kind, tuple([frozen(item) for item in value]))  # type: ignore[attr-defined]
    raise TypeError(f"not kept: {kind.__name__}")


class KeepNode(OnceNode):
    def render(self, context: Context) -> str:
        values = {name: value.resolve(context) for name, value in self.values.items()}
        if context.get("shared_renders") is None:
            return str(self.nodelist.render(context.new(values)))
        try:
            key = (translating.generation(), *_key(self.part, context, {n: frozen(v) for n, v in values.items()}))
        except TypeError:  # a value that cannot be a key: rendered for this reader alone
            return str(self.nodelist.render(context.new(values)))
        if key not in _kept:
            if len(_kept) >= KEEP_MOST:
                _kept.clear()
            _kept[key] = str(self.nodelist.render(context.new(values)))
        return _kept[key]


@register.tag("shared")
def shared(parser: Parser, token: Token) -> SharedNode:
    nodelist = parser.parse(("endshared",))
    parser.delete_first_token()
    return SharedNode(nodelist)


@register.tag("once")
def once(parser: Parser, token: Token) -> OnceNode:
    """`{% once deadline=phase.deadline zone=time_zone %}…{% endonce %}`: the values must be hashable (a datetime,
    a string, a number)."""
    values = token_kwargs(token.split_contents()[1:], parser)
    nodelist = parser.parse(("endonce",))
    parser.delete_first_token()
    return OnceNode(nodelist, values)


@register.tag("keep")
def keep(parser: Parser, token: Token) -> KeepNode:
    """`{% keep track=track %}…{% endkeep %}`: the values may be lists and dicts of plain values and messages."""
    values = token_kwargs(token.split_contents()[1:], parser)
    nodelist = parser.parse(("endkeep",))
    parser.delete_first_token()
    return KeepNode(nodelist, values)
