"""`{% shared %}…{% endshared %}`: a part of an email board every reader sees alike, rendered once per batch.

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
"""

from __future__ import annotations

import itertools

from django import template
from django.template.base import Node, NodeList, Parser, Token
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
        # Datetimes show in the active zone, words in the active language and numbers by the context's settings:
        # part of what was rendered.
        key = (
            self.part,
            timezone.get_current_timezone_name(),
            words.get_language(),
            context.autoescape,
            context.use_l10n,
        )
        if key not in renders:
            renders[key] = self.nodelist.render(context.new({"view": public}))
        return str(renders[key])


@register.tag("shared")
def shared(parser: Parser, token: Token) -> SharedNode:
    nodelist = parser.parse(("endshared",))
    parser.delete_first_token()
    return SharedNode(nodelist)
