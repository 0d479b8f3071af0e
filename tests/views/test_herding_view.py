"""The herding page as served: the live plots follow the knobs (axes included)."""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.document import Document

from views import EXPLORERS
from views.framework.page import Page


def _figures(root) -> dict[str, object]:
    """The live page's Bokeh figures, by the first word of their title."""
    return {f.title.text.split()[0]: f for f in root.references()
            if type(f).__name__.lower() == "figure" and f.title is not None}


@pytest.fixture()
def live():
    explorer = EXPLORERS["herding"]()
    root = Page(explorer).panel().get_root(Document())
    return explorer, _figures(root)


def test_axes_follow_a_far_start(live):
    """w0 = (20, -20): the transient from w0 is in the picture, so the weight-space panels'
    axes must grow from about +-1.5 to past +-20 (they stayed put when framewise was set on the
    overlay only)."""
    explorer, figs = live
    assert figs["Cones"].x_range.end < 5
    explorer.w0 = "20, -20"
    for name in ("Cones", "Tipi"):
        x, y = figs[name].x_range, figs[name].y_range
        assert x.start < -20 < 20 < x.end and y.start < -20 < 20 < y.end


def test_moment_axis_follows_the_number_of_steps(live):
    explorer, figs = live
    assert figs["Moment"].x_range.end == pytest.approx(20_000)
    explorer.steps = 1_000
    assert figs["Moment"].x_range.end == pytest.approx(1_000)


def test_cones_and_tipi_share_one_raster_per_result():
    """Both weight-space panels draw the same attractor cloud: it is rasterized once per
    result, and a new seed gives a new raster."""
    explorer = EXPLORERS["herding"]()
    cones, tipi = explorer.plots[0], explorer.plots[1]
    assert cones.cloud == tipi.cloud
    first = explorer.drawing.raster(cones, None, None, 0)
    assert explorer.drawing.raster(tipi, None, None, 0) is first
    explorer.seed = 2
    second = explorer.drawing.raster(tipi, None, None, 0)
    assert second is not first
    assert not np.array_equal(first.dimension_values(2), second.dimension_values(2))


def test_exported_cones_are_exact_wedges_tiling_the_window():
    """Exported figures draw the cones as vector wedges from `cone_sectors`, clipped to the
    square window: their areas add up to the window's, and random points of the window fall
    in the wedge of the state `cone_labels` gives them."""
    import holoviews as hv
    from matplotlib.path import Path

    from dynamics import herding

    explorer = EXPLORERS["herding"](seed=4)
    panel = explorer.figure().values()[0]
    wedges = next(e for e in panel if isinstance(e, hv.Polygons))
    res = explorer.result()
    half = res.extent[2]
    points = np.random.default_rng(0).uniform(-half, half, (2000, 2))
    labels = herding.cone_labels(res.model.features, points)
    total = 0.0
    for poly in wedges.split():
        x, y = poly.dimension_values(0), poly.dimension_values(1)
        total += 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        inside = Path(np.column_stack([x, y])).contains_points(points)
        assert np.all(labels[inside] == poly.dimension_values("state")[0])
    assert total == pytest.approx((2 * half) ** 2, rel=1e-9)


def test_older_links_open_the_runs_settings_and_the_url_writes_their_new_names():
    """The runs' settings moved off the page (box_steps -> box.steps, data_sets, samples,
    splits, data_seed -> tables.*): a link with the old names still sets them, and the page's
    link writes them <run>.<setting>; data sets in the options' order, however ticked."""
    from dynamics.herding import data as hd

    cls = EXPLORERS["herding"]
    old = {"box_steps": "20000", "data_sets": "diabetes,digits", "samples": "2000",
           "splits": "3", "data_seed": "7"}
    explorer, messages = cls.from_query({k: [v] for k, v in old.items()})
    assert messages == []
    box, tables = explorer.jobs["box"].run, explorer.jobs["tables"].run
    assert box.steps == 20_000 and tables.data_sets == ["digits", "diabetes"]
    assert (tables.samples, tables.splits, tables.seed) == (2000, 3, 7)
    query = explorer.query()
    assert not set(old) & set(query)
    assert (query["box.steps"], query["tables.data_sets"], query["tables.seed"]) == (
        "20000", "digits,diabetes", "7")
    tables.data_sets = ["diabetes", "breast_cancer"]  # a box group, ticked in this order
    assert tables.data_sets == ["breast_cancer", "diabetes"]
    assert list(hd.DATASETS).index("breast_cancer") < list(hd.DATASETS).index("diabetes")


def test_a_link_choosing_no_data_set_opens_the_default_sets_with_a_note():
    explorer, messages = EXPLORERS["herding"].from_query({"tables.data_sets": [""]})
    tables = explorer.jobs["tables"].run
    assert tables.data_sets == tables.param.data_sets.default
    assert messages == ["Data sets: choose at least one of digits, breast cancer, diabetes."]


def test_the_tables_run_computes_summarises_and_draws():
    run = EXPLORERS["herding"]().jobs["tables"].run
    settings = dict(run.settings(), **run.quick)
    result = run.compute(settings)
    assert list(result.names) == ["diabetes"] and result.samples == settings["samples"]
    assert f"S = {settings['samples']:,} pseudo-samples, 2 splits, 1 data set." in run.summary(
        settings, result)
    assert "**diabetes (ours)**" in run.extra(settings, result)
    for plot in run.plots:
        assert len(plot.call(run, result)) > 0
