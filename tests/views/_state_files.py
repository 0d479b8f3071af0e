"""Crafted state files for ``views.framework.stamp.read_state`` (issue 45 item 5): each format
built byte by byte to a given size, the way a hostile file would be, so that a reader that is
not linear in the file's size shows it. Shared by ``test_export_cli`` and the benchmark
``tests/bench/test_bench_state_files.py``."""

from __future__ import annotations

import struct
import zlib

#: A state the neuron page takes.
STATE = "page=neuron&stripes=20;version=0.1.0"


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(size: int, *, width: int = 1, height: int = 1, state: str = STATE) -> bytes:
    """A PNG of about ``size`` bytes: its header, small text chunks until ``size``, the state
    chunk, one pixel's data."""
    head = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                                                   8, 0, 0, 0, 0))
    filler = png_chunk(b"tEXt", b"Comment\0" + b"x" * 20)
    tail = (png_chunk(b"tEXt", b"ldx-state\0" + state.encode("latin-1"))
            + png_chunk(b"IDAT", zlib.compress(b"\0\0")) + png_chunk(b"IEND", b""))
    return head + filler * max(0, (size - len(head) - len(tail)) // len(filler)) + tail


def gif(size: int, *, width: int = 1, height: int = 1) -> bytes:
    """A GIF of about ``size`` bytes whose first frame's comment is made of one-byte sub-blocks
    (the most blocks a GIF can hold)."""
    head = b"GIF89a" + struct.pack("<HHBBB", width, height, 0, 0, 0)
    comment = b"!\xfe" + b"\x01c" * max(1, size // 2) + b"\0"
    frame = b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x02\x02\x44\x01\0"
    return head + comment + frame + b";"


def mp4_box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def mp4(size: int, *, state: str = STATE) -> bytes:
    """An MP4 of about ``size`` bytes: ``ftyp``, empty ``free`` boxes until ``size`` (one box
    per 8 bytes: the most boxes a file can hold), then ``moov`` with the state as ffmpeg
    writes its ``comment``."""
    data = mp4_box(b"data", struct.pack(">II", 1, 0) + state.encode())
    meta = mp4_box(b"meta", b"\0\0\0\0" + mp4_box(b"ilst", mp4_box(b"\xa9cmt", data)))
    moov = mp4_box(b"moov", mp4_box(b"udta", meta))
    head = mp4_box(b"ftyp", b"isom\0\0\2\0isomiso2mp41")
    return head + mp4_box(b"free", b"") * max(0, (size - len(head) - len(moov)) // 8) + moov


def pdf(size: int) -> bytes:
    """A PDF of about ``size`` bytes that opens its keywords over and over and never closes
    them: a regular expression retried at each opening was quadratic on it."""
    return b"%PDF-1.4\n" + b"/Keywords (" * (size // 11)


def svg(size: int) -> bytes:
    """An SVG of about ``size`` bytes whose description never ends."""
    return b"<svg><dc:description>" + b"a" * size


def html(size: int) -> bytes:
    """An HTML file of about ``size`` bytes: the state's meta tag opened over and over."""
    return b"<html>" + b'<meta name="ldx-state" content="' * (size // 32)


#: Each format's crafted file of a given size, by suffix.
CRAFTED = {".png": png, ".gif": gif, ".mp4": mp4, ".pdf": pdf, ".svg": svg, ".html": html}
