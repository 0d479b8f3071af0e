"""The timeline (``views.framework.timeline``) on the herding, neuron, torus, bifurcation, PCT and
Embedding-SGD pages: the frame the browser draws at time t is the engine's state at t, read from
the data the browser gets (the frames source the control sends, and the marks' sources of the
first render); long runs are strided and say so; ``t=`` in a URL is validated like a knob and
round-trips; exports draw the marks at the current time."""

from __future__ import annotations

import re

import math

import holoviews as hv
import numpy as np
import pytest
from bokeh.models import BoxAnnotation, ColumnDataSource, Span
from panel.links import Callback

from dynamics import bifurcation as bf
from dynamics import esgd as es
from dynamics.pct import generalized_herding as gh
from dynamics import herding, neuron, torus
from views.pages.bifurcation import BifurcationExplorer
from views.pages.esgd import ESGDExplorer
from views.framework.panes import page_style
from views.framework.player import _LocalPlayer
from views.framework.timeline import Frames, strided
from views.pages.herding import HerdingExplorer
from views.pages.neuron import NeuronExplorer
from views.pages.pct import PCTExplorer
from views.pages.torus import TorusExplorer
from views import EXPLORERS
from views.framework.page import Page


def _control_models(explorer):
    """The frames source and the player of the page's timeline control."""
    control = Page(explorer).timeline_control()
    players = control.select(_LocalPlayer)
    assert len(players) == 1
    player = players[0]
    sources = [link.args["frames"] for link in Callback.registry.get(player, [])
               if "frames" in (link.args or {})]
    assert sources and all(s is sources[0] for s in sources)
    return sources[0], player


def _herding_engine(e: HerdingExplorer) -> np.ndarray:
    model = herding.random_model(e.n_states, e.n_features, seed=e.seed)
    w0 = np.array([float(v) for v in e.w0.split(",")] * (1 if "," in e.w0 else e.n_features))
    return herding.herd(model.features, model.moments, e.steps, w0=w0, eta=e.eta).weights


def test_herding_frames_are_the_engines_weights():
    e = HerdingExplorer(steps=3000, seed=4)
    source, player = _control_models(e)
    assert isinstance(source, ColumnDataSource)
    data = source.data
    weights = _herding_engine(e)
    assert player.end == len(data["t"]) - 1 == 3000
    for t in (0, 1, 17, 1500, 2999, 3000):
        i = int(np.flatnonzero(data["t"] == t)[0])
        assert data["w1"][i] == weights[t, 0] and data["w2"][i] == weights[t, 1]


def test_herding_long_runs_are_strided_and_say_so():
    e = HerdingExplorer(steps=50_000)
    frames = e.frames()
    weights = _herding_engine(e)
    assert frames.stride > 1 and len(frames) <= e.timeline.max_frames
    assert frames.t[0] == 0 and frames.t[-1] == 50_000
    assert np.all(np.diff(frames.t)[:-1] == frames.stride)
    np.testing.assert_array_equal(frames.columns["w1"], weights[frames.t, 0])
    assert e.clock.frames_note().startswith(
        f"**Strided:** every {frames.stride}th of the run's 50,001 frames is sent, and the last")


def _mark_data(explorer, method: str):
    """The marks of one panel in the first render (what the browser draws before any move):
    name -> Bokeh data (a source's columns, or a line's location)."""
    plot = next(p for p in explorer.plots if p.method == method)
    fig = hv.render(page_style(plot, explorer.clock.with_marks(
        plot, explorer.drawing.panel_element(plot))), backend="bokeh")
    marks = {}
    for model in fig.references():
        name = getattr(model, "name", None) or ""
        # the marks (a panel's layers that build up in time, "-L<j>" and "-G<j>", are not)
        if name.startswith("ldx-time") and not re.search(r"-[LG][0-9]+$", name):
            marks[name] = (model.location if isinstance(model, Span) else
                           (model.left, model.right) if isinstance(model, BoxAnnotation) else
                           dict(model.data))
            assert model.syncable is False
    return marks


