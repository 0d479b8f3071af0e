"""The last move wins, in Chromium: a student holding an arrow key on a slider (30 presses in
1.5 s) sees the page settle on the slider's final value within 2 s of the last press, and what it
then shows is what a fresh load of the address it wrote shows. Before (main at 15ef13b, measured
on this machine): the torus page settled 4.5 s after such a burst, the neuron page 3.3 s, every
intermediate value computed and drawn in turn."""

from __future__ import annotations

import urllib.parse

import pytest

from views import EXPLORERS

from ._burst import burst
from .test_browser import _canvas_count, _open, _wait_for_plots
from .test_links_and_layout import _difference, _settled_screenshot

pytestmark = pytest.mark.browser

#: Time allowed from the last key press of the burst to the last changed pixel (ms).
SETTLE_MS = 2000

#: The burst's 30 presses are meant to take this long (ms). Pressing them takes longer while
#: the page draws (3.6 s on a quiet machine, 4.8-5.6 s beside the other test worker's browser
#: tests); a burst over the settle limit whose presses took over twice this is measured once
#: more, and the second measurement is the one asserted.
SPREAD_MS = 1500


def _handle(page, label: str):
    """The slider handle whose title starts with ``label``."""
    titles = page.locator(".bk-slider-title").all_inner_texts()
    index = next(i for i, t in enumerate(titles) if t.startswith(label))
    return page.locator(".noUi-handle").nth(index)


def test_a_burst_of_key_presses_settles_on_the_last_value(server, browser, page):
    _open(page, f"{server}?page=herding")
    _wait_for_plots(page, _canvas_count(EXPLORERS["herding"]))
    handle = _handle(page, "Steps T")
    moved = burst(page, handle, presses=30, spread_ms=SPREAD_MS)
    if moved.settle_ms > SETTLE_MS and moved.spread_ms > 2 * SPREAD_MS:
        # the presses themselves lagged (the other test worker's load): measure once more
        moved = burst(page, handle, presses=30, spread_ms=SPREAD_MS)
    assert moved.presses == 30
    step = EXPLORERS["herding"].param["steps"].step
    assert float(moved.final) == float(moved.start) + 30 * step, moved
    assert moved.settle_ms <= SETTLE_MS, (
        f"the page settled {moved.settle_ms:.0f} ms after the last key press "
        f"(presses over {moved.spread_ms:.0f} ms, {moved.changes} canvas changes)")
    page.wait_for_function("v => new URLSearchParams(window.location.search).get('steps') === v",
                           arg=str(int(float(moved.final))), timeout=10_000)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query["steps"] == [str(int(float(moved.final)))]
    # what the page settled on is the final value's picture, not an intermediate one
    count = _canvas_count(EXPLORERS["herding"])
    live = [_settled_screenshot(page.locator(".bk-Canvas").nth(i), page) for i in range(count)]
    fresh_context = browser.new_context(viewport={"width": 1400, "height": 1000})
    fresh = fresh_context.new_page()
    try:
        _open(fresh, page.url)
        _wait_for_plots(fresh, count)
        reopened = [_settled_screenshot(fresh.locator(".bk-Canvas").nth(i), fresh)
                    for i in range(count)]
    finally:
        fresh_context.close()
    differ = [i for i in range(count) if _difference(live[i], reopened[i]) >= 1.0]
    assert differ == [], f"panels {differ} differ from a fresh load of {page.url}"
    assert page.errors == []
