"""An order written as the lines of an email reply: what a turn email shows as its example, and what
games/incoming/mail/replies.py reads back. Written here, where the turn email is built, so what goes out
needs nothing of what comes in."""

from __future__ import annotations

from typing import Any


def order_lines(prompt: dict[str, Any], order: dict[str, Any]) -> list[str]:
    """`order` as the lines of a reply that `parse_order` reads back as it: "name: value" for each of the
    prompt's fields, one a line, choices by their value, picks joined by ", " ("none" for no pick), steps
    by "; ". A field the order leaves blank (an optional number) is left out."""
    lines = []
    for spec in prompt["fields"]:
        value = order.get(spec["name"])
        if value is None:
            continue
        if spec["kind"] == "multichoice":
            written = ", ".join(str(pick) for pick in value) or "none"
        elif isinstance(value, str):
            written = "; ".join(part.strip() for part in value.splitlines() if part.strip())
        else:
            written = str(value)
        lines.append(f"{spec['name']}: {written}".rstrip())
    return lines
