"""A page opened from a link with new settings is computed off the server's event loop (issue 45
item 4): the session's document is served with a "computing" note in the page's place before the
result exists, and the page with the link's settings follows in the same session; settings that
cannot be computed together still give the defaults and a notice saying so."""

from __future__ import annotations

import concurrent.futures
import re

import pytest

from views import EXPLORERS

from .test_browser import _open

pytestmark = pytest.mark.browser

#: Portfolio mirror descent's page: its result for a new seed takes a computation of seconds,
#: far longer than a session's build waits for it (``app.main.HEAD_START_S``).
SLOW = "pmd"


def test_a_new_result_is_computed_after_the_document_is_served(server, page):
    _open(page, f"{server}?page={SLOW}")  # the page's engines are ready (a first start's wait)
    # the session's document, as a client pulls it (a Python client never says it showed the
    # page, so nothing is put in after): the note in the page's place and no figure, so the
    # session was built without waiting for the result
    import panel.models  # noqa: F401 - Panel's models, which the document holds
    from bokeh.client import pull_session

    def pull():
        with pull_session(url=server, arguments={"page": SLOW, "seed": "4321"}) as session:
            return list(session.document.models)

    # in a thread of its own: Playwright's loop runs in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        models = pool.submit(pull).result(timeout=300)
    classes = {c for m in models for c in (getattr(m, "css_classes", None) or [])}
    assert "ldx-computing" in classes
    assert not any(type(m).__name__ == "Figure" for m in models)


def test_the_page_follows_with_the_links_settings(server, page):
    _open(page, f"{server}?page={SLOW}&seed=4322")  # waits for every plot of the page drawn
    assert page.locator(".ldx-computing").count() == 0
    assert page.get_by_label("Seed").first.input_value() == "4322"
    assert "seed=4322" in page.url
    assert page.locator(".ldx-notice").count() == 0
    assert page.errors == []


def test_settings_that_fail_elsewhere_give_the_defaults_and_a_notice():
    # a served page computes the link's settings in a thread, then hands what that raised to
    # checked_query, which must not compute them again
    cls = EXPLORERS["herding"]
    explorer, messages, time = cls.unchecked_query({"seed": [b"3"]})
    assert explorer.seed == 3
    opened, messages = cls.checked_query(explorer, messages, time,
                                         failure=ValueError("no good"))
    assert opened.seed == cls.param["seed"].default
    assert re.search(r"could not be computed together \(no good\).*default settings",
                     opened.notice)
    assert messages and "no good" in messages[-1]