@pytest.mark.parametrize("t", [0, 5, 777])
def test_herding_marks_at_t_are_the_engines_state(t):
    e = HerdingExplorer(steps=2000, w0="1.5, -2")
    e.t = t
    w = _herding_engine(e)[t]
    marks = _mark_data(e, "cones_plot")
    uid = e.clock.uid()
    point = marks[f"{uid}-cones_plot-2"]
    assert (point["w1"][0], point["w2"][0]) == (w[0], w[1])
    ray = marks[f"{uid}-cones_plot-1"]
    assert list(ray["w1"]) == [0.0, w[0]] and list(ray["w2"]) == [0.0, w[1]]
    trail = marks[f"{uid}-cones_plot-0"]
    assert trail["w1"][-1] == w[0] and len(trail["w1"]) == min(t, 8) + 1
    line = _mark_data(e, "moment_plot")[f"{uid}-moment_plot-0"]
    assert line == max(t, 1)


@pytest.mark.parametrize("t", [0, 3, 20])
def test_neuron_frame_at_t_is_the_engines_state(t):
    e = NeuronExplorer(stripes=30)
    e.t = t
    run = neuron.herd_neuron(e.rate, e.steps, w0=e.w0)
    source, player = _control_models(e)
    assert source.data["t"][t] == t and source.data["w"][t] == run.weights[t]
    assert player.value == t and player.end == 30
    uid = e.clock.uid()
    marks = _mark_data(e, "weights_plot")
    assert marks[f"{uid}-weights_plot-1"]["w"][0] == run.weights[t]
    assert marks[f"{uid}-weights_plot-1"]["t"][0] == t
    # the veil over the future (the steps not yet taken) starts half a step after t
    assert marks[f"{uid}-weights_plot-0"] == (t + 0.5, 30.5)
    assert _mark_data(e, "stripes_plot")[f"{uid}-stripes_plot-0"] == (t + 0.5, 30.5)


def test_time_in_the_url_round_trips_and_is_validated():
    e, messages = HerdingExplorer.from_query({"steps": ["2000"], "t": ["150"]})
    assert messages == [] and e.t == 150 and e.query()["t"] == "150"
    again, messages = HerdingExplorer.from_query({k: [v] for k, v in e.query().items()})
    assert messages == [] and again.t == 150
    # the last frame is the default and is not written
    e.t = 2000
    assert "t" not in e.query()
    for bad in ("<script>alert(1)</script>", "1e3", "-1", "2001", "nan", ""):
        e, messages = HerdingExplorer.from_query({"steps": ["2000"], "t": [bad]})
        assert e.t is None and len(messages) == 1
        assert messages[0].startswith("Time t must be a whole number from 0 to 2,000")
        assert e.notice == messages[0]  # shown through plain(), as every notice


def test_strided_keeps_the_last_frame():
    t = np.arange(10_001)
    frames = strided(Frames(t, {"x": t * 2.0}), 1000)
    assert len(frames) <= 1000 and frames.t[-1] == 10_000 and frames.total == 10_001
    np.testing.assert_array_equal(frames.columns["x"], frames.t * 2.0)
    assert strided(Frames(t[:5], {"x": t[:5]}), 1000).stride == 1


def test_export_draws_the_marks_at_the_current_time():
    e = NeuronExplorer()
    e.t = 7
    layout = e.figure(only=("discrepancy_plot",))
    lines = [el for el in layout.traverse(lambda x: x, [hv.VLine])]
    assert [float(line.data) for line in lines] == [7.0]
    e.t = None  # the default, the end of the run: the paper's figure, without marks
    layout = e.figure(only=("discrepancy_plot",))
    assert [el for el in layout.traverse(lambda x: x, [hv.VLine])] == []


# --- per-frame arrays: the Ising samples, the PMD particles, the budget of bytes -------------

def _browser_row(data: dict, meta: dict, name: str, i: int) -> np.ndarray:
    """Row ``i`` of per-frame array ``name`` as the browser's ``row()`` reads it from the data
    the control sends (bits unpacked, images in Bokeh's row order)."""
    m = meta[name]
    flat = data[name][0][i * m["stride"]:(i + 1) * m["stride"]]
    if m["bits"]:
        flat = np.unpackbits(flat)[:m["width"]]
    return flat.reshape(m["shape"])


