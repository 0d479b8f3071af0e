"""The timeline in Chromium on the torus, bifurcation and Embedding-SGD pages (herding and the
neuron: ``test_timeline.py``, whose helpers these tests share): scrubbing draws the engine's state
at t with no websocket message from the client but the throttled time for the URL; a timeline
over a run's log-spaced checkpoints plays to the last and stops."""

from __future__ import annotations

import pytest

from dynamics import bifurcation as bf
from dynamics import esgd as es
from dynamics import herding, torus
from views.pages.esgd import ESGDExplorer

from .test_timeline import MARK, _only_the_time_was_sent, _open, _scrubbed

pytestmark = pytest.mark.browser


def _torus_marks(t: int) -> dict:
    """The torus page's marks at step t (default seed, 2,000 steps: one frame per step)."""
    features, moments = torus.irrational_rotation_model(seed=4)
    w = herding.herd(features, moments, 2000).weights
    c = torus.lattice_coordinates(features, w)
    return {"-torus_plot-0": {"c1": [c[t, 0]], "c2": [c[t, 1]]},
            "-weights_plot-0": {"w1": list(w[t - 8:t + 1, 0]), "w2": list(w[t - 8:t + 1, 1])},
            "-weights_plot-1": {"w1": [w[t, 0]], "w2": [w[t, 1]]}}


def _bifurcation_marks(t: int) -> dict:
    """The bifurcation page's marks at iteration t (default model, iterates at log T = -0.8)."""
    model = herding.random_model(4, 2, seed=bf.DEFAULT_SEED)
    w = bf.tempered_trajectory(model.features, model.moments, 10 ** -0.8, 531).weights
    return {"-iterates_plot-1": {"t": [t], "w": [w[t, 0]]},
            "-attractor_plot-1": {"w1": [w[t, 0]], "w2": [w[t, 1]]}}


#: Pages scrubbed: the query, the last frame, and their marks at t as the engine computes them.
SCRUBBED = {
    "torus": ("steps=2000", 2000, _torus_marks),
    "bifurcation": ("burn_in=500&keep=32&resolution=100", 531, _bifurcation_marks),
}


@pytest.mark.parametrize("slug", list(SCRUBBED))
def test_scrubbing_draws_the_engines_state_at_t_on_other_pages(server, page, slug):
    query, end, marks = SCRUBBED[slug]
    sent, models = _open(page, f"{server}?page={slug}&{query}")
    assert models["end"] == end
    values = list(range(50, 450, 50))
    start, t0 = _scrubbed(page, sent, values)
    t = values[-1]
    for suffix, data in marks(t).items():
        assert page.evaluate(MARK, suffix) == data, suffix
    handle = page.locator(".ldx-timeline-player input[type=range]").evaluate("el => el.value")
    assert int(handle) == t
    _only_the_time_was_sent(page, sent[start:], models, t, t0)
    assert page.errors == []


def test_play_on_a_log_spaced_timeline_reaches_the_last_checkpoint(server, page):
    """Embedding-SGD's frames are the run's log-spaced checkpoints: play from the first runs
    through each and stops at the last, where the ring is the run's final test MSE."""
    _, models = _open(page, f"{server}?page=esgd&data=2000")
    _, x, y = es.noisy_measurement(2000, seed=0)
    e = ESGDExplorer()
    run = es.embedding_sgd(x, y, eta=e.eta, eta0=e.eta0, lam_f=e.lam, lam_u=e.lam,
                           bandwidth_f=e.bandwidth_f, bandwidth_u=e.bandwidth_u,
                           dual_y_scale=e.dual_y_scale, features_f=e.features,
                           features_u=e.features, seed=1)
    seen = run.history["seen"]
    end = models["end"]
    assert end == len(seen) - 1
    # at 30 frames a second: the default pace plays any run in about 15 s
    page.evaluate("() => { __ldxPlayer.interval = 33; }")
    page.locator(".ldx-timeline-player button.first").click()
    page.wait_for_function("() => window.ldxTimeline && window.ldxTimeline.value === 0")
    assert page.evaluate(MARK, "-mse_plot-2") == {"seen": [seen[0]], "mse": [run.history["mse"][0]]}
    page.locator(".ldx-timeline-player button.play").click()
    page.wait_for_function("end => __ldxPlayer.value === end && __ldxPlayer.direction === 0",
                           arg=end, timeout=20_000)
    assert page.evaluate("() => window.ldxTimeline.t") == seen[-1] == 2000
    assert page.evaluate(MARK, "-mse_plot-2") == {"seen": [2000], "mse": [run.history["mse"][-1]]}
    assert page.evaluate(MARK, "-mse_plot-1") == {"seen": [2000],
                                                  "mse": [run.history["baseline_mse"][-1]]}
    assert page.errors == []
