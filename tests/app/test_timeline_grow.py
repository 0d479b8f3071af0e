"""Pictures that build up in time, in Chromium: on every page with a timeline, the data the
browser draws at the first frame is less than at the last and holds only what happened by then
(every growing layer's source read back, no value of its time dimension beyond t; a dense
cloud's raster lights only pixels whose first frame is at most the player's); on herding and torus the drawn points
are the engine's up to t; the faded rest comes and goes with its box. Helpers from
``test_timeline.py``."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import herding, torus
from views import EXPLORERS

from tests.views._url_fuzz import size_knobs

from .test_timeline import _open

pytestmark = pytest.mark.browser

#: Every page with a timeline (opened at its small sizes, ``size_knobs``).
TIMED = [slug for slug, cls in EXPLORERS.items() if cls.timeline is not None]

#: Per growing layer (Bokeh name ending "-L<j>"): its name, its time column's values (a
#: raster: the first-visit steps of its lit pixels) and how much it draws (rows, lit pixels).
GROWN = """() => {
    const out = [];
    for (const m of Bokeh.documents[0]._all_models.values()) {
        if (!(m.name && m.name.startsWith('ldx-time') && /-L[0-9]+$/.test(m.name))) continue;
        const d = m.data;
        if ('image' in d) {
            const img = d.image[0], first = d.t[0], seen = [];
            let lit = 0;
            for (let k = 0; k < img.length; k++) if (img[k] > 0) { lit++; seen.push(first[k]); }
            out.push({name: m.name, values: seen.length ? [Math.max(...seen)] : [], amount: lit});
        } else {
            const keys = Object.keys(d);
            out.push({name: m.name, columns: keys, amount: d[keys[0]].length,
                      data: Object.fromEntries(keys.map(k => [k, Array.from(d[k]).map(Number)]))});
        }
    }
    return out;
}"""


def _at(page, value: int):
    page.evaluate("v => { window.ldxTimelinePlayer.value = v; }", value)
    page.wait_for_function("v => window.ldxTimeline && window.ldxTimeline.value === v", arg=value)
    page.wait_for_timeout(50)  # the watcher's pass after late plots (a zero-delay timeout)
    return page.evaluate(GROWN)


def _dim(explorer, name: str) -> str:
    """The time column of the growing layer ``name`` (its panel's ``grow`` mark)."""
    plot = name.split("-")[-3]
    mark = next(m for m in explorer.timeline.marks if m.kind == "grow" and m.plot == plot)
    return mark.dims[0].name if hasattr(mark.dims[0], "name") else mark.dims[0]


def _threshold(explorer, name: str, frames, i: int) -> float:
    plot = name.split("-")[-3]
    mark = next(m for m in explorer.timeline.marks if m.kind == "grow" and m.plot == plot)
    return mark.data(frames, i)


@pytest.mark.parametrize("slug", TIMED)
def test_every_timeline_page_draws_at_t_only_what_happened_by_t(server, page, slug):
    from urllib.parse import parse_qsl

    query = "&".join(f"{k}={v}" for k, v in size_knobs(EXPLORERS[slug]).items())
    _open(page, f"{server}?page={slug}&{query}")
    for _ in range(6):  # every plot drawn (the page paints those below the fold later)
        page.mouse.wheel(0, 1200)
    explorer, _ = EXPLORERS[slug].from_query({k: [v] for k, v in parse_qsl(query)})
    frames = explorer.frames()
    end = {g["name"]: g["amount"] for g in _at(page, len(frames) - 1)}
    assert end, f"{slug}: no growing layer in the page"
    start = _at(page, 0)
    for g in start:
        limit = _threshold(explorer, g["name"], frames, 0)
        if "data" in g:
            dim = _dim(explorer, g["name"])
            column = g["data"].get(dim, g["data"].get("left"))
            values = np.asarray(column, float)
            assert not np.any(values > limit), (slug, g["name"])
        else:  # a raster: the first frame showing each lit pixel, frame 0 here
            assert not np.any(np.asarray(g["values"]) > 0), (slug, g["name"])
    assert any(g["amount"] < end[g["name"]] for g in start if g["name"] in end), slug
    assert page.errors == []


def test_herding_and_torus_draw_the_engines_states_up_to_t(server, page):
    _open(page, f"{server}?page=torus&steps=2000")
    features, moments = torus.irrational_rotation_model(seed=4)
    _, rational = torus.rational_rotation_model(13, seed=4)
    orbit = torus.lattice_coordinates(features, herding.herd(features, rational, 2000).weights)
    for t in (0, 5, 300):
        drawn = next(g for g in _at(page, t) if "-rational_plot-" in g["name"])["data"]
        n = min(t + 1, 13)
        np.testing.assert_allclose(drawn["c1"], orbit[:n, 0], rtol=1e-6)
        np.testing.assert_allclose(drawn["c2"], orbit[:n, 1], rtol=1e-6)
        np.testing.assert_array_equal(drawn["t"], np.arange(n))
    _open(page, f"{server}?page=herding&steps=2000")
    model = herding.random_model(6, 2, seed=1)
    w = herding.herd(model.features, model.moments, 2000, w0=np.zeros(2), eta=1.0).weights
    error = herding.moment_error(model.features, herding.herd(
        model.features, model.moments, 2000, w0=np.zeros(2)).states, model.moments,
        probabilities=model.probabilities, seed=1)
    for t in (120, 1000):
        grown = _at(page, t)
        curve = next(g for g in grown if "-moment_plot-" in g["name"])["data"]
        T = np.asarray(curve["T"])
        assert T.max() <= t and len(T) > 10
        rows = np.searchsorted(error.t, T)
        np.testing.assert_array_equal(error.t[rows], T)
        np.testing.assert_allclose(curve["error"], error.herding[rows], rtol=1e-6)
        cloud = next(g for g in grown if "-cones_plot-" in g["name"])
        assert cloud["amount"] > 0 and max(cloud["values"]) <= t  # frame t is step t here
    assert np.isfinite(w).all()
    assert page.errors == []


def test_the_rest_shows_faded_with_its_box(server, page):
    _open(page, f"{server}?page=torus&steps=2000")
    _at(page, 3)  # visits 0..3 of the 13 drawn, the other 9 not
    ghost = """n => { for (const m of Bokeh.documents[0]._all_models.values())
        if (m.name && /-rational_plot-[0-9]+-G0$/.test(m.name)) return m.data.c1.length === n;
        return false; }"""
    page.wait_for_function(ghost, arg=0)
    box = page.locator(".ldx-timeline-faded input").first
    box.click()
    page.wait_for_function(ghost, arg=9)
    box.click()
    page.wait_for_function(ghost, arg=0)
    assert page.errors == []


#: The cones panel's growing raster: its lit pixels, and the pixels its first-visit column
#: says are shown by frame ``i`` (a first frame at most i; 65,535: never visited).
CLOUD = """i => {
    for (const m of Bokeh.documents[0]._all_models.values()) {
        if (!(m.name && /-cones_plot-[0-9]+-L0$/.test(m.name))) continue;
        const img = m.data.image[0], first = m.data.t[0];
        let lit = 0, due = 0;
        for (let k = 0; k < img.length; k++) { if (img[k] > 0) lit++; if (first[k] <= i) due++; }
        return {size: img.length, lit, due, columns: first.length};
    }
    return null;
}"""
def test_a_zoomed_cloud_keeps_building_up_in_time(server, page):
    """A zoom re-rasterizes a cloud that builds up in time: the new raster is cut at the
    player's frame by its own first-visit column, which the server sends after the raster
    (a column Bokeh merges into the cut drawn); zoomed out, the whole cloud still shows at the
    last frame and only what happened by t at t."""
    _open(page, f"{server}?page=herding&steps=2000")
    last = len(EXPLORERS["herding"](steps=2000).frames()) - 1
    _at(page, last)
    before = page.evaluate(CLOUD, last)
    assert before["lit"] == before["due"] > 0
    canvas = page.locator(".bk-Canvas").first  # the cones panel: the page's first
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + 0.5 * box["width"], box["y"] + 0.5 * box["height"])
    page.mouse.wheel(0, 300)  # zoomed out: the server re-rasterizes the wider window
    page.wait_for_function(f"() => ({CLOUD})({last}).size !== {before['size']}",
                           timeout=60_000)
    page.wait_for_function(f"() => {{ const c = ({CLOUD})({last}); "
                           "return c.columns === c.size; }", timeout=60_000)
    zoomed = page.evaluate(CLOUD, last)
    assert zoomed["lit"] == zoomed["due"] > 0, zoomed
    _at(page, last // 2)
    middle = page.evaluate(CLOUD, last // 2)
    assert 0 < middle["lit"] == middle["due"] < zoomed["lit"], middle
    assert page.errors == []
