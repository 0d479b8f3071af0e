"""A phone's screen (issue 49 item 5): a page opened on a 390 x 844 screen starts with its
settings closed, so that its first plot begins on the first screen (it was 1.5-2.2 screens
down under the settings); the header's menu button opens them above the plots; the player's
buttons and the page's are a fingertip's targets (the play button was 36 x 21 px)."""

from __future__ import annotations

import pytest

from views import EXPLORERS
from views.framework.panes import TOUCH_SIZE

from .conftest import SCREENSHOTS
from .test_browser import PHONE, REDRAW_TIMEOUT, _canvas_count, _open, _wait_for_plots

pytestmark = pytest.mark.browser

#: The top of the first plot canvas (page px), the player's buttons' boxes and the sidebar's
#: height and bottom, through shadow roots.
_BOXES = """() => {
    const canvases = [], player = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        const r = el.getBoundingClientRect();
        if (el.classList && el.classList.contains('bk-Canvas') && r.width > 100)
            canvases.push(r.top + window.scrollY);
        if (el.tagName === 'BUTTON' && r.width > 0 && el.checkVisibility()) {
            const host = el.getRootNode().host;
            const box = [r.width, r.height, el.className || el.textContent.trim()];
            if (host && host.classList.contains('ldx-timeline-player')) player.push(box);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    const sidebar = document.getElementById('sidebar').getBoundingClientRect();
    return {first: Math.min(...canvases), player, sidebar: [sidebar.height,
            sidebar.bottom + window.scrollY]};
}"""
#: The page's own buttons in the sidebar (Copy link, Code, Step, Present): their heights.
_SIDEBAR_BUTTONS = """() => {
    const out = [];
    const walk = (root, inside) => root.querySelectorAll('*').forEach(el => {
        const here = inside || el.closest('#sidebar') !== null;
        if (here && el.tagName === 'BUTTON' && el.checkVisibility()
            && el.classList.contains('bk-btn'))
            out.push([el.textContent.trim(), el.getBoundingClientRect().height]);
        if (el.shadowRoot) walk(el.shadowRoot, here);
    });
    walk(document, false);
    return out;
}"""


@pytest.mark.parametrize("slug", ["herding", "sbeed"])
def test_a_phone_shows_the_first_plot_on_its_first_screen(server, page, slug):
    cls = EXPLORERS[slug]
    page.set_viewport_size(PHONE)
    _open(page, f"{server}?page={slug}")
    _wait_for_plots(page, _canvas_count(cls))
    page.wait_for_function("() => !document.getElementById('sidebar').classList"
                           ".contains('show')", timeout=REDRAW_TIMEOUT)
    boxes = page.evaluate(_BOXES)
    page.screenshot(path=str(SCREENSHOTS / f"{slug}-phone-first-screen.png"))
    assert boxes["sidebar"][0] == 0, "the settings are open on a phone"
    assert boxes["first"] < PHONE["height"], (
        f"{slug}: the first plot starts at y = {boxes['first']:.0f} px, below a "
        f"{PHONE['height']}-px screen")
    assert len(boxes["player"]) == 9, boxes["player"]
    for width, height, name in boxes["player"]:
        assert min(width, height) >= TOUCH_SIZE, (
            f"{slug}: the player's {name} button is {width:.0f} x {height:.0f} px")
    # the menu button opens the settings, above the plots
    page.locator("#sidebar-toggle").click()
    page.wait_for_function("() => document.getElementById('sidebar').getBoundingClientRect()"
                           ".height > 200", timeout=REDRAW_TIMEOUT)
    page.get_by_role("button", name="Copy link").wait_for(timeout=REDRAW_TIMEOUT)
    boxes = page.evaluate(_BOXES)
    assert boxes["sidebar"][1] <= boxes["first"], "the settings are not above the plots"
    buttons = page.evaluate(_SIDEBAR_BUTTONS)
    assert {"Copy link", "Code", "Step", "Present"} <= {name for name, _ in buttons}, buttons
    for name, height in buttons:
        assert height >= TOUCH_SIZE, f"{slug}: the button {name!r} is {height:.0f} px high"
    assert page.errors == []
