"""The served app in a real browser: every page loads without console errors and fits a
1024 x 768 screen, a slider move changes the plot and the URL, URLs restore state, bad URL values are refused politely, and a
screenshot of every page is saved under tests/app/screenshots/."""

from __future__ import annotations

import re
import time
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import Error as PlaywrightError

from views import EXPLORERS
from views.framework.present import PRESENT_KEYS

from .conftest import SCREENSHOTS

pytestmark = pytest.mark.browser

#: Time allowed for a page's plots to appear, and for a redraw after a slider move (ms).
LOAD_TIMEOUT = 60_000
REDRAW_TIMEOUT = 30_000


#: How many Bokeh plot canvases the page has drawn (through shadow roots).
COUNT_CANVASES = """() => {
    const found = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('bk-Canvas')) found.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    return found.length;
}"""


#: The address holds exactly the names ``names`` (in any order).
_ADDRESS_NAMES = """names => {
    const keys = [...new URLSearchParams(window.location.search).keys()];
    return keys.length === names.length && names.every(n => keys.includes(n));
}"""


#: True once every plot of the page is in place and drawn: no frame of a plot still to come
#: (``Explorer.defer_plots``) in the Bokeh document, and a canvas for each of its figures.
FRAMES_DRAWN = """() => {
    if (!(window.Bokeh && Bokeh.documents.length)) return false;
    // in the page, not in the document's models: a frame taken out stays among those a while
    let frames = 0;
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('ldx-skeleton')) frames++;
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    if (frames) return false;
    const models = [...Bokeh.documents[0]._all_models.values()];
    const figures = models.filter(m => m.constructor.__name__ === 'Figure').length;
    return (""" + COUNT_CANVASES + """)() >= figures;
}"""


def _wait_for_frames_drawn(page) -> None:
    """Wait until the plots a served page draws after its frame are all in place and drawn,
    and two animation frames more (their layout reported to the server)."""
    page.wait_for_function(FRAMES_DRAWN, timeout=LOAD_TIMEOUT)
    _two_frames(page)


def _open(page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT)
    _wait_for_frames_drawn(page)
    # once loaded, the app rewrites the address to the state drawn (page and every knob):
    # wait for it, so that a test reading the address reads the written one
    query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
    slug = query.get("page", [None])[0]
    names = (["page", *EXPLORERS[slug].setting_names(),
              *(k for k in PRESENT_KEYS if k in query)] if slug in EXPLORERS
             else ["page"] if query else [])
    page.wait_for_function(_ADDRESS_NAMES, arg=names, timeout=REDRAW_TIMEOUT)


def _wait_for_plots(page, count: int) -> None:
    """Wait until ``count`` Bokeh plot canvases are drawn (Playwright's CSS pierces shadow DOM)."""
    page.wait_for_function(f"n => ({COUNT_CANVASES})() >= n", arg=count, timeout=LOAD_TIMEOUT)
    _wait_until_idle(page)  # the last renders settled before screenshots


def _wait_until_idle(page) -> None:
    """Wait until BokehJS has rendered every root of the page (its document ``is_idle``), and
    two animation frames more (painted). Event-driven: a fixed 1.5 s wait stood here."""
    page.wait_for_function("() => Bokeh.documents.length > 0 && Bokeh.documents[0].is_idle",
                           timeout=LOAD_TIMEOUT)
    _two_frames(page)


