"""A phone's screen (issue 27 item 3): at 390 x 844, touch, the page lays itself out at the
screen's width (viewport meta), in one column that scrolls down, never sideways: the settings
above the plots, every plot inside the screen, slider handles a fingertip can take."""

from __future__ import annotations

import pytest

from views import EXPLORERS

from .conftest import SCREENSHOTS
from .test_browser import _canvas_count, _open, _wait_for_plots

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: The smallest slider handle a finger can take (px); Panel's own is 14 px.
TOUCH_TARGET = 24

#: The boxes (page px) of every plot canvas, every slider handle and the settings heading.
_BOXES = """() => {
    const canvases = [], handles = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        const r = el.getBoundingClientRect();
        if (el.classList && el.classList.contains('bk-Canvas') && r.width > 100)
            canvases.push([r.left, r.right, r.top + window.scrollY]);
        if (el.classList && el.classList.contains('noUi-handle') && r.width > 0)
            handles.push([r.width, r.height]);
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    const sidebar = document.querySelector('#sidebar').getBoundingClientRect();
    return {canvases, handles, sidebar: [sidebar.top + window.scrollY, sidebar.bottom + window.scrollY],
            width: document.documentElement.scrollWidth, inner: window.innerWidth,
            viewport: (document.querySelector('meta[name=viewport]') || {}).content || ''};
}"""


@pytest.mark.parametrize("slug", ["torus", "sbeed"])
def test_a_phone_gets_one_readable_column(server, browser, slug):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        _open(page, f"{server}?page={slug}")
        _wait_for_plots(page, _canvas_count(EXPLORERS[slug]))
        page.screenshot(path=str(SCREENSHOTS / f"{slug}-390.png"), full_page=True)
        boxes = page.evaluate(_BOXES)
        assert "width=device-width" in boxes["viewport"]
        assert boxes["width"] <= boxes["inner"] == PHONE["width"], (
            f"{slug}: the page is {boxes['width']} px wide on a {PHONE['width']}-px screen")
        assert boxes["canvases"], f"{slug}: no plot drawn"
        for left, right, _ in boxes["canvases"]:
            assert left >= 0 and right <= PHONE["width"], (
                f"{slug}: a plot spans x = {left:.0f}..{right:.0f} px, off the screen")
        # the settings come first, above the plots (not a sidebar beside them)
        assert boxes["sidebar"][1] <= min(top for _, _, top in boxes["canvases"])
        assert boxes["handles"], f"{slug}: no slider"
        for width, height in boxes["handles"]:
            assert min(width, height) >= TOUCH_TARGET, (
                f"{slug}: a slider handle of {width:.0f} x {height:.0f} px")
        assert errors == []
    finally:
        context.close()
