"""An exported figure says what it shows: its file name and title name the settings, and the
file carries the page's state (the URL query and the package's version) in its metadata, so that
the figure can be rebuilt from the file alone (``ldx-export --from figure.png``,
``views.export_cli``).

Where the state goes in each format: PNG a text chunk (``ldx-state``), SVG the Dublin Core
description matplotlib writes, PDF the document's keywords, HTML a ``<meta name="ldx-state">``;
an animation (``views.framework.animation``): a GIF's comment, an MP4's ``comment`` metadata.
The state is ``page=herding&seed=7&...;version=0.1.0``: a URL query (percent-encoded, so no
brackets, quotes or backslashes that a format would have to escape) and the version.
"""

from __future__ import annotations

import html
import io
import os
import pathlib
import re
import stat
import struct
import textwrap
import urllib.parse
from importlib import metadata

from views.framework.text import clip

__all__ = ["state_text", "parse_state", "read_state", "settings_words", "file_stem", "script",
           "VERSION", "KEY", "READABLE", "VALUE_CHARS", "SETTINGS_CHARS",
           "MAX_FILE_BYTES", "MAX_PIXELS", "MAX_STATE_CHARS"]

#: The PNG text chunk's key and the HTML meta's name.
KEY = "ldx-state"
#: Files whose state ``read_state`` reads.
READABLE = (".png", ".svg", ".pdf", ".html", ".gif", ".mp4")
#: The largest file ``read_state`` reads (bytes): 50 MB (of 2**20 bytes), far more than any
#: export of a page.
MAX_FILE_BYTES = 50 * 2**20
#: The most pixels of a PNG or GIF whose state ``read_state`` reads (its width times height:
#: 8,000 x 8,000), far more than any export of a page.
MAX_PIXELS = 64_000_000
#: The longest state ``read_state`` takes from a file (characters).
MAX_STATE_CHARS = 100_000


def _version() -> str:
    try:
        return metadata.version("learning-dynamics-explorer")
    except metadata.PackageNotFoundError:  # a checkout used without installing it
        return "unknown"


VERSION = _version()


def state_text(explorer, *, time: bool = True) -> str:
    """The page state an export carries: its URL query and the package version; without the
    time on the timeline (``t``) when ``time`` is False (an animation shows every time)."""
    query = {"page": explorer.slug, **explorer.query()}
    if not time:
        query.pop("t", None)
    query = urllib.parse.urlencode(query)
    return f"{query};version={VERSION}"


def parse_state(text: str) -> tuple[dict, str]:
    """``(query, version)`` of a state written by ``state_text``: the query as
    ``{name: [value]}``, what ``Explorer.from_query`` reads. ``ValueError`` if it is not one."""
    query, sep, version = str(text).rpartition(";version=")
    if not sep or "page=" not in query:
        raise ValueError(f"not a Learning Dynamics Explorer state: {text[:80]!r}")
    return urllib.parse.parse_qs(query, keep_blank_values=True), version


def read_state(path) -> tuple[dict, str]:
    """The state an exported figure or animation carries (``parse_state``); ``ValueError``
    naming ``path`` if the file has none, is not a PNG, SVG, PDF, HTML, GIF or MP4 file, is not
    a regular file, is larger than ``MAX_FILE_BYTES`` or is an image of more than
    ``MAX_PIXELS`` pixels.

    A file is read once, at most ``MAX_FILE_BYTES`` of it, and parsed in one pass (a search for
    where the state starts, then for where it ends; a walk over an MP4's boxes; Pillow's PNG
    and GIF readers, which stop before the pixels), so reading takes time linear in the file's
    size whatever the file holds."""
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    if suffix not in READABLE:
        raise ValueError(f"path must be a .png, .svg, .pdf or .html figure or a .gif or .mp4 "
                         f"animation, got {str(path)!r}")
    data = _read_capped(path)
    if suffix in (".png", ".gif"):
        raw = _image_text(path, data, suffix)
    elif suffix == ".mp4":
        raw = _mp4_comment(data)
    else:
        raw = _between(data, *_MARKERS[suffix])
        raw = None if raw is None else html.unescape(raw.decode("utf-8", errors="replace"))
    if raw is None:
        raise ValueError(f"path {str(path)!r} carries no Learning Dynamics Explorer state")
    if len(raw) > MAX_STATE_CHARS:
        raise ValueError(f"path {str(path)!r} carries a state of {len(raw):,} characters, over "
                         f"the cap of {MAX_STATE_CHARS:,}")
    return parse_state(raw)


