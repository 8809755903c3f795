"""Every kind of game email as its reader's mail client shows it, and as a spam filter reads it.

The emails come from a seeded random game of each engine, stopped where tests/support/game_renders.py stops
(a reminder and a moved deadline at the first stop, phase news for players who chose every phase, the end), plus
table talk, the sign-in email, an address's confirmation, a league's sign-up confirmation, a vote's two emails
(games/votes) and the lobby's three (games/lobby). In Chromium, in light, in dark (prefers-color-scheme: dark: the
emails' own dark styles), in a client's forced dark (Chromium's auto dark mode, which leaves an email that declares
its own dark colours alone) and in a client's own dark that ignores color-scheme (simulated: each colour's
lightness inverted): axe-core finds no text below 4.5:1
contrast, and no email holds text it hides (a preheader that repeats the first line). Debian's SpamAssassin, local
tests only (`spamassassin -t -L`), scores every email 0.0, all of them read in one call. Sent through our own relay
with a DKIM key (issue 42), every kind arrives signed, and dkimpy verifies it with the key's public half. Skips
without Chromium or SpamAssassin unless PBEM_REQUIRE_SERVICES=1. With PBEM_SCREENSHOTS (`make screenshots`) it
keeps a picture of each game's turn email in the three modes."""

from __future__ import annotations

import base64
import mailbox
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.core.mail import get_connection

from tests.support.browser import CHROMIUM, axe_violations, picture
from tests.support.emails import game_emails
from tests.support.services import missing_service
from tests.support.smtp import DKIM_SELECTOR, Sink, dkim_key, verifies

pytestmark = pytest.mark.django_db

WIDTH = 600  # a desktop reading pane; 360 px is tests/outgoing/test_browser_boards.py's
# A client's own dark that ignores `color-scheme` (several webmail and phone clients): it inverts the lightness of
# every colour the email sets (text, backgrounds, borders; the page's white too), keeping hue and saturation.
INVERT_LIGHTNESS = r"""() => {
    const invert = css => {
        const m = css.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
        if (!m || m[4] === '0') return null;
        const [r, g, b] = [m[1], m[2], m[3]].map(v => v / 255);
        const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2, d = max - min;
        const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
        let h = 0;
        if (d) h = max === r ? ((g - b) / d + 6) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
        const L = 1 - l, c = (1 - Math.abs(2 * L - 1)) * s, x = c * (1 - Math.abs(h % 2 - 1)), o = L - c / 2;
        const [R, G, B] = [[c, x, 0], [x, c, 0], [0, c, x], [0, x, c], [x, 0, c], [c, 0, x]][Math.floor(h) % 6];
        return `rgb(${Math.round((R + o) * 255)}, ${Math.round((G + o) * 255)}, ${Math.round((B + o) * 255)})`;
    };
    const elements = [...document.querySelectorAll('*')].map(el => [el, getComputedStyle(el)]);
    const changes = elements.map(([el, style]) => [el, {
        color: invert(style.color), 'background-color': invert(style.backgroundColor),
        'border-color': invert(style.borderTopColor),
    }]);
    for (const [el, change] of changes)
        for (const [property, value] of Object.entries(change))
            if (value) el.style.setProperty(property, value, 'important');
    const root = document.documentElement;  // the white the email leaves is the reader's page: inverted too
    if (invert(getComputedStyle(root).backgroundColor) === null)
        root.style.setProperty('background-color', 'rgb(0, 0, 0)', 'important');
}"""
# Every text the email shows but does not hide: what a filter or a reader cannot see counts as hidden.
HIDDEN_TEXT = """() => [...document.querySelectorAll('body *')].filter(element => {
    const own = [...element.childNodes].some(node => node.nodeType === 3 && node.textContent.trim());
    if (!own || element.closest('title, style, head')) return false;
    const style = getComputedStyle(element);
    return !element.checkVisibility({opacityProperty: true, visibilityProperty: true})
        || parseFloat(style.fontSize) < 6 || element.getBoundingClientRect().height < 2;
}).map(element => element.textContent.trim().slice(0, 60))"""


_COLLECTED: list[tuple[str, Any]] = []