@pytest.mark.parametrize("t", [1, 2, 77, 400])
def test_ising_samples_at_t_are_the_engines(t):
    import json

    from dynamics import ising
    from views.pages.ising import BURN_IN, IsingExplorer

    e = IsingExplorer(L=32, steps=400, seed=5)
    e.t = t
    sw = ising.swendsen_wang(32, e.beta, 400, burn_in=BURN_IN, seed=5).samples[t - 1]
    frames = e.frames()
    i = e.frame_index()
    assert frames.t[i] == t and frames.stride == 1
    data = e.clock.arrays_data()
    meta = json.loads(data["__meta__"][0])
    # what the browser draws: the sample, flipped as Bokeh draws images (row 0 at the bottom)
    np.testing.assert_array_equal(_browser_row(data, meta, "sw", i), (sw > 0)[::-1])
    herd = e.result().herd.samples[t - 1]
    np.testing.assert_array_equal(_browser_row(data, meta, "herd", i), (herd > 0)[::-1])
    # and the first render draws the same
    plot = e.plots[0]
    image = next(el for el in e.clock.with_marks(plot, e.drawing.panel_element(plot))
                 if isinstance(el, hv.Image))
    np.testing.assert_array_equal(image.data > 0.5, sw > 0)


def test_pmd_particles_at_t_are_the_engines():
    from dynamics import pmd
    from views.pages.pmd import PMDExplorer

    e = PMDExplorer(n_data=200, particles=300)
    page = e.result()
    model = pmd.MixtureModel(e.sigma1, e.sigma2, e.sigma_x, e.p)
    data = model.sample(200, (e.theta1, e.theta2), seed=e.seed)
    run = pmd.particle_mirror_descent(model, data, particles=300, batch_size=e.batch_size,
                                      seed=e.seed, strategy=e.strategy,
                                      step_size_rule=e.step_rule,
                                      bandwidth_rule=e.bandwidth_rule, checkpoints=25)
    frames = e.frames()
    assert list(frames.t) == list(run.history["seen"]) == list(page.run.history["seen"])
    for k in (0, 4, len(frames) - 1):
        e.t = int(frames.t[k])
        cloud, weights = run.history["clouds"][k]
        plot = e.plots[0]
        points = next(el for el in e.clock.with_marks(plot, e.drawing.panel_element(plot))
                      if isinstance(el, hv.Points))
        order = np.argsort(weights, kind="stable")
        np.testing.assert_array_equal(points.dimension_values(0), cloud[order, 0].astype(np.float32))
        np.testing.assert_array_equal(points.dimension_values(1), cloud[order, 1].astype(np.float32))
        np.testing.assert_array_equal(points.dimension_values("share"),
                                      (weights[order] * weights.size).astype(np.float32))


@pytest.mark.parametrize("slug, knobs", [
    ("bayes", dict(examples=2000)),
    ("pmd", dict(particles=3000, n_data=300, batch_size=1)),
    *[(slug, {}) for slug, cls in EXPLORERS.items() if cls.timeline is not None]])
def test_frames_of_a_run_stay_within_the_byte_budget(slug, knobs):
    """At the largest sizes of the pages with the most bytes a frame, and on every page with a
    timeline at its defaults."""
    from views.framework.marks import MAX_BYTES, frames_bytes

    e = EXPLORERS[slug](**knobs)
    frames = e.frames()
    assert frames_bytes(frames) <= MAX_BYTES and frames.t[-1] == strided(
        Frames(frames.t, {}), 10).t[-1]
    if frames.stride > 1:
        assert "Strided" in e.clock.frames_note()


def test_strided_fits_a_byte_budget_and_keeps_rows_with_their_frames():
    t = np.arange(1001)
    rows = np.arange(1001 * 50, dtype=np.float64).reshape(1001, 50)
    frames = strided(Frames(t, {}, arrays={"r": rows}), 5000, max_bytes=50_000)
    assert frames.stride > 1 and frames.t[-1] == 1000 and frames.arrays["r"].dtype == np.float32
    np.testing.assert_array_equal(frames.arrays["r"], rows[frames.t].astype(np.float32))


def test_the_largest_ising_run_is_strided_to_the_budget():
    """L = 128 and 5,000 samples (the knobs' tops; a run of minutes, so its frames are built
    here from arrays of its shape): two samples of 2 kB each a frame, as bits."""
    from views.framework.marks import MAX_BYTES, frames_bytes

    shape = (5000, 128, 128)
    spins = np.broadcast_to(np.zeros((1, 128, 128), bool), shape)
    frames = strided(Frames(np.arange(1, 5001), {}, arrays={"sw": spins, "herd": spins},
                            fixed={"lattice": (0.0, 0.0, 128.0, 128.0)}), 5000)
    assert frames_bytes(frames) <= MAX_BYTES and frames.stride == 21 and frames.t[-1] == 5000
