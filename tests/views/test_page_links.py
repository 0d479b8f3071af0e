"""Every link a page's text makes goes to a page of the app, an anchor in it, or an outside
address listed in ``views.framework.text.OUTSIDE_LINKS``; bare words that look like addresses
("REPORT.md", "docs/speed.md") stay words (``views.framework.page_workarounds.Text``)."""

from __future__ import annotations

import ast
import html
import pathlib
import re
import urllib.parse

import pytest

from views import EXPLORERS
from views.framework.page_workarounds import Alert, Text
from views.framework.text import OUTSIDE_LINKS, math_markdown

ROOT = pathlib.Path(__file__).resolve().parents[2]
HREF = re.compile(r'href="([^"]*)"')


def _links(markdown: str) -> list[str]:
    """The addresses the page's Markdown pane links ``markdown`` to."""
    pane = Text(math_markdown(markdown))
    return HREF.findall(html.unescape(pane._transform_object(pane.object)["object"]))


def _inside(href: str) -> bool:
    if href.startswith("#"):
        return True
    if not href.startswith("?"):
        return False
    page = urllib.parse.parse_qs(href[1:]).get("page", [None])[-1]
    return page is None or page in EXPLORERS


def _texts(cls) -> list[str]:
    texts = [cls.title, cls.summary, cls.figures, cls.text]
    texts += [s.aside for s in cls.sections]
    if cls.paper is not None:
        texts.append(cls.paper.reference)
    timelines = [cls.timeline] + [run.timeline for run in cls.runs]
    texts += [t.caption for t in timelines if t is not None]
    texts += [text for run in cls.runs for text in (run.title, run.text)]
    return [t for t in texts if t]


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_every_link_in_a_page_s_text_stays_in_the_app_or_is_listed(slug):
    links = [href for text in _texts(EXPLORERS[slug]) for href in _links(text)]
    assert [h for h in links if not (_inside(h) or h in OUTSIDE_LINKS)] == []


def test_the_home_page_links_its_pages():
    from app.main import home_text

    links = _links(home_text())
    assert [h for h in links if not _inside(h)] == []
    pages = {urllib.parse.parse_qs(h[1:])["page"][0] for h in links if h.startswith("?")}
    assert pages == set(EXPLORERS)


def test_a_word_that_looks_like_an_address_is_not_a_link():
    # markdown-it's linkify made "(REPORT.md)" a link to http://report.md/, outside the app
    for pane_type in (Text, Alert):
        pane = pane_type("The gallery's study (REPORT.md), docs/speed.md, www.example.com")
        assert "href" not in pane._transform_object(pane.object)["object"]
    assert _links("[the herding page](?page=herding)") == ["?page=herding"]


def test_the_served_page_makes_its_text_panes_with_linkify_off():
    """No module of the served page builds Panel's own Markdown or Alert pane (whose
    ``linkify`` is on): they use ``Text`` and ``Alert``."""
    files = [*sorted((ROOT / "views" / "framework").glob("*.py")),
             *sorted((ROOT / "app").glob("*.py"))]
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr in ("Markdown", "Alert")
                    and isinstance(node.value, ast.Attribute) and node.value.attr == "pane"
                    and path.name != "page_workarounds.py"):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []
