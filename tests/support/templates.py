"""The project's template settings with Django's own loader, to render a template both ways and compare."""

from __future__ import annotations

import copy
from typing import Any

PROJECT_LOADER = "games.outgoing.translating.Loader"


def djangos_own_loader(templates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The TEMPLATES setting with Django's own cached loader in place of translating.py's (which also makes the
    variables quick: games/outgoing/quick_lookups.py)."""
    plain = copy.deepcopy(templates)
    for engine in plain:
        engine["OPTIONS"]["loaders"] = [
            ("django.template.loaders.cached.Loader", inner) if loader == PROJECT_LOADER else (loader, inner)
            for loader, inner in engine["OPTIONS"]["loaders"]
        ]
    assert plain != templates, "the project no longer reads its templates through translating.py"
    return plain