# --- the torus, bifurcation, PCT and Embedding-SGD pages ---------------------------------------
def _point(marks, name):
    """The (x, y) of a point mark's data (its two columns, in order)."""
    (x, y) = (list(v) for v in marks[name].values())
    assert len(x) == len(y) == 1
    return x[0], y[0]


@pytest.mark.parametrize("t", [0, 13, 1999])
def test_torus_frame_at_t_is_the_engines_state(t):
    e = TorusExplorer(steps=2000)
    e.t = t
    features, moments = torus.irrational_rotation_model(seed=e.seed)
    _, rational = torus.rational_rotation_model(e.q, seed=e.seed)
    w = herding.herd(features, moments, e.steps).weights
    c = torus.lattice_coordinates(features, w)
    r = torus.lattice_coordinates(features, herding.herd(features, rational, e.steps).weights)
    source, player = _control_models(e)
    assert player.value == t and player.end == 2000
    data = source.data
    assert (data["t"][t], data["c1"][t], data["c2"][t]) == (t, c[t, 0], c[t, 1])
    assert (data["r1"][t], data["r2"][t], data["w1"][t], data["w2"][t]) == (*r[t], *w[t])
    uid = e.clock.uid()
    assert _point(_mark_data(e, "torus_plot"), f"{uid}-torus_plot-0") == tuple(c[t])
    assert _point(_mark_data(e, "rational_plot"), f"{uid}-rational_plot-0") == tuple(r[t])
    marks = _mark_data(e, "weights_plot")
    assert _point(marks, f"{uid}-weights_plot-1") == tuple(w[t])
    trail = marks[f"{uid}-weights_plot-0"]
    assert list(trail["w1"]) == list(w[max(0, t - 8):t + 1, 0])
    # the points c_0 .. c_t on the discrepancy's axis of points N
    assert _mark_data(e, "discrepancy_plot")[f"{uid}-discrepancy_plot-0"] == t + 1


@pytest.mark.parametrize("t", [0, 7, 531])
def test_bifurcation_frame_at_t_is_the_tempered_maps_iterate(t):
    e = BifurcationExplorer(**BifurcationExplorer.quick)
    e.t = t
    model = herding.random_model(e.n_states, e.n_features, seed=e.seed)
    w = bf.tempered_trajectory(model.features, model.moments, 10 ** e.at_log_t,
                               e.burn_in + e.keep - 1, eta=e.eta).weights
    source, player = _control_models(e)
    assert player.value == t and player.end == e.burn_in + e.keep - 1 == 531
    data = source.data
    assert (data["wk"][t], data["w1"][t], data["w2"][t]) == (w[t, 0], w[t, 0], w[t, 1])
    uid = e.clock.uid()
    assert _point(_mark_data(e, "orbit_annotations"), f"{uid}-orbit_annotations-0") == (
        e.at_log_t, w[t, 0])
    assert _point(_mark_data(e, "attractor_plot"), f"{uid}-attractor_plot-1") == tuple(w[t])
    marks = _mark_data(e, "iterates_plot")
    assert _point(marks, f"{uid}-iterates_plot-1") == (t, w[t, 0])
    assert marks[f"{uid}-iterates_plot-0"] == (t + 0.5, 531.5)  # the iterations to come veiled
    # the plotted weight follows the coordinate knob, and its frames with it
    e.coordinate = 2
    assert e.frames().columns["wk"][t] == w[t, 1]


@pytest.mark.parametrize("t", [1, 40, 300])
def test_pct_frame_at_t_is_each_variants_state_at_step_t(t):
    e = PCTExplorer(steps=300)
    e.t = t
    data = gh.boltzmann_data(e.n_units, e.cases, seed=e.seed)
    runs = {"full": gh.pct_herding(data, 300, seed=e.seed),
            "with": gh.pct_herding(data, 300, batch_size=e.batch, replacement=True,
                                   seed=e.seed)}
    source, player = _control_models(e)
    assert player.value == t - 1 and list(source.data["t"][[0, -1]]) == [1, 300]
    uid = e.clock.uid()
    norms = _mark_data(e, "norm_plot")
    assert norms[f"{uid}-norm_plot-0"] == t
    for plot in ("scaled_plot", "error_plot"):  # a line alone
        assert _mark_data(e, plot) == {f"{uid}-{plot}-0": t}
    # rings 1..4: the variants in their legend's order (full, local, without, with)
    for k, key in ((1, "full"), (4, "with")):
        assert _point(norms, f"{uid}-norm_plot-{k}") == (t, runs[key].weight_norm[t - 1])


