"""Two settings side by side in a real browser (issue 49 item 4): Pin, move a knob, see both
figures and the knob that differs named; the page's link opened in a new page shows the same;
Unpin returns to one figure and takes ``pin=`` out of the address."""

from __future__ import annotations

import urllib.parse

import pytest

from views import EXPLORERS
from views.framework.pin import PIN_KEY

from .conftest import SCREENSHOTS
from .test_browser import (COUNT_CANVASES, LOAD_TIMEOUT, REDRAW_TIMEOUT, _canvas_count, _open,
                           _wait_for_plots, _wait_until_idle)

pytestmark = pytest.mark.browser

#: The pinned copies drawn and shown (Panel hides a hidden pane's element with display: none).
SHOWN_PINNED = """() => {
    let n = 0;
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('ldx-pinned')
            && getComputedStyle(el).display !== 'none') n += 1;
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    return n;
}"""


#: The curves drawn on the live moment-error panel: its glyph renderers holding data (the
#: pinned state's curves drawn faded under the live ones while a state is pinned).
MOMENT_CURVES = """() => {
    for (const view of Bokeh.index.all_views()) {  // the panel shown (a redrawn one replaced)
        const m = view.model;
        if (!(view.el && view.el.isConnected && m.title && m.title.text === 'Moment error (Prop 1.2)'
              && m.renderers)) continue;
        return m.renderers.filter(r => r.visible && r.data_source && r.data_source.data
            && Object.values(r.data_source.data).some(c => c.length > 1)).length;
    }
    return -1;
}"""


def _query(url: str) -> dict:
    return urllib.parse.parse_qs(urllib.parse.urlparse(url).query)


def test_pin_move_a_knob_and_reopen_the_link(server, page):
    cls = EXPLORERS["herding"]
    count = _canvas_count(cls)
    _open(page, f"{server}?page=herding&steps=2000")
    _wait_for_plots(page, count)
    alone = page.evaluate(MOMENT_CURVES)
    assert alone > 0
    page.get_by_role("button", name="Pin", exact=True).click()
    page.wait_for_function(f"n => ({COUNT_CANVASES})() >= n", arg=2 * count,
                           timeout=LOAD_TIMEOUT)
    page.wait_for_function(f"n => ({SHOWN_PINNED})() === n", arg=len(cls.plots),
                           timeout=REDRAW_TIMEOUT)
    page.wait_for_function("() => window.location.search.includes('pin=')",
                           timeout=REDRAW_TIMEOUT)
    # move States D (the first slider) one step: the pinned state stays at 6
    page.locator(".noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('n_states=7')",
                           timeout=REDRAW_TIMEOUT)
    line = f"{cls.param['n_states'].label} = 6 (now 7)"
    page.get_by_text(line).wait_for(timeout=REDRAW_TIMEOUT)
    _wait_until_idle(page)
    # the live panel holds the pinned curves under its own (``pin.Pinning.overlay``)
    page.wait_for_function(f"n => ({MOMENT_CURVES})() > n", arg=alone, timeout=REDRAW_TIMEOUT)
    page.screenshot(path=str(SCREENSHOTS / "herding-pinned.png"))
    address = _query(page.url)
    pinned = urllib.parse.parse_qs(address[PIN_KEY][0])
    assert pinned["n_states"] == ["6"] and address["n_states"] == ["7"]
    assert page.errors == []

    # the link, in a new page: both states and the same line
    other = page.context.new_page()
    other.errors = []
    other.on("pageerror", lambda exc: other.errors.append(f"pageerror: {exc}"))
    other.on("console", lambda msg: other.errors.append(msg.text)
             if msg.type == "error" else None)
    other.goto(page.url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    other.wait_for_function(f"n => ({COUNT_CANVASES})() >= n", arg=2 * count,
                            timeout=LOAD_TIMEOUT)
    other.wait_for_function(f"n => ({SHOWN_PINNED})() === n", arg=len(cls.plots),
                            timeout=REDRAW_TIMEOUT)
    other.get_by_text(line).wait_for(timeout=REDRAW_TIMEOUT)
    assert _query(other.url) == address  # the address written back: the same state
    assert other.errors == []
    other.close()

    # Unpin: one figure, and pin= leaves the address
    page.get_by_role("button", name="Unpin", exact=True).click()
    page.wait_for_function(f"() => ({SHOWN_PINNED})() === 0", timeout=REDRAW_TIMEOUT)
    page.wait_for_function("() => !window.location.search.includes('pin=')",
                           timeout=REDRAW_TIMEOUT)
    assert page.get_by_role("button", name="Unpin", exact=True).is_hidden()
    page.wait_for_function(f"n => ({MOMENT_CURVES})() === n", arg=alone,
                           timeout=REDRAW_TIMEOUT)
    assert page.errors == []
