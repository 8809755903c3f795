"""Issue 40, item 5: the site in a pseudo-locale (tests/support/pseudo.py: every catalogue's message accented, 40%
longer, between ⟦ ⟧), built at test time from the catalogues, so every word a person reads that did not go
through gettext shows as plain ASCII.

In Chromium at 390 px, from fresh pages: each game's page (seeded games of every engine, at the start, after the
first resolution and at the end), its earlier turns and its guide; a vote's panel and table talk; the lobby's
pages; sign-in and My games; a league's pages; and the organisers' admin as the Organiser role (sign-in, home,
lists, a league's console, a game's, a seat's and a round's pages). Every email kind (tests/support/emails.py's
collection), its subject, its text and its HTML, read without a browser. No text (nor a control's label, a
field's placeholder, a tooltip) may hold a run of three ASCII letters outside the names people chose (games',
players', leagues', tables', their table talk) and addresses; no page may scroll sideways at 390 px with the
longer words. Skips without Chromium unless PBEM_REQUIRE_SERVICES=1.

The same walk and emails in German and in French (issue 40, item 5: "the German walk and emails read as German"):
every page and email as a reader of that language sees it, with no English the catalogues hold and that language
does not share (tests/support/pseudo.py's `english_left`: each message's stretches of two words or more between its
placeholders that no German, or French, message contains), and none wider than 390 px with its real words."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from zoneinfo import available_timezones

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.template import Context, Template
from django.urls import reverse

from games.engines import all_engines, board_templates
from games.incoming.sessions import email_sign_in_link
from games.leagues.models import League, Membership, Round, Season
from games.lobby import tables as lobby_tables
from games.lobby.models import Table
from games.models import Game, Phase, Player, Seat
from games.outgoing.links import make_token
from games.outgoing.messages import spaced
from games.play import turns
from games.talk import services as talk
from games.talk.models import Message
from games.votes import services as votes
from tests.support import pseudo
from tests.support.browser import PHONE, horizontal_overflow, link_in, new_context
from tests.support.emails import game_emails
from tests.support.game_renders import PLAYERS, points
from tests.support.leagues import first_game, make_league, organiser_of, started_round
from tests.support.lobby import spec as lobby_spec

# Still English while others convert them (issue 40); walked for their layout, their words not read until they land.
# An engine whose words are being turned into messages (item 1): its pages and emails. Every engine speaks now.
PENDING: set[str] = set()
# The boards (each engine's templates/ and view.py) still English: the board on a game's page (.board) and in its
# emails (the board rendered alone, as the email drew it). Every board speaks now.
PENDING_BOARDS: set[str] = set()
# The guides: a guide is a whole document per language (each engine's GUIDE.md, GUIDE.de.md, GUIDE.fr.md), not the
# catalogue's, so the pseudo-locale reads the English one. The phases' names speak (False).
PENDING_GUIDES = True
PENDING_PHASE_NAMES = False
# Pages and emails (as the walk names them) still English, and texts (by their start) still English, each with where
# it comes from: remove an entry once it speaks.
PENDING_PLACES: dict[str, str] = {}
PENDING_TEXTS: dict[str, str] = {}

# Words that are no language's: the site's name (the brand, as in every language), each language's own name (the
# switcher and My games name each language in itself) and the time zones' names (tz database identifiers).
EXCEPTIONS = {"pbem", *(name for _code, name in settings.LANGUAGES)}
ZONES = available_timezones() | {"localtime"}

_FOLDER: list[Path] = []


# The languages walked: the pseudo-locale, German, French; and the browser's locale asking for each.
WALKED = {pseudo.CODE: "en-XA", "de": "de-DE", "fr": "fr-FR"}
_ENGLISH: dict[str, list[str]] = {}


def speak_pseudo(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The pseudo-locale one of the site's languages (built once per test process)."""
    if not _FOLDER:
        _FOLDER.append(pseudo.pseudo_locale(tmp_path_factory.mktemp("pseudo")))
    for name, value in pseudo.settings_for(_FOLDER[0]).items():
        setattr(settings, name, value)


