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
    explorer = EXPLORERS["hbm"](**{"n": 4, "sweep.datasets": 2, "sweep.n_max": 300,
                                   "sweep.hidden": [0, 2]})
    job = explorer.jobs["sweep"]
    result = job.compute()
    kinds = [m.kind for m in result.models]
    hbm_rows = [i for i, k in enumerate(kinds) if k == "hbm"]
    assert np.nanmax(np.abs(result.residual[hbm_rows])) < 1e-10
    assert np.all(np.diff(result.bias[hbm_rows, 0]) < 1e-12)
    assert result.variance[hbm_rows[-1], -1] < result.variance[hbm_rows[-1], 0]
    assert list(result.Ns) == [10, 30, 50, 100, 300]
    text = job.run.summary(job.current_settings(), result)
    assert "Lowest total error" in text


def test_a_sweep_without_sample_sizes_is_refused():
    explorer = EXPLORERS["hbm"](**{"sweep.n_min": 20, "sweep.n_max": 25})
    job = explorer.jobs["sweep"]
    with pytest.raises(ValueError, match="no paper sample size"):
        job.run.compute(job.current_settings())


def test_the_smallest_n_stays_at_most_the_largest_and_old_links_open():
    """The smallest N gives way to the largest, in either order of setting them, and each
    slider's range follows the other; the names older links gave the settings still open."""
    cls = EXPLORERS["hbm"]
    for given in ({"sweep.n_min": 3000, "sweep.n_max": 100},
                  {"sweep.n_max": 100, "sweep.n_min": 3000}):
        run = cls(**given).jobs["sweep"].run
        assert (run.n_min, run.n_max) == (100, 100)
    run.n_max = 5000
    run.n_min = 300
    assert run.param["n_min"].bounds == (10, 5000) and run.param["n_max"].bounds == (300, 50_000)
    explorer, messages = cls.from_query({"n_min": ["30"], "datasets": ["3"], "fits": ["4"]})
    assert messages == []
    assert explorer.query()["sweep.n_min"] == "30" and explorer.query()["sweep.datasets"] == "3"
    assert explorer.query()["inference.fits"] == "4"


def test_the_sweeps_models_are_ticked_boxes_and_come_back_in_order():
    """The sweep's orders and hidden units are boxes to tick (a MultiSelect needed Ctrl-click
    for a second choice), under the knob's label; ticked in any order, the choices are kept in
    the options' order, as a link writes them (the same run, the same cache entry)."""
    import panel as pn

    explorer = EXPLORERS["hbm"]()
    run = explorer.jobs["sweep"].run
    for name in ("orders", "hidden"):
        control = Page(explorer).control(name, run=run)
        boxes = [w for w in control.objects if isinstance(w, pn.widgets.CheckBoxGroup)]
        assert len(boxes) == 1 and run.param[name].label in control.objects[0].object
    run.orders = [3, 1, 12, 2]
    assert run.orders == [1, 2, 3, 12] and explorer.query()["sweep.orders"] == "1,2,3,12"
    assert explorer.notice == ""


def test_inference_run_sets_gibbs_and_ais_beside_the_exact_fits():
    """The paper's inference run (in this process, tiny): one AIS error per repeat and per
    dataset, the table of the three pipelines with their cost, and the verdict."""
    explorer = EXPLORERS["hbm"](**{"n": 4, "order": 2, "sample": 200, "inference.fits": 2,
                                   "inference.iterations": 200, "inference.chains": 20,
                                   "inference.ais_steps": 20, "inference.ais_runs": 20})
    job = explorer.jobs["inference"]
    result = job.compute()
    assert result.log_z_ais.shape == (2,) and result.repeat_ais.shape == (8,)
    text = job.run.summary(job.current_settings(), result)
    assert "Gibbs gradient, AIS log Z (the paper)" in text and "s per fit" in text
    assert "Luo & Sugiyama, eq 8" in text
    ais = job.run.ais_plot(result)
    assert sum(len(layer) for layer in ais if hasattr(layer, "__len__")) > 0