def collected(make_game: Any, on_commit: Any) -> list[tuple[str, Any]]:
    """The emails, gathered once per test process: the tests below read the same ones."""
    if not _COLLECTED:
        _COLLECTED.extend(game_emails(make_game, on_commit))
    return _COLLECTED


def contrast_of(node: dict[str, Any]) -> str:
    """What axe-core measured of a text it found too faint: its colour on its background, and their ratio."""
    data = next((check.get("data") or {} for check in node.get("any", []) if check.get("data")), {})
    if not isinstance(data, dict) or "contrastRatio" not in data:
        return ""
    return f"({data.get('fgColor')} on {data.get('bgColor')}: {data.get('contrastRatio')}:1)"


def html_of(message: Any) -> str:
    return next(content for content, kind in message.alternatives if kind == "text/html")


# The modes each test reads every email in, the email set in the page once: light, then dark by switching the page's
# colour scheme (no new render), then the inverted client (light again, its colours rewritten: last). The forced
# dark needs a browser of its own, so it is a test of its own (the two test processes share the two).
PASSES = {"light-dark-inverted": ("light", "dark", "inverted"), "forced-dark": ("forced-dark",)}


@pytest.mark.parametrize("modes", list(PASSES.values()), ids=list(PASSES))
def test_every_game_email_reads_in_light_dark_and_forced_dark_and_hides_nothing(
    chromium: Any, make_game: Any, django_capture_on_commit_callbacks: Any, modes: tuple[str, ...]
) -> None:
    found = collected(make_game, django_capture_on_commit_callbacks)
    problems: list[str] = []
    # A client's forced dark: Chromium's own auto dark mode, in a second browser of the same Playwright.
    forcing = (
        chromium.browser_type.launch(executable_path=str(CHROMIUM), args=["--blink-settings=forceDarkModeEnabled=true"])
        if "forced-dark" in modes
        else None
    )
    try:
        page = (forcing or chromium).new_page(viewport={"width": WIDTH, "height": 900})
        try:
            for what, message in found:
                page.set_content(html_of(message))
                for mode in modes:
                    page.emulate_media(color_scheme="light" if mode in ("light", "inverted") else "dark")
                    if mode == "inverted":
                        page.evaluate(INVERT_LIGHTNESS)
                    problems += email_problems(page, f"{what} email in {mode}", mode)
                    if what.endswith("turn-started"):
                        picture(page, what.split()[0], 1280, f"email-{mode}")  # with PBEM_SCREENSHOTS
        finally:
            page.close()
    finally:
        if forcing is not None:
            forcing.close()
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)


def email_problems(page: Any, where: str, mode: str) -> list[str]:
    """What makes the email in `page` unreadable in `mode`: text too faint (axe-core), text hidden, or a page
    background that is not the mode's."""
    problems = []
    for violation in axe_violations(page, {"runOnly": ["color-contrast"]}):
        nodes = violation["nodes"]
        shown = [f"{node['target'][0]} {contrast_of(node)}" for node in nodes][:4]
        problems.append(f"{where}: {violation['id']} ({len(nodes)}×) {shown}")
    problems += [f"{where}: hidden text '{text}'" for text in page.evaluate(HIDDEN_TEXT)]
    body = page.evaluate("getComputedStyle(document.body).backgroundColor")
    dark = sum(int(part) for part in re.findall(r"\d+", body)[:3]) < 150
    if "rgba" not in body and mode != "inverted" and dark != (mode != "light"):  # it colours its page
        problems.append(f"{where}: the page's background is {body}")
    return problems


def test_the_checks_see_each_scheme_of_one_page_and_what_it_hides(chromium: Any) -> None:
    """email_problems can fail, and reads the scheme the page shows now: an email whose dark styles are too faint
    passes in light and fails in dark on the same page (the scheme switched, nothing set again), and its inverted
    colours are read as inverted; a hidden preheader is found in every scheme."""
    page = chromium.new_page(viewport={"width": WIDTH, "height": 900})
    try:
        page.set_content(
            '<!doctype html><html lang="en"><head><title>t</title><style>body { background: #fff; color: #111 }'
            "@media (prefers-color-scheme: dark) { body { background: #000 } p { color: #333 } }</style></head>"
            '<body><p>Your turn</p><span style="display:none">hidden preheader</span></body></html>'
        )
        light = email_problems(page, "light", "light")
        page.emulate_media(color_scheme="dark")
        dark = email_problems(page, "dark", "dark")
        page.emulate_media(color_scheme="light")
        page.evaluate(INVERT_LIGHTNESS)
        inverted = email_problems(page, "inverted", "inverted")
    finally:
        page.close()
    assert light == ["light: hidden text 'hidden preheader'"], light
    assert [line.split(" (")[0] for line in dark] == ["dark: color-contrast", "dark: hidden text 'hidden preheader'"]
    assert inverted == ["inverted: hidden text 'hidden preheader'"], inverted