def test_embedding_sgd_frames_are_the_runs_checkpoints():
    e = ESGDExplorer(data=2000)
    _, x, y = es.noisy_measurement(2000, seed=e.seed)
    run = es.embedding_sgd(x, y, eta=e.eta, eta0=e.eta0, lam_f=e.lam, lam_u=e.lam,
                           bandwidth_f=e.bandwidth_f,
                           bandwidth_u=e.bandwidth_u, dual_y_scale=e.dual_y_scale,
                           features_f=e.features, features_u=e.features, seed=e.seed + 1)
    seen = run.history["seen"]
    t = int(seen[len(seen) // 2])
    e.t = t + 10  # between two checkpoints: the last one at or before it is drawn
    source, player = _control_models(e)
    np.testing.assert_array_equal(source.data["t"], seen)
    assert player.value == len(seen) // 2
    uid = e.clock.uid()
    marks = _mark_data(e, "mse_plot")
    assert marks[f"{uid}-mse_plot-0"] == t
    assert _point(marks, f"{uid}-mse_plot-2") == (t, run.history["mse"][len(seen) // 2])
    assert _point(marks, f"{uid}-mse_plot-1") == (t, run.history["baseline_mse"][len(seen) // 2])
    assert e.clock.frames_note().startswith(f"{len(seen)} frames, at the run's checkpoints")


@pytest.mark.parametrize("cls, knobs, first, last", [
    (TorusExplorer, {"steps": "2000"}, 0, 2000),
    (BifurcationExplorer, {"burn_in": "500", "keep": "32", "resolution": "100"}, 0, 531),
    (PCTExplorer, {"steps": "300"}, 1, 300),
    (ESGDExplorer, {"data": "2000"}, 50, 2000),
], ids=["torus", "bifurcation", "pct", "esgd"])
def test_time_in_the_url_round_trips_and_is_validated_on_every_timeline(cls, knobs, first, last):
    query = {k: [v] for k, v in knobs.items()}
    e, messages = cls.from_query({**query, "t": [str(first)]})
    assert messages == [] and e.query()["t"] == str(first)
    again, messages = cls.from_query({k: [v] for k, v in e.query().items()})
    assert messages == [] and again.t == first
    for bad in ("<b>1</b>", str(first - 1), str(last + 1), "2.5"):
        e, messages = cls.from_query({**query, "t": [bad]})
        assert e.t is None and len(messages) == 1
        assert messages[0].startswith(f"Time t must be a whole number from {first:,} to {last:,}")


@pytest.mark.parametrize("frames", [2, 3, 21, 35, 61, 455, 456, 1000, 4001, 5000])
def test_a_whole_run_plays_in_about_fifteen_seconds_whatever_its_length(frames):
    """The default pace (issue 49 item 2): PMD's 21 checkpoints and herding's 4,001 frames both
    play in 10-20 s; a long run taking every k-th frame at up to 30 frames a second, a short
    one every frame, slower, and no frame held longer than a second."""
    from views.framework.player import INTERVAL_MS, PLAY_SECONDS, SLOWEST_MS, pace, pace_text

    interval, step = pace(frames)
    seconds = math.ceil((frames - 1) / step) * interval / 1000
    assert INTERVAL_MS <= interval <= SLOWEST_MS and step >= 1
    if frames - 1 >= PLAY_SECONDS:  # enough frames to fill the time at a frame a second
        assert 10 <= seconds <= 20, (frames, interval, step, seconds)
    if step > 1:  # the smallest step that keeps to 30 frames a second
        assert (frames - 1) / (step - 1) * INTERVAL_MS > PLAY_SECONDS * 1000
    text = pace_text(np.arange(frames) * 5, interval, step)
    assert text.startswith(f"Plays in about {seconds:.0f} s: t advances")
