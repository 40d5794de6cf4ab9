"""An X screen dump (XWD, as `Xvfb -fbdir` keeps it) as RGB rows and as a PNG: for screenshots of
the real desktop window, browser UI included (Playwright only sees the page)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def read_xwd(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of a 32-bit XWD file."""
    data = path.read_bytes()
    fields = struct.unpack(">25I", data[:100])
    header, width, height, order, bpp, bpl, ncolors = (fields[0], fields[4], fields[5], fields[7], fields[11],
                                                       fields[12], fields[19])
    if bpp != 32:
        raise ValueError(f"{path}: {bpp} bits per pixel, expected 32")
    start = header + ncolors * 12
    rows = []
    for y in range(height):
        line = data[start + y * bpl: start + y * bpl + width * 4]
        rgb = bytearray(width * 3)
        if order == 0:  # least significant byte first: B, G, R, unused
            rgb[0::3], rgb[1::3], rgb[2::3] = line[2::4], line[1::4], line[0::4]
        else:
            rgb[0::3], rgb[1::3], rgb[2::3] = line[1::4], line[2::4], line[3::4]
        rows.append(bytes(rgb))
    return width, height, rows


def write_png(path: Path, width: int, height: int, rows: list[bytes]) -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    raw = b"".join(b"\0" + row for row in rows)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
