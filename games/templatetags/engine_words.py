"""`{{ value|words }}`: an engine's word (a message, its JSON, or plain text) in the reader's language, for a template
that shows what an engine wrote as it is (a board's view) rather than through games/words.py's renderings."""

from __future__ import annotations

from typing import Any

from django import template

from games import words as rendering

register = template.Library()


@register.filter
def words(value: Any) -> str:
    return rendering.render(value)


@register.filter
def game_name(slug: str) -> str:
    """`{{ "genoa"|game_name }}`: a game's name in the reader's language (the catalogue's, as every page names the
    game: "Die Händler von Genua"), for the heading a board's email template prints."""
    return rendering.engine_name(slug)
