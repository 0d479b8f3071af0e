"""The gallery's ``index.html`` opens with a table of contents (issue 30 item 4): one row per
entry with its title linked to the entry's section, its paper and its verdict, and a link to
REPORT.md; everything the builds wrote is escaped.

Read with ``html.parser`` (the page's structure, not substrings), from ``write_report`` given
a real quick build of one cheap entry (``herding.fig1_17``, about 15 s here) and that result
again under a second entry's id, its statement and verdict given markup, as a build's text could
hold."""

from __future__ import annotations

import html.parser

import pytest

from views import EXPLORERS
from views.figures import ENTRIES, build
from views.figures.report import write_report


class Gallery(html.parser.HTMLParser):
    """The contents table's rows (link, texts), the sections' ids, every link, and every
    element that appeared."""

    def __init__(self):
        super().__init__()
        self.rows, self.sections, self.links, self.tags = [], [], [], []
        self._in_contents = False
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "a":
            self.links.append(attrs.get("href"))
        if tag == "table" and "contents" in (attrs.get("class") or ""):
            self._in_contents = True
        if self._in_contents and tag == "tr":
            self.rows.append(dict(href=None, cells=[]))
        if self._in_contents and tag == "td":
            self._cell = []
        if self._in_contents and tag == "a" and self.rows:
            self.rows[-1]["href"] = attrs.get("href")
        if tag == "section":
            self.sections.append(attrs.get("id"))

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append("".join(self._cell))
            self._cell = None
        if tag == "table":
            self._in_contents = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def real():
    """One entry built as the command builds it, at quick sizes."""
    return build("herding.fig1_17", quick=True)


def test_the_contents_link_every_entry_with_its_paper_and_verdict(tmp_path, real):
    marked = dict(real, id="herding.fig1_1", statement='the paper <img src=x onerror="1">',
                  verdict="differs: <b>ratio</b> & 'more'", details="")
    results = [real, marked]
    write_report(tmp_path, results, ENTRIES, quick=True)
    page = (tmp_path / "index.html").read_text()
    gallery = Gallery()
    gallery.feed(page)
    rows = [row for row in gallery.rows if row["cells"]]  # the header row has none
    assert [row["href"] for row in rows] == [f"#{r['id']}" for r in results]
    assert gallery.sections == [r["id"] for r in results]  # each link reaches its section
    for row, r in zip(rows, results):
        entry = ENTRIES[r["id"]]
        assert row["cells"] == [entry.title, EXPLORERS[entry.slug].paper.citation, r["verdict"]]
    assert "REPORT.md" in gallery.links  # a link, before the contents
    assert page.index('href="REPORT.md"') < page.index('class="contents"')
    assert "img" in gallery.tags and "b" in gallery.tags  # the figures, the labels
    assert page.count("<img") == len(results)  # the statement's markup is text
    assert "&lt;b&gt;ratio&lt;/b&gt; &amp; &#x27;more&#x27;" in page
    assert "<b>ratio</b>" not in page
    assert real["verdict"].split(":")[0] in ("reproduced", "differs", "not decided")
