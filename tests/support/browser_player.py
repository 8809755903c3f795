"""A player in the browser: fills the order form on the game page as a person would, through what the
page offers (the builders' drop-downs and their "Add a step", radio buttons, number boxes), and confirms
the read-back of a one-seat turn. It picks the first thing offered each time: the engine lists only what
is legal, so whatever the builder offers must go through."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Locator, Page

TARGET_STEPS = 2  # steps built per builder when more may follow: one "Add a step" after the first
MOST_STEPS = 8  # a builder that still says "Not finished" after this many is stuck: the test fails
ORDER_FORM = "form.order >> nth=0"  # the builder's form (the typed syntax's form follows it)


def _choose_first(select: Locator) -> bool:
    """Choose the first real option (after the blank one) of an unchosen drop-down; False if none."""
    if select.input_value() != "" or select.locator("option").count() < 2:
        return False
    select.select_option(index=1)
    return True


def build_steps(page: Page, look: Callable[[str], None] | None = None) -> int:
    """Build each steps field of the order form a step at a time; the number of steps built in all. `look(what)`
    checks the page the server sends back after each "Add a step"."""
    built = 0
    names = page.locator(f"{ORDER_FORM} >> fieldset.steps").evaluate_all("sets => sets.map(s => s.id)")
    for fieldset_id in names:
        fieldset = page.locator(f"#{fieldset_id}")
        for count in range(1, MOST_STEPS + 1):
            if not _choose_first(fieldset.locator("select").last):
                break
            built += 1
            with page.expect_navigation():
                fieldset.locator("button[name=add]").click()
            # Post/Redirect/Get: the address is the game page again, which a reload only reads.
            assert "/order/" not in page.url, f"after 'Add a step' the address is {page.url}"
            if look is not None:
                look(f"the builder '{fieldset_id}' after step {count}")
            fieldset = page.locator(f"#{fieldset_id}")
            unfinished = page.locator(f"#{fieldset_id}-problem").count() > 0
            if count >= TARGET_STEPS and not unfinished:
                break
        else:
            raise AssertionError(f"{fieldset_id}: still not finished after {MOST_STEPS} steps")
    return built


def fill_choices(page: Page) -> None:
    """Radio groups, number boxes and drop-downs outside the builders."""
    form = page.locator(ORDER_FORM)
    groups = form.locator("input[type=radio]").evaluate_all("radios => [...new Set(radios.map(r => r.name))]")
    for name in groups:
        group = form.locator(f"input[type=radio][name='{name}']")
        if form.locator(f"input[type=radio][name='{name}']:checked").count() == 0:
            group.first.check()
    for box in form.locator("input[type=number]").all():
        if box.input_value() == "" and box.get_attribute("required") is not None:
            box.fill(box.get_attribute("min") or "0")
    # Required drop-downs, and the first pick of a ranked list (Manila's spaces), as a player would.
    for select in form.locator("select[required], select[name$='__0']:not(fieldset.steps select)").all():
        _choose_first(select)


def is_review(page: Page) -> bool:
    return page.locator("h1", has_text="Check your order").count() > 0


def play_turn(page: Page, look: Callable[[str], None], before_submit: Callable[[], None]) -> None:
    """Fill the order form and submit it; on the review page of a one-seat turn, look and Confirm.
    `look(what)` checks the page shown now; `before_submit()` runs with the filled-in form on screen."""
    build_steps(page, look)
    fill_choices(page)
    before_submit()
    with page.expect_navigation():
        page.locator(f"{ORDER_FORM} >> button.primary").click()
    if is_review(page):
        assert page.url.endswith("/order/review/"), f"the review is shown at {page.url}"
        look("the review page")
        with page.expect_navigation():
            page.get_by_role("button", name="Confirm").click()
    errors = page.locator(".errorlist").all_inner_texts()
    assert not errors, f"the order was refused: {errors}"
