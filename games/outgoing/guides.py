"""Each game's player's guide (games/engines/<game>/GUIDE.md) as the page /rules/<slug>/: what a newcomer needs to
play, in words written for players, with pictures of the board drawn by the game page's own board template.

A guide is Markdown, rendered by markdown-it-py with raw HTML off: whatever HTML a guide holds is shown as text,
so the page needs no sanitiser and holds no script (the Content-Security-Policy allows none inline anyway). The
developers' rules note beside it (RULES.md: every play-by-email change, house default and default order) is for
contributors and is not served. A paragraph
that reads exactly `[board: 3 players, seed 8, after 2 turns]` becomes the board as seat 1 sees it in that game:
set up with that seed and played on by the bots' own random legal orders for that many turns (resolved
phases), all from the seed, so the picture is the same on every server and the example text beside it can
name what it shows (tests/outgoing/test_guides.py checks those facts). The engines are pure, so this needs no database.
A guide is read in the reader's language: GUIDE.de.md beside GUIDE.md is its German, and a game without one shows
its English (docs/translators.md says how to add one). Guides ship with the code: each is rendered once per process
and language. Each app may add a section of its own
(games/extensions.py, `guide_section`), shown after the game's own in every guide.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.template import Context, Template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from games import extensions, words
from games.engines import board_templates, get_engine, guide_file
from games.engines.base import Engine, State

# CommonMark with GitHub's tables; no raw HTML, no images (the board pictures are drawn by the server). Each
# heading carries an id, its words as GitHub spells them ("## Ending a game early": ending-a-game-early), so a
# link can land on its section.
MARKDOWN = (
    MarkdownIt("commonmark", {"html": False})
    .enable("table")
    .disable("image")
    .use(anchors_plugin, min_level=2, max_level=3)
)

PICTURE = re.compile(r"<p>\[board: (\d+) players, seed (\d+), after (\d+) turns?\]</p>")
# A heading may name its id: "## Ein Spiel vorzeitig beenden {#ending-a-game-early}" keeps, in a translated guide,
# the English heading's id that pages and emails link to.
ANCHOR = re.compile(r'<h([1-6]) id="[^"]*">(.*?) \{#([a-z0-9-]+)\}</h\1>')
# As the game page includes a board: numbers unlocalised, the view its only variable.
BOARD = Template("{% load l10n %}{% localize off %}{% include name %}{% endlocalize %}")


@dataclass(frozen=True)
class Guide:
    slug: str
    title: str  # the game's name
    html: SafeString


def example_state(engine: Engine, players: int, seed: int, turns: int) -> State:
    """A game of `players` set up from `seed` and played `turns` turns on by random legal orders."""
    rng = random.Random(seed)
    state = engine.setup(players, {}, rng)
    for _ in range(turns):
        orders = {
            seat: engine.validate(state, seat, engine.random_order(state, seat, rng)) for seat in engine.prompts(state)
        }
        if not orders:
            break  # the game is over
        state, _events = engine.resolve(state, orders, rng)
    return state


def picture(slug: str, players: int, seed: int, turns: int) -> str:
    """The board of that example game as its first seat sees it, in a frame captioned as a picture."""
    engine = get_engine(slug)
    view: dict[str, Any] = engine.view(example_state(engine, players, seed, turns), 0)
    board = BOARD.render(Context({"name": board_templates(slug).page, "view": view}))
    label = gettext("An example board of %(game)s, as its first seat sees it") % {
        "game": words.game_title(engine.title)
    }
    return f'<figure class="card board" aria-label="{escape(label)}">{board}</figure>'


@cache
def player_guide(slug: str, language: str = "en") -> Guide:
    """The guide of the game registered as `slug` (KeyError for no such game) in `language`: GUIDE.<language>.md
    where the game has one, else its GUIDE.md (English); the apps' sections likewise. Kept per language."""
    engine = get_engine(slug)
    with words.speaking(language):
        # The apps' sections hold in every game (games/extensions.py: ending a game early), after the game's own.
        sections = [guide_file(slug, language).read_text(encoding="utf-8"), *extensions.guide_sections(language)]
        html = ANCHOR.sub(r'<h\1 id="\3">\2</h\1>', MARKDOWN.render("\n\n".join(sections)))
        html = PICTURE.sub(lambda found: picture(slug, *(int(group) for group in found.groups())), html)
        title = words.game_title(engine.title)
    return Guide(slug=slug, title=title, html=mark_safe(html))  # noqa: S308  (escaped: html off)
