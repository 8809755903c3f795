"""A reference client of the JSON API: it plays every seat its tokens hold, with random legal orders drawn from
each prompt's JSON Schema, over HTTP alone (the standard library's urllib, nothing of the server's code). It is
what a bot an organiser seats runs, and the tests run it against a live server through whole games of every
engine (tests/api/test_bots.py).

    python -m games.api.client --url https://pbem.example --token pbem_... [--token ...] [--seed 7]

How it plays a turn: it reads the prompt, draws a value for each property of the order's schema (a choice of
`oneOf`, an array within minItems/maxItems, an integer within minimum/maximum; a field marked x-steps is built
step by step from GET …/prompt/steps, as the page's builder offers the steps), and sends it: PUT …/order, or, in
a turn that asks only this seat, POST …/order/check then …/order/confirm. The schema gives the order's shape, the
engine its legality: a refusal (422) means drawing again; after MAX_DRAWS refusals it sends the prompt's example.
"""

from __future__ import annotations

import argparse
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

MAX_DRAWS = 20  # refused random orders before the prompt's example order is sent instead
MAX_STEPS = 30  # steps of one "steps" field at most


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


@dataclass
class Seat:
    """One token of the client, and the HTTP calls it makes with it."""

    url: str
    token: str
    calls: int = 0
    waited: float = 0.0

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"the server's URL must be http or https: {self.url!r}")

    def call(self, method: str, path: str, body: Any = None, query: dict[str, str] | None = None) -> Any:
        address = f"{self.url.rstrip('/')}/api/v1{path}"
        if query:
            address += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        while True:
            request = urllib.request.Request(address, data=data, method=method, headers=headers)  # noqa: S310
            self.calls += 1
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310  (http or https only: __post_init__)
                    text = answer.read()
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as error:
                problem = json.loads(error.read() or b"null")
                if error.code == 429:  # over the token's rate: wait as long as the server says
                    pause = float(error.headers.get("Retry-After", "1"))
                    self.waited += pause
                    time.sleep(pause)
                    continue
                raise ApiError(error.code, problem) from None


@dataclass
class Player:
    """Plays the seats of some tokens until none of their games is active."""

    seats: list[Seat]
    rng: random.Random
    turns: int = 0
    refused: int = 0
    examples: int = 0
    finished: set[int] = field(default_factory=set)

    def value(self, seat: Seat, game_id: int, name: str, schema: dict[str, Any]) -> Any:
        kind = schema["type"]
        if "oneOf" in schema:
            return self.rng.choice(schema["oneOf"])["const"]
        if kind == "array":
            options = [choice["const"] for choice in schema["items"]["oneOf"]]
            count = self.rng.randint(schema["minItems"], schema["maxItems"])
            if schema.get("uniqueItems"):
                return self.rng.sample(options, min(count, len(options)))
            return [self.rng.choice(options) for _ in range(count)]
        if kind == ["integer", "null"] and self.rng.random() < 0.2:
            return None
        if kind in ("integer", ["integer", "null"]):
            return self.rng.randint(schema["minimum"], schema["maximum"])
        if schema.get("x-steps"):
            return self.steps(seat, game_id, name)
        return ""  # free text: the engines' "text" fields may be left blank

    def steps(self, seat: Seat, game_id: int, name: str) -> str:
        chosen: list[str] = []
        for _ in range(MAX_STEPS):
            query = {"field": name, "steps": "; ".join(chosen)}
            offered = seat.call("GET", f"/games/{game_id}/prompt/steps", query=query)
            if not offered["choices"] or (offered["complete"] and self.rng.random() < 0.3):
                break
            step = self.rng.choice(offered["choices"])
            number = self.rng.randint(*step["amount"]) if step["amount"] else None
            chosen.append(step["value"].replace("{n}", str(number)) if number is not None else step["value"])
        return "; ".join(chosen)

    def send(self, seat: Seat, game_id: int, phase: int, order: dict[str, Any], confirm: bool) -> None:
        body = {"phase": phase, "order": order}
        if confirm:
            checked = seat.call("POST", f"/games/{game_id}/order/check", body)
            seat.call("POST", f"/games/{game_id}/order/confirm", {"confirmation": checked["confirmation"]})
        else:
            seat.call("PUT", f"/games/{game_id}/order", body)

    def play_turn(self, seat: Seat, game_id: int) -> None:
        prompt = seat.call("GET", f"/games/{game_id}/prompt")
        schema, phase = prompt["order_schema"], prompt["phase"]["number"]
        for _ in range(MAX_DRAWS):
            order = {name: self.value(seat, game_id, name, spec) for name, spec in schema["properties"].items()}
            try:
                self.send(seat, game_id, phase, order, prompt["needs_confirmation"])
                break
            except ApiError as error:
                if error.status != 422:
                    raise
                self.refused += 1
        else:
            self.examples += 1
            self.send(seat, game_id, phase, prompt["example"], prompt["needs_confirmation"])
        self.turns += 1

    def play(self, max_turns: int = 100_000) -> None:
        """Every owed order of every seat, until all their games are over (or `max_turns` were played)."""
        while self.turns < max_turns:
            owed = [
                (seat, row["game"]["id"])
                for seat in self.seats
                for row in seat.call("GET", "/games")
                if row["owes"] and row["game"]["status"] == "active"
            ]
            if not owed:
                return
            for seat, game_id in owed:
                try:
                    self.play_turn(seat, game_id)
                except ApiError as error:
                    if error.status != 409:  # 409: the turn moved on meanwhile (another seat's order resolved it)
                        raise


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m games.api.client", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. https://pbem.example")
    parser.add_argument("--token", action="append", required=True, help="a play token (repeat for more seats)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-turns", type=int, default=100_000)
    args = parser.parse_args()
    player = Player([Seat(args.url, token) for token in args.token], random.Random(args.seed))
    player.play(args.max_turns)
    calls = sum(seat.calls for seat in player.seats)
    print(
        f"{player.turns} orders in {calls} calls; {player.refused} refused and drawn again, {player.examples} examples"
    )


if __name__ == "__main__":
    main()
