"""The Bayesian online learning page: the live 2-D posterior and the two runs."""

from __future__ import annotations

import numpy as np
import pytest

from views import EXPLORERS


def test_the_2d_posterior_shrinks_as_examples_arrive():
    """The timeline's frame at t is the posterior after t examples: its covariance shrinks
    (the determinant falls at every informative step and ends far below the prior's 1), the
    1-sigma ellipse drawn at t encloses an area pi sqrt(det C_t), the mean drawn is m_t and the
    examples drawn are the first t."""
    explorer = EXPLORERS["bayes"](examples=200)
    page = explorer.result()
    dets = np.linalg.det(page.path.covs)
    assert dets[0] == 1.0 and dets[-1] < 1e-3
    assert np.all(np.diff(dets) <= 1e-15)
    explorer.t = 50
    plot = explorer.plots[0]
    overlay = explorer.clock.with_marks(plot, explorer.plane_plot())
    # the marks, after the panel's legend and teacher: the examples of each class, the mean's
    # path, the 1σ and 2σ ellipses, the mean
    pos, neg, path, ellipse, _, mean = list(overlay)[-6:]
    x, y = ellipse.dimension_values(0), ellipse.dimension_values(1)
    area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    # an n-gon inscribed in the ellipse (its first point repeated at the end): area smaller by
    # sin(2 pi / n) n / (2 pi)
    n = len(x) - 1
    assert area / (np.pi * np.sqrt(np.linalg.det(page.path.covs[50]))) == pytest.approx(
        np.sin(2 * np.pi / n) * n / (2 * np.pi), abs=2e-4)
    np.testing.assert_array_equal(mean.array()[0], page.path.means[50])
    np.testing.assert_array_equal(path.array(), page.path.means[:51])
    assert all(np.isfinite(pos.array()).all(axis=1) == (page.y[:50] == 1))
    assert sum(np.isfinite(layer.dimension_values(0)).sum() for layer in (pos, neg)) == 50


def test_the_timeline_follows_the_number_of_examples_and_old_links_open_at_their_frame():
    explorer = EXPLORERS["bayes"]()
    explorer.examples = 100
    frames = explorer.frames()
    assert list(frames.t) == list(range(101)) and frames.stride == 1
    explorer, messages = EXPLORERS["bayes"].from_query({"examples": ["100"], "frame": ["40"]})
    assert messages == [] and explorer.t == 40 and explorer.query()["t"] == "40"
    explorer, messages = EXPLORERS["bayes"].from_query({"frame": ["9999"]})
    assert explorer.t is None and messages[0].startswith("Time t must be a whole number")


def test_toy_run_reports_efficiency_and_the_sandwich():
    explorer = EXPLORERS["bayes"](**{"toy.runs": 400, "toy.t": 2000})
    job = explorer.jobs["toy"]
    result = job.compute()
    text = job.run.summary(job.settings, result)
    assert "Efficiency" in text and "sandwich" in text
    r = result.right
    assert abs(r.t[-1] * r.mse[-1] / r.limit - 1) < 0.2
    assert result.wrong.limit < 1 / result.fisher_at_pseudo


def test_curve_run_tabulates_the_quoted_alphas_against_the_replica_curve():
    explorer = EXPLORERS["bayes"](**{"curve.runs": 10, "curve.alpha_max": 5.0})
    reports = []
    job = explorer.jobs["curve"]
    result = job.compute(progress=lambda f, m: reports.append(f))
    assert reports[-1] >= 0.95 and all(b >= a for a, b in zip(reports, reports[1:]))
    text = job.run.summary(job.settings, result)
    assert "| 1 |" in text and "| 5 |" in text and "| 10 |" not in text
    assert result.replica is not None and result.replica[-1] < result.replica[0]
    # the finite-N batch posterior, sampled at the same N, in the table and the plot
    assert result.batch is not None and result.batch.N == 50 and "batch Bayes, N = 50" in text
    assert result.batch.eps[-1] < result.batch.eps[0]
    # an older link's names open the run's settings
    flipped = EXPLORERS["bayes"](n_runs=4, alpha_max=2.0, flip=0.1)
    assert flipped.query()["curve.runs"] == "4" and flipped.query()["curve.flip"] == "0.1"
    assert flipped.jobs["curve"].compute().replica is None
