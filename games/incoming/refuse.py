"""One place that refuses input no view should see: a NUL byte or bytes that are not UTF-8, in the path, the query
or a form's or a JSON body's text. PostgreSQL refuses a NUL in text (an error, so a 500, wherever a value reached
a query); Django turns bytes that are not UTF-8 into replacement characters, so a view would act on a value its
sender never wrote. Refused here, before the session, the URL's resolution or any view: 400, with words (problem
details under /api/), and nothing done.

What a body is, is said by its Content-Type: a form's fields (URL-encoded, or a multipart form's text fields) and
JSON (its text, and a \\u0000 escape in it) are read; other bodies (a file; the mail providers' inbound webhooks,
which post whole emails in their own charsets) are their view's to read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy

# C0 control characters but tab, line feed and carriage return (a textarea's), and DEL.
CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
PATH_CONTROL = re.compile(rb"[\x00-\x1f\x7f]")
BROKEN = re.compile(r"%[0-9A-Fa-f]{2}")
JSON_NUL = re.compile(rb"\\u0000", re.IGNORECASE)
REFUSED = gettext_lazy(
    "This request holds a NUL byte, a control character or bytes that are not UTF-8 text. Nothing was done."
)
PROBLEM_TYPE = "application/problem+json"
# The mail providers' inbound webhooks post whole emails, in the mail's own charset: games/incoming/mail/webhooks.py
# reads them (and answers what it cannot read 400 itself).
INBOUND = "/anymail/"


def readable(raw: bytes) -> bool:
    if CONTROL.search(raw):
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def readable_query(text: str) -> bool:
    """A query string's (or a URL-encoded body's) names and values, once percent-decoded."""
    raw = text.encode("latin-1", "replace") if isinstance(text, str) else text
    return all(readable(unquote_to_bytes(part.replace(b"+", b" "))) for part in re.split(rb"[&=;]", raw))


def acceptable(request: HttpRequest) -> bool:
    # Django decodes the path as UTF-8 and writes a byte that is not as %XX again (repercent_broken_unicode): no
    # URL of ours has a percent sign, so one left in the decoded path was not UTF-8 (or a literal %, no key of ours).
    path = request.path_info
    if PATH_CONTROL.search(path.encode()) or BROKEN.search(path):
        return False
    if not readable_query(request.META.get("QUERY_STRING", "")):
        return False
    if request.method in ("GET", "HEAD", "OPTIONS") or path.startswith(INBOUND):
        return True
    kind = request.content_type or ""
    if kind == "application/x-www-form-urlencoded":
        return readable_query(request.body.decode("latin-1"))
    if kind == "application/json" or kind.endswith("+json"):
        return readable(request.body) and not JSON_NUL.search(request.body)
    if kind == "multipart/form-data":
        try:
            return all(readable(value.encode("utf-8", "surrogateescape")) for value in _text_fields(request))
        except MultiPartParserError:
            return True  # the view's own parse answers it
    return True


def _text_fields(request: HttpRequest) -> list[str]:
    # Django decodes a multipart field's bytes with 'replace': a U+FFFD it put there is what was not UTF-8.
    values = [value for values in request.POST.lists() for value in values[1]]
    return [value.replace("\ufffd", "\x00") for value in values]


class RefuseUnreadableInput:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if acceptable(request):
            return self.get_response(request)
        # Before the language middleware: the refusal in the language the request asks for (Accept-Language).
        with translation.override(translation.get_language_from_request(request)):
            said, title = str(REFUSED), gettext("Bad request")
        if request.path_info.startswith("/api/"):
            body = {"type": "urn:pbem:problem:unreadable", "title": title, "status": 400, "detail": said}
            response = HttpResponse(json.dumps(body), status=400, content_type=PROBLEM_TYPE)
        else:
            response = HttpResponse(said, status=400, content_type="text/plain; charset=utf-8")
        response["Cache-Control"] = "no-store"
        return response