def _two_frames(page) -> None:
    """Wait two animation frames of the page (what was laid out is painted)."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(() => r())))")


#: The smallest screen every page must fit without scrolling sideways (a classroom projector).
SMALL_SCREEN = {"width": 1024, "height": 768}
#: A laptop's screen: the plots must be on its first screen too.
WIDE_SCREEN = {"width": 1440, "height": 900}
#: Of the first plot, at least this much (px) shows on the first screen of either.
FIRST_SCREEN_PLOT = 300


def _assert_a_plot_on_the_first_screen(page, slug: str, screen: dict) -> None:
    """The top of the first plot canvas lies on the first screen, with at least
    ``FIRST_SCREEN_PLOT`` px of it showing (the page text, the controls and the navigation
    must not push every plot below the fold)."""
    top = page.evaluate("""() => {
        const tops = [];
        const walk = root => root.querySelectorAll('*').forEach(el => {
            if (el.classList && el.classList.contains('bk-Canvas')) {
                const r = el.getBoundingClientRect();
                if (r.width > 100 && r.height > 100) tops.push(r.top + window.scrollY);
            }
            if (el.shadowRoot) walk(el.shadowRoot);
        });
        walk(document);
        return Math.min(...tops);
    }""")
    assert top + FIRST_SCREEN_PLOT <= screen["height"], (
        f"{slug} at {screen['width']}x{screen['height']}: the first plot starts at y = {top:.0f}"
        f" px, less than {FIRST_SCREEN_PLOT} px of it on the first screen")


#: The narrowest data area a plot may have (px) on either first screen: a legend beside the
#: plot left the Ising moment error and the SBEED entropy 115-180 px, their ticks overprinted.
MIN_DATA_WIDTH = 250

#: For each drawn Bokeh plot: its title, data area (frame) and canvas, and the boxes of its
#: legends with entries (canvas pixels), from BokehJS's views.
_PLOT_GEOMETRY = """() => {
    const out = [];
    for (const view of Bokeh.index.all_views()) {
        if (!view.frame || !view.model.renderers || !view.el.isConnected) continue;
        const box = view.el.getBoundingClientRect();
        if (box.width === 0) continue;
        const f = view.frame.bbox;
        const legends = [];
        for (const [model, child] of view.renderer_views) {
            if (model.type === "Legend" && model.items.length > 0 && child.bbox)
                legends.push([child.bbox.x0, child.bbox.y0, child.bbox.x1, child.bbox.y1]);
        }
        out.push({title: view.model.title ? view.model.title.text : "",
                  frame: [f.x0, f.y0, f.x1, f.y1], canvas: [box.width, box.height], legends});
    }
    return out;
}"""


def _assert_plots_readable(page, slug: str, screen: dict) -> None:
    """Every plot keeps a data area at least ``MIN_DATA_WIDTH`` wide, and its legends lie
    outside the data area and inside the plot (not cut at its edge)."""
    where = f"{slug} at {screen['width']}x{screen['height']}"
    plots = page.evaluate(_PLOT_GEOMETRY)
    assert plots, f"{where}: no plot found"
    for plot in plots:
        x0, y0, x1, y1 = plot["frame"]
        assert x1 - x0 >= MIN_DATA_WIDTH, (
            f"{where}: {plot['title']!r} has a data area {x1 - x0:.0f} px wide")
        width, height = plot["canvas"]
        for lx0, ly0, lx1, ly1 in plot["legends"]:
            assert lx1 <= x0 or lx0 >= x1 or ly1 <= y0 or ly0 >= y1, (
                f"{where}: a legend of {plot['title']!r} lies over its data area")
            assert lx0 >= -1 and ly0 >= -1 and lx1 <= width + 1 and ly1 <= height + 1, (
                f"{where}: a legend of {plot['title']!r} is cut at the plot's edge")


#: A phone's screen (issue 27 item 3), and the pages checked on it: one with a timeline, one
#: with the longest sidebar.
PHONE = {"width": 390, "height": 844}
PHONE_PAGES = ("torus", "sbeed")
#: The smallest slider handle a finger can take (px); Panel's own is 14 px.
TOUCH_TARGET = 24

#: The boxes (page px) of every plot canvas, every slider handle and the sidebar.
_PHONE_BOXES = """() => {
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
    return {canvases, handles, sidebar: sidebar.bottom + window.scrollY,
            width: document.documentElement.scrollWidth, inner: window.innerWidth,
            viewport: (document.querySelector('meta[name=viewport]') || {}).content || ''};
}"""


def _assert_one_column(page, slug: str) -> None:
    """On a phone's screen the page is one column at the screen's width (viewport meta): the
    settings above the plots, every plot inside the screen, nothing scrolling sideways, slider
    handles a fingertip can take."""
    boxes = page.evaluate(_PHONE_BOXES)
    assert "width=device-width" in boxes["viewport"]
    assert boxes["width"] <= boxes["inner"] == PHONE["width"], (
        f"{slug}: the page is {boxes['width']} px wide on a {PHONE['width']}-px screen")
    assert boxes["canvases"], f"{slug}: no plot drawn at {PHONE['width']} px"
    for left, right, _ in boxes["canvases"]:
        assert left >= 0 and right <= PHONE["width"], (
            f"{slug}: a plot spans x = {left:.0f}..{right:.0f} px, off the screen")
    assert boxes["sidebar"] <= min(top for _, _, top in boxes["canvases"]), (
        f"{slug}: the settings are not above the plots")
    assert boxes["handles"], f"{slug}: no slider"
    for width, height in boxes["handles"]:
        assert min(width, height) >= TOUCH_TARGET, (
            f"{slug}: a slider handle of {width:.0f} x {height:.0f} px")


def _assert_no_sideways_scroll(page, slug: str) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{slug}: the page scrolls sideways ({width} > {inner} px)"


def _changed_canvases(page, shots) -> str:
    """How many of these (canvas, screenshot) pairs look different now, as "k of n"."""
    changed = 0
    for canvas, shot in shots:
        try:
            changed += canvas.screenshot(timeout=2000) != shot
        except Exception:  # noqa: BLE001 - a canvas gone counts as changed
            changed += 1
    return f"{changed} of {len(shots)}"


def _deep_text(page) -> str:
    """All text on the page, including inside the shadow roots of Bokeh's widgets."""
    return page.evaluate(
        """() => {
            const parts = [];
            const walk = root => {
                root.querySelectorAll('*').forEach(el => {
                    if (el.shadowRoot) walk(el.shadowRoot);
                    for (const node of el.childNodes) {
                        if (node.nodeType === 3 && node.textContent.trim()) parts.push(node.textContent.trim());
                    }
                });
            };
            walk(document);
            return parts.join(' ');
        }"""
    )


