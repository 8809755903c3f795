"""Yes and no in the organiser's language. Django's admin draws a yes/no column's icon (and a read-only yes/no
field's, and a `boolean=True` display's) with the value's Python name as its alternative text, "True", "False" or
"None" whatever the page's language (django/contrib/admin/templatetags/admin_list.py's `_boolean_icon`): what a
screen reader says and what shows where the picture does not load. Here the same icons say Django's own "Yes",
"No" and "Unknown" (its yes/no filter's words, so its catalogue has them in every language it speaks)."""

from __future__ import annotations

from django.contrib.admin.templatetags import admin_list
from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy

ICONS = {
    True: ("yes", gettext_lazy("Yes")),
    False: ("no", gettext_lazy("No")),
    None: ("unknown", gettext_lazy("Unknown")),
}


def yes_no_icon(value: bool | None) -> SafeString:
    """Django's icon for `value`, its alternative text in the active language."""
    name, text = ICONS[value]
    return format_html('<img src="{}" alt="{}">', static(f"admin/img/icon-{name}.svg"), text)


def install() -> None:
    """Every admin yes/no icon drawn by `yes_no_icon`: Django's callers (admin.utils' display_for_field and
    display_for_value, admin.helpers' read-only field) import `_boolean_icon` from admin_list each time they draw
    one, so replacing it there reaches them all, Django's own pages (users, groups) too. A Django that no longer
    has it fails here at start, not silently in English (tests/admin/test_admin.py reads them in German)."""
    if not callable(getattr(admin_list, "_boolean_icon", None)):
        raise RuntimeError("django.contrib.admin's _boolean_icon is gone: games/admin/yes_no.py needs a new hook")
    admin_list._boolean_icon = yes_no_icon  # type: ignore[attr-defined]
