"""The doubly stochastic gradients and Embedding-SGD pages: live panels and runs."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import dsg
from views import EXPLORERS


def test_features_panel_estimates_the_kernel_and_status_checks_thm_11():
    explorer = EXPLORERS["dsg"](points=400, block=1024)
    one, sixteen, exact = [c.dimension_values(1) for c in explorer.features_plot()]
    # 1024 features: the estimate of k(x, 0) is within a few hundredths of the kernel
    assert np.max(np.abs(one - exact)) < 0.15
    assert np.max(np.abs(sixteen - exact)) < np.max(np.abs(one - exact))
    assert "holds" in explorer.status()
    explorer.theta = 50.0  # theta nu = 0.5 < 1
    assert "**fails**" in explorer.status()


def test_curve_run_streams_a_prefix_of_its_final_curve():
    """The run's partial results (drawn while it goes) are prefixes of the final history, and
    the final averaged surface is the engine's own prediction on the grid."""
    explorer = EXPLORERS["dsg"](points=300, block=8, **{"curve.batch": 8, "curve.steps": 256})
    partials = []
    result = explorer.jobs["curve"].compute(
        progress=lambda f, m, partial=None: partials.append(partial) if partial else None)
    final = result.history["error"]
    assert len(partials) >= 5
    for p in partials:
        n = len(p.history["error"])
        np.testing.assert_array_equal(p.history["error"], final[:n])
    assert result.history["step"][-1] == 256 and result.norma is not None
    task = explorer.result()
    assert result.history["error"][-1] == pytest.approx(
        np.mean((result.fit - task.target) ** 2), rel=1e-9)
    text = explorer.jobs["curve"].run.summary(explorer.jobs["curve"].settings, result)
    assert "log-log slope" in text and "NORMA" in text


def test_gp_run_ends_near_the_closed_form():
    explorer = EXPLORERS["dsg"](**{"gp.points": 256, "gp.tests": 32, "gp.batch": 16,
                                   "gp.block": 64, "gp.steps": 64, "gp.first_step": 4.0})
    result = explorer.jobs["gp"].compute()
    h = result.run.history
    assert h["mean_error"][-1] < 0.3 * h["mean_error"][0]
    assert h["variance_error"][-1] < 0.3 * h["variance_error"][0]
    X, y = dsg.synthetic_2d(256, seed=0)
    assert result.bandwidth == pytest.approx(dsg.median_bandwidth(X, factor=0.1))


def test_dsg_runs_settings_open_from_older_links_and_write_run_names():
    """The runs' settings are their own (``curve.steps``, ``digits.loss``, ``gp.points``): a
    link of the older names (``steps``, ``digits_loss``, ``gp_points``) opens the same state,
    and the URL then writes the run names; θ stays a page knob (the status line reads it)."""
    cls = EXPLORERS["dsg"]
    old, messages = cls.from_query({"steps": ["64"], "baselines": ["true"],
                                    "digits_loss": ["logistic"], "digits_steps": ["128"],
                                    "gp_points": ["256"], "first_step": ["4.0"],
                                    "theta": ["50"]})
    assert messages == []
    run = old.jobs["curve"].run
    assert (run.steps, run.baselines) == (64, True)
    assert (old.jobs["digits"].run.loss, old.jobs["digits"].run.steps) == ("logistic", 128)
    assert (old.jobs["gp"].run.points, old.jobs["gp"].run.first_step) == (256, 4.0)
    query = old.query()
    assert {"curve.steps": "64", "digits.loss": "logistic", "gp.points": "256",
            "theta": "50.0"}.items() <= query.items()
    assert not {"steps", "digits_loss", "gp_points", "first_step"} & set(query)
    new, _ = cls.from_query({k: [v] for k, v in query.items()})
    assert new.query() == query
    assert run.settings()["theta"] == 50.0 and "**fails**" in old.status()


