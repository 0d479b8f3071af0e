"""The bias-variance page: live panels and the sweep run."""

from __future__ import annotations

import numpy as np
import pytest

from views import EXPLORERS
from views.framework.page import Page


def test_status_splits_this_datasets_error_exactly():
    explorer = EXPLORERS["hbm"](n=6, order=3, sample=200)
    text = explorer.status()
    assert "**41 parameters** of 63" in text  # C(6,1) + C(6,2) + C(6,3)
    residual = float(text.split("(residual ")[1].split(")")[0])
    assert abs(residual) < 1e-10


def test_order_follows_n_and_the_hasse_diagram_for_small_n():
    explorer = EXPLORERS["hbm"](n=8, order=7)
    explorer.n = 5
    assert explorer.order == 5 and "n = 5" in explorer.notice
    overlay = explorer.theta_plot()
    edges, nodes = list(overlay)
    assert len(edges) == 5 * 2**4  # the edges of the 5-cube
    assert len(nodes) == 2**5 - 1  # every set but the bottom


def test_sweep_run_gives_exact_hbm_decompositions():
    """A small sweep through the page's run (in this process): the HBM residuals vanish,
    the bias falls with the order, the variance falls with N, and the summary says which model
    wins at each end."""
    explorer = EXPLORERS["hbm"](n=4, datasets=2, n_max=300, hidden=[0, 2])
    result = explorer.jobs["sweep"].compute()
    kinds = [m.kind for m in result.models]
    hbm_rows = [i for i, k in enumerate(kinds) if k == "hbm"]
    assert np.nanmax(np.abs(result.residual[hbm_rows])) < 1e-10
    assert np.all(np.diff(result.bias[hbm_rows, 0]) < 1e-12)
    assert result.variance[hbm_rows[-1], -1] < result.variance[hbm_rows[-1], 0]
    assert list(result.Ns) == [10, 30, 50, 100, 300]
    text = explorer.sweep_summary(explorer.jobs["sweep"].current_settings(), result)
    assert "Lowest total error" in text


def test_a_sweep_without_sample_sizes_is_refused():
    explorer = EXPLORERS["hbm"](n_min=20, n_max=25)
    with pytest.raises(ValueError, match="no paper sample size"):
        explorer.run_sweep(explorer.jobs["sweep"].current_settings())


def test_the_sweeps_models_are_ticked_boxes_and_come_back_in_order():
    """The sweep's orders and hidden units are boxes to tick (a MultiSelect needed Ctrl-click
    for a second choice), under the knob's label; ticked in any order, the choices are kept in
    the options' order, as a link writes them (the same run, the same cache entry)."""
    import panel as pn

    explorer = EXPLORERS["hbm"]()
    for name in ("orders", "hidden"):
        control = Page(explorer).control(name)
        boxes = [w for w in control.objects if isinstance(w, pn.widgets.CheckBoxGroup)]
        assert len(boxes) == 1 and explorer.param[name].label in control.objects[0].object
    explorer.orders = [3, 1, 12, 2]
    assert explorer.orders == [1, 2, 3, 12] and explorer.query()["orders"] == "1,2,3,12"
    assert explorer.notice == ""


def test_inference_run_sets_gibbs_and_ais_beside_the_exact_fits():
    """The paper's inference run (in this process, tiny): one AIS error per repeat and per
    dataset, the table of the three pipelines with their cost, and the verdict."""
    explorer = EXPLORERS["hbm"](n=4, order=2, sample=200, fits=2, iterations=200, chains=20,
                                ais_steps=20, ais_runs=20)
    result = explorer.jobs["inference"].compute()
    assert result.log_z_ais.shape == (2,) and result.repeat_ais.shape == (8,)
    text = explorer.inference_summary(explorer.jobs["inference"].current_settings(), result)
    assert "Gibbs gradient, AIS log Z (the paper)" in text and "s per fit" in text
    assert "Luo & Sugiyama, eq 8" in text
    ais = explorer.ais_plot(result)
    assert sum(len(layer) for layer in ais if hasattr(layer, "__len__")) > 0
