"""Times in the admin, each in the zone of the league it belongs to. A page speaks one zone, named at its top
(games/incoming/middleware.py: an organiser's leagues' zone, the one most of them keep); but an organiser whose
leagues keep different zones would read another league's deadline in the wrong one. So a list shows each row's
times in its own league's zone, the zone named in the cell (and whole in its tooltip), and a row's own page
speaks its league's zone throughout, forms included. A row of no league (a player, a one-off game) keeps the
page's zone, named too. Which league a row belongs to is each admin's `row_zones`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.utils import dateformat, timezone
from django.utils.html import format_html

from games.outgoing.messages import zone_of

# The attribute a list's row carries its zone's name in (None: the page's), set before the cells are drawn.
ROW_ZONE = "shown_zone"


def shown_time(moment: datetime | None, zone_name: str | None = None) -> str:
    """A time as an organiser reads it: in `zone_name` (the page's zone if None), which it names."""
    if moment is None:
        return "—"
    local = timezone.localtime(moment, zone_of(zone_name) if zone_name else None)
    return f"{dateformat.format(local, 'D d M Y H:i')} {local.tzname()}"  # the day's and month's names translated


def zoned_cell(moment: datetime | None, row: Any) -> str:
    """A list's cell: the time in the row's zone, its abbreviation written and the zone's full name as a tooltip."""
    zone = getattr(row, ROW_ZONE, None)
    if moment is None:
        return shown_time(None)
    return format_html(
        '<span title="{}">{}</span>', zone or timezone.get_current_timezone_name(), shown_time(moment, zone)
    )


def zoned_column(name: str, label: str) -> Callable[[Any], str]:
    """A list column of the date-time field `name`, each row's in its own zone (sorted by the field)."""

    def column(row: Any) -> str:
        return zoned_cell(getattr(row, name), row)

    column.__name__ = name  # the column's CSS class, field-<name>, as Django's own
    return admin.display(description=label, ordering=name)(column)


class ZonedTimes(admin.ModelAdmin):
    """Each row's times in its league's zone (see the module's docstring): a list's date-time columns, and a
    row's own page."""

    def row_zones(self, rows: Sequence[Any]) -> dict[Any, str]:
        """The zone name of each of `rows` that belongs to a league, by primary key (none here)."""
        return {}

    def get_list_display(self, request: HttpRequest) -> Any:
        return [self.zoned(item) for item in super().get_list_display(request)]

    def zoned(self, item: Any) -> Any:
        if not isinstance(item, str):
            return item
        try:
            field = self.model._meta.get_field(item)
        except FieldDoesNotExist:  # a method's or the admin's own column: left as it is
            return item
        if isinstance(field, models.DateTimeField):
            return zoned_column(item, str(field.verbose_name))
        return item

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        """The page's rows, each told its zone before its cells are drawn; the page's header says when some
        row's zone is not the page's (templates/admin/base_site.html)."""
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)  # evaluated once: the cells are drawn from these same rows
        zones = self.row_zones(rows) if rows else {}
        for row in rows:
            setattr(row, ROW_ZONE, zones.get(row.pk))
        here = timezone.get_current_timezone_name()
        request.row_zones_differ = any(zone != here for zone in zones.values())  # type: ignore[attr-defined]
        return changelist

    def changeform_view(
        self, request: HttpRequest, object_id: str | None = None, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """A row's page, in its league's zone: what it shows, what its form reads, and the zone named at its top."""
        row = self.get_object(request, unquote(object_id)) if object_id else None
        zone = self.row_zones([row]).get(row.pk) if row is not None else None
        if zone is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        with timezone.override(zone_of(zone)):
            response = super().changeform_view(request, object_id, form_url, extra_context)
            render = getattr(response, "render", None)
            if render is not None and not getattr(response, "is_rendered", True):
                render()  # here, while the zone is the row's (a template response is drawn after the view)
        return response
