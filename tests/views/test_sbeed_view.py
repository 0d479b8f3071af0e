"""The SBEED page: its panels show what the engine computed, on every MDP, and its runs."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

from dynamics import sbeed
from views.pages.sbeed import ACTION_NAMES, SBEEDExplorer
from views.pages.sbeed.runs import K_RUN_COST


def test_frozen_lake_panel_puts_each_value_on_its_cell(tmp_path):
    page = SBEEDExplorer(mdp_name="FrozenLake 4x4, slippery", gamma=0.95, shown_eta="1")
    overlay = page.policy_plot()
    image = overlay.get(0)
    run = page.result().runs["1"]
    # the cell at column 0 of the top row (the start S) holds V(0); the goal G (row 3, col 3) is 0
    assert image[0.5, 3.5] == pytest.approx(run.V[0])
    assert image[3.5, 0.5] == pytest.approx(run.V[15]) == 0.0
    assert image[1.5, 1.5] == pytest.approx(run.V[9])
    labels = overlay.get(2)
    cells = dict(zip(zip(labels.dimension_values(0), labels.dimension_values(1).round(1)),
                     labels.dimension_values(2)))
    assert cells[(0.5, 3.2)] == "S" and cells[(3.5, 0.2)] == "G" and cells[(1.5, 2.2)] == "H"
    page.export(tmp_path / "lake.png")
    assert (tmp_path / "lake.png").stat().st_size > 10_000


@pytest.mark.parametrize("gamma", [0.93, 0.96, 0.99])
def test_every_discount_on_the_slider_draws_at_the_default_settings(gamma):
    """γ moved up from the default draws, with no divergence alert: with the engine's step 0.2
    the exact runs on the risky-choice MDP diverged from γ = 0.93 on (η = 0 and 0.5), and from
    0.95 all three."""
    page = SBEEDExplorer(gamma=gamma)
    assert page.error == ""
    assert all(np.isfinite(run.V).all() for run in page.result().runs.values())
    page.error_plot()


def test_exact_mode_holds_k_at_one_and_sampled_mode_frees_it():
    page = SBEEDExplorer()
    assert page.param.k.bounds == (1, 1)
    page.mode = "sampled"
    page.k = 5
    assert page.k == 5 and page.result().runs["1"].k == 5
    page.mode = "exact"  # k is clamped back, with a notice
    assert page.k == 1 and page.result().runs["1"].k == 1


def test_runs_compute_and_summarise():
    page = SBEEDExplorer()
    run = page.jobs["bias"].run
    settings = dict(states=10, actions=2, seed=0, gamma=0.9, lam=0.1)
    bias = run.compute(settings)
    assert bias.bias[0] < 1e-6 and np.nanmax(bias.bias) > 0.01
    assert "This run" in run.summary(settings, bias)
    run.bias_plot(bias)
    run = page.jobs["ksweep"].run
    settings = dict(mdp_name="risky choice (4 states)", n_states=5, n_actions=2, branching=1,
                    seed=0, gamma=0.9, lam=0.1, batch_size=32, step_size=0.2, iterations=2000)
    said = []
    ks = run.compute(settings, lambda f, m, partial=None: said.append((f, m)))
    assert np.all(np.isfinite(ks.error["0"])) and "This run" in run.summary(settings, ks)
    # the fraction weighs each run by its measured cost (an eta = 1 run fits the dual), and
    # runs report as they go
    cheap, dear = K_RUN_COST["0"], K_RUN_COST["1"]
    ends = [f for f, m in said if ":" not in m]
    assert ends[:2] == pytest.approx([cheap / (cheap + dear) / 5, 1 / 5]) and ends[-1] == 1.0
    fractions = [f for f, _ in said]
    assert len(said) > 10 * len(ends) and fractions == sorted(fractions)
    run.k_plot(ks)
    run = page.jobs["pendulum"].run
    p = dict(lam=0.01, eta=0.1, k=3, noise=0.0, steps=600, seeds=2)
    runs = run.compute(p)
    assert len(runs.runs) == 2 and "This run" in run.summary(p, runs)
    for method in (run.return_plot, run.v_image, run.rollout_plot):
        method(runs)


def test_status_reads_the_runs():
    page = SBEEDExplorer()
    text = page.status()
    run = page.result().runs["0"]
    assert f"{run.v_error[-1]:.3g}" in text and "stochastic" in text
    assert sbeed.risky_choice().name in text


def test_the_state_axes_are_ticked_at_whole_states():
    """V per state and the policy are drawn against states 0..n-1: ticks at whole states,
    not halfway between two (the risky choice's axes read -0.5, 0, 0.5, ..., 3.5)."""
    import holoviews as hv

    page = SBEEDExplorer()
    for method in ("states_plot", "policy_plot"):
        ticks = hv.Store.lookup_options("bokeh", getattr(page, method)(), "plot").kwargs["xticks"]
        assert list(ticks) == [0, 1, 2, 3], method


def test_exported_policy_cells_are_readable():
    """The exported policy heat map: on the risky choice each cell's probability in two
    decimals, white on the dark cells and black on the light ones (matplotlib wrote five
    decimals in black, a 0 on black invisible); on a Garnet's 60 x 4 cells no values at all
    and a tick every 10th state."""
    from views.framework.figure import _EXPORTING
    from views.framework.workarounds import matplotlib_backend

    matplotlib_backend()
    token = _EXPORTING.set(True)  # the panels as an export builds them (matplotlib options)
    try:
        risky = SBEEDExplorer().policy_plot()
        garnet = SBEEDExplorer()
        garnet.mdp_name = next(o for o in garnet.param.mdp_name.objects
                               if o.startswith("Garnet"))
        many = garnet.policy_plot()
    finally:
        _EXPORTING.reset(token)
    figure = hv.render(risky, backend="matplotlib")
    texts = figure.axes[0].texts
    assert len(texts) == 8
    for text in texts:
        value = float(text.get_text())
        assert text.get_text() == f"{value:.2f}"
        assert text.get_color() == ("white" if value < 0.6 else "black")
    # each cell in the row of its action (HoloViews' matplotlib heat map put the risky
    # choice's safe probabilities in the row labelled risky)
    page = SBEEDExplorer()
    policy = page.result().runs[page.shown_eta].policy
    rows = {round(t.get_position()[1]): t.get_text() for t in figure.axes[0].get_yticklabels()}
    names = list(ACTION_NAMES["risky"])
    for text in texts:
        state, row = (round(v) for v in text.get_position())
        assert text.get_text() == f"{policy[state, names.index(rows[row])]:.2f}"
    axes = hv.render(many, backend="matplotlib").axes[0]
    assert len(axes.texts) == 0
    assert [t.get_text() for t in axes.get_xticklabels()] == ["0", "10", "20", "30", "40", "50"]