def _input_values(page) -> list[str]:
    """The values of all text and number inputs, including inside shadow roots."""
    return page.evaluate(
        """() => {
            const values = [];
            const walk = root => {
                root.querySelectorAll('*').forEach(el => {
                    if (el.shadowRoot) walk(el.shadowRoot);
                    if (el.tagName === 'INPUT') values.push(el.value);
                });
            };
            walk(document);
            return values;
        }"""
    )


def _wait_for_text(page, pattern: str) -> None:
    page.get_by_text(re.compile(pattern)).first.wait_for(timeout=REDRAW_TIMEOUT)


def _canvas_count(cls) -> int:
    """How many Bokeh canvases the page draws: one per plot panel (tables are not canvases)."""
    import holoviews as hv

    explorer = cls()
    return sum(not isinstance(explorer.element(p), hv.Table) for p in cls.plots)


def test_server_serves_the_app(server):
    with urllib.request.urlopen(server, timeout=30) as resp:
        assert resp.status == 200
        assert "Learning Dynamics Explorer" in resp.read().decode()


def test_home_page_lists_every_explorer(server, page):
    page.set_viewport_size(SMALL_SCREEN)
    _open(page, server)
    page.wait_for_selector("text=Open the explorer", timeout=LOAD_TIMEOUT)
    for cls in EXPLORERS.values():
        assert page.locator(f"a[href='?page={cls.slug}']").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "home-1024.png"), full_page=True)
    _assert_no_sideways_scroll(page, "home")
    assert page.errors == []


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_page_loads_and_a_slider_move_changes_plot_and_url(server, page, slug):
    """Every page, on a 1024 x 768 screen, draws all its plots under its title with no console
    error and does not scroll sideways (a screenshot is saved), a plot shows on the first screen
    at 1024 x 768 and at 1440 x 900, every plot keeps a data area 250 px wide with its legends
    off it on both screens, and two key presses on its
    first slider change the first plot and the address (at 1440 x 900); on torus and SBEED a
    phone's 390 x 844 gets one column (``_assert_one_column``). One load a page serves
    all these checks (they were three tests, each loading the page)."""
    cls = EXPLORERS[slug]
    page.set_viewport_size(SMALL_SCREEN)
    _open(page, f"{server}?page={slug}")
    _wait_for_plots(page, _canvas_count(cls))
    assert page.locator(f"text={cls.title}").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / f"{slug}-1024.png"), full_page=True)
    _assert_no_sideways_scroll(page, slug)
    _assert_a_plot_on_the_first_screen(page, slug, SMALL_SCREEN)
    _assert_plots_readable(page, slug, SMALL_SCREEN)
    page.set_viewport_size(WIDE_SCREEN)
    page.wait_for_timeout(300)  # the plots' new widths laid out
    page.screenshot(path=str(SCREENSHOTS / f"{slug}-1440.png"))
    _assert_a_plot_on_the_first_screen(page, slug, WIDE_SCREEN)
    _assert_plots_readable(page, slug, WIDE_SCREEN)
    assert page.errors == []
    # the slider move at 1440 x 900 (going back to 1024 x 768 first redrew every plot)
    canvas = page.locator(".bk-Canvas").first
    before = canvas.screenshot()
    others = [(c, c.screenshot()) for c in page.locator(".bk-Canvas").all()[1:]]
    url_before = page.url
    handle = page.locator(".noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("u => window.location.href !== u", arg=url_before,
                           timeout=REDRAW_TIMEOUT)
    deadline = time.monotonic() + REDRAW_TIMEOUT / 1000
    while canvas.screenshot() == before:  # the redraw, however long it takes
        assert time.monotonic() < deadline, (
            f"{slug}: the first plot did not change within {REDRAW_TIMEOUT} ms of a slider "
            f"move; {_changed_canvases(page, others)} of the other plots changed; the page "
            f"says: {_deep_text(page)[:600]!r}")
        page.wait_for_timeout(200)
    page.wait_for_timeout(500)  # the other panels of the same draw
    assert page.url != url_before
    page.screenshot(path=str(SCREENSHOTS / f"{slug}-after-slider.png"), full_page=True)
    assert page.errors == []
    if slug in PHONE_PAGES:  # the same load, on a phone's screen
        page.set_viewport_size(PHONE)
        _wait_for_frames_drawn(page)
        page.wait_for_timeout(500)  # the plots' new widths laid out
        page.screenshot(path=str(SCREENSHOTS / f"{slug}-390.png"), full_page=True)
        _assert_one_column(page, slug)
        assert page.errors == []


