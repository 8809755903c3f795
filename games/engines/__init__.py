"""Pure-Python rules engines and their registry. Importing this package needs no Django settings."""

from __future__ import annotations

import importlib
import pkgutil

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


def _load() -> None:
    # Every subpackage is a game that registers itself on import, so adding a game touches no shared file.
    # Imported here, after the registry exists.
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}")


_load()

__all__ = ["Engine", "OrderError", "all_engines", "engine_choices", "get_engine", "register"]