#: Where the state starts and ends in a text format: the text that opens it, the character
#: that ends it (which the state never holds: it is percent-encoded) and what must follow.
_MARKERS = {".svg": (b"<dc:description>", b"<", b"</dc:description>"),
            ".pdf": (b"/Keywords (", b")", b")"),
            ".html": (f'<meta name="{KEY}" content="'.encode(), b'"', b'"')}


def _between(data: bytes, opener: bytes, stop: bytes, closer: bytes) -> bytes | None:
    """What follows the first ``opener`` up to the next ``stop``, if ``closer`` is there; two
    searches, so linear in ``len(data)`` (a regular expression retried at every ``opener`` of
    a crafted file was quadratic)."""
    start = data.find(opener)
    if start < 0:
        return None
    start += len(opener)
    end = data.find(stop, start)
    return data[start:end] if end >= 0 and data.startswith(closer, end) else None


def _read_capped(path: pathlib.Path) -> bytes:
    """The bytes of the regular file ``path``, at most ``MAX_FILE_BYTES`` (``ValueError``
    beyond). Opened without blocking and checked on the open file, so a FIFO or device put
    there after a check is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ValueError(f"path {str(path)!r} is not a file") from None
    except OSError as exc:
        raise ValueError(f"path {str(path)!r} cannot be read: {exc.strerror}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError(f"path {str(path)!r} is not a file")
        with open(fd, "rb", closefd=False) as file:  # the size said, then what it grew by
            data = file.read(min(status.st_size, MAX_FILE_BYTES) + 1)
            if len(data) > status.st_size:
                data += file.read(max(0, MAX_FILE_BYTES + 1 - len(data)))
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"path {str(path)!r} is larger than the cap of "
                         f"{MAX_FILE_BYTES // 2**20} MB for a figure or animation")
    return data


def _image_text(path: pathlib.Path, data: bytes, suffix: str) -> str | None:
    """A PNG's ``ldx-state`` text or a GIF's comment, read by Pillow from the header and the
    chunks before the pixels (which are never decoded); an image of more than ``MAX_PIXELS``
    pixels is refused, as is whatever Pillow refuses (a decompression bomb, text over its
    caps, a broken file)."""
    import warnings

    from PIL import Image

    kind = suffix[1:].upper()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=[kind]) as image:
                width, height = image.size
                raw = image.info.get(KEY if suffix == ".png" else "comment")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ValueError(f"path {str(path)!r} is an image of more than {MAX_PIXELS:,} pixels "
                         "(the cap), refused") from None
    except (OSError, ValueError, SyntaxError, EOFError, IndexError, TypeError,
            struct.error) as exc:  # Image.UnidentifiedImageError is an OSError
        raise ValueError(f"path {str(path)!r} is not a {kind} image that can be read "
                         f"({type(exc).__name__})") from None
    if width * height > MAX_PIXELS:
        raise ValueError(f"path {str(path)!r} is an image of {width:,} x {height:,} pixels, "
                         f"over the cap of {MAX_PIXELS:,} pixels")
    return raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw


#: The boxes from an MP4's top level down to its comment (``moov/udta/meta/ilst/©cmt``,
#: as ffmpeg's ``-metadata comment=`` writes it), then the comment's ``data`` box.
_MP4_PATH = (b"moov", b"udta", b"meta", b"ilst", b"\xa9cmt", b"data")


def _mp4_boxes(data: bytes, start: int, end: int):
    """``(type, body start, body end)`` of the ISO BMFF boxes in ``data[start:end]``, one
    header read per box; stops at a malformed size."""
    while start + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, start)
        header = 8
        if size == 1 and start + 16 <= end:
            size, header = struct.unpack_from(">Q", data, start + 8)[0], 16
        elif size == 0:
            size = end - start
        if size < header or start + size > end:
            return
        yield kind, start + header, start + size
        start += size


def _mp4_comment(data: bytes) -> str | None:
    """The ``comment`` metadata of an MP4: the boxes of ``_MP4_PATH`` walked once, each level
    only through its own children, so linear in the file's size."""
    start, end = 0, len(data)
    for kind in _MP4_PATH:
        for found, body, body_end in _mp4_boxes(data, start, end):
            if found == kind:
                # a meta box begins with a version and flags; a data box with a type and locale
                start, end = body + {b"meta": 4, b"data": 8}.get(kind, 0), body_end
                break
        else:
            return None
    return data[start:end].decode("utf-8", errors="replace")


