"""Live pages you can trust, in a real browser (odd links: ``test_odd_links.py``): dependent
knobs never freeze a page, a live page draws what a fresh load of its URL draws, typed values
are refused with a message. (That every page fits a 1024 x 768 projector is checked with
its load in ``test_browser.py``.)"""

from __future__ import annotations

import io
import re
import urllib.parse

import numpy as np
import pytest
from playwright.sync_api import expect
from PIL import Image

from views import EXPLORERS

from .conftest import SCREENSHOTS
from .test_browser import REDRAW_TIMEOUT, _canvas_count, _open, _wait_for_plots

pytestmark = pytest.mark.browser


def _wait_for_url_change(page, old: str) -> None:
    page.wait_for_function("u => window.location.href !== u", arg=old, timeout=REDRAW_TIMEOUT)


def _settled_screenshot(locator, page) -> bytes:
    """A screenshot of ``locator`` once two consecutive ones agree (the redraw is over)."""
    previous = locator.screenshot()
    for _ in range(40):
        page.wait_for_timeout(250)
        current = locator.screenshot()
        if current == previous:
            return current
        previous = current
    return previous


def _difference(a: bytes, b: bytes) -> float:
    x = np.asarray(Image.open(io.BytesIO(a)).convert("L"), dtype=float)
    y = np.asarray(Image.open(io.BytesIO(b)).convert("L"), dtype=float)
    return float("inf") if x.shape != y.shape else float(np.abs(x - y).mean())


def test_lowering_k_below_the_plotted_weight_clamps_it_and_the_page_keeps_drawing(server, page):
    _open(page, f"{server}?page=bifurcation&n_features=3&coordinate=3&resolution=200")
    _wait_for_plots(page, _canvas_count(EXPLORERS["bifurcation"]))
    url = page.url
    handles = page.locator(".noUi-handle")
    k = handles.nth(1)  # sliders: States D, Features K, ...
    k.focus()
    page.keyboard.press("ArrowLeft")
    _wait_for_url_change(page, url)
    page.wait_for_function("() => window.location.href.includes('coordinate=2')",
                           timeout=REDRAW_TIMEOUT)
    assert "n_features=2" in page.url
    page.get_by_text(re.compile("Plotted weight wₖ set to 2")).first.wait_for(
        timeout=REDRAW_TIMEOUT)
    canvas = page.locator(".bk-Canvas").first
    before = _settled_screenshot(canvas, page)
    url = page.url
    eta = page.locator(".noUi-handle").nth(handles.count() - 2)  # Step size eta
    eta.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    _wait_for_url_change(page, url)
    after = _settled_screenshot(canvas, page)
    assert _difference(before, after) > 0.5, "the orbit diagram froze after the clamp"
    assert page.get_by_text("Could not compute").count() == 0
    assert page.errors == []


@pytest.mark.parametrize("slug, knob, handle", [
    ("bifurcation", "log_t", 2),   # the temperature range's low end
    ("torus", "q", 1),             # the colour bar names q
])
def test_live_page_draws_what_a_fresh_load_of_its_url_draws(server, browser, page, slug, knob,
                                                             handle):
    _open(page, f"{server}?page={slug}" + ("&resolution=200" if slug == "bifurcation" else ""))
    _wait_for_plots(page, _canvas_count(EXPLORERS[slug]))
    url = page.url
    page.locator(".noUi-handle").nth(handle).focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    _wait_for_url_change(page, url)
    page.wait_for_function(f"u => window.location.href.includes('{knob}=')", arg=url,
                           timeout=REDRAW_TIMEOUT)
    page.wait_for_timeout(500)  # let a throttled slider's last value land
    panel = 1 if slug == "torus" else 0
    live = _settled_screenshot(page.locator(".bk-Canvas").nth(panel), page)
    fresh_context = browser.new_context(viewport={"width": 1400, "height": 1000})
    fresh = fresh_context.new_page()
    try:
        _open(fresh, page.url)
        _wait_for_plots(fresh, _canvas_count(EXPLORERS[slug]))
        reopened = _settled_screenshot(fresh.locator(".bk-Canvas").nth(panel), fresh)
    finally:
        fresh_context.close()
    difference = _difference(live, reopened)
    SCREENSHOTS.mkdir(exist_ok=True)
    (SCREENSHOTS / f"{slug}-live.png").write_bytes(live)
    (SCREENSHOTS / f"{slug}-fresh.png").write_bytes(reopened)
    assert difference < 1.0, f"live and fresh pages differ by {difference:.2f} grey levels"
    assert page.errors == []


def test_typed_values_are_refused_with_the_allowed_range(server, page):
    _open(page, f"{server}?page=herding")
    _wait_for_plots(page, len(EXPLORERS["herding"].plots))
    field = page.get_by_label("Model seed")
    url = page.url
    for bad in ("-5", "100000", "1e9", "3.7"):
        field.fill(bad)
        field.press("Enter")
        page.get_by_text(re.compile(rf"Model seed must be a whole number from 0 to 99,999; "
                                    rf"got '{re.escape(bad)}'")).first.wait_for(
            timeout=REDRAW_TIMEOUT)
        expect(field).to_have_value("1", timeout=REDRAW_TIMEOUT)
        assert page.url == url
    field.fill("7")
    field.press("Enter")
    _wait_for_url_change(page, url)
    assert "seed=7" in page.url
    page.get_by_text(re.compile("Model seed must be")).first.wait_for(state="hidden",
                                                                      timeout=REDRAW_TIMEOUT)
    _open(page, f"{server}?page=neuron")
    _wait_for_plots(page, len(EXPLORERS["neuron"].plots))
    rate = page.get_by_label("Firing rate π")
    for bad in ("2", "1e9"):
        rate.fill(bad)
        rate.press("Enter")
        page.get_by_text(re.compile(rf"Firing rate π must be a number from 0 to 1; "
                                    rf"got '{re.escape(bad)}'")).first.wait_for(
            timeout=REDRAW_TIMEOUT)
    url = page.url
    rate.fill("0.3")
    rate.press("Enter")
    _wait_for_url_change(page, url)
    assert "rate=0.3" in page.url
    assert page.errors == []


def test_a_link_the_app_wrote_reopens_without_a_message(server, page):
    _open(page, f"{server}?page=herding")
    _wait_for_plots(page, len(EXPLORERS["herding"].plots))
    url = page.url
    field = page.get_by_label("Initial weights w0")
    field.fill("2")
    field.press("Enter")
    _wait_for_url_change(page, url)
    assert "w0=2" in page.url
    written = page.url
    _open(page, written)
    _wait_for_plots(page, len(EXPLORERS["herding"].plots))
    assert page.get_by_label("Initial weights w0").input_value() == "2"
    assert page.locator(".ldx-notice").count() == 0
    assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query) == \
        urllib.parse.parse_qs(urllib.parse.urlparse(written).query)
    assert page.errors == []
