"""One vocabulary for the engines' modules: a module's name means the same kind of thing in every game. Each
module of a game is one of the shared names, which the contributors' guide explains one by one, or a word of
that game's own that no other game uses for something else; the names that used to mean different things in
different games (a board that was a grid, a sea map or helpers; steps that were a decisions table or a text
parser) are not used again."""

from __future__ import annotations

import re
from pathlib import Path

from games.engines import all_engines

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "games" / "engines"
GUIDE = ROOT / "docs" / "contributors.md"  # the section "Adding a game"
SHARED = {
    "data",
    "map",
    "syntax",
    "actions",
    "flow",
    "decisions",
    "prompts",
    "orders",
    "readback",
    "builder",
    "bots",
    "evaluation",
    "plans",
    "view",
    "scoring",
    "money",
    "rules",
}
OWN = {"manila": {"auction", "placing", "crews", "fields", "payout"}, "ports_of_call": {"trade", "turn"}}
RETIRED = {"board", "steps", "components", "cards", "parsing", "bot", "play", "parts", "common", "helpers", "utils"}
EVERY_GAME = {"data", "flow", "decisions", "view"}


def games() -> dict[str, set[str]]:
    """Each game's folder name and the names of its modules (without .py and __init__)."""
    return {
        folder.name: {path.stem for path in folder.glob("*.py") if path.stem != "__init__"}
        for folder in sorted(ENGINES.iterdir())
        if (folder / "__init__.py").is_file()
    }


def test_every_module_of_a_game_is_a_shared_name_or_a_word_of_that_game_alone() -> None:
    assert len(games()) == len(all_engines())
    strays = [f"{game}/{name}.py" for game, names in games().items() for name in names - SHARED - OWN.get(game, set())]
    assert strays == []


def test_no_game_uses_a_shared_or_retired_name_as_a_word_of_its_own() -> None:
    own = set().union(*OWN.values())
    assert own & (SHARED | RETIRED) == set()
    assert set() == SHARED & RETIRED


def test_every_game_has_its_data_flow_decisions_and_view() -> None:
    assert {game: EVERY_GAME - names for game, names in games().items() if EVERY_GAME - names} == {}


def test_the_contributors_guide_explains_every_shared_name() -> None:
    table = "\n".join(line for line in GUIDE.read_text().splitlines() if line.startswith("| `"))
    explained = set(re.findall(r"`(\w+)\.py`", table))
    assert SHARED - explained == set()
