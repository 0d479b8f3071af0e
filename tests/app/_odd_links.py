"""Odd links never give a blank page or a console error, in a real browser: generated links
(the in-process URL fuzz's, ``tests/views/test_url_fuzz.py``) opened a few tabs at a time.
The pages are split over ``test_odd_links_part*.py``, so that two workers share them (about
40 s a page here)."""

from __future__ import annotations

import os

from tests.views.test_url_fuzz import queries
from views import EXPLORERS

from .test_browser import LOAD_TIMEOUT

__all__ = ["check_odd_links", "PAGES", "LINKS", "COUNT_CANVASES"]

#: The pages, in two halves (one per test file).
PAGES = list(EXPLORERS)
HALF = (len(PAGES) + 1) // 2

#: Generated links per page opened in the browser (the in-process test tries 200 per page).
#: A link costs about 6 s of CPU here, whatever its sizes (a warm server takes some 2.5 s to
#: build a page and Chromium about 3.5 s to draw it; the links' size knobs at small values
#: changed nothing: 61.7 s -> 66.0 s for three pages), and the two cores are busy throughout
#: the run: the default run opens 1 a page to keep the suite near its 15-minute budget (4 a
#: page took 436 s of the workers' time in an idle full run on 2026-11-26, 2 a page 178 s);
#: LDX_BROWSER_LINKS=20 runs issue 9's 20 a page. The in-process fuzz
#: (``tests/views/test_url_fuzz*.py``) opens 200 a page.
LINKS = int(os.environ.get("LDX_BROWSER_LINKS", "1"))

COUNT_CANVASES = """() => {
    const found = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('bk-Canvas')) found.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    return found.length;
}"""


#: Links opened at once (each in its own tab): the server builds one session at a time on its
#: core while Chromium draws the others on the other core.
AT_ONCE = 4


def check_odd_links(server, browser, slug: str) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tabs = [context.new_page() for _ in range(min(AT_ONCE, LINKS))]
    errors: dict = {}
    for i, tab in enumerate(tabs):
        tab.on("console", lambda m, i=i: errors.setdefault(i, []).append(m.text)
               if m.type == "error" else None)
        tab.on("pageerror", lambda exc, i=i: errors.setdefault(i, []).append(str(exc)))
        # a request that fails for another reason than the tab moving on to the next link
        tab.on("requestfailed", lambda r, i=i: None if "ERR_ABORTED" in (r.failure or "")
               else errors.setdefault(i, []).append(f"request failed: {r.url} ({r.failure})"))
    links = queries(EXPLORERS[slug], LINKS, seed=100 + len(slug))
    opened = 0
    try:
        for start in range(0, len(links), AT_ONCE):
            batch = links[start:start + AT_ONCE]
            errors.clear()
            for tab, query in zip(tabs, batch):
                tab.goto(f"{server}?{query}", wait_until="commit", timeout=LOAD_TIMEOUT)
            for i, (tab, query) in enumerate(zip(tabs, batch)):
                tab.wait_for_function(f"() => ({COUNT_CANVASES})() >= 1",
                                      timeout=LOAD_TIMEOUT)
                assert errors.get(i, []) == [], (query, errors[i])
                opened += 1
    finally:
        context.close()
    assert opened == LINKS


