"""The timeline (``views.framework.timeline``) on the herding and neuron pages: the frame the
browser draws at time t is the engine's state at t, read from the data the browser gets (the
frames source the control sends, and the marks' sources of the first render); long runs are
strided and say so; ``t=`` in a URL is validated like a knob and round-trips; exports draw the
marks at the current time."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest
from bokeh.models import BoxAnnotation, ColumnDataSource, Span
from panel.links import Callback

from dynamics import herding, neuron
from views.framework.timeline import Frames, _LocalPlayer, strided
from views.herding import HerdingExplorer
from views.neuron import NeuronExplorer


def _control_models(explorer):
    """The frames source and the player of the page's timeline control."""
    control = explorer.timeline_control()
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
    assert e._frames_note().startswith(f"**Strided:** one step in {frames.stride} of 50,000")


def _mark_data(explorer, method: str):
    """The marks of one panel in the first render (what the browser draws before any move):
    name -> Bokeh data (a source's columns, or a line's location)."""
    plot = next(p for p in explorer.plots if p.method == method)
    fig = hv.render(explorer.page_style(plot, explorer._with_marks(
        plot, explorer._call(plot, plot.method))), backend="bokeh")
    marks = {}
    for model in fig.references():
        name = getattr(model, "name", None) or ""
        if name.startswith("ldx-time"):
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
    uid = e._timeline_uid()
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
    uid = e._timeline_uid()
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
