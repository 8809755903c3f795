"""The site's icon, /favicon.ico: a white envelope on the header's sea blue, 32 x 32, drawn here pixel by pixel
and packed as a PNG inside an ICO, so the repository holds no binary file and no static file needs collecting
for it (browsers ask for /favicon.ico on every page, the admin's and the development outbox's too)."""

from __future__ import annotations

import math
import struct
import zlib
from functools import cache

SIZE = 32
SEA = (0x0E, 0x6B, 0xA8, 0xFF)
WHITE = (0xFF, 0xFF, 0xFF, 0xFF)
CLEAR = (0, 0, 0, 0)
CORNER = 6  # the rounded square's radius
LEFT, RIGHT, TOP, BOTTOM = 6, 25, 9, 22  # the envelope
FOLD = ((6.5, 9.5), (15.5, 17.0), (24.5, 9.5))  # its flap: two lines meeting under the top edge's middle


def _distance(px: float, py: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """From the point to the segment a-b."""
    (ax, ay), (bx, by) = a, b
    t = max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
    return math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)))


def _pixel(x: int, y: int) -> tuple[int, int, int, int]:
    cx, cy = min(max(x, CORNER), SIZE - 1 - CORNER), min(max(y, CORNER), SIZE - 1 - CORNER)
    if math.hypot(x - cx, y - cy) > CORNER + 0.5:
        return CLEAR
    inside = LEFT <= x <= RIGHT and TOP <= y <= BOTTOM
    on_edge = inside and (x in (LEFT, LEFT + 1, RIGHT - 1, RIGHT) or y in (TOP, TOP + 1, BOTTOM - 1, BOTTOM))
    on_fold = min(_distance(x, y, FOLD[0], FOLD[1]), _distance(x, y, FOLD[1], FOLD[2])) < 1.1
    return WHITE if on_edge or on_fold else SEA


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png() -> bytes:
    rows = b"".join(b"\x00" + bytes(c for x in range(SIZE) for c in _pixel(x, y)) for y in range(SIZE))
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    chunks = _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


@cache
def ico() -> bytes:
    """One 32 x 32 PNG image in an ICO container (every browser reads a PNG inside an ICO)."""
    image = png()
    directory = struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 6 + 16)
    return struct.pack("<HHH", 0, 1, 1) + directory + image