def test_a_link_restores_its_state_refuses_a_bad_value_and_a_typed_value(server, page):
    """One herding load for three checks (each was a test of its own, loading the page): the
    link's good values are restored (seed 42, D = 5), its bad one (steps=banana) is refused
    with a message in words and no traceback, and a bad typed value (w0 = "1, banana") is
    refused with a message, the last good value back and the address unchanged."""
    _open(page, f"{server}?page=herding&seed=42&n_states=5&steps=banana")
    _wait_for_plots(page, len(EXPLORERS["herding"].plots))
    assert "42" in _input_values(page)
    text = _deep_text(page)
    assert re.search(r"States D:\s*5", text), text[:2000]
    # said in the page's notice (the one place: no toast over the plots)
    notice = page.locator(".ldx-notice")
    notice.get_by_text("Settings adjusted").wait_for(timeout=REDRAW_TIMEOUT)
    notice.get_by_text("Steps T must be a whole number from 100 to 1,000,000; got 'banana'"
                       ).wait_for(timeout=REDRAW_TIMEOUT)
    assert "Traceback" not in _deep_text(page)
    url = page.url
    field = page.get_by_label("Initial weights w0")
    field.fill("1, banana")
    field.press("Enter")
    _wait_for_text(page, "Initial weights w0 must be numbers separated by commas")
    assert field.input_value() == "0"  # the last good value is back
    assert page.url == url
    assert "Traceback" not in _deep_text(page)
    page.screenshot(path=str(SCREENSHOTS / "herding-bad-value.png"), full_page=True)
    assert page.errors == []


def _mean_abs_difference(png_a: bytes, png_b: bytes) -> float:
    import io

    import numpy as np
    from PIL import Image

    a = np.asarray(Image.open(io.BytesIO(png_a)).convert("L"), dtype=float)
    b = np.asarray(Image.open(io.BytesIO(png_b)).convert("L"), dtype=float)
    if a.shape != b.shape:
        return float("inf")
    return float(np.abs(a - b).mean())


