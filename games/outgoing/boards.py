"""Board templates live in their game's folder: the template "boards/<slug>/<file>" is <file> in the
`templates` folder of the engine registered as <slug> (games.engines.template_folder). Every page and email
asks for a board by the names games.engines.board_templates gives, so a new game's folder is found without
touching a shared template folder or the settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.core.exceptions import SuspiciousFileOperation
from django.template import Origin
from django.template.loaders.filesystem import Loader
from django.utils._os import safe_join

from games.engines import all_engines, template_folder

PREFIX = "boards"


class EngineTemplateLoader(Loader):
    """Reads "boards/<slug>/…" from the engine's own folder (the file loader's reading, its own lookup)."""

    def get_dirs(self) -> list[str | Path]:
        # Listed for Django's development autoreloader, which watches every loader's folders.
        return [template_folder(engine.slug) for engine in all_engines()]

    def get_template_sources(self, template_name: str) -> Iterator[Origin]:
        prefix, _, rest = template_name.partition("/")
        slug, _, file = rest.partition("/")
        if prefix != PREFIX or not file:
            return
        try:
            folder = template_folder(slug)
            name = safe_join(folder, file)
        except (KeyError, SuspiciousFileOperation):  # not a registered game, or a path out of its folder
            return
        yield Origin(name=name, template_name=template_name, loader=self)
