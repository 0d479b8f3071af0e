"""Nothing a user sends is markup (issue 25 item 1), without a browser: ``views.framework.text.plain`` makes
any text show literally in the panes the page uses, and every notice, field message and run
alert that quotes a link or a typed value goes through it.

What the browser would show is rendered here by the pane itself (``_transform_object``, the
Markdown-to-HTML step Panel runs on the server) and read back with the standard library's HTML
parser: the tags it contains, and the text a reader sees. MathJax runs on that HTML in the
browser, so the HTML must not contain a math delimiter either.
"""

from __future__ import annotations

import html
import html.parser
import unicodedata

import panel as pn
import pytest
from hypothesis import given, strategies as st

from views import EXPLORERS
from views.framework.field import Field
from views.framework.job_section import JobSection
from views.framework.text import CLIP, clip, plain, quote
from views.framework.page import Page

#: Markup of every kind a link could try, with its literal text.
PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="window.ldxInjected=1">',
    "<svg onload=alert(1)>",
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "[x](javascript:alert(1))",
    "![x](x onerror=alert(1))",
    "<a href='javascript:alert(1)'>x</a>",
    "&lt;script&gt;alert(1)&lt;/script&gt; &#60;b&#62;",
    "$$\\href{javascript:alert(1)}{x}$$",
    "$x$ \\(y\\) \\[z\\] $$w$$",
    "**bold** _em_ `code` ~~s~~ # h | a | b |",
    "1. item\n- item\n> quote\n\n    code\n===",
    "<https://example.org> www.example.org a@b.org :smile:",
    "\\<b>x\\</b> \\\\(y\\\\)",
    "\u202eevil\u200b\x00 tab\there",
]

#: Delimiters Bokeh's MathJax typesets in a pane's HTML.
MATH_DELIMITERS = ("$$", "\\(", "\\)", "\\[", "\\]")


class _Reader(html.parser.HTMLParser):
    """The tags (with their attributes) and the text of an HTML fragment."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def _read(fragment: str) -> tuple[list, str]:
    reader = _Reader()
    reader.feed(fragment)
    reader.close()
    return reader.tags, "".join(reader.text)


def _rendered(pane) -> str:
    """The HTML a Markdown pane (or Alert) sends to the browser."""
    return html.unescape(pane._transform_object(pane.object)["object"])


def _literal(text: str) -> str:
    """What ``plain`` promises a reader sees: whitespace runs as one space, control and format
    characters as U+FFFD (derived here independently of the implementation)."""
    text = " ".join(text.split())
    return "".join("\ufffd" if unicodedata.category(c) in ("Cc", "Cf", "Cs") else c
                   for c in text)


def _assert_plain_html(fragment: str, *, allowed=("p", "span", "strong")) -> str:
    tags, text = _read(fragment)
    assert all(tag in allowed and not attrs for tag, attrs in tags), (fragment, tags)
    assert not any(d in fragment for d in MATH_DELIMITERS), fragment
    return text


@pytest.mark.parametrize("payload", PAYLOADS)
def test_plain_text_shows_literally_in_a_markdown_pane(payload):
    html_out = _rendered(pn.pane.Markdown(plain(payload)))
    text = _assert_plain_html(html_out)
    assert text.strip() == _literal(payload)


@given(st.text(max_size=120))
def test_any_text_shows_literally_in_a_markdown_pane(text):
    html_out = _rendered(pn.pane.Markdown(plain(text)))
    assert _assert_plain_html(html_out).strip() == _literal(text)


@given(st.text(max_size=120))
def test_any_text_shows_literally_as_html(text):
    tags, shown = _read(plain(text, markup="html"))
    assert tags == [] and shown == _literal(text)


def test_clip_and_quote_cut_long_text_with_an_ellipsis():
    long = "<" * 10_000
    assert len(clip(long)) == CLIP and clip(long).endswith("…")
    assert clip("short") == "short" and clip(b"\xffab") == "\ufffdab"
    assert quote("x" * 200) == "'" + "x" * (CLIP - 1) + "…'"
    assert len(plain(long, limit=100)) < 2 * 100 + 10
    with pytest.raises(ValueError, match="markup"):
        plain("x", markup="latex")


def _notice_html(explorer) -> list[str]:
    """The HTML of the explorer's alerts (notice and error) as the page builds them."""
    shown = Page(explorer).alert().object()
    panes = getattr(shown, "objects", [])
    return [_rendered(p) for p in panes]


@pytest.mark.parametrize("payload", PAYLOADS[:6])
def test_a_link_with_markup_gives_a_plain_notice(payload):
    cls = EXPLORERS["neuron"]
    args = {payload: [b"1"], "steps": [payload.encode()], "preset": [payload.encode()]}
    explorer, messages = cls.from_query(args)
    assert explorer.query() == cls().query()  # nothing from the link was used
    assert len(messages) == 3
    [notice] = _notice_html(explorer)
    shown = _assert_plain_html(notice)
    assert "Settings adjusted:" in shown
    assert shown.count(_literal(clip(payload))) == 3  # the key, and both values, literally


def test_a_long_link_is_quoted_short():
    cls = EXPLORERS["torus"]
    # long, within the link's cap (``knobs.QUERY_CHARS``): 40 keys of 220 characters, a value
    # of 3,000
    args = {f"<b>k{i}</b>" * 20: [b"1"] for i in range(40)}
    args["steps"] = [b"<i>" * 1000]
    explorer, messages = cls.from_query(args)
    text = " ".join(messages)
    assert "and 35 more" in text and len(text) < 1200
    [notice] = _notice_html(explorer)
    shown = _assert_plain_html(notice)
    assert "<b>k0</b>" in shown and "…" in shown


def test_a_typed_field_answers_markup_with_plain_text():
    explorer = EXPLORERS["herding"]()
    seed = Field(explorer, "seed")
    w0 = Field(explorer, "w0")
    for field, payload in ((seed, PAYLOADS[1]), (w0, PAYLOADS[8]), (w0, PAYLOADS[4])):
        field.input.value = payload
        assert field.message.visible
        shown = _assert_plain_html(_rendered(field.message))
        assert _literal(payload) in shown
    assert explorer.query() == type(explorer)().query()


def test_a_failed_run_shows_its_error_as_plain_text():
    explorer = EXPLORERS["herding"]()
    job = next(iter(explorer.jobs.values()))
    section = JobSection(Page(explorer), job)
    job.param.update(error=PAYLOADS[1] + " " + PAYLOADS[9], message=PAYLOADS[4])
    alert = _assert_plain_html(_rendered(section.alert))
    status = _assert_plain_html(_rendered(section.status))
    assert _literal(PAYLOADS[1] + " " + PAYLOADS[9]) in alert and section.alert.visible
    assert status.strip() == PAYLOADS[4]


def test_a_failed_computation_shows_its_error_as_plain_text():
    explorer = EXPLORERS["torus"]()
    explorer.error = PAYLOADS[0]
    notices = _notice_html(explorer)
    assert len(notices) == 1
    assert PAYLOADS[0] in _assert_plain_html(notices[0])
