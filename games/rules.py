"""Each game's rules note (games/engines/<game>/RULES.md) as a page of the site.

Rendered by markdown-it-py with raw HTML off: a note's HTML is escaped, not passed through, so the page is
safe without a sanitiser and holds no script (the Content-Security-Policy allows none inline anyway).
The notes ship with the code, so each is rendered once per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from games.engines import get_engine, rules_file

# CommonMark with GitHub's tables (the notes' tables of house defaults); no raw HTML, no images (a note has
# none, and the policy serves images from the site only).
MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


@dataclass(frozen=True)
class RulesNote:
    slug: str
    title: str  # the game's name
    html: SafeString


@cache
def rules_note(slug: str) -> RulesNote:
    """The note of the game registered as `slug` (KeyError for no such game)."""
    engine = get_engine(slug)
    html = MARKDOWN.render(rules_file(slug).read_text(encoding="utf-8"))
    return RulesNote(slug=slug, title=engine.title, html=mark_safe(html))  # noqa: S308  (escaped: html off)
