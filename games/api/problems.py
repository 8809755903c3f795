"""RFC 9457 problem details: every refusal of the API is a JSON object {type, title, status, detail} sent as
application/problem+json. `detail` is the message the page shows for the same refusal (the engine's, the
service layer's), so it names nothing the caller may not see."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext_lazy
from ninja import Schema

MEDIA_TYPE = "application/problem+json"
TITLES = {
    400: gettext_lazy("Bad request"),
    401: gettext_lazy("Not signed in"),
    403: gettext_lazy("Not allowed"),
    404: gettext_lazy("Not found"),
    405: gettext_lazy("Method not allowed"),
    409: gettext_lazy("Conflict"),
    422: gettext_lazy("Order or message refused"),
    429: gettext_lazy("Too many requests"),
}


class ProblemOut(Schema):
    type: str
    title: str
    status: int
    detail: str
    # Where the request's own shape was wrong: one entry per field, with what is wrong there.
    errors: list[dict[str, Any]] | None = None


# The refusals every operation may answer with: 400 a body that is not JSON, 401 no caller, 403 not allowed (a
# read-only token, another's seat, a session call without its CSRF token), 404 no such game or row, 422 a request
# of the wrong shape or a refused order or message, 429 over the token's rate. 409 is the turn's: closed, moved on.
ERRORS: dict[int, type[Schema]] = {code: ProblemOut for code in (400, 401, 403, 404, 422, 429)}
TURN_ERRORS: dict[int, type[Schema]] = {**ERRORS, 409: ProblemOut}


class Problem(Exception):
    """Raised anywhere in an endpoint: answered as problem details. `kind` makes the type URI
    (urn:pbem:problem:<kind>), which docs/api.md lists."""

    def __init__(
        self, status: int, kind: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def respond(problem: Problem) -> HttpResponse:
    body = {
        "type": f"urn:pbem:problem:{problem.kind}",
        "title": str(TITLES.get(problem.status, gettext_lazy("Error"))),
        "status": problem.status,
        "detail": problem.detail,
        **problem.extra,
    }
    response = JsonResponse(body, status=problem.status, content_type=MEDIA_TYPE)
    for name, value in problem.headers.items():
        response[name] = value
    response["Cache-Control"] = "no-store"
    return response


def handler(request: HttpRequest, error: Exception) -> HttpResponse:
    assert isinstance(error, Problem)
    return respond(error)
