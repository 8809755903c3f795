"""The README and the manuals in docs/ tell the truth about this repository: the README's opening names every
playable game with its player counts and leads to each manual; every link, picture, file path, `make`
target, `manage.py` command and `PBEM_` setting they name exists; and neither they nor the core's comments
point at a file kept outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

from django.core.management import get_commands

from games.engines import all_engines

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("FACTS.md", "../shared")
README = ROOT / "README.md"
MANUALS = ("players", "organisers", "operators", "contributors")
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_MOST_LINES = 250
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
PICTURE = re.compile(r'<img src="([^"]+)"|!\[[^\]]*\]\(([^)]+)\)')
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
# A path the text names as a file or folder of this repository: it starts at one of the top-level folders.
PATH = re.compile(r"^(?:\.ci|bench|docs|games|pbem|templates|tests)/[\w./-]*$")
# Where else a named path may be: what a run writes (git ignores it), and a game's own folder ("Adding a game"
# names the files of a game's folder from that folder, `templates/page.html`).
WRITTEN = ("bench/results/",)
GAMES = [path for path in (ROOT / "games" / "engines").iterdir() if (path / "__init__.py").is_file()]


def code_spans(path: Path) -> list[str]:
    """Every `code span` of a Markdown file, and every line of its fenced blocks."""
    text = path.read_text()
    blocks = FENCE.findall(text)
    spans = CODE.findall(FENCE.sub("", text))
    return spans + [line for block in blocks for line in block.splitlines()[1:-1]]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def test_the_readme_opening_names_every_playable_game_with_its_player_counts() -> None:
    opening = README.read_text().split("\n## ")[0]
    missing = [
        f"{engine.title} ({engine.min_players}–{engine.max_players})"
        for engine in all_engines()
        if f"**{engine.title}** ({engine.min_players}–{engine.max_players}" not in opening
    ]
    assert missing == []


def test_the_readme_is_a_front_door_to_every_manual() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= README_MOST_LINES
    assert "make run" in text and "make test" in text
    assert [name for name in MANUALS if f"](docs/{name}.md)" not in text] == []
    assert [name for name in MANUALS if not (ROOT / "docs" / f"{name}.md").is_file()] == []


def test_nothing_of_the_core_or_the_leagues_nor_the_docs_points_at_a_file_outside_the_repository() -> None:
    # The engines' rules notes name their sources, the rulebook texts and their figures, on purpose.
    core = [path for path in (ROOT / "games").rglob("*.py") if "engines" not in path.parts]
    files = [*DOCS, *sorted(core), *sorted((ROOT / "pbem").rglob("*.py"))]
    files += sorted(path for path in (ROOT / "templates").rglob("*") if path.is_file())
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if any(name in line for name in OUTSIDE)
    ]
    assert found == []


def test_every_picture_the_readme_shows_is_in_the_repository() -> None:
    shown = [(doc, src or alt) for doc in DOCS for src, alt in PICTURE.findall(doc.read_text())]
    assert [src for doc, src in shown if doc == README], "the README shows no picture"
    assert [f"{doc.name}: {src}" for doc, src in shown if not (doc.parent / src).is_file()] == []


def test_every_link_leads_to_a_file_and_heading_that_exist() -> None:
    broken = []
    for doc in DOCS:
        for target in LINK.findall(FENCE.sub("", doc.read_text())):
            if re.match(r"[a-z]+:", target):
                continue  # a web address, not this repository's
            name, _, anchor = target.partition("#")
            path = (doc.parent / name).resolve() if name else doc
            if not path.exists() or (anchor and anchor not in anchors(path)):
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert broken == []


def exists(path: str) -> bool:
    if (ROOT / path).exists() or path.startswith(WRITTEN):
        return True
    return all((game / path).exists() for game in GAMES)


def test_every_file_path_named_exists() -> None:
    missing = []
    for doc in DOCS:
        for span in code_spans(doc):
            words = span.split() if "\n" not in span else []
            for word in words or [span]:
                word = word.rstrip(",.;:)").lstrip("(")
                if PATH.match(word) and not exists(word):
                    missing.append(f"{doc.relative_to(ROOT)}: {word}")
    assert missing == []


def test_every_make_target_and_manage_command_named_exists() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
    commands = set(get_commands())
    unknown = []
    for doc in DOCS:
        for span in code_spans(doc):
            for target in re.findall(r"\bmake ([\w-]+)", span):
                if target not in targets:
                    unknown.append(f"{doc.relative_to(ROOT)}: make {target}")
            for command in re.findall(r"\bmanage\.py ([\w-]+)", span):
                if command not in commands:
                    unknown.append(f"{doc.relative_to(ROOT)}: manage.py {command}")
    assert unknown == []


def test_every_pbem_setting_named_is_read_somewhere() -> None:
    sources = [path for folder in ("pbem", "games", "tests", "bench") for path in (ROOT / folder).rglob("*.py")]
    code = "\n".join(path.read_text() for path in sources) + (ROOT / "Makefile").read_text()
    named = {name for doc in DOCS for name in re.findall(r"\bPBEM_[A-Z_]+\b", doc.read_text())}
    assert sorted(name for name in named if name not in code) == []


def test_the_contributors_layout_names_every_module_of_the_core() -> None:
    """README's layout once left out 12 modules: the core's folders are read, each module must be named."""
    text = (ROOT / "docs" / "contributors.md").read_text()
    layout = text.split("## Architecture and layout", 1)[1].split("\n## ", 1)[0]
    core = [ROOT / "games" / name for name in ("incoming", "play", "outgoing", "models", "admin")]
    modules = [*(ROOT / "games").glob("*.py"), *(path for folder in core for path in folder.rglob("*.py"))]
    unnamed = [str(path.relative_to(ROOT)) for path in modules if path.stem != "__init__" and path.name not in layout]
    assert unnamed == []
