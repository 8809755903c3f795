"""Helpers of the API's tests: a token for a player, and calls with it through the test client."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from games.api import tokens
from games.models import Player


def token_for(player: Player, scope: str = "play", name: str = "test") -> str:
    return tokens.make(player, name, scope).secret


class Api:
    """Calls /api/v1/ with a bearer token (or none), JSON in and out."""

    def __init__(self, secret: str | None = None, client: Client | None = None) -> None:
        self.client = client or Client()
        self.headers = {"Authorization": f"Bearer {secret}"} if secret else {}

    def call(self, method: str, path: str, body: Any = None, **extra: Any) -> Any:
        send = getattr(self.client, method.lower())
        kwargs: dict[str, Any] = {"headers": {**self.headers, **extra.pop("headers", {})}, **extra}
        if body is not None:
            kwargs.update(data=json.dumps(body), content_type="application/json")
        return send(f"/api/v1{path}", **kwargs)

    def get(self, path: str, **extra: Any) -> Any:
        return self.call("GET", path, **extra)

    def post(self, path: str, body: Any = None, **extra: Any) -> Any:
        return self.call("POST", path, body if body is not None else {}, **extra)

    def put(self, path: str, body: Any, **extra: Any) -> Any:
        return self.call("PUT", path, body, **extra)
