"""`manage.py makemessages` as pbem keeps its catalogues (`make messages` runs it; docs/translators.md).

Django's command, with what pbem's catalogues need:

- the engines' message functions as keywords: `M("...")` (a message id), `Mn("one", "many", n)` (singular and
  plural) and `Mp("context", "...")` (a message id with its msgctxt), beside Django's own;
- every language of settings.LANGUAGES but English (German and French) by default, from the pages (.html), the
  emails (.txt) and the Python, with the tests, the benchmarks, the documents and the deployment files left out;
- output that two people's changes merge cleanly in git: entries sorted by msgid, one line each (no wrapping),
  locations by file only (no line numbers that move with every edit), no obsolete entries, and a fixed header
  (no POT-Creation-Date or revision date changing on every run);
- `--check`: write nothing, and fail if a catalogue lacks a string of the code, or holds an untranslated or fuzzy
  entry (what CI asks, tests/test_catalogues.py).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser
from django.core.management.commands import makemessages

KEYWORDS = ["--keyword=M", "--keyword=Mn:1,2", "--keyword=Mp:1c,2"]
IGNORED = ["tests", "bench", "docs", "deploy", "var", "node_modules", "*.md", "requirements*.txt"]
SORTED = ["--sort-output"]
PLURAL_FORMS = re.compile(r'^"Plural-Forms: .*\\n"$', re.MULTILINE)
STATISTICS = re.compile(r"(\d+) (translated|fuzzy|untranslated)")


def header(language: str, plural_forms: str) -> str:
    """Every catalogue's header, the same on every run: what a translation platform needs and nothing that churns."""
    lines = [
        "# pbem's catalogue. docs/translators.md says how it is kept; `make messages` rewrites this header.",
        'msgid ""',
        'msgstr ""',
        '"Project-Id-Version: pbem\\n"',
        f'"Language: {language}\\n"',
        '"MIME-Version: 1.0\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        plural_forms,
    ]
    return "\n".join(lines) + "\n"


def statistics(pofile: Path) -> dict[str, int]:
    """msgfmt's count of a catalogue's translated, fuzzy and untranslated entries."""
    done = subprocess.run(
        ["msgfmt", "--statistics", "--check-format", "-o", "/dev/null", str(pofile)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise CommandError(f"{pofile}: {done.stderr.strip()}")
    counts = {"translated": 0, "fuzzy": 0, "untranslated": 0}
    counts |= {kind: int(number) for number, kind in STATISTICS.findall(done.stderr)}
    return counts


def languages() -> list[str]:
    """The catalogues kept: every language of settings.LANGUAGES but English, the source language."""
    return [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


class Command(makemessages.Command):
    help = "Update pbem's German and French catalogues from the code (or, with --check, only say what they lack)."
    xgettext_options = [*makemessages.Command.xgettext_options, *KEYWORDS, *SORTED]
    msgmerge_options = [*makemessages.Command.msgmerge_options, *SORTED]
    msguniq_options = [*makemessages.Command.msguniq_options, *SORTED]
    msgattrib_options = [*makemessages.Command.msgattrib_options, *SORTED]

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--check",
            action="store_true",
            help="Write nothing; fail if a catalogue lacks a string of the code or has an untranslated or fuzzy one.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["locale"] and not options["exclude"] and not options["all"]:
            options["locale"] = languages()
        if options["domain"] == "django":
            options["extensions"] = options["extensions"] or ["html", "txt", "py"]
        options["ignore_patterns"] = [*options["ignore_patterns"], *IGNORED]
        options["no_wrap"] = True
        options["no_obsolete"] = True
        options["add_location"] = options["add_location"] or "file"
        self.checking = bool(options["check"])
        self.problems: list[str] = []
        super().handle(*args, **options)
        if self.checking:
            self.problems += [
                f"{pofile}: {counts['untranslated']} untranslated, {counts['fuzzy']} fuzzy"
                for pofile in catalogues()
                if (counts := statistics(pofile))["untranslated"] or counts["fuzzy"]
            ]
            if self.problems:
                raise CommandError(
                    "The catalogues are not complete: run `make messages` and translate what it adds "
                    "(docs/translators.md).\n" + "\n".join(sorted(set(self.problems)))
                )

    def write_po_file(self, potfile: str, locale: str) -> None:
        pofile = Path(potfile).parent / locale / "LC_MESSAGES" / f"{self.domain}.po"
        if self.checking:
            self.compare(pofile, Path(potfile))
            return
        super().write_po_file(potfile, locale)
        text = pofile.read_text(encoding="utf-8")
        head, _, entries = text.partition("\n\n")
        found = PLURAL_FORMS.search(head)
        plural_forms = found.group(0) if found else '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"'
        pofile.write_text(header(locale, plural_forms) + "\n" + entries, encoding="utf-8")

    def compare(self, pofile: Path, potfile: Path) -> None:
        """What the code says that `pofile` lacks (msgcmp: an untranslated or fuzzy entry counts as lacking)."""
        if not pofile.exists():
            self.problems.append(f"{pofile}: missing")
            return
        done = subprocess.run(["msgcmp", "-N", str(pofile), str(potfile)], capture_output=True, text=True, check=False)
        if done.returncode:
            # msgcmp names each by its line in the template catalogue: show that line, the msgid (or its start).
            pot = potfile.read_text(encoding="utf-8").splitlines()
            lines = [int(found.group(1)) for found in re.finditer(r"\.pot:(\d+): this message", done.stderr)]
            self.problems.append(f"{pofile}: {len(lines)} strings of the code not translated")
            self.problems += [f"{pofile}:   {msgid_at(pot, number)[:150]}" for number in lines[:40]]


def msgid_at(pot: list[str], number: int) -> str:
    """The msgid of the entry msgcmp names by a line of it (it names the msgstr's)."""
    at = min(number, len(pot)) - 1
    while at > 0 and not pot[at].startswith(("msgid ", "msgctxt ")):
        at -= 1
    return pot[at]


def catalogues() -> list[Path]:
    """Every German and French catalogue: the root's and each engine's (settings.LOCALE_PATHS)."""
    return sorted(
        Path(folder) / language / "LC_MESSAGES" / "django.po"
        for folder in settings.LOCALE_PATHS
        for language in languages()
        if (Path(folder) / language / "LC_MESSAGES" / "django.po").exists()
    )