def test_esgd_page_beats_its_baseline_and_seeds_run_averages():
    explorer = EXPLORERS["esgd"](data=20_000, features=200)
    live = explorer.result()
    assert live.run.mse < live.run.baseline_mse
    assert "The paper: 0.0029 after 0.1M data" in explorer.status()
    run = explorer.jobs["seeds"].run
    run.runs, run.data = 2, 20_000
    result = explorer.jobs["seeds"].compute()
    assert set(result.runs) == {"embedding", "virtual", "saa"}
    mse = result.mse("embedding")
    assert len(mse) == 2 and mse[0] != mse[1]
    text = run.summary(explorer.jobs["seeds"].settings, result)
    assert "2 runs of 20,000 data" in text and "SGD-SAA" in text


def test_esgd_runs_settings_open_from_older_links_and_write_run_names():
    """Older links' run knobs (``runs_n``, ``toy_iterations``, ``pe_runs``, ...) open the runs'
    own settings, which the URL then writes ``seeds.runs``, ``toy.iterations``,
    ``policy.runs``; the page's knobs the runs use (features, seed) keep their names."""
    cls = EXPLORERS["esgd"]
    old, messages = cls.from_query({"runs_n": ["2"], "runs_data": ["20000"],
                                    "toy_iterations": ["500"], "pe_states": ["12"],
                                    "pe_dim": ["3"], "pe_runs": ["1"], "pe_iterations": ["300"],
                                    "features": ["100"]})
    assert messages == []
    seeds, toy, policy = (old.jobs[k].run for k in ("seeds", "toy", "policy"))
    assert (seeds.runs, seeds.data, toy.iterations) == (2, 20_000, 500)
    assert (policy.states, policy.dim, policy.runs, policy.iterations) == (12, 3, 1, 300)
    assert seeds.settings() == dict(runs=2, data=20_000, features=100, seed=0)
    query = old.query()
    assert {"seeds.runs": "2", "toy.iterations": "500", "policy.states": "12",
            "features": "100"}.items() <= query.items()
    assert not {"runs_n", "toy_iterations", "pe_states"} & set(query)
    new, _ = cls.from_query({k: [v] for k, v in query.items()})
    assert new.query() == query


def test_curve_run_timeline_draws_the_averaged_iterate_at_step_t():
    """The Fig 3.4 run unfolds in time (issue 26 item 2): its frames are the steps where the
    run recorded f̄ₜ on the grid; at each, the image drawn over the fit panel is the engine's
    f̄ₜ regenerated from the features' seeds (``predict(upto=t)``), in the panel's colour scale,
    and the ring on the error panel is the error after t steps; the time picks the frame."""
    import holoviews as hv

    explorer = EXPLORERS["dsg"](points=300, block=8, **{"curve.batch": 8, "curve.steps": 256})
    job = explorer.jobs["curve"]
    result = job.compute()
    job.param.update(result=result, shown=result)
    frames = explorer.frames("curve")
    np.testing.assert_array_equal(frames.t, result.history["step"])
    limit = float(np.abs(result.target).max())
    task = explorer.result()
    model = dsg.doubly_sgd(task.X, task.y, bandwidth=task.bandwidth, nu=explorer.nu,
                           theta=explorer.theta, t0=explorer.theta, batch_size=8, block_size=8,
                           steps=256, seed=explorer.seed)
    grid = np.array([(a, b) for b in np.linspace(-5, 5, 40) for a in np.linspace(-5, 5, 40)])
    plot = next(p for p in job.run.plots if p.method == "fit_plot")
    for k in (2, len(frames) // 2, len(frames) - 1):
        t = int(frames.t[k])
        explorer.set_time("curve", t)
        mark = [el for el in explorer.drawing.panel_element(plot) if isinstance(el, hv.Image)][-1]
        drawn = mark.dimension_values(2, flat=False)  # HoloViews' rows: x₂ rising
        engine = np.clip(model.predict(grid, upto=t) / limit, -1, 1).reshape(40, 40)
        np.testing.assert_allclose(drawn, engine, rtol=1e-5, atol=1e-6)
        error = explorer.figure(only=("error_plot",)).traverse(lambda x: x, [hv.Points])
        assert error[-1].dimension_values(1)[0] == pytest.approx(result.history["error"][k])
