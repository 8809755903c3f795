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
"""

from __future__ import annotations

import itertools

from django import template
from django.template.base import FilterExpression, Node, NodeList, Parser, Token, token_kwargs
from django.template.context import Context
from django.utils import timezone

from games import words

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
            renders[key] = self.nodelist.render(context.new({"view": public}))
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
