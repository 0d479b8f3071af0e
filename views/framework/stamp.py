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
import pathlib
import re
import textwrap
import urllib.parse
from importlib import metadata

from views.framework.text import clip

__all__ = ["state_text", "parse_state", "read_state", "settings_words", "file_stem", "script",
           "VERSION", "KEY", "READABLE", "VALUE_CHARS", "SETTINGS_CHARS"]

#: The PNG text chunk's key and the HTML meta's name.
KEY = "ldx-state"
#: Files whose state ``read_state`` reads.
READABLE = (".png", ".svg", ".pdf", ".html", ".gif", ".mp4")


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
    naming ``path`` if the file has none (or is not a PNG, SVG, PDF, HTML, GIF or MP4 file)."""
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    raw = None
    if suffix in READABLE and not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file")
    if suffix in (".png", ".gif"):
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(path) as image:
                raw = image.info.get(KEY if suffix == ".png" else "comment")
        except UnidentifiedImageError:
            raise ValueError(f"path {str(path)!r} is not a {suffix[1:].upper()} image") from None
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
    elif suffix in (".svg", ".pdf", ".html"):
        data = path.read_bytes().decode("latin-1")
        pattern = {".svg": r"<dc:description>([^<]*)</dc:description>",
                   ".pdf": r"/Keywords \(([^)]*)\)",
                   ".html": rf'<meta name="{KEY}" content="([^"]*)"'}[suffix]
        found = re.search(pattern, data)
        raw = html.unescape(found.group(1)) if found else None
    elif suffix == ".mp4":
        raw = _mp4_comment(path)
    else:
        raise ValueError(f"path must be a .png, .svg, .pdf or .html figure or a .gif or .mp4 "
                         f"animation, got {str(path)!r}")
    if raw is None:
        raise ValueError(f"path {str(path)!r} carries no Learning Dynamics Explorer state")
    return parse_state(raw)


def _mp4_comment(path: pathlib.Path) -> str | None:
    """The ``comment`` metadata of a video, as ffmpeg (the imageio-ffmpeg wheel's) lists it."""
    import subprocess

    import imageio_ffmpeg

    listed = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(path)],
                            capture_output=True, text=True, errors="replace", timeout=30)
    found = re.search(r"^\s*comment\s*:\s?(.*)$", listed.stderr, flags=re.MULTILINE)
    return found.group(1).strip() if found else None


def _changed(explorer) -> list[str]:
    """The knobs not at their default, in the page's order."""
    return [name for name in explorer.knob_names()
            if explorer.knob_text(name) != _default_text(explorer, name)]


def _default_text(explorer, name: str) -> str:
    from views.framework import knobs

    p = explorer.param[name]
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
    words = [f"{explorer.param[n].label} = {clip(explorer.knob_text(n), VALUE_CHARS)}"
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
