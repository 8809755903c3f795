"""The README and the core's comments tell the truth about this repository: the opening names every playable
game with its player counts, and no comment points at a file kept outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

from games.engines import all_engines

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("FACTS.md", "../shared")


def test_the_readme_opening_names_every_playable_game_with_its_player_counts() -> None:
    opening = (ROOT / "README.md").read_text().split("\n## ")[0]
    missing = [
        f"{engine.title} ({engine.min_players}–{engine.max_players})"
        for engine in all_engines()
        if f"**{engine.title}** ({engine.min_players}–{engine.max_players}" not in opening
    ]
    assert missing == []


def test_nothing_of_the_core_or_the_leagues_nor_the_readme_points_at_a_file_outside_the_repository() -> None:
    # The engines' rules notes name their sources, the rulebook texts and their figures, on purpose.
    core = [path for path in (ROOT / "games").rglob("*.py") if "engines" not in path.parts]
    files = [ROOT / "README.md", *sorted(core), *sorted((ROOT / "pbem").rglob("*.py"))]
    files += sorted(path for path in (ROOT / "templates").rglob("*") if path.is_file())
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if any(name in line for name in OUTSIDE)
    ]
    assert found == []


def test_every_picture_the_readme_shows_is_in_the_repository() -> None:
    readme = (ROOT / "README.md").read_text()
    pictures = re.findall(r'<img src="([^"]+)"|!\[[^\]]*\]\(([^)]+)\)', readme)
    paths = [src or alt for src, alt in pictures]
    assert paths, "the README shows no picture"
    assert [path for path in paths if not (ROOT / path).is_file()] == []
