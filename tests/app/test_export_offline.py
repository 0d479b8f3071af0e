"""The standalone HTML export works offline: every explorer's file, written after Panel has been
loaded as the app loads it (``pn.extension("katex")``), opens from disk in Chromium with every
network request blocked, draws its plots, and asks for nothing it does not hold."""

from __future__ import annotations

import panel as pn
import pytest

from views import EXPLORERS

from .conftest import SCREENSHOTS

pytestmark = pytest.mark.browser



@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_html_export_opens_offline_without_requests_or_errors(slug, browser, tmp_path):
    pn.extension("katex")  # as the app does: Panel's models then exist in this process
    explorer = EXPLORERS[slug](**EXPLORERS[slug].quick)  # the export is tested, not the computation
    path = explorer.export(tmp_path / f"{slug}.html")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    requests, errors = [], []
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        "file://") else (requests.append(route.request.url), route.abort()))
    page = context.new_page()
    page.on("requestfailed", lambda r: requests.append(f"failed: {r.url}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(path.as_uri(), wait_until="load")
        count = sum(1 for p in explorer.panels())
        page.wait_for_function(
            """n => document.querySelectorAll('*').length > 0 && (() => {
                const found = [];
                const walk = root => root.querySelectorAll('*').forEach(el => {
                    if (el.classList && el.classList.contains('bk-Canvas')) found.push(el);
                    if (el.shadowRoot) walk(el.shadowRoot);
                });
                walk(document);
                return found.length >= n;
            })()""", arg=min(count, 1), timeout=30_000)
        if slug == "herding":
            page.screenshot(path=str(SCREENSHOTS / "export-offline-herding.png"))
    finally:
        context.close()
    assert requests == [] and errors == [], (requests, errors)
