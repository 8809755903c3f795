"""The API object: its routers, its error answers (every one RFC 9457 problem details) and its OpenAPI 3.1
schema (served at /api/v1/openapi.json, browsable at /api/v1/docs)."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from games.api import games_api, problems, talk_api, turns_api
from games.api.auth import AUTH
from games.api.problems import Problem

DESCRIPTION = """The same sealed turns as the pages and the turn emails, over JSON. Authenticate with a token
made on *My games* (`Authorization: Bearer pbem_…`), or from a page of this site with its session (unsafe methods
then need the `X-CSRFToken` header). Refusals are RFC 9457 problem details with the page's own messages. The
manual is docs/api.md in the repository."""


class Api(NinjaAPI):
    def get_openapi_operation_id(self, operation: Any) -> str:
        """The endpoint's function name (my_games, put_order): what a generated client names its methods."""
        return str(operation.view_func.__name__)

    def get_openapi_schema(self, **kwargs: Any) -> Any:
        """django-ninja documents every answer as application/json; ours for 4xx are problem+json."""
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                for status, answer in operation.get("responses", {}).items():
                    content = answer.get("content", {})
                    if int(status) >= 400 and "application/json" in content:
                        answer["content"] = {problems.MEDIA_TYPE: content["application/json"]}
        return schema


api = Api(
    title="pbem",
    version="1",
    description=DESCRIPTION,
    auth=AUTH,
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
)


def _problem(status: int, kind: str, detail: str, **extra: Any) -> HttpResponse:
    return problems.respond(Problem(status, kind, detail, **extra))


@api.exception_handler(Problem)
def _refused(request: HttpRequest, error: Problem) -> HttpResponse:
    return problems.respond(error)


@api.exception_handler(ValidationError)
def _malformed(request: HttpRequest, error: ValidationError) -> HttpResponse:
    errors = [{"field": field_name(e.get("loc", ())), "message": e.get("msg", "")} for e in error.errors]
    first = errors[0] if errors else {"field": "", "message": _("malformed request")}
    return _problem(
        422,
        "request-shape",
        f"{first['field']}: {first['message']}",  # the field's name, and pydantic's own English message
        errors=errors,
    )


def field_name(loc: Any) -> str:
    """A field as the caller wrote it: `vote`, `options.press`, `page` (django-ninja's location starts with where
    the value came from and, for a body, the endpoint's own parameter name: `body.body.vote`)."""
    parts = [str(part) for part in loc]
    if parts[:1] == ["body"]:
        parts = parts[2:] or parts[1:]
    elif parts[:1] and parts[0] in ("query", "path", "header", "cookie", "form", "file"):
        parts = parts[1:]
    return ".".join(parts)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, error: AuthenticationError) -> HttpResponse:
    response = _problem(
        401, "not-signed-in", _("Send a token from My games (Authorization: Bearer pbem_…), or sign in on this site.")
    )
    response["WWW-Authenticate"] = 'Bearer realm="pbem"'
    return response


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    if error.status_code == 403:  # django-ninja's only own 403: a session call without its CSRF token
        return _problem(403, "csrf", _("A call with this site's session needs its CSRF token (X-CSRFToken header)."))
    return _problem(error.status_code, "http", str(error))


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, error: Http404) -> HttpResponse:
    return _problem(404, "not-found", str(error) or _("Not found."))


api.add_router("/", games_api.router)
api.add_router("/", turns_api.router)
api.add_router("/", talk_api.router)
if apps.is_installed("games.leagues"):  # the core runs without the leagues app (tests/test_core_alone.py)
    from games.api import leagues_api  # noqa: PLC0415  (it imports the leagues app's models)

    api.add_router("/", leagues_api.router)
if apps.is_installed("games.lobby"):  # a plug-in too: players' own tables
    from games.api import lobby_api  # noqa: PLC0415  (it imports the lobby app's models)

    api.add_router("/", lobby_api.router)
if apps.is_installed("games.votes"):  # a plug-in too: ending a game early
    from games.api import votes_api  # noqa: PLC0415  (it imports the votes app's models)

    api.add_router("/", votes_api.router)
