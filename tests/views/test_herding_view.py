"""The herding page as served: the live plots follow the knobs (axes included)."""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.document import Document

from views import EXPLORERS


def _figures(root) -> dict[str, object]:
    """The live page's Bokeh figures, by the first word of their title."""
    return {f.title.text.split()[0]: f for f in root.references()
            if type(f).__name__.lower() == "figure" and f.title is not None}


@pytest.fixture()
def live():
    explorer = EXPLORERS["herding"]()
    root = explorer.panel().get_root(Document())
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
    first = explorer._raster(cones, None, None, 0)
    assert explorer._raster(tipi, None, None, 0) is first
    explorer.seed = 2
    second = explorer._raster(tipi, None, None, 0)
    assert second is not first
    assert not np.array_equal(first.dimension_values(2), second.dimension_values(2))
