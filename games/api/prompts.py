"""A prompt (what a seat is asked: games/engines/base.py Prompt.to_json) as a JSON Schema (2020-12) of the order
it asks for. The schema says the order's shape: which fields, which values each may take, how many. Whether an
order is legal beyond its shape (a bid you can afford, a route that exists) only the engine says: a check or
a submission answers with its refusal, in the page's words."""

from __future__ import annotations

from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"
TEXT_LIMIT = 2000  # a "text" field's max 0 means this (games/engines/base.py Field)


def _choices(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"const": choice["value"], "title": choice["label"]} for choice in spec["choices"]]


def field_schema(spec: dict[str, Any]) -> dict[str, Any]:
    kind = spec["kind"]
    schema: dict[str, Any] = {"title": spec["label"]}
    if spec.get("help"):
        schema["description"] = spec["help"]
    if kind == "choice":
        schema.update(type="string", oneOf=_choices(spec))
    elif kind == "multichoice":
        schema.update(
            type="array",
            items={"type": "string", "oneOf": _choices(spec)},
            minItems=spec["min"],
            maxItems=spec["max"],
        )
        if not spec["repeat"]:
            schema["uniqueItems"] = True
        if spec.get("ranked"):
            schema["x-ranked"] = True  # the list's order is the order of preference
    elif kind == "integer":
        schema.update(type=["integer", "null"] if spec.get("optional") else "integer")
        schema.update(minimum=spec["min"], maximum=spec["max"])
    else:  # "text" and "steps": the engine's syntax, in `help`
        schema.update(type="string", maxLength=spec["max"] or TEXT_LIMIT)
        if spec["min"] > 0:
            schema["minLength"] = 1
        if kind == "steps":
            schema["x-steps"] = True  # GET .../prompt/steps lists the steps that may come next
    return schema


def order_schema(prompt: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of an order answering `prompt`: an object with one property per field."""
    fields = prompt["fields"]
    return {
        "$schema": DIALECT,
        "title": prompt["kind"],
        "description": prompt["text"],
        "type": "object",
        "properties": {spec["name"]: field_schema(spec) for spec in fields},
        "required": [spec["name"] for spec in fields if not (spec["kind"] == "integer" and spec.get("optional"))],
        "additionalProperties": False,
    }
