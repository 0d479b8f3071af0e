"""The shared machinery of views/framework/: memoized styling, the lazy export backend, warmup."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

import views
from views.framework.figure import _EXPORTING, style
from views.framework.page import Page


def _options(element, backend="bokeh"):
    return {group: hv.Store.lookup_options(backend, element, group).kwargs
            for group in ("plot", "style")}


@pytest.mark.parametrize("options", [
    dict(color="#d62728", bokeh=dict(line_width=3), mpl=dict(linewidth=2)),
    dict(logx=True, logy=True, title="T"),
    dict(cmap=["#000000", "#ffffff"], clim=(-0.5, 1.5), bokeh=dict(tools=["hover"])),
])
def test_memoized_style_matches_plain_opts(options):
    """A restyled fresh element gets the same options as .opts gives, in both backends."""
    options = dict(options)
    bokeh, mpl = options.pop("bokeh", {}), options.pop("mpl", {})
    token = _EXPORTING.set(True)
    try:
        for _ in range(3):  # first call builds the option tree, later calls reuse it
            data = np.random.default_rng(0).random((5, 2))
            cls = hv.Image if "cmap" in options else hv.Curve
            styled = style(cls(data), bokeh=bokeh, mpl=mpl, **options)
            plain = cls(data).opts(**options, **bokeh, backend="bokeh").opts(**options, **mpl,
                                                              backend="matplotlib")
            for backend in ("bokeh", "matplotlib"):
                assert _options(styled, backend) == _options(plain, backend)
    finally:
        _EXPORTING.reset(token)


def test_restyling_keeps_earlier_options():
    """Styling twice (element options, then the panel title) keeps both, and a second
    element styled the same way shares the option tree instead of building a new one."""
    a = style(style(hv.Curve([1, 2, 3]), color="red"), title="panel")
    b = style(style(hv.Curve([3, 2, 1]), color="red"), title="panel")
    assert _options(a)["style"]["color"] == "red"
    assert _options(a)["plot"]["title"] == "panel"
    assert a.id == b.id
    c = style(style(hv.Curve([3, 2, 1]), color="blue"), title="panel")
    assert c.id != a.id and _options(c)["style"]["color"] == "blue"


def test_views_warmup_builds_a_page():
    views.warmup()  # must not raise; the server calls it at start


def test_raster_image_is_drawn_like_an_image():
    """RasterImage gets hv.Image's plotting classes and default options in both backends."""
    from views.framework import RasterImage, matplotlib_backend

    matplotlib_backend()
    data = np.random.default_rng(1).random((4, 3))
    for backend in ("bokeh", "matplotlib"):
        assert hv.Store.registry[backend][RasterImage] is hv.Store.registry[backend][hv.Image]
        for group in ("plot", "style", "norm"):
            assert (hv.Store.lookup_options(backend, RasterImage(data), group).kwargs
                    == hv.Store.lookup_options(backend, hv.Image(data), group).kwargs)


def test_live_panels_skip_the_image_compositor(monkeypatch):
    """No HoloViews compositor runs on a slider move of the herding page (three images): the
    `nodata` compositor would wrap each image panel's DynamicMap and re-process every frame."""
    from bokeh.document import Document
    from holoviews.core.options import Compositor

    explorer = views.EXPLORERS["herding"]()
    Page(explorer).panel().get_root(Document())
    calls = []
    collapse = Compositor.collapse_element.__func__
    monkeypatch.setattr(Compositor, "collapse_element",
                        classmethod(lambda cls, *a, **k: calls.append(1) or collapse(cls, *a, **k)))
    explorer.seed = 7
    assert explorer.error == ""
    assert calls == []


def test_count_points_matches_a_histogram():
    """The raster of a cloud counts the points per pixel: np.histogram2d over the same pixel
    edges, rows from the bottom (y ascending), empty pixels NaN."""
    from views.framework import count_points

    rng = np.random.default_rng(3)
    x, y = rng.normal(size=5000), rng.normal(scale=0.5, size=5000)
    xs, ys, counts = count_points(x, y, (-2.0, 2.5), (-1.0, 1.0), 30, 20)
    assert counts.shape == (20, 30)
    np.testing.assert_allclose(xs, -2.0 + 4.5 * (np.arange(30) + 0.5) / 30)
    np.testing.assert_allclose(ys, -1.0 + 2.0 * (np.arange(20) + 0.5) / 20)
    hist, _, _ = np.histogram2d(x, y, bins=(np.linspace(-2.0, 2.5, 31), np.linspace(-1.0, 1.0, 21)))
    expected = np.where(hist.T > 0, hist.T, np.nan)
    np.testing.assert_array_equal(counts, expected)


def test_warmup_rasters_runs_in_a_thread():
    """The server runs it in a background thread while sessions are served."""
    import threading

    errors = []

    def run():
        try:
            views.warmup_rasters()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive() and errors == []