def test_spamassassin_scores_every_kind_of_game_email_zero(
    make_game: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    if shutil.which("spamassassin") is None:
        missing_service("needs Debian's SpamAssassin (apt-get install spamassassin)")
    found = collected(make_game, django_capture_on_commit_callbacks)
    box = mailbox.mbox(tmp_path / "emails.mbox")
    for _what, message in found:
        box.add(message.message().as_bytes())
    box.flush()
    # One call for all of them: SpamAssassin takes a few seconds to load its rules.
    run = subprocess.run(  # noqa: S603 (a fixed command on a file this test wrote)
        ["spamassassin", "-t", "-L", "--mbox", str(tmp_path / "emails.mbox")], capture_output=True, timeout=300
    )
    statuses = re.findall(rb"^X-Spam-Status: (\w+), score=(-?[\d.]+) .*?tests=(.*?) autolearn", run.stdout, re.M | re.S)
    assert len(statuses) == len(found), run.stderr.decode()[-2000:]
    scored = [
        f"{what}: {float(score)} ({b' '.join(tests.split()).decode()})"
        for (what, _message), (_spam, score, tests) in zip(found, statuses, strict=True)
        if float(score) != 0.0
    ]
    assert not scored, "\n".join(scored)


@pytest.fixture
def smtp_extra_env(tmp_path: Path) -> dict[str, str]:
    """The relay's operator has a DKIM key (smtp_sink reads this)."""
    return {"PBEM_DKIM_SELECTOR": DKIM_SELECTOR, "PBEM_DKIM_KEY_FILE": str(dkim_key(tmp_path))}


def test_every_kind_of_email_sent_through_our_relay_is_dkim_signed_and_verifies(
    make_game: Any, django_capture_on_commit_callbacks: Any, smtp_sink: Sink, settings: Any
) -> None:
    signing = settings.EMAIL_BACKEND  # games.outgoing.dkim.SigningBackend, as pbem.settings chose it for the relay
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"  # where collected() finds the emails
    found = collected(make_game, django_capture_on_commit_callbacks)
    with get_connection(signing) as relay:
        assert relay.send_messages([message for _what, message in found]) == len(found)
    assert len(smtp_sink.received) == len(found)
    key = {f"{DKIM_SELECTOR}._domainkey.pbem.localhost": f"v=DKIM1; k=rsa; p={public_half(settings)}".encode()}
    arrived = zip(found, smtp_sink.received, strict=True)
    assert [what for (what, _), (_, _, raw) in arrived if not verifies(raw, key)] == []
    unsubscribing = [raw for _, _, raw in smtp_sink.received if b"\r\nList-Unsubscribe-Post:" in raw]
    assert unsubscribing, "the news emails offer one-click unsubscribe"
    for raw in unsubscribing:  # RFC 8058: a one-click unsubscribe counts only when both its headers are signed
        signature = re.sub(r"\s+", "", raw.split(b"\r\n\r\n")[0].decode()).lower()
        signed = re.findall(r"h=([^;]*)", signature)[0].split(":")
        assert {"list-unsubscribe", "list-unsubscribe-post"} <= set(signed), signed


def public_half(settings: Any) -> str:
    """The key's public half as `openssl rsa -pubout` gives it, base64 of the DER: what a DKIM record's p= holds."""
    pem = subprocess.run(
        ["openssl", "rsa", "-in", settings.PBEM_DKIM_KEY_FILE, "-pubout", "-outform", "DER"], capture_output=True
    )
    return base64.b64encode(pem.stdout).decode()
