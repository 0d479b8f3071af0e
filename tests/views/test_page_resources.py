"""What a served page's HTML loads (``views.framework.served``: ``page_resources``,
``deferred_scripts``), checked on Panel's own page writer in process, without timing: only the
bundles the page's document uses, every script deferred, the inline BokehJS calls waiting for the
parsed document; and that a page's plots, put in after its HTML (``Page.defer_plots``), need
nothing that the HTML left out."""

from __future__ import annotations

import re

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.resources import Resources as BkResources

from views import EXPLORERS
from views.framework import served
from views.framework.page import Page


class _Session:
    """What Panel's page writer reads of a server session."""

    def __init__(self, doc):
        self.document, self.token = doc, "token"


def _page_html(*objects, math_later: bool = False) -> str:
    """The HTML Panel's server writes for a document holding ``objects``, through the wrapper
    ``page_resources`` installs (as the served app's GET does)."""
    from panel.io import server
    from panel.io.resources import Resources

    served.page_resources()
    doc = Document()
    for obj in objects:
        obj.server_doc(doc)
    if math_later:
        doc.template_variables[served.MATH_LATER] = True
    resources = Resources.from_bokeh(BkResources(mode="server", root_url="/"))
    return server.server_html_page_for_session(_Session(doc), resources, title="t")


def _scripts(page: str) -> list[str]:
    return re.findall(r'<script[^>]*\bsrc="([^"]+)"', page)


def test_a_page_without_math_loads_no_mathjax_and_no_unused_bundle():
    import panel.models.katex  # noqa: F401  (imported: Bokeh would list its files)

    page = _page_html(pn.pane.HTML("<p>no math here</p>"), pn.widgets.IntSlider())
    scripts = " ".join(_scripts(page))
    assert "bokeh.min.js" in scripts and "bokeh-widgets" in scripts and "panel.min.js" in scripts
    assert "bokeh-tables" in scripts  # Panel's bundle imports it
    for unused in ("bokeh-mathjax", "katex", "tabulator", "luxon", "es-module-shims"):
        assert unused not in scripts, unused
    assert "katex" not in page  # nor its style sheet


@pytest.mark.parametrize("text", ["inline \\(x^2\\) math", "display $$x^2$$ math"])
def test_a_page_with_math_or_math_to_come_loads_mathjax(text):
    assert "bokeh-mathjax" in " ".join(_scripts(_page_html(pn.pane.HTML(text))))
    assert "bokeh-mathjax" in " ".join(_scripts(_page_html(pn.pane.HTML("none"),
                                                           math_later=True)))


def test_scripts_are_deferred_and_inline_bokeh_calls_wait_for_the_document():
    page = _page_html(pn.pane.HTML("x"))
    tags = re.findall(r"<script[^>]*\bsrc=[^>]*>", page)
    assert tags and all(" defer " in tag for tag in tags)
    head = page.split("</head>")[0]
    inline = re.findall(r"<script[^>]*>([^<]*Bokeh\.[^<]*)</script>", head)
    assert inline, "Panel's page has no inline BokehJS call in its head any more"
    for body in inline:
        assert body.startswith("document.addEventListener('DOMContentLoaded'"), body
    # the embed script in the body already waits for the parsed document
    assert 'addEventListener("DOMContentLoaded", fn' in page.split("</head>")[1]


def test_the_wrappers_are_idempotent():
    from bokeh.server.tornado import BokehTornado
    from panel.io import server

    served.page_resources()
    served.compress_responses()
    writer, init = server.server_html_page_for_session, BokehTornado.__init__
    served.page_resources()
    served.compress_responses()
    assert server.server_html_page_for_session is writer and BokehTornado.__init__ is init


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_a_page_drawn_whole_needs_no_bundle_its_html_left_out(slug):
    """The HTML is written before the page's plots are drawn: the whole page (every plot drawn)
    holds no model class with script files of its own (left out when the frame did not hold
    one)."""
    page = Page(EXPLORERS[slug]())
    root = pn.Column(page.controls(), page.panel()).get_root(Document())
    models = set(root.references())
    assert {type(m).__name__ for m in models if getattr(type(m), "__javascript__", None)} == set()
