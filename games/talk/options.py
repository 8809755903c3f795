"""The game's press options. They belong to every game whatever its engine, so they are declared here, as
OptionSpecs like an engine's, and registered with the core (games/extensions.py, `game_options`), which
checks them and takes them out of a game's options before the engine reads the rest: an organiser (the Add
game form, `creategame`) or a league (its options box, given to every table) sets them in the same JSON
object as the engine's options, e.g. {"press": "public", "publish_press": "yes"}."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engines.base import Choice, M, Mp, OptionSpec
from games.extensions import read_option

FULL, PUBLIC, NONE = "full", "public", "none"

PRESS = OptionSpec(
    name="press",
    label=M("table talk: full (to the table and privately to chosen seats), public (to the table only) or none"),
    kind="choice",
    default=FULL,
    choices=(
        Choice(FULL, Mp("table talk", "full")),
        Choice(PUBLIC, Mp("table talk", "the table only")),
        Choice(NONE, Mp("table talk", "none")),
    ),
    error=M("The press option must be full, public or none."),
)
PUBLISH = OptionSpec(
    name="publish_press",
    label=M("yes: every message, private ones too, is shown to everyone once the game is over"),
    kind="choice",
    default="no",
    choices=(Choice("yes", Mp("table talk", "yes")), Choice("no", Mp("table talk", "no"))),
    error=M("The publish_press option must be yes or no."),
)
OPTIONS = (PRESS, PUBLISH)


@dataclass(frozen=True)
class Press:
    mode: str  # FULL, PUBLIC or NONE
    published_at_end: bool

    @property
    def private_allowed(self) -> bool:
        return self.mode == FULL


def press_of(options: dict[str, Any]) -> Press:
    """A game's press, from its stored options (games created before press existed have none: defaults)."""
    press = {spec.name: read_option(spec, options.get(spec.name)) for spec in OPTIONS}
    return Press(mode=press[PRESS.name], published_at_end=press[PUBLISH.name] == "yes")
