"""The bifurcation page: zoom recomputes the window at full resolution, reset returns to the
knobs' range, the cascade table reports the refined doublings, bad settings show a message."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

from views.pages.bifurcation import BifurcationExplorer
from views.framework.page import Page


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
    stream = explorer.windows["orbit_annotations"]
    stream.event(x_range=(-1.0, -0.9), y_range=(-2.0, 2.0))
    # the exported panel (at the default time: no timeline marks, only the window's data)
    overlay = explorer.figure(only=(explorer.plots[0].method,)).values()[0]
    xs = np.concatenate([el.dimension_values(0) for el in overlay.values()
                         if isinstance(el, (hv.Points, hv.Image))])
    assert xs.min() >= -1.0 - 1e-9 and xs.max() <= -0.9 + 1e-9
    Page(explorer).reset_zoom()
    assert explorer.windows["orbit_annotations"].x_range is None
    assert len(_temperatures(explorer.orbit_cloud())) == explorer.resolution


def test_cascade_table_lists_refined_doublings(explorer):
    res = explorer.result()
    table = explorer.cascade_table()
    assert len(table) == len(res.cascade.periods) + (res.cascade.t_thresh_extrapolated is not None)
    # The default model's first doubling is the analytic T_1 = eta * lambda_max(Cov) / 2.
    assert np.isclose(res.cascade.temperatures[0], res.first_doubling, rtol=1e-6)
    assert list(res.cascade.periods[:4]) == [2, 4, 8, 16]


def test_plotted_weight_is_bounded_by_k_and_follows_it():
    """w_k <= K: the knob's bounds follow K, lowering K below w_k clamps it with a notice, and
    the page keeps responding (it used to freeze with an error once w_k > K)."""
    e = BifurcationExplorer(n_features=3, coordinate=3, resolution=100, burn_in=500, keep=32)
    assert e.param["coordinate"].bounds == (1, 3)
    with pytest.raises(ValueError):
        e.coordinate = 4
    e.n_features = 2
    assert e.coordinate == 2 and e.param["coordinate"].bounds == (1, 2)
    assert "wₖ" in e.notice and "K = 2" in e.notice
    before = e.orbit_cloud().dimension_values(1)
    e.eta = 0.8
    assert e.error == ""
    assert not np.array_equal(before, e.orbit_cloud().dimension_values(1))
    e.n_features = 3
    assert e.param["coordinate"].bounds == (1, 3) and e.coordinate == 2 and e.notice == ""
