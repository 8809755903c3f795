"""Pure-Python rules engines and their registry. Importing this package needs no Django settings.

A game is one package here: its rules, its view and its board templates (`templates/page.html`,
`email.html`, `email.txt` beside its `__init__.py`), which the server finds through `board_templates`.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from games.engines.base import Engine, OrderError

_REGISTRY: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    _REGISTRY[engine.slug] = engine
    return engine


def get_engine(slug: str) -> Engine:
    try:
        return _REGISTRY[slug]
    except KeyError:
        raise KeyError(f"no game engine called {slug!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def all_engines() -> list[Engine]:
    return [_REGISTRY[slug] for slug in sorted(_REGISTRY)]


def engine_choices() -> list[tuple[str, str]]:
    """The registered games as form choices (the Add game form, a league's game)."""
    return [(e.slug, f"{e.title} ({e.min_players}–{e.max_players} players)") for e in all_engines()]


@dataclass(frozen=True)
class BoardTemplates:
    """The template names of a game's board: on its page (SVG), in its emails' HTML and text. Each is
    "boards/<slug>/<file>", which games.outgoing.boards.EngineTemplateLoader reads from the engine's folder."""

    page: str
    email_html: str
    email_text: str


BOARD_FILES = BoardTemplates(page="page.html", email_html="email.html", email_text="email.txt")


def board_templates(slug: str) -> BoardTemplates:
    get_engine(slug)  # an unknown game fails here, by name, not as a missing template
    return BoardTemplates(
        page=f"boards/{slug}/{BOARD_FILES.page}",
        email_html=f"boards/{slug}/{BOARD_FILES.email_html}",
        email_text=f"boards/{slug}/{BOARD_FILES.email_text}",
    )


def template_folder(slug: str) -> Path:
    """The `templates` folder beside the module that defines the engine registered as `slug`."""
    return Path(inspect.getfile(type(get_engine(slug)))).parent / "templates"


def rules_file(slug: str) -> Path:
    """The game's rules note for contributors, RULES.md beside the module that defines the engine `slug`."""
    return template_folder(slug).parent / "RULES.md"


def guide_file(slug: str, language: str = "") -> Path:
    """The game's player's guide, GUIDE.md beside its rules note (served at /rules/<slug>/:
    games/outgoing/guides.py), in `language` where it has one (GUIDE.de.md)."""
    return localized(template_folder(slug).parent / "GUIDE.md", language)


def localized(path: Path, language: str) -> Path:
    """`path` (a guide, …/GUIDE.md) as written in `language` (…/GUIDE.de.md) if that file exists, else `path`."""
    if language:
        translated = path.with_suffix(f".{language}{path.suffix}")
        if translated.is_file():
            return translated
    return path


def _load() -> None:
    # Every subpackage is a game that registers itself on import, so adding a game touches no shared file.
    # Imported here, after the registry exists.
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}")


_load()

__all__ = [
    "BOARD_FILES",
    "BoardTemplates",
    "Engine",
    "OrderError",
    "all_engines",
    "board_templates",
    "engine_choices",
    "get_engine",
    "guide_file",
    "localized",
    "register",
    "rules_file",
    "template_folder",
]