def _changed(explorer) -> list[str]:
    """The knobs not at their default, in the page's order."""
    return [name for name in explorer.setting_names()
            if explorer.knob_text(name) != _default_text(explorer, name)]


def _default_text(explorer, name: str) -> str:
    from views.framework import knobs

    p = explorer.knob_param(name)
    return knobs.text(p, p.default)


def _time_text(explorer, time: bool) -> str | None:
    return explorer.time_text() if time and hasattr(explorer, "time_text") else None


#: A value in a figure's title holds at most this many characters, and the settings in words
#: at most ``SETTINGS_CHARS`` (an ellipsis beyond): a title never grows with a value (the
#: file's state holds every value whole).
VALUE_CHARS = 40
SETTINGS_CHARS = 160


def settings_words(explorer, *, time: bool = True) -> str:
    """The settings in words for a figure's title: the knobs not at their default, by label
    ("States D = 5, Model seed = 7"), and the time on the timeline (unless ``time`` is False);
    "default settings" if none. Each value is cut to ``VALUE_CHARS`` characters, the whole to
    ``SETTINGS_CHARS`` (an ellipsis for the words left out)."""
    words = [f"{explorer.knob_param(n).label} = {clip(explorer.knob_text(n), VALUE_CHARS)}"
             for n in _changed(explorer)]
    time = _time_text(explorer, time)
    if time is not None:
        words.append(f"t = {time}")
    if not words:
        return "default settings"
    # cut at a word's end (a value cut to VALUE_CHARS is one word at most that long)
    return textwrap.shorten(", ".join(words), SETTINGS_CHARS, placeholder=" …")


def file_stem(explorer, limit: int = 120, *, time: bool = True) -> str:
    """A file name (without suffix) for the figure: the page and its settings not at their
    default (``herding_n_states-5_seed-7``), and the time on the timeline unless ``time`` is
    False (an animation's); only letters, digits, ``.``, ``_`` and ``-``."""
    parts = [explorer.slug]
    for name in _changed(explorer):
        parts.append(f"{name}-{explorer.knob_text(name)}")
    time = _time_text(explorer, time)
    if time is not None:
        parts.append(f"t-{time}")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "", "_".join(p.replace(",", "_") for p in parts))
    return stem[:limit].rstrip("._-") or explorer.slug


def script(explorer) -> str:
    """A short Python script, using only the headless API, that rebuilds this page's state and
    recomputes what it shows: the status line's numbers, the figure's data (``figure``) and the
    exported figure. Every value is written as the URL's canonical text, through ``repr``: the
    script holds data, never code from a link."""
    query = explorer.query()
    lines = "".join(f"    {name!r}: {value!r},\n" for name, value in query.items())
    stem = file_stem(explorer)
    return (
        f"# Learning Dynamics Explorer {VERSION}: the {explorer.title} page at these settings,\n"
        "# without a server (pip install the project, then run this file).\n"
        "from views import EXPLORERS\n\n"
        f"explorer, notes = EXPLORERS[{explorer.slug!r}].from_query({{\n{lines}}})\n"
        "assert not notes, notes  # what the page could not use (nothing, from the page)\n"
        "print(explorer.status())  # the numbers stated above the plots\n"
        "figure = explorer.figure()  # the plots' data, as HoloViews elements\n"
        f"explorer.export({stem + '.png'!r})  # the same figure; .svg .pdf .html too\n"
    )
