"""The timeline in Chromium on the pages whose frames are arrays (the Ising samples, the PMD
particles, the Doeblin race's histograms): scrubbing draws the engine's state at t with no
websocket message from the client but the throttled time; a fresh Ising page plays from the
start and its handle shows the frame drawn. Helpers from ``test_timeline.py``; a file of its
own so that the two run on both workers."""

from __future__ import annotations

import numpy as np
import pytest

from .test_timeline import CHANGED, PRINTS, _client_events, _open, _scrub

pytestmark = pytest.mark.browser


#: Per page: a small link, the mark read back in the browser (its Bokeh name's end), the column
#: of its source compared, and the per-frame array of the page's frames that it draws.
ARRAY_PAGES = {
    "ising": ("L=32&steps=200", "-herd_image-0", "image", "herd"),
    "pmd": ("n_data=200&particles=400", "-cloud_plot-0", "t1", "px"),
    "doeblin": ("log_budget=4", "-race_plot-0", "top", "exact"),
}

#: A column of the mark whose name ends with ``suffix``, flat (an image's first array).
COLUMN = """([suffix, col]) => {
    for (const m of Bokeh.documents[0]._all_models.values()) {
        if (m.name && m.name.startsWith('ldx-time') && m.name.endsWith(suffix)) {
            const v = m.data[col];
            return Array.from(col === 'image' ? v[0] : v);
        }
    }
    return null;
}"""


def _expected(slug: str, query: str, name: str, t: int) -> list:
    """What the browser must draw at ``t``: the page's frame (the engine's state, see
    ``tests/views/test_timeline.py``), as Bokeh holds it (images row 0 at the bottom)."""
    from urllib.parse import parse_qsl

    from views import EXPLORERS

    explorer, _ = EXPLORERS[slug].from_query({k: [v] for k, v in parse_qsl(query)})
    explorer.t = t
    frames = explorer.frames()
    row = frames.arrays[name][explorer.frame_index()]
    if slug == "ising":
        row = row[::-1]
    return [float(v) for v in np.asarray(row, dtype=np.float32).ravel()]


@pytest.mark.parametrize("slug", list(ARRAY_PAGES))
def test_scrubbing_pages_of_arrays_redraws_the_engines_state(server, page, slug):
    query, mark, column, name = ARRAY_PAGES[slug]
    sent, models = _open(page, f"{server}?page={slug}&{query}")
    end = models["end"]
    page.locator(".ldx-timeline").first.evaluate("e => e.scrollIntoView({block: 'start'})")
    before = page.evaluate(PRINTS)
    start = len(sent)
    values = [end // 5, end // 3, end // 2]
    _scrub(page, values)
    k = values[-1]
    page.wait_for_function("v => window.ldxTimeline && window.ldxTimeline.value === v", arg=k)
    page.wait_for_function(CHANGED, arg=[before, 1])
    t = int(page.evaluate("() => window.ldxTimeline.t"))
    handle = page.locator(".ldx-timeline-player input[type=range]").evaluate("el => el.value")
    assert int(handle) == k
    drawn = page.evaluate(COLUMN, [mark, column])
    assert drawn == _expected(slug, query, name, t)
    page.wait_for_function("t => window.location.search.includes('t=' + t)", arg=t)
    events = _client_events(sent[start:])
    others = [e for e in events if e.get("model", {}).get("id") != models["sync"]
              and not (e.get("model", {}).get("id") in models["locations"]
                       and e.get("attr") in ("href", "search", "hash"))]
    assert others == []
    assert page.errors == []


def test_a_fresh_ising_page_plays_from_the_start_and_the_handle_shows_the_frame(server, page):
    """The old bug: on a fresh Ising page Play did nothing (the frame was the last sample and
    the player played once) and the handle was drawn at 10 % while the plot showed the end."""
    query = "L=32&steps=200"
    _, models = _open(page, f"{server}?page=ising&{query}")
    end = models["end"]
    slider = page.locator(".ldx-timeline-player input[type=range]")
    assert int(slider.evaluate("el => el.value")) == end == int(slider.evaluate("el => el.max"))
    assert page.evaluate(COLUMN, ["-sw_image-0", "image"]) == _expected("ising", query, "sw", 200)
    # at 30 frames a second: the default pace plays any run in about 15 s
    page.evaluate("() => { __ldxPlayer.interval = 33; }")
    before = page.evaluate(PRINTS)
    page.locator(".ldx-timeline-player button.play").click()
    # play at the end starts again from the first sample
    page.wait_for_function("() => __ldxPlayer.direction === 1 && __ldxPlayer.value < 20")
    page.wait_for_function(CHANGED, arg=[before, 2])
    page.wait_for_function("end => __ldxPlayer.value === end && __ldxPlayer.direction === 0",
                           arg=end, timeout=30_000)
    assert int(slider.evaluate("el => el.value")) == end
    assert page.evaluate("() => window.ldxTimeline.value") == end
    assert page.evaluate(COLUMN, ["-sw_image-0", "image"]) == _expected("ising", query, "sw", 200)
    # paused in the middle, the handle and the picture agree
    page.locator(".ldx-timeline-player button.play").click()
    page.wait_for_function("() => __ldxPlayer.value > 50")
    page.locator(".ldx-timeline-player button.pause").click()
    page.wait_for_function("() => __ldxPlayer.direction === 0")
    k = page.evaluate("() => __ldxPlayer.value")
    assert int(slider.evaluate("el => el.value")) == k == page.evaluate(
        "() => window.ldxTimeline.value")
    t = int(page.evaluate("() => window.ldxTimeline.t"))
    assert t == k + 1  # one frame per sample, from sample 1
    assert page.evaluate(COLUMN, ["-herd_image-0", "image"]) == _expected("ising", query,
                                                                         "herd", t)
    assert page.errors == []