def test_redraw_knobs_follow_depends_or_ignores():
    from views.framework import Plot
    from views.framework.runs import run_key

    herding = views.EXPLORERS["herding"]()
    words = next(p for p in herding.plots if p.method == "words_plot")
    # the runs' settings are the run objects' (box.steps, tables.data_sets...), not page
    # knobs (as box_steps, data_sets... were): no live panel redraws when one moves
    runs = {run_key(job.run.key, k) for job in herding.jobs.values()
            for k in job.run.knob_names()}
    assert {"box.steps", "tables.data_sets", "tables.samples", "tables.seed"} <= runs
    assert not {"box_steps", "data_sets", "samples", "splits", "data_seed"} & set(
        herding.knob_names())
    assert herding.redraw_knobs(words) == [k for k in herding.knob_names() if k != "max_lag"]
    doeblin = views.EXPLORERS["doeblin"]()
    race = next(p for p in doeblin.plots if p.method == "race_plot")
    assert doeblin.redraw_knobs(race) == list(race.depends) and "log_budget" in race.depends
    with pytest.raises(ValueError, match="not both"):
        Plot(views.EXPLORERS["herding"].words_plot, title="t", ignores=("max_lag",),
             depends=("seed",))


def test_a_knob_change_draws_the_zoomable_plot_whole_as_a_fresh_load_would():
    """A knob move draws the new result over its full range (x and y), as a fresh load of the
    page's URL would, and resets the window that exports use: a kept zoom window showed the old
    temperature range after the range knob moved, and w_1's y window after choosing w_2."""
    explorer = views.EXPLORERS["bifurcation"]()
    plot = explorer.plots[0]
    assert plot.zoom and plot.cloud is not None
    dmap = Page(explorer).dynamic(plot)
    dmap[()]
    first = explorer.drawing.panel_element(plot, cloud=True).dimension_values(1)
    window = (-0.9, 0.0)  # w_1 spans -1.08..0.22 there, w_2 -0.05..1.03
    explorer.windows[plot.method].event(x_range=window, y_range=(first.min(), first.max()))
    explorer.coordinate = 2
    assert explorer.windows[plot.method].x_range is None
    raster = next(layer for layer in dmap[()] if isinstance(layer, hv.Image))
    cloud = explorer.drawing.panel_element(plot, cloud=True).dimension_values(1)
    lo, hi = raster.range(1)
    assert lo <= cloud.min() and hi >= cloud.max()
    x0, x1 = raster.range(0)
    assert x0 <= explorer.log_t[0] + 0.01 and x1 >= explorer.log_t[1] - 0.01
    explorer.log_t = (-1.2, -0.5)
    raster = next(layer for layer in dmap[()] if isinstance(layer, hv.Image))
    x0, x1 = raster.range(0)
    assert abs(x0 - -1.2) < 0.02 and abs(x1 - -0.5) < 0.02  # the raster pads by 2 %


def test_a_cloud_in_part_of_its_window_keeps_one_pixel_per_screen_pixel():
    """``dense(frame=...)``: a cloud filling the left half and a quarter of the height of the
    plot's window gets half the raster's columns and a quarter of its rows (the screen pixels
    it covers), over the cloud's own extent; without a frame, the full raster."""
    from views.framework import dense

    rng = np.random.default_rng(0)
    cloud = hv.Points(np.c_[rng.uniform(0.0, 1.0, 10_000), rng.uniform(0.0, 0.5, 10_000)])
    x_range, y_range = (0.0, 1.0), (0.0, 0.5)
    full = dense(cloud, threshold=0, x_range=x_range, y_range=y_range, width=400, height=340)
    part = dense(cloud, threshold=0, x_range=x_range, y_range=y_range, width=400, height=340,
                 frame=((0.0, 2.0), (-1.0, 1.0)))
    assert full.dimension_values(2, flat=False).shape == (340, 400)
    assert part.dimension_values(2, flat=False).shape == (85, 200)
    assert part.bounds.lbrt() == pytest.approx((0.0, 0.0, 1.0, 0.5))
    # uniform points: a pixel of n pixels is empty with probability exp(-10^4 / n)
    for raster, pixels in ((full, 340 * 400), (part, 85 * 200)):
        filled = (raster.dimension_values(2) > 0).mean()
        assert filled == pytest.approx(1 - np.exp(-10_000 / pixels), abs=0.02)


def test_cloud_panels_send_the_cloud_at_its_share_of_the_window():
    """The herding cones: the attractor covers part of the cones' square, so its live raster
    is smaller than the 400 x 340 frame; exports keep the full resolution."""
    from views import EXPLORERS

    explorer = EXPLORERS["herding"]()
    live = explorer.drawing.windowed(explorer.plots[0])
    raster = [layer for layer in live][-1]
    h, w = raster.dimension_values(2, flat=False).shape
    assert w < 400 and h < 340
    token = _EXPORTING.set(True)
    try:
        exported = [layer for layer in explorer.drawing.windowed(explorer.plots[0])][-1]
    finally:
        _EXPORTING.reset(token)
    assert exported.dimension_values(2, flat=False).shape == (340, 400)


def test_integer_ticks_tick_a_discrete_axis_at_whole_numbers():
    """A discrete axis (states, levels) is ticked at whole numbers, at most ``most`` of them at
    a stride of 1, 2 or 5 times a power of ten: SBEED's four states were ticked at -0.5, 0,
    0.5, ..., 3.5."""
    from views.framework import integer_ticks

    assert integer_ticks(-0.5, 3.5) == [0, 1, 2, 3]
    assert integer_ticks(0, 59) == [0, 10, 20, 30, 40, 50]
    assert integer_ticks(1, 12) == [2, 4, 6, 8, 10, 12]
    assert integer_ticks(0, 1000, most=5) == [0, 500, 1000]  # 200 would make six
    assert integer_ticks(3, 3) == [3] and integer_ticks(0.2, 0.8) == []
