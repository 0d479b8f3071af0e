"""Text a user sent (a link, a typed field, an upload, an error message quoting them) shown as
what it is: never markup.

Every notice, alert and status line that can hold such text renders it through ``plain``,
here and only here. The page's panes are Markdown panes (``pn.pane.Markdown``,
``pn.pane.Alert``) whose output the browser takes as HTML and whose ``$$...$$``, ``\\(...\\)``
and ``\\[...\\]`` MathJax typesets (whatever their ``disable_math``: Panel 1.9 does not
pass it on for Markdown); an HTML pane takes HTML. So
``plain`` makes each character literal for its sink:

- Markdown (the default): every ASCII punctuation character gets a backslash, the CommonMark
  escape, so no emphasis, link, image, heading, list, table, code span, autolink or raw HTML
  can start (``<`` is then text, which the renderer writes as ``&lt;``); ``$`` and ``\\`` are
  wrapped in their own ``<span>`` so that no math delimiter can form in the HTML that MathJax
  scans.
- HTML (``markup="html"``): ``html.escape``.

Whitespace runs become one space (no line breaks, so no block structure) and control and format
characters (bidirectional overrides, zero-width joiners, NUL) show as U+FFFD. ``clip`` cuts what
a user sent to a length a message can quote (a 10 kB link must not fill the page) and ``quote``
quotes it so.

A terminal is another sink: ``printable`` escapes what a terminal would act on (control
characters, ESC's sequences among them) in everything the command lines print.

Page text is ours, not a user's: ``prose`` reads it from the Markdown files beside each page
and ``math_markdown`` makes its LaTeX survive the Markdown pane.
"""

from __future__ import annotations

import argparse
import html
import re
import string
import unicodedata
from pathlib import Path

__all__ = ["plain", "clip", "quote", "printable", "CommandParser", "CLIP", "OUTSIDE_LINKS",
           "math_markdown",
           "verdict_markdown", "prose", "prose_files"]

#: Characters of a user's text quoted in a message (beyond: an ellipsis).
CLIP = 80

#: The outside addresses a page's text may link to (every other link goes to a page of the
#: app, ``?page=<slug>``, or an anchor in it): none so far. The papers are cited by reference,
#: not by a link that could move.
OUTSIDE_LINKS: tuple[str, ...] = ()

_WHITESPACE = re.compile(r"\s+")
_MARKDOWN = {c: "\\" + c for c in string.punctuation}
# A dollar or a backslash alone in its element: "$$", "\(" and "\[" never meet in the HTML.
_MARKDOWN["$"] = "<span>$</span>"
_MARKDOWN["\\"] = "<span>&#92;</span>"  # "\<" would be an escaped "<", not a tag


def clip(text, limit: int | None = CLIP) -> str:
    """``text`` (bytes are decoded, undecodable bytes replaced) cut to ``limit`` characters,
    the last one an ellipsis when it was longer (``None``: not cut)."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    text = str(text)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def quote(text, limit: int | None = CLIP) -> str:
    """``text`` as a message quotes it: clipped (``clip``), between straight single quotes,
    verbatim inside (no Python escapes: the page shows the characters that were sent)."""
    return f"'{clip(text, limit)}'"


def _visible(c: str) -> str:
    return "\ufffd" if unicodedata.category(c) in ("Cc", "Cf", "Cs") else c


#: What ``printable`` escapes: C0 controls (NUL, BEL, ESC, newline ...), DEL, C1 controls
#: (CSI ...), format characters (bidirectional overrides, zero-width joiners), line and
#: paragraph separators and lone surrogates (undecodable bytes of a file name).
_UNPRINTABLE = ("Cc", "Cf", "Cs", "Zl", "Zp")


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c: str) -> str:
    if unicodedata.category(c) not in _UNPRINTABLE:
        return c
    if c in _SHORT:
        return _SHORT[c]
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def printable(text) -> str:
    """``text`` (bytes are decoded, undecodable bytes replaced) safe to print on a terminal:
    each control, format or separator character (``_UNPRINTABLE``) written as Python's repr
    writes it (``\\x1b``, ``\\n``, ``\\u202e``), everything else, ordinary Unicode included,
    as it is. One line, whatever ``text`` holds."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    text = str(text)
    return text if text.isprintable() else "".join(_escape(c) for c in text)


class CommandParser(argparse.ArgumentParser):
    """The command lines' argument parser: its error messages, which quote what was typed
    ("unrecognized arguments: ..."), go through ``printable``."""

    def error(self, message):
        super().error(printable(message))