def test_bifurcation_zoom_recomputes_and_resets(server, page):
    cls = EXPLORERS["bifurcation"]
    _open(page, f"{server}?page=bifurcation")
    _wait_for_plots(page, _canvas_count(cls))
    canvas = page.locator(".bk-Canvas").first
    before = canvas.screenshot()
    others = [(c, c.screenshot()) for c in page.locator(".bk-Canvas").all()[1:]]
    # the other plots' screenshots scrolled the page down: the wheel must land on the first
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    # what the server sends from now on: a zoom the server hears of comes back as a new
    # diagram (Bokeh changes the picture in the browser alone too, so pixels cannot tell)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    received = []
    cdp.on("Network.webSocketFrameReceived",
           lambda event: received.append(len(event["response"]["payloadData"])))
    # Wheel-zoom into the orbit diagram near the accumulation point (left third of the plot).
    page.mouse.move(box["x"] + 0.35 * box["width"], box["y"] + 0.5 * box["height"])
    for _ in range(4):
        page.mouse.wheel(0, -300)
        page.wait_for_timeout(300)
    # the window is recomputed at full resolution on the server: wait for its image (over
    # 10 kB) to arrive and be drawn (an 8-s pause stood here)
    deadline = time.monotonic() + REDRAW_TIMEOUT / 1000
    while sum(received) <= 10_000 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    _wait_until_idle(page)
    zoomed = canvas.screenshot()
    assert _mean_abs_difference(before, zoomed) > 1.0
    # the recomputed diagram (its image: over 10 kB) came from the server
    assert sum(received) > 10_000, f"the server sent {sum(received)} bytes after the zoom"
    page.screenshot(path=str(SCREENSHOTS / "bifurcation-zoomed.png"), full_page=True)
    page.get_by_role("button", name="Reset zoom").click()
    # The reset first sets the old plot's ranges back (its canvas redraws), then replaces the
    # zoomable plot by a new one: a screenshot can catch the old canvas as it is taken away, so
    # the diagram is read until it shows the whole view again (the locator finds the new canvas)
    deadline = time.monotonic() + REDRAW_TIMEOUT / 1000
    zoomed_off = _mean_abs_difference(before, zoomed)
    while True:
        _wait_until_idle(page)
        try:
            reset = canvas.screenshot(timeout=10_000)
        except PlaywrightError as error:  # detached while the new plot took its place
            if "not attached" not in str(error) or time.monotonic() > deadline:
                raise
            continue
        if _mean_abs_difference(before, reset) < zoomed_off or time.monotonic() > deadline:
            break
        page.wait_for_timeout(100)
    assert _mean_abs_difference(before, reset) < zoomed_off
    assert page.errors == []


_BUTTON_WITH = """label => { let found = false;
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.tagName === 'BUTTON' && el.textContent.trim() === label) found = true;
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document); return found; }"""


def test_an_export_button_shows_a_sign_while_it_draws(server, browser):
    """Issue 27 item 4: a static export that takes seconds (the bifurcation diagram as PDF:
    4.7 s here, 9 s on a loaded machine) says so on its button ("PDF …", disabled) from the
    click until the file arrives, and the button is itself again afterwards."""
    context = browser.new_context(accept_downloads=True, viewport=WIDE_SCREEN)
    page = context.new_page()
    try:
        _open(page, f"{server}?page=bifurcation&resolution=200")
        _wait_for_plots(page, _canvas_count(EXPLORERS["bifurcation"]))
        with page.expect_download(timeout=REDRAW_TIMEOUT) as download:
            page.get_by_role("button", name="PDF", exact=True).click()
            page.wait_for_function(_BUTTON_WITH, arg="PDF …", timeout=5_000, polling=20)
        with open(download.value.path(), "rb") as f:
            assert f.read(5) == b"%PDF-"
        page.wait_for_function(_BUTTON_WITH, arg="PDF", timeout=10_000)
        assert page.get_by_role("button", name="PDF", exact=True).is_enabled()
    finally:
        context.close()
