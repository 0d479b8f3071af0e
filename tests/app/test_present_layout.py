"""Present mode fills a projector (issue 49 item 1): at 1024 x 768, on every page, the first plot
is on the first screen (at least 90 % of its height), inside the screen's width with its axes
whole, and the controls above it stand in one row, with or without a link's ``show=``; the
status and the page text take one line. **More controls** opens the others, a click on the
status line the whole status."""

from __future__ import annotations

import pytest

from views import EXPLORERS

from .conftest import SCREENSHOTS
from .test_browser import (LOAD_TIMEOUT, REDRAW_TIMEOUT, SMALL_SCREEN, _canvas_count, _open,
                           _two_frames, _wait_for_plots)

pytestmark = pytest.mark.browser

#: Of the first plot, at least this share of its height lies on the first screen.
FIRST_SCREEN_SHARE = 0.9
#: The controls above the first plot span at most this height (px): one row, as high as its
#: tallest control (the player: its scrubber over its buttons; a menu under its label).
ROW_HEIGHT = 100
#: The status line's height (px) while it is one line (at present mode's font size).
ONE_LINE = 40

#: The first plot (the canvas highest on the page, then leftmost), its axes' boxes (canvas px,
#: from BokehJS's views) and the boxes (page px) of every control shown above it, outside the
#: header bar and the status line: inputs, menus, buttons and sliders, through shadow roots.
_GEOMETRY = """() => {
    const canvases = [], controls = [];
    const skip = el => el.id === 'header' || (el.classList &&
                                             el.classList.contains('ldx-status-card'));
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (skip(el) || (el.parentNode && el.parentNode.host && skip(el.parentNode.host))) return;
        if (el.closest('#header')) return;
        const r = el.getBoundingClientRect();
        if (el.classList && el.classList.contains('bk-Canvas') && r.width > 100 && r.height > 100)
            canvases.push({left: r.left, right: r.right, top: r.top + window.scrollY,
                           height: r.height, el});
        if (el.matches('input, select, textarea, button, .noUi-target') && r.width > 0
            && r.height > 0 && el.checkVisibility() && el.type !== 'hidden')
            controls.push([r.top + window.scrollY, r.bottom + window.scrollY,
                           el.tagName + ' ' + (el.textContent || el.type || '').trim()]);
        if (el.shadowRoot && !skip(el)) walk(el.shadowRoot);
    });
    walk(document);
    canvases.sort((a, b) => a.top - b.top || a.left - b.left);
    const first = canvases[0];
    const axes = [];
    for (const view of Bokeh.index.all_views()) {
        if (!view.canvas_view || !view.el.isConnected || !view.frame) continue;
        if (!(view.canvas_view.el === first.el || view.el.shadowRoot &&
              view.el.shadowRoot.contains(first.el))) continue;
        for (const [model, child] of view.renderer_views)
            if (model.type && model.type.endsWith('Axis') && child.bbox)
                axes.push([child.bbox.x0, child.bbox.x1, model.axis_label || '']);
    }
    let more = null;
    const findMore = root => root.querySelectorAll('*').forEach(el => {
        if (!more && el.classList && el.classList.contains('ldx-more-toggle')) {
            const r = el.getBoundingClientRect();
            if (r.height > 0) more = [r.top + window.scrollY, r.bottom + window.scrollY];
        }
        if (el.shadowRoot) findMore(el.shadowRoot);
    });
    findMore(document);
    return {more, first: {left: first.left, right: first.right, top: first.top,
                    height: first.height, width: first.right - first.left},
            above: controls.filter(c => c[1] <= first.top + 1), axes,
            inner: [window.innerWidth, window.innerHeight]};
}"""


def _assert_projector_layout(page, where: str) -> None:
    shape = page.evaluate(_GEOMETRY)
    first, (width, height) = shape["first"], shape["inner"]
    top, bottom = first["top"], first["top"] + first["height"]
    shown = min(bottom, height) - max(top, 0)
    assert shown >= FIRST_SCREEN_SHARE * first["height"], (
        f"{where}: the first plot spans y = {top:.0f}..{bottom:.0f} px, {shown:.0f} of its "
        f"{first['height']:.0f} px on the {height}-px screen")
    assert first["left"] >= 0 and first["right"] <= width, (
        f"{where}: the first plot spans x = {first['left']:.0f}..{first['right']:.0f} px")
    assert shape["axes"], f"{where}: no axis found on the first plot"
    for x0, x1, label in shape["axes"]:  # an axis and its label inside the plot's canvas
        assert x0 >= 0 and x1 <= first["width"] + 1, (
            f"{where}: the axis {label!r} spans x = {x0:.0f}..{x1:.0f} px of a "
            f"{first['width']:.0f}-px plot: cut at the edge")
    above = shape["above"]
    assert above, f"{where}: no control above the first plot"
    top, bottom = min(c[0] for c in above), max(c[1] for c in above)
    assert bottom - top <= ROW_HEIGHT, (
        f"{where}: the controls above the first plot span y = {top:.0f}..{bottom:.0f} px, more "
        f"than one row: {sorted(above)}")
    more = shape["more"]
    if more is not None:  # the toggle beside the row's controls, not wrapped under them
        others = [c for c in above if not (abs(c[0] - more[0]) < 1 and abs(c[1] - more[1]) < 1)]
        lowest = max((c[1] for c in others), default=more[1])
        assert more[0] < lowest, (
            f"{where}: the More toggle (y = {more[0]:.0f}..{more[1]:.0f} px) wrapped under "
            f"the row's controls (lowest bottom {lowest:.0f} px): {sorted(above)}")


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_present_mode_puts_the_first_plot_on_a_projectors_first_screen(server, page, slug):
    page.set_viewport_size(SMALL_SCREEN)
    _open(page, f"{server}?page={slug}&present=1")
    _wait_for_plots(page, _canvas_count(EXPLORERS[slug]))
    page.screenshot(path=str(SCREENSHOTS / f"{slug}-present-1024.png"))
    _assert_projector_layout(page, f"{slug} present at 1024x768")
    assert page.errors == []