def plain(text, *, markup: str = "markdown", limit: int | None = None) -> str:
    """``text`` written so that a Markdown pane (``markup="markdown"``) or an HTML sink
    (``markup="html"``) shows it literally, on one line, cut to ``limit`` characters when given
    (see ``clip``)."""
    if markup not in ("markdown", "html"):
        raise ValueError(f"markup must be 'markdown' or 'html', got {markup!r}")
    text = clip(text, limit)
    text = "".join(_visible(c) for c in _WHITESPACE.sub(" ", text).strip())
    if markup == "html":
        return html.escape(text)
    return "".join(_MARKDOWN.get(c, c) for c in text)


_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)", re.S)
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _protect(tex: str) -> str:
    """LaTeX that survives Markdown: a backslash before punctuation (``\\,`` ``\\;`` ``\\{``) is
    a Markdown escape, so it is doubled; ``_`` and ``*`` are escaped so they never start
    emphasis; ``<`` and ``>`` would be read as HTML."""
    tex = _MARKDOWN_ESCAPE.sub(lambda m: "\\\\" + m.group(1), tex)
    tex = tex.replace("_", r"\_").replace("*", r"\*")  # never emphasis
    return tex.replace("<", r"\lt ").replace(">", r"\gt ")


def math_markdown(text: str) -> str:
    """Page text written with plain LaTeX (``$...$`` inline, ``$$...$$`` display) turned into
    what Bokeh's MathJax renders through Markdown: inline math in ``\\(...\\)`` delimiters."""

    def convert(m: re.Match) -> str:
        if m.group(1) is not None:
            return "$$" + _protect(m.group(1)) + "$$"
        return "\\\\(" + _protect(m.group(2)) + "\\\\)"

    return _MATH.sub(convert, text)


_PROSE: dict[Path, str] = {}


def prose(module_file, name: str) -> str:
    """The page prose in the Markdown file ``name`` beside ``module_file`` (the calling module's
    ``__file__``): UTF-8, read once, without its leading and trailing blank space. A page
    renders it through ``math_markdown`` into a Markdown pane.

    Where the files are: a page's folder ``views/pages/<slug>/`` keeps its page text in
    ``page.md`` and each other piece in ``<part>.md`` (where every module of the page finds
    them). ``<part>`` is a run's name for the run's text, ``timeline`` for the
    timeline's caption (``<run>.timeline`` for a run's own timeline), a word naming a section
    for its aside. ``name`` is a file name ending in ``.md`` (no folder); a missing or empty
    file raises, naming it."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if not name.endswith(".md") or name == ".md" or Path(name).name != name:
        raise ValueError(f"name must be a Markdown file's name (ending in .md, no folder), "
                         f"got {name!r}")
    path = Path(module_file).resolve().parent / name
    if path not in _PROSE:
        if not path.is_file():
            raise FileNotFoundError(f"the page prose {path} is missing (read by {module_file})")
        text = path.read_text(encoding="utf-8").strip()
        if not text:
            raise ValueError(f"the page prose {path} is empty")
        _PROSE[path] = text
    return _PROSE[path]


def prose_files() -> tuple[Path, ...]:
    """The Markdown files ``prose`` has read (every page's, once ``views`` is imported)."""
    return tuple(_PROSE)


_VERDICT_HEADS = {True: "Reproduced", False: "Differs from the paper", None: "Not decided"}


#: A power written as plain text by the engines' verdicts ("T^-1.00", "T^-1/2", "2^-k").
_POWER = re.compile(r"\b([A-Za-z0-9])\^(-?(?:\d+(?:\.\d+)?(?:/\d+)?|[A-Za-z]))")


def verdict_markdown(verdict) -> str:
    """A paper claim's verdict on this run (a ``dynamics.claims.Verdict``, from the claim
    function the gallery calls too) as page text: its outcome (reproduced, differs, not
    decided), the claim and why, then the rule and its power where the claim states them,
    folded one click away (a ``<details>`` element: a rule's text ran to four lines of a 1024-px
    page above its first plot); its powers ("T^-1.00") typeset as the rest of the page's math
    is."""
    line = verdict.power_line
    text = _POWER.sub(lambda m: f"${m.group(1)}^{{{m.group(2)}}}$",
                      f"({verdict.claim}): {verdict.why}.")
    folded = (f" <details class='ldx-rule'><summary>rule and power</summary>"
              f"{_POWER.sub(lambda m: f'${m.group(1)}^{{{m.group(2)}}}$', line)}</details>"
              if line else "")
    return f"**{_VERDICT_HEADS[verdict.agrees]}** {text}{folded}"
