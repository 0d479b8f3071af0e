"""The bifurcation page: zoom recomputes the window at full resolution, reset returns to the
knobs' range, the cascade table reports the refined doublings, bad settings show a message."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

from views.bifurcation import BifurcationExplorer


@pytest.fixture(scope="module")
def explorer():
    return BifurcationExplorer(resolution=200, burn_in=1000, keep=64)


def _temperatures(cloud) -> np.ndarray:
    return np.unique(cloud.dimension_values(0))


def test_zoom_recomputes_window_at_full_resolution(explorer):
    full = _temperatures(explorer.orbit_cloud())
    assert len(full) == explorer.resolution
    assert np.isclose(full[0], explorer.log_t[0]) and np.isclose(full[-1], explorer.log_t[1])
    window = (-1.0, -0.9)
    zoomed = _temperatures(explorer.orbit_cloud(x_range=window))
    assert len(zoomed) == explorer.resolution  # full resolution inside the window
    assert np.isclose(zoomed[0], window[0]) and np.isclose(zoomed[-1], window[1])


def test_export_follows_zoom_and_reset(explorer):
    stream = explorer._view["orbit_annotations"]
    stream.event(x_range=(-1.0, -0.9), y_range=(-2.0, 2.0))
    overlay = explorer.element(explorer.plots[0])
    xs = np.concatenate([el.dimension_values(0) for el in overlay.values()
                         if isinstance(el, (hv.Points, hv.Image))])
    assert xs.min() >= -1.0 - 1e-9 and xs.max() <= -0.9 + 1e-9
    explorer.reset_zoom()
    assert explorer._view["orbit_annotations"].x_range is None
    assert len(_temperatures(explorer.orbit_cloud())) == explorer.resolution


def test_cascade_table_lists_refined_doublings(explorer):
    res = explorer.result()
    table = explorer.cascade_table()
    assert len(table) == len(res.cascade.periods) + (res.cascade.t_thresh_extrapolated is not None)
    # The default model's first doubling is the analytic T_1 = eta * lambda_max(Cov) / 2.
    assert np.isclose(res.cascade.temperatures[0], res.first_doubling, rtol=1e-6)
    assert list(res.cascade.periods[:4]) == [2, 4, 8, 16]


def test_coordinate_beyond_k_shows_message_and_keeps_plot():
    e = BifurcationExplorer(resolution=100, burn_in=500, keep=32)
    e.figure()
    e.coordinate = 3
    e.figure()
    assert "k <= K = 2" in e.error
    e.coordinate = 2
    e.figure()
    assert e.error == ""