def test_a_link_that_shows_many_controls_keeps_them_in_one_row(server, page):
    """A teacher's ``show=`` naming more controls than fit: the first in the row, the others
    under **More controls**."""
    cls = EXPLORERS["doeblin"]
    names = [n for n in cls.knob_names()][:6]
    page.set_viewport_size(SMALL_SCREEN)
    _open(page, f"{server}?page=doeblin&present=1&show={','.join(names)}")
    _wait_for_plots(page, _canvas_count(cls))
    _assert_projector_layout(page, "doeblin present, six controls shown")


_STATUS_HEIGHT = """() => {
    const find = root => { for (const el of root.querySelectorAll('*')) {
        if (el.classList && el.classList.contains('ldx-status-card')) return el;
        const inner = el.shadowRoot && find(el.shadowRoot); if (inner) return inner; }
        return null; };
    return find(document).getBoundingClientRect().height;
}"""
_LABELS = """() => { const found = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && (el.classList.contains('bk-slider-title') || el.tagName === 'LABEL')
            && el.checkVisibility()) found.push(el.textContent.trim());
        if (el.shadowRoot) walk(el.shadowRoot); });
    walk(document); return found; }"""


def test_more_controls_and_the_status_line_open_with_a_click(server, page):
    cls = EXPLORERS["herding"]
    page.set_viewport_size(SMALL_SCREEN)
    _open(page, f"{server}?page=herding&present=1")
    _wait_for_plots(page, _canvas_count(cls))
    labels = {cls.param[n].label for n in cls.knob_names()}

    def shown() -> set:
        return {text.split(":")[0].strip() for text in page.evaluate(_LABELS)} & labels

    in_row, count = shown(), len(page.evaluate(_LABELS))
    assert 0 < len(in_row) < len(labels)
    page.get_by_role("button", name="More controls").click()
    page.wait_for_function(f"() => ({_LABELS})().length > {count}", timeout=REDRAW_TIMEOUT)
    _two_frames(page)
    assert shown() == labels  # every control, once
    page.get_by_role("button", name="Fewer controls").wait_for(timeout=REDRAW_TIMEOUT)
    page.get_by_text("Loop", exact=True).wait_for(timeout=REDRAW_TIMEOUT)  # loop options
    closed = page.evaluate(_STATUS_HEIGHT)
    assert closed <= ONE_LINE, f"the status line is {closed:.0f} px high"
    page.locator(".ldx-status-card").get_by_text("Perceptron cycling").first.click()
    page.wait_for_function(f"() => ({_STATUS_HEIGHT})() > {closed + ONE_LINE}",
                           timeout=REDRAW_TIMEOUT)  # the whole status and the page text
    page.get_by_text("Source:").first.wait_for(timeout=REDRAW_TIMEOUT)
    page.screenshot(path=str(SCREENSHOTS / "herding-present-opened.png"))
    assert page.errors == []


def _widest_step(name: str) -> int:
    """The step of lesson ``name`` whose link shows the most controls (the first such)."""
    from views.lesson import read, step_args

    shown = [len(step_args(s).get("show", [""])[-1].split(",")) for s in read(name).steps]
    return shown.index(max(shown)) + 1


@pytest.mark.parametrize("name", ["herding-edge-of-chaos", "period-doubling",
                                  "mixing-by-restarts"])
def test_a_lesson_step_in_present_mode_keeps_one_row_beside_its_caption(server, page, name):
    """A lesson's step (present mode, its caption's column beside the plots): the player,
    the step's controls and **More** in one row, the first plot on the first screen."""
    from views.lesson import read, step_args

    step = _widest_step(name)
    slug = step_args(read(name).steps[step - 1])["page"][-1]
    page.set_viewport_size(SMALL_SCREEN)
    page.goto(f"{server}?lesson={name}&step={step}", wait_until="domcontentloaded",
              timeout=LOAD_TIMEOUT)
    _wait_for_plots(page, _canvas_count(EXPLORERS[slug]))
    page.screenshot(path=str(SCREENSHOTS / f"lesson-{name}-{step}-present-1024.png"))
    _assert_projector_layout(page, f"lesson {name} step {step} at 1024x768")
    assert page.errors == []
