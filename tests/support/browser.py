"""A real browser for the tests: Playwright drives Debian's Chromium (/usr/bin/chromium, never a browser
download), and each page is checked the way a phone or desktop shows it: no horizontal scroll, everything a
thumb presses (links, buttons, drop-downs, fields, radio and checkbox rows) at least 44 × 44 px, every
drop-down's chosen text readable in
full, and no serious or critical violation from axe-core (its own script, as bundled by the
axe-playwright-python package, injected into the page).

Playwright's sync API runs an asyncio loop in the test's thread for as long as it is started, and Django
refuses database calls from a thread with a running loop (SynchronousOnlyOperation). The loop is
Playwright's, not the test's, and the live server answers from its own thread, so `started_chromium`
allows those calls (DJANGO_ALLOW_ASYNC_UNSAFE) only while Playwright runs, and stops Playwright before
the next test module, so no other test runs beside a loop."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core import mail
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.support.services import missing_service

CHROMIUM = Path("/usr/bin/chromium")
PHONE = 390
DESKTOP = 1280
HEIGHT = {PHONE: 844, DESKTOP: 800}
WIDTH_NAMES = {PHONE: "phone", DESKTOP: "desktop"}
SERIOUS = ("serious", "critical")
EVERY_IMPACT = ("minor", "moderate", "serious", "critical")
AXE = Axe()


@contextmanager
def started_chromium() -> Iterator[Browser]:
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield browser
        finally:
            browser.close()


class UnfitPage(AssertionError):
    """A page scrolls sideways, or axe-core finds a serious or critical violation on it."""


class UnfitEmail(AssertionError):
    """An email, rendered in the browser, scrolls sideways."""


@dataclass
class Findings:
    """What the checks found over a whole flow: each problem names the page or email and the width."""

    problems: list[str] = field(default_factory=list)

    def assert_none(self, unfit: type[AssertionError] = UnfitPage) -> None:
        if self.problems:
            raise unfit(f"{len(self.problems)} problem(s):\n" + "\n".join(self.problems))


def horizontal_overflow(page: Page) -> int:
    """How many CSS pixels the document is wider than the window (0 when it fits)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def axe_violations(page: Page, options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (axe.run's `options`, its results' violations only). Its
    script (570 KB) goes into the document once, not before every run as Axe.run sends it: a page checked again
    (in another colour scheme, after a change) runs the same axe."""
    if not page.evaluate("() => typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.evaluate(AXE.axe_script)
    found = page.evaluate(
        "options => axe.run(document, options).then(results => results.violations)",
        {"resultTypes": ["violations"], **(options or {})},
    )
    return list(found)


def violations(page: Page, impacts: tuple[str, ...] = SERIOUS) -> list[str]:
    """axe-core's violations of `impacts` on the page (serious and critical ones unless told), one line each
    with where they are."""
    lines = []
    for violation in axe_violations(page):
        if violation["impact"] in impacts:
            targets = [", ".join(map(str, node["target"])) for node in violation["nodes"]]
            shown = "; ".join(targets[:5]) + (f"; and {len(targets) - 5} more" if len(targets) > 5 else "")
            lines.append(f"{violation['id']} ({violation['impact']}, {len(targets)}×): {violation['help']} — {shown}")
    return lines


# A thumb's target: WCAG's enhanced target size (2.5.5), Apple's and Android's guidelines alike.
THUMB = 44


def small_controls(page: Page) -> list[str]:
    """Every visible thing on the page that a thumb presses, anywhere (the header's too), whose box is lower or
    narrower than a thumb's target, each as "a link 'its text' (width × height px)": links, buttons,
    drop-downs, text fields, disclosure summaries, and each radio button's and checkbox's
    row (the label a thumb presses, or the box itself where no label holds it). A link inside a sentence
    counts too: its box (padding included, which a tap hits) must be a thumb's size. A region focusable only so
    that a keyboard scrolls it (a board's frame, the log) is no target."""
    found = page.evaluate(
        """thumb => {
            const names = {A: 'link', BUTTON: 'button', SUMMARY: 'summary', LABEL: 'row', SELECT: 'drop-down',
                           TEXTAREA: 'text field', INPUT: 'field'};
            const targets = new Set();
            const pressed = 'a[href], button, select, textarea, summary, input:not([type=hidden]), '
                + '[role=button], [role=link]';
            for (const el of document.querySelectorAll(pressed)) {
                const tickable = el.matches('input[type=radio], input[type=checkbox]');
                const row = tickable ? (el.closest('label') || (el.labels && el.labels[0])) : null;
                targets.add(row || el);
            }
            return [...targets]
                .filter(el => el.checkVisibility())  // not one inside a closed <details>
                .map(el => {
                    const box = el.getBoundingClientRect();
                    const text = (el.innerText || el.getAttribute('aria-label') || el.name || '').trim().slice(0, 60);
                    return [`${names[el.tagName] || el.tagName.toLowerCase()} '${text}'`, box.width, box.height];
                })
                .filter(([what, width, height]) => height > 0 && (height < thumb - 0.5 || width < thumb - 0.5))
                .map(([what, width, height]) => `${what} (${Math.round(width)} × ${Math.round(height)} px)`);
        }""",
        THUMB,
    )
    return list(found)


def cut_choices(page: Page) -> list[str]:
    """The names of the drop-downs of forms that send something (POST: an order, a setting) whose chosen text
    is cut to their width (a phone shows only its start) and not written out in full beside them (a
    builder's `.chosen` line, games/incoming/forms.py): their reader cannot tell what they chose. A drop-down that
    only picks a page to show (the earlier turns' GET form) names its choice in the page it shows."""
    found = page.evaluate(
        """() => [...document.querySelectorAll('main form[method=post i] select')].filter(select => {
            if (!select.checkVisibility() || !select.selectedOptions.length) return false;
            const text = select.selectedOptions[0].text;
            const beside = select.nextElementSibling;
            if (beside && beside.classList.contains('chosen') && beside.textContent === text) return false;
            const probe = document.createElement('span');
            probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
            probe.style.font = getComputedStyle(select).font;
            probe.textContent = text;
            document.body.appendChild(probe);
            const wide = probe.offsetWidth;
            probe.remove();
            return wide > select.clientWidth - 24;  // the arrow's room
        }).map(select => select.name)"""
    )
    return list(found)


# The smallest text a board or an email may show, in CSS pixels (a phone's 390 px page included).
SMALLEST_TEXT = 11

# Every visible text of `root` with the size it is drawn at: an SVG's text by its font size times the
# picture's scale (a viewBox drawn at half its width draws 12 px text at 6), other text by its computed size.
_TEXT_SIZES = """root => {
    const sizes = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement;
        const text = node.textContent.trim();
        if (!text || !element || element.closest('title, style, script') || !element.checkVisibility()) continue;
        let size = parseFloat(getComputedStyle(element).fontSize);
        if (element instanceof SVGElement) {
            const matrix = element.getScreenCTM();
            size *= Math.hypot(matrix.a, matrix.b);
        }
        sizes.push([text.slice(0, 40), Math.round(size * 10) / 10]);
    }
    return sizes;
}"""


def text_sizes(page: Page, selector: str) -> list[tuple[str, float]]:
    """Each visible text under the elements `selector` finds, with the CSS pixels it is drawn at."""
    found: list[tuple[str, float]] = []
    for handle in page.query_selector_all(selector):
        found += [(text, size) for text, size in page.evaluate(_TEXT_SIZES, handle)]
    return found


def small_text(page: Page, selector: str, floor: float = SMALLEST_TEXT) -> list[str]:
    """The visible texts under `selector` drawn smaller than `floor` CSS pixels, each as "'text' (size px)"."""
    return [f"'{text}' ({size:g} px)" for text, size in text_sizes(page, selector) if size < floor]


def texts_out_of_tiles(page: Page, selector: str) -> list[str]:
    """The SVG texts under `selector` that stand on a tile but run out of it: a text whose middle lies inside a
    rectangle drawn beside it (in the same group: a square of a map, a trade centre's box) must lie wholly
    inside the smallest such rectangle ("★Obsidian" ran out of its square). One unit of slack."""
    found = page.evaluate(
        """root => [...root.querySelectorAll('svg text')].filter(text => text.checkVisibility()).flatMap(text => {
            const box = text.getBBox(), mx = box.x + box.width / 2, my = box.y + box.height / 2;
            const tiles = [...text.parentNode.children]
                .filter(el => el.tagName === 'rect' && !el.hasAttribute('transform')).map(rect => rect.getBBox())
                .filter(r => r.x <= mx && mx <= r.x + r.width && r.y <= my && my <= r.y + r.height)
                .sort((a, b) => a.width * a.height - b.width * b.height);
            if (!tiles.length) return [];
            const tile = tiles[0];
            const out = box.x < tile.x - 1 || box.x + box.width > tile.x + tile.width + 1;
            const what = `'${text.textContent.trim()}' (${Math.round(box.width)} units in a ${tile.width}-unit tile)`;
            return out ? [what] : [];
        })""",
        page.query_selector(selector),
    )
    return list(found)


def outside_window(page: Page, selector: str) -> list[str]:
    """The elements `selector` finds that are not wholly shown across: outside the window's width, or outside a
    frame around them that clips or scrolls (a phone shows them only after a swipe), each as
    "'text' (left to right px, shown from left to right px)"."""
    found = page.evaluate(
        """selector => [...document.querySelectorAll(selector)].flatMap(el => {
            const box = el.getBoundingClientRect();
            let left = 0, right = window.innerWidth;
            for (let up = el.parentElement; up; up = up.parentElement) {
                if (getComputedStyle(up).overflowX === 'visible') continue;
                const frame = up.getBoundingClientRect();
                left = Math.max(left, frame.left + up.clientLeft);
                right = Math.min(right, frame.left + up.clientLeft + up.clientWidth);
            }
            const inside = box.left >= left - 0.5 && box.right <= right + 0.5;
            const [a, b, c, d] = [box.left, box.right, left, right].map(Math.round);
            const where = `${a} to ${b} px, shown from ${c} to ${d}`;
            const name = (el.getAttribute('aria-label') || el.textContent).trim().slice(0, 40);
            return inside ? [] : [`'${name}' (${where})`];
        })""",
        selector,
    )
    return list(found)


def frames_scrolling(page: Page, selector: str) -> list[str]:
    """The frames `selector` finds (a board's .pan) that scroll sideways, each as "its label (N px hidden)"."""
    found = page.evaluate(
        """selector => [...document.querySelectorAll(selector)]
            .filter(el => el.checkVisibility() && el.scrollWidth > el.clientWidth)
            .map(el => `${el.getAttribute('aria-label')} (${el.scrollWidth - el.clientWidth} px hidden)`)""",
        selector,
    )
    return list(found)


def unexplained_marks(page: Page, selector: str = ".board") -> list[str]:
    """What a newcomer sees on the board under `selector` that no legend explains. The board's legend is its
    `.legend` list, each item naming the keys it explains (`data-keys="discs route"`); a mark names its key
    (`data-key="discs"`), and a mark is explained when its nearest keyed element's key is in the legend. A mark is:
    an SVG shape coloured in its fill or stroke; an HTML element with a coloured border, or a coloured background
    without a word of its own (a band that reads "Furs" names itself); and any number alone, in SVG or HTML ("5",
    "#1", "4→6", "G1"), outside a table cell (its column's heading names it). Coloured: at least 40 apart between
    its strongest and weakest channel (greys, creams and paper tints are not). An element marked
    `data-decoration` is a box's frame, not a symbol. Each is "a <what> (key 'k' not in the legend | no key)"."""
    found = page.evaluate(
        r"""root => {
            if (!root) return [];
            const legend = new Set([...root.querySelectorAll('.legend [data-keys]')]
                .flatMap(item => item.dataset.keys.split(/\s+/)));
            const coloured = value => {
                const rgb = (value || '').match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/);
                if (!rgb || (rgb[4] !== undefined && +rgb[4] === 0)) return false;
                const channels = [+rgb[1], +rgb[2], +rgb[3]];
                return Math.max(...channels) - Math.min(...channels) >= 40;
            };
            const sign = '[#\\d\\s\\-\\u2013\\u2192+\\u00d7\\u00b7.,/]*';  // digits, #, -, →, ×, ·
            const number = new RegExp(`^(?:${sign}\\d${sign}|[A-Z]\\d+)$`);
            const found = [];
            const judge = (el, what) => {
                if (el.closest('.legend, [data-decoration]')) return;
                const keyed = el.closest('[data-key]');
                if (!keyed) found.push(`${what} (no key)`);
                else if (!legend.has(keyed.dataset.key))
                    found.push(`${what} (key '${keyed.dataset.key}' not in the legend)`);
            };
            for (const el of root.querySelectorAll('*')) {
                if (!el.checkVisibility() || el.closest('title, style, script')) continue;
                const style = getComputedStyle(el);
                const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
                const name = `${el.tagName.toLowerCase()} '${el.textContent.trim().slice(0, 30)}'`;
                if (el instanceof SVGGeometryElement) {
                    const colour = [style.fill, style.stroke].find(coloured);
                    if (colour) judge(el, `${el.tagName} coloured ${colour}`);
                } else if (!(el instanceof SVGElement)) {
                    const sides = ['Top', 'Right', 'Bottom', 'Left'].filter(side =>
                        parseFloat(style[`border${side}Width`]) >= 2 && coloured(style[`border${side}Color`]));
                    if (sides.length) judge(el, `${name} bordered in ${style[`border${sides[0]}Color`]}`);
                    else if (coloured(style.backgroundColor) && !/\p{L}{2}/u.test(el.textContent))
                        judge(el, `${name} on ${style.backgroundColor}`);
                }
                if (own && number.test(own) && !el.closest('td, th')) judge(el, `number '${own}'`);
            }
            return [...new Set(found)];
        }""",
        page.query_selector(selector),
    )
    return list(found)


def broken_words(page: Page, selector: str = "body") -> list[str]:
    """The words under `selector` that wrap inside themselves ("Hambu|rg"): a word's text spans two lines.
    A word is what lies between spaces, hyphens and slashes, where a line may break."""
    found = page.evaluate(
        r"""root => {
            const broken = [];
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const element = node.parentElement;
                if (!element || element.closest('title, style, script') || !element.checkVisibility()) continue;
                for (const match of node.textContent.matchAll(/[^\s\-\/\u2010-\u2014]{2,}/g)) {
                    const range = document.createRange();
                    range.setStart(node, match.index);
                    range.setEnd(node, match.index + match[0].length);
                    const lines = [...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top));
                    if (new Set(lines).size > 1) broken.push(match[0]);
                }
            }
            return broken;
        }""",
        page.query_selector(selector),
    )
    return list(found)


def check(
    page: Page,
    what: str,
    findings: Findings,
    *,
    accessibility: bool = True,
    impacts: tuple[str, ...] = SERIOUS,
    sent: bool = True,
) -> None:
    """Record what would make `what` (as shown in `page` now) unfit for its width: axe-core's violations of
    `impacts` among them. `sent=False`: the page holds choices made by hand and not sent yet, which the server
    has not written out beside their drop-downs (the pages work without JavaScript), so cut chosen texts are
    not counted."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    where = f"{what} at {width} px"
    extra = horizontal_overflow(page)
    if extra > 0:
        findings.problems.append(f"{where}: {extra} px wider than the window (scrolls sideways)")
    small = small_controls(page)
    findings.problems.extend(f"{where}: the {control} is smaller than {THUMB} × {THUMB} px" for control in small)
    cut = cut_choices(page) if sent else []
    findings.problems.extend(f"{where}: the drop-down '{name}' cuts its chosen text short" for name in cut)
    if accessibility:
        findings.problems.extend(f"{where}: axe {line}" for line in violations(page, impacts))


def new_context(browser: Browser, width: int, locale: str | None = None) -> BrowserContext:
    """A browser window `width` px wide; `locale` (e.g. "de-DE"): what its Accept-Language asks for."""
    if locale:
        return browser.new_context(viewport={"width": width, "height": HEIGHT[width]}, locale=locale)
    return browser.new_context(viewport={"width": width, "height": HEIGHT[width]})


def watch_console(page: Page, what: list[str], findings: Findings) -> None:
    """A Content-Security-Policy refusal means the page renders otherwise than written: record it against
    the page being looked at (`what[0]`)."""

    def seen(message: Any) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            findings.problems.append(f"{what[0]}: the browser refused {message.text}")

    page.on("console", seen)


def link_in(to: str, pattern: str) -> str:
    """The path of the newest link matching `pattern` in an email to `to` (emails name SITE_URL)."""
    for message in reversed(mail.outbox):
        if message.to == [to] and (found := re.search(SITE + pattern, str(message.body))):
            return found.group(0).removeprefix(SITE)
    raise AssertionError(f"no link {pattern} in an email to {to}")


SITE = "https://pbem.example"  # the SITE_URL the tests' emails name


SCREENSHOTS = os.environ.get("PBEM_SCREENSHOTS", "")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        missing_service(f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    with started_chromium() as browser:
        yield browser


def picture(page: Any, slug: str, width: int, what: str) -> None:
    if SCREENSHOTS:
        folder = Path(SCREENSHOTS)
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{slug}-{WIDTH_NAMES[width]}-{what}.png"), full_page=True)