@pytest.fixture(params=list(WALKED), ids=["pseudo", "de", "fr"])
def site_language(request: Any, settings: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The site's default language, which a reader who chose none (and every email to one) reads: the
    pseudo-locale, German or French."""
    if request.param == pseudo.CODE:
        speak_pseudo(settings, tmp_path_factory)
    settings.LANGUAGE_CODE = request.param
    return str(request.param)


def chosen_names() -> set[str]:
    """What people wrote: games', players', leagues', seasons', tables' names, usernames, table talk."""
    found = set(Game.objects.values_list("title", flat=True)) | set(Player.objects.values_list("name", flat=True))
    found |= set(League.objects.values_list("name", flat=True)) | set(Season.objects.values_list("name", flat=True))
    found |= set(Table.objects.values_list("title", flat=True)) | set(Message.objects.values_list("text", flat=True))
    found |= set(get_user_model().objects.values_list("username", flat=True))
    found |= {name for e in all_engines() for name in (e.title, e.title.upper(), e.slug)}  # the games' names
    if PENDING_PHASE_NAMES:
        found |= set(Phase.objects.values_list("name", flat=True))
    return found | EXCEPTIONS | ZONES | {"Newcomer"}  # (the name a league's sign-up gives, kept in its link only)


def pending_place(what: str) -> bool:
    return any(what.startswith(place) for place in PENDING_PLACES)


def plain_text(text: str, names: set[str]) -> bool:
    """Whether `text` shows a plain word (not a pending one)."""
    return not any(re.match(start, text) for start in PENDING_TEXTS) and bool(pseudo.plain_words(text, names))


def english_in(language: str, texts: list[str], names: set[str]) -> list[str]:
    """The texts that show English: in the pseudo-locale a plain word, in German or French a stretch of the
    catalogues' English the language does not share (each such text, and the English it holds)."""
    if language == pseudo.CODE:
        return [text for text in dict.fromkeys(texts) if plain_text(text, names)]
    if language not in _ENGLISH:
        _ENGLISH[language] = sorted(pseudo.english_left(language))  # (sorted once: a page reads hundreds of texts)
    longest_first = _longest_first(frozenset(names))
    found = []
    for text in dict.fromkeys(texts):
        shown = pseudo.NOT_WORDS.sub(" ", text)  # (addresses and links)
        for name in longest_first:
            shown = shown.replace(name, " ")
        found += [
            f"{english!r} in {text}"
            for english in _ENGLISH[language]
            if english in shown and re.search(rf"(?<!\w){re.escape(english)}(?!\w)", shown)  # (whole words)
        ]
    return found


@functools.lru_cache(maxsize=8)
def _longest_first(names: frozenset[str]) -> tuple[str, ...]:
    """The chosen names, the longest first (a name inside a longer one is taken out after it), the empty one not."""
    return tuple(sorted((name for name in names if name), key=len, reverse=True))


# Every text the page shows (closed <details> opened first: a tap shows them) and every label, placeholder,
# tooltip and picture's text: a text in another language marked so (the switcher's "Deutsch", lang="de") aside.
SHOWN_TEXTS = """skipped => {
    for (const details of document.querySelectorAll('details')) details.open = true;
    const lang = document.documentElement.lang;
    const own = el => { const marked = el.closest('[lang]'); return !marked || marked.lang === lang; };
    const found = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement, text = node.textContent.trim();
        if (!text || !el || el.closest('script, style, template, noscript' + skipped)) continue;
        const box = el.closest('option, optgroup') ? el.closest('select')
            : el.tagName.toLowerCase() === 'title' ? el.parentElement : el;
        if (box && box.checkVisibility() && own(el)) found.push(text);
    }
    const labelled = '[aria-label], [placeholder], [alt], [title], input[type=submit], input[type=button]';
    for (const el of document.body.querySelectorAll(labelled)) {
        if (!el.checkVisibility() || !own(el) || (skipped && el.closest(skipped.slice(2)))) continue;
        for (const name of ['aria-label', 'placeholder', 'alt', 'title'])
            if (el.getAttribute(name)) found.push(el.getAttribute(name));
        if (el.matches('input[type=submit], input[type=button]')) found.push(el.value);
    }
    return found;
}"""


# The innermost elements that reach past the window's right edge: what makes a page scroll sideways.
TOO_WIDE = """() => [...document.body.querySelectorAll('*')]
    .filter(el => el.getBoundingClientRect().right > window.innerWidth + 0.5
        && ![...el.children].some(child => child.getBoundingClientRect().right > window.innerWidth + 0.5))
    .slice(0, 4)
    .map(el => `${el.tagName.toLowerCase()}.${el.className} '${(el.textContent || '').trim().slice(0, 50)}'`)"""


class Walk:
    """One browser at 390 px asking for one language (the pseudo-locale, German or French), and what it found. The
    three walks share one site that speaks all three, its games and leagues built once: while a walk reads, the
    site's default language is its own (`speaking`), as on a site in that language."""

    def __init__(self, browser: Any, server: str, language: str, settings: Any) -> None:
        self.browser, self.server, self.language, self.settings = browser, server, language, settings
        self.problems: list[str] = []
        self.looked = 0

    def context(self) -> Any:
        return new_context(self.browser, PHONE, locale=WALKED[self.language])

    @contextmanager
    def speaking(self) -> Iterator[None]:
        before = self.settings.LANGUAGE_CODE
        self.settings.LANGUAGE_CODE = self.language
        try:
            yield
        finally:
            self.settings.LANGUAGE_CODE = before

    def look(self, page: Any, what: str, path: str | None = None, words: bool = True, board: bool = True) -> None:
        """`page` (at `path` if given): `words` False reads none of its words, `board` False none of its board's."""
        with self.speaking():
            if path is not None:
                page.goto(self.server + path)
            self.looked += 1
            texts = page.evaluate(SHOWN_TEXTS, "" if board else ", .board")
            extra = horizontal_overflow(page)
            if extra > 0:
                wide = "; ".join(page.evaluate(TOO_WIDE))
                self.problems.append(f"{what}: {extra} px wider than 390 px (scrolls sideways): {wide}")
            if words and not pending_place(what):
                plain = english_in(self.language, texts, chosen_names())
                self.problems += [f"{what}: {text[:160]!r}" for text in plain]


@pytest.fixture
def walks(chromium: Any, live_server: Any, settings: Any, tmp_path_factory: pytest.TempPathFactory) -> list[Walk]:
    """A walk in each language, over one site (the games are played once, in the pseudo-locale's site)."""
    speak_pseudo(settings, tmp_path_factory)
    settings.LANGUAGE_CODE = pseudo.CODE
    return [Walk(chromium, live_server.url, language, settings) for language in WALKED]


def found_nothing(walks: list[Walk]) -> None:
    """Each walk's findings under its language's name, and how many pages each read (none may be skipped)."""
    for walk in walks:
        walk.problems.append(f"({walk.language}: {walk.looked} pages)")
    problems = [problem for walk in walks for problem in walk.problems]
    assert problems == [f"({walk.language}: {walk.looked} pages)" for walk in walks], "\n".join(problems)


def unchosen(seat: Seat) -> None:
    """The seat's player has chosen no language yet, so the browser about to open its link chooses it (by its
    Accept-Language, games/incoming/sessions.py), as in a site where only that language's readers play."""
    Player.objects.filter(seats=seat).update(language="")


def seat_path(seat: Seat, phase: Any) -> str:
    return reverse("games-link", args=[make_token(seat, phase)])


@pytest.mark.django_db(transaction=True)
def test_every_game_page_speaks_the_catalogue_at_390_px(walks: list[Walk], make_game: Any) -> None:
    """Each engine's game is played once; at each stop every language's browser reads the page (one language a
    test played the same game three times over, two thirds of this test's time)."""
    for engine in all_engines():
        words, board = engine.slug not in PENDING, engine.slug not in PENDING_BOARDS
        game = make_game(humans=PLAYERS, engine=engine.slug, seed=5)
        pages = [(walk, walk.context().new_page()) for walk in walks]
        try:
            for stop, phase in enumerate(points(game, seed=f"pseudo:{engine.slug}")):
                if phase is None:
                    for walk, page in pages:
                        path = reverse("games-game", args=[game.pk])
                        walk.look(page, f"{engine.slug}'s page at the end", path, words, board)
                elif stop < 2:
                    seat = Seat.objects.get(game=game, number=phase.owed_seats[0])
                    for walk, page in pages:
                        unchosen(seat)
                        with walk.speaking():
                            page.goto(walk.server + seat_path(seat, phase))
                        what = f"{engine.slug}'s page, phase {phase.number}, seat {seat.number}"
                        walk.look(page, what, None, words, board)
                if stop == 1 and not words:
                    break  # a pending engine's end is walked once it speaks
            history = reverse("games-history", args=[game.pk]) + "?phase=1"
            guide = reverse("games-rules", args=[engine.slug])
            for walk, page in pages:
                walk.look(page, f"{engine.slug}'s earlier turns", history, words, board)
                # (each language's own guide, GUIDE.<lang>.md; the pseudo-locale reads the English one)
                guide_words = words and not (PENDING_GUIDES and walk.language == pseudo.CODE)
                walk.look(page, f"{engine.slug}'s guide", guide, guide_words)
        finally:
            for _walk, page in pages:
                page.context.close()
    found_nothing(walks)


@pytest.mark.django_db(transaction=True)
def test_the_other_pages_speak_the_catalogue_at_390_px(walks: list[Walk], make_game: Any) -> None:
    """Each step's rows are made once, then every language's browser reads that step's pages."""
    game = make_game(humans=3, engine="piraeus")
    phase = turns.current_phase(game)
    first, second = (game.seats.select_related("player").get(number=n) for n in (0, 1))
    assert first.player is not None and second.player is not None and phase is not None
    # A vote's panel and table talk, as the second seat reads them.
    talk.post(first, first.player, "Ωραία μέρα", to=[1])
    votes.propose(first.pk, first.player.pk, "draw")
    pages = [(walk, walk.context().new_page()) for walk in walks]
    try:
        for walk, page in pages:
            unchosen(first)
            unchosen(second)
            with walk.speaking():
                page.goto(walk.server + seat_path(second, phase))
                walk.look(page, "a vote's panel and table talk", board="piraeus" not in PENDING_BOARDS)
                # Signing in, My games, the lobby.
                walk.look(page, "My games, not signed in", reverse("games-mine"))
                email_sign_in_link(first.player.email)
                walk.look(page, "the sign-in page", link_in(first.player.email, r"/me/sign-in/\S+"))
                with page.expect_navigation():
                    page.locator("main form button").first.click()
                walk.look(page, "My games, signed in")
        table = lobby_tables.create_table(first.player, lobby_spec(engine="piraeus", size=4), ["friend@example.com"])
        for walk, page in pages:
            walk.look(page, "the lobby's open tables", reverse("lobby-open"))
            walk.look(page, "the lobby's new table", reverse("lobby-new"))
            walk.look(page, "a lobby table", reverse("lobby-table", args=[table.key]))
        # A league's pages.
        league = make_league(players=4, notify=Membership.Notify.OWED, time_zone="Europe/Paris")
        round_ = started_round(league)
        for walk, page in pages:
            walk.look(page, "a league's page", reverse("leagues-league", args=[league.slug]))
            walk.look(page, "a league's sign-up", reverse("leagues-join", args=[league.slug, league.invite_key]))
    finally:
        for _walk, page in pages:
            page.context.close()
    organiser_of(league)
    for walk in walks:
        organiser_pages(walk, league, round_)
    found_nothing(walks)


def organiser_pages(walk: Walk, league: League, round_: Round) -> None:
    game = first_game(round_)
    context = walk.context()
    page = context.new_page()
    try:
        walk.look(page, "the admin's sign-in", reverse("admin:login"))
        page.locator("#id_username").fill("organiser")
        page.locator("#id_password").fill("pw")
        with walk.speaking(), page.expect_navigation():
            page.locator("form input[type=submit], form button[type=submit]").first.click()
        for what, path in (
            ("the admin's home", reverse("admin:index")),
            ("the leagues", reverse("admin:leagues_league_changelist")),
            ("a league's console", reverse("admin:leagues_league_console", args=[league.pk])),
            ("the members", reverse("admin:leagues_membership_changelist")),
            ("the games", reverse("admin:games_game_changelist")),
            ("a game's page", reverse("admin:games_game_change", args=[game.pk])),
            ("a seat's page", reverse("admin:games_seat_change", args=[game.seats.first().pk])),  # type: ignore[union-attr]
            ("a round's page", reverse("admin:leagues_round_change", args=[round_.pk])),
            ("a vacation's form", reverse("admin:leagues_vacation_add") + f"?league={league.pk}"),
        ):
            walk.look(page, what, path)
    finally:
        context.close()


class ShownText(HTMLParser):
    """An HTML email's texts as a mail client shows them (not its head, styles or scripts), its pictures' and
    links' alternative texts and tooltips too."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("head", "style", "script", "title"):
            self.hidden += 1
        self.texts += [value for name, value in attrs if name in ("alt", "title", "aria-label") and value]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("head", "style", "script", "title"):
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.texts.append(data.strip())


def email_texts(message: Any) -> Iterator[tuple[str, str]]:
    yield "subject", str(message.subject)
    yield from (("text", line.strip()) for line in str(message.body).splitlines() if line.strip())
    for content, kind in message.alternatives:
        if kind == "text/html":
            shown = ShownText()
            shown.feed(content)
            yield from (("HTML", text) for text in shown.texts)


def board_texts(what: str, message: Any) -> set[str]:
    """The texts of the board a game's email drew, for an engine whose board is pending: the board rendered
    alone for the reader's seat now (the email was sent at this stop of the game)."""
    slug = what.split()[0]
    if slug not in PENDING_BOARDS:
        return set()
    game = Game.objects.filter(engine=slug).latest("pk")
    seat = game.seats.get(player__email=message.to[0])
    shown = ShownText()
    shown.feed(drawn(game, seat.number, "email_html"))
    return set(shown.texts) | {line.strip() for line in drawn(game, seat.number, "email_text").splitlines()}


def drawn(game: Game, seat: int, where: str) -> str:
    """The game's board template `where` rendered alone for `seat`'s view now, as an email includes it
    (tests/support/game_renders.py's `board`, whose check of the phase's name reads English)."""
    wrapped = "{% load l10n %}{% localize off %}{% include name %}{% endlocalize %}"
    if where == "email_text":
        wrapped = "{% autoescape off %}" + wrapped + "{% endautoescape %}"
    view = turns.engine_of(game).view(game.state, seat)
    name = getattr(board_templates(game.engine), where)
    shown = Template(wrapped).render(Context({"name": name, "view": view}))
    return spaced(shown) if where == "email_html" else shown


@pytest.mark.django_db
def test_every_email_kind_speaks_the_catalogue(
    site_language: str, make_game: Any, django_capture_on_commit_callbacks: Any
) -> None:
    problems: list[str] = []
    kinds = 0
    for what, message in game_emails(make_game, django_capture_on_commit_callbacks, skipped=PENDING):
        kinds += 1
        names, drawn = chosen_names(), board_texts(what, message)
        for part, text in email_texts(message):
            if text not in drawn and not pending_place(what):
                problems += [f"{what} ({part}): {found[:160]!r}" for found in english_in(site_language, [text], names)]
    assert kinds > 20 and mail.outbox
    assert not problems, f"{len(problems)} English text(s) in {kinds} emails:\n" + "\n".join(dict.fromkeys(problems))


def test_the_pseudo_locale_keeps_placeholders_and_markup_and_shows_english() -> None:
    """The walk's own measure: a message's placeholders and tags survive, and a plain word is found."""
    made = pseudo.pseudo("Your turn, %(name)s: {count:+d} <strong>ducats</strong> &amp; more\n")
    assert made.startswith("⟦") and made.endswith("⟧\n") and "%(name)s" in made and "{count:+d}" in made
    assert "<strong>" in made and "&amp;" in made and not pseudo.plain_words(pseudo.KEPT.sub("", made))
    assert len(pseudo.pseudo("Containerterminal")) >= len("Containerterminal") * 1.4
    shown = (
        made.replace("%(name)s", "Anna")
        .replace("{count:+d}", "+2")
        .replace("<strong>", "")
        .replace("</strong>", "")
        .replace("&amp;", "&")
    )
    assert pseudo.plain_words(f"{shown} Game over", names={"Anna"}) == ["Game", "over"]
