"""Time as an axis, played in the browser.

An explorer whose result unfolds in time declares it once::

    timeline = Timeline("weight_frames", caption="t is the herding step ...",
                        marks=(Mark("cones_plot", "point", x="w1", y="w2"), ...))

``weight_frames()`` returns the ``Frames`` of the current result: the engine's time of each
frame (``t``, increasing) and per-frame columns (the weight at step t, ...). The page gets one
timeline control above its plots (``TimelineMixin.timeline_control``): a Panel ``Player``
(play/pause, reverse, step back and forward, first and last, slower and faster, once / loop /
reflect) with its scrubber, and a step size. The frames of the current run are sent to the
browser once, in a ``ColumnDataSource``; playing, stepping and scrubbing then redraw the marks
(``Mark``: the point at t, a trail, the vector from the origin, a vertical line, a veil over the
future) in the browser, in a ``jscallback`` on the player's value, with no round trip: the
player and the marks' Bokeh models are not ``syncable``, so the browser sends nothing when they
change. The server hears of the time only through a hidden widget written at most every
``SYNC_MS`` ms, to keep it in the URL (``t=``) and in exports (marks at the chosen time; at the
default, the end of the run, the paper's figure without marks). A run longer than
``Timeline.max_frames`` sends every k-th frame (and the last), and the control says so.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field

import holoviews as hv
import numpy as np
import panel as pn
from bokeh.models import BoxAnnotation, ColumnDataSource, Span

from views.framework import knobs as _knobs
from views.framework.figure import style
from views.framework.text import math_markdown
from views.framework.workarounds import dictionary_columns

__all__ = ["Frames", "Mark", "Timeline", "TimelineMixin", "SYNC_MS", "strided"]

#: The browser tells the server the time at most this often while playing or scrubbing (ms).
SYNC_MS = 400
#: Milliseconds between frames when playing at the default speed (about 30 frames per second).
INTERVAL_MS = 33
_MARK_KINDS = ("point", "trail", "ray", "vline", "future")
#: A plot with marks draws on a 2-D canvas, not WebGL (HoloViews' default): the marks repaint
#: Bokeh's overlay layer, where each WebGL glyph (a point, a trail, a ray) copies the whole
#: WebGL canvas at every paint (profiled in headless Chromium: a paint of a PCT panel with
#: four rings 14 -> 3 ms, of herding's cones 10.7 -> 2.2 ms).
_CANVAS = {"plot.output_backend": "canvas"}


@dataclass(frozen=True)
class Frames:
    """The time axis of one result: ``t`` the engine's time of each frame (whole numbers,
    increasing), ``columns`` per-frame values (1-D arrays, one entry per frame), ``total`` the
    number of frames of the run before any striding, ``stride`` the steps between sent frames."""

    t: np.ndarray
    columns: dict
    total: int = 0
    stride: int = 1

    def __len__(self) -> int:
        return len(self.t)


@dataclass(frozen=True)
class Mark:
    """A layer of ``plot`` (an explorer method) drawn at the current time, from frame columns:

    - ``point``: the point (x, y) of frame t;
    - ``trail``: the points of the last ``length`` frames up to t, as a line;
    - ``ray``: the segment from the origin to (x, y);
    - ``vline``: a vertical line at x;
    - ``future``: a veil from x + ``offset`` to the last frame's x + ``offset`` (what has not
      happened yet at t).

    ``dims`` are the plot's (x, y) dimensions (the mark's columns in Bokeh), ``options`` style
    options for both backends (``bokeh=`` and ``mpl=`` keys for one of them)."""

    plot: str
    kind: str
    x: str
    y: str | None = None
    dims: tuple = ("x", "y")
    length: int = 20
    offset: float = 0.0
    options: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in _MARK_KINDS:
            raise ValueError(f"Mark kind must be one of {_MARK_KINDS}, got {self.kind!r}")

    def element(self, frames: Frames, i: int):
        """The mark at frame ``i`` as a HoloViews element (styled)."""
        cols = frames.columns
        x = cols[self.x] if self.x != "t" else frames.t
        options = dict(self.options)
        bokeh, mpl = options.pop("bokeh", {}), options.pop("mpl", {})
        if self.kind == "vline":
            element = hv.VLine(float(x[i]))
        elif self.kind == "future":
            element = hv.VSpan(float(x[i]) + self.offset, float(x[-1]) + self.offset)
        else:
            y = cols[self.y]
            if self.kind == "point":
                xs, ys = x[i:i + 1], y[i:i + 1]
            elif self.kind == "trail":
                lo = max(0, i - self.length)
                xs, ys = x[lo:i + 1], y[lo:i + 1]
            else:  # ray
                xs, ys = np.array([0.0, x[i]]), np.array([0.0, y[i]])
            data = (np.asarray(xs, float), np.asarray(ys, float))
            if self.kind == "point":
                element = hv.Points(data, kdims=list(self.dims))
            else:
                element = hv.Curve(data, kdims=[self.dims[0]], vdims=[self.dims[1]])
        return style(element, **options, bokeh=bokeh, mpl=mpl)


@dataclass(frozen=True)
class Timeline:
    """An explorer's time axis (``Explorer.timeline``): ``frames`` names a method returning the
    ``Frames`` of the current result; ``caption`` says what time means on the page (Markdown,
    shown beside the control); ``marks`` what each plot draws at time t; ``unit`` the word
    for one time step; at most ``max_frames`` frames are sent (strided beyond)."""

    frames: str
    caption: str
    marks: tuple = ()
    unit: str = "step"
    max_frames: int = 5_000


def strided(frames: Frames, max_frames: int) -> Frames:
    """``frames`` itself when at most ``max_frames`` long, else every k-th frame (k the
    smallest that fits) and the last one."""
    n = len(frames)
    if n <= max_frames:
        return Frames(frames.t, frames.columns, total=n, stride=1)
    k = -(-(n - 1) // (max_frames - 1))
    keep = np.arange(0, n, k)
    if keep[-1] != n - 1:
        keep = np.append(keep, n - 1)
    return Frames(frames.t[keep], {c: v[keep] for c, v in frames.columns.items()},
                  total=n, stride=k)


# The browser side, run on every change of the player's value. ``marks`` lists what to redraw
# (name of the mark's Bokeh model, kind, columns); the models are looked up by name in the
# document, so a plot HoloViews rebuilt is found again.
_DRAW = """
const n = frames.data.t.length;
if (n == 0) return;
const i = Math.max(0, Math.min(player.value, n - 1));
const d = frames.data, doc = player.document;
const state = player._ldx || (player._ldx = {last: 0, timer: null, models: {}});
function find(name) {  // cached while it is in the document (HoloViews may rebuild a plot)
  const m = state.models[name];
  return (m != null && m.document === doc) ? m : (state.models[name] = doc.get_model_by_name(name));
}
for (const mark of marks) {
  const model = find(mark.name);
  if (model == null) continue;
  const x = d[mark.x];
  if (mark.kind === "vline") { model.location = x[i]; continue; }
  if (mark.kind === "future") { model.left = x[i] + mark.offset; model.right = x[n - 1] + mark.offset; continue; }
  const y = d[mark.y];
  let xs, ys;
  if (mark.kind === "point") { xs = [x[i]]; ys = [y[i]]; }
  else if (mark.kind === "ray") { xs = [0, x[i]]; ys = [0, y[i]]; }
  else { const lo = Math.max(0, i - mark.length); xs = Array.from(x.slice(lo, i + 1)); ys = Array.from(y.slice(lo, i + 1)); }
  const data = Object.assign({}, model.data);
  data[mark.cx] = xs; data[mark.cy] = ys;
  model.data = data;
}
const t = d.t[i];
player.title = `${unit} t = ${t.toLocaleString("en-US")} of ${d.t[n - 1].toLocaleString("en-US")}`;
window.ldxTimeline = {value: player.value, t: t, drawn: (window.ldxTimeline ? window.ldxTimeline.drawn : 0) + 1};
// the server hears of the time only to keep it in the URL: at most every SYNC_MS
if (sync.value !== i) {
  const send = () => {
    state.timer = null; state.last = Date.now();
    const k = Math.max(0, Math.min(player.value, frames.data.t.length - 1));
    if (sync.value !== k) sync.value = k;
  };
  const wait = state.last + SYNC_MS - Date.now();
  if (wait <= 0) send(); else if (state.timer == null) state.timer = setTimeout(send, wait);
}
"""

# Play from the start when play is pressed at the end (a once-through player would do nothing
# there), and backwards from the end when reverse is pressed at the start.
_DIRECTION = """
if (player.direction === 1 && player.value >= player.end) player.value = player.start;
if (player.direction === -1 && player.value <= player.start) player.value = player.end;
"""


class _LocalPlayer(pn.widgets.Player):
    """A Player whose moves stay in the browser: its Bokeh model is not ``syncable``, so
    playing, stepping and scrubbing send nothing to the server (``_DRAW`` tells it the time,
    throttled). The server can still set it."""

    def _get_model(self, doc, root=None, parent=None, comm=None):
        model = super()._get_model(doc, root, parent, comm)
        model.syncable = False
        return model


class _MarkHook:
    """A HoloViews hook naming a mark's Bokeh model (its data source, or the span or box of a
    line or veil) so the browser finds it, making it not ``syncable``, and putting it on
    Bokeh's overlay layer. Its text is its name, so the options of a mark are styled from the
    memo of ``apply_options`` on every draw (a function's text is its address, which is not)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"_MarkHook({self.name!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, _MarkHook) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __call__(self, plot, element) -> None:
        glyph = plot.handles.get("glyph")
        # a line or a veil is a Bokeh annotation (its data source is not in the document)
        annotation = isinstance(glyph, (Span, BoxAnnotation))
        model = glyph if annotation else plot.handles.get("source")
        if model is not None:
            model.name = self.name
            model.syncable = False
        # on Bokeh's overlay layer: a move of the mark repaints that layer alone, not the
        # plot's data beneath (a 4,000-point log-log curve took 30 ms a paint)
        renderer = glyph if annotation else plot.handles.get("glyph_renderer")
        if renderer is not None:
            renderer.level = "overlay"


class TimelineMixin:
    """The ``Explorer``'s timeline: frames of the current result, marks at the current time
    (``t``: the engine's time, None for the last frame), the control and the URL's ``t``."""

    def _timeline_uid(self) -> str:
        """The prefix of the Bokeh names of this page's marks (unique within the server)."""
        return f"ldx-time-{id(self):x}"

    def frames(self) -> Frames | None:
        """The frames sent to the browser for the current result (strided when long); None
        without a timeline. Cached per result."""
        timeline = self.timeline
        if timeline is None:
            return None
        result = self.result()
        memo = self.__dict__.get("_ldx_frames")
        if memo is not None and memo[0] is result:
            return memo[1]
        frames = strided(getattr(self, timeline.frames)(), timeline.max_frames)
        self.__dict__["_ldx_frames"] = (result, frames)
        return frames

    def frame_index(self) -> int:
        """The frame drawn for ``t``: the last frame at or before it (the last frame when t is
        None or beyond the run)."""
        frames = self.frames()
        if self.t is None:
            return len(frames) - 1
        return int(max(0, np.searchsorted(frames.t, self.t, side="right") - 1))

    def time_text(self) -> str | None:
        """``t`` as the URL holds it: None at the last frame (the default)."""
        if self.timeline is None or self.t is None:
            return None
        frames = self.frames()
        i = self.frame_index()
        return None if i == len(frames) - 1 else str(int(frames.t[i]))

    def parse_time(self, raw) -> int:
        """The time ``t`` of a URL (text), a whole number within the run; ``ValueError`` with a
        sentence otherwise (as for the knobs)."""
        frames = self.frames()
        return _knobs.parse(self.param["t"], raw, bounds=(int(frames.t[0]), int(frames.t[-1])))

    def _with_marks(self, plot, element):
        """``element`` with the timeline's marks of ``plot`` drawn at the current time."""
        timeline = self.timeline
        marks = [] if timeline is None else [m for m in timeline.marks if m.plot == plot.method]
        if not marks:
            return element
        frames, i = self.frames(), self.frame_index()
        uid = self._timeline_uid()
        with dictionary_columns():  # plain arrays, not DataFrames: cheaper on every draw
            layers = [style(mark.element(frames, i),
                            bokeh=dict(hooks=[_MarkHook(f"{uid}-{plot.method}-{k}")],
                                       backend_opts=_CANVAS))
                      for k, mark in enumerate(marks)]
        if isinstance(element, hv.Overlay):  # a clone keeps the overlay's options (its axes)
            return element.clone(list(element) + layers)
        return hv.Overlay([element, *layers])

    def _mark_specs(self) -> list[dict]:
        uid = self._timeline_uid()
        specs, seen = [], {}
        for mark in self.timeline.marks:
            k = seen[mark.plot] = seen.get(mark.plot, -1) + 1
            specs.append(dict(
                name=f"{uid}-{mark.plot}-{k}", kind=mark.kind, x=mark.x, y=mark.y,
                cx=hv.core.util.dimension_sanitizer(hv.Dimension(mark.dims[0]).name),
                cy=hv.core.util.dimension_sanitizer(hv.Dimension(mark.dims[1]).name)
                if len(mark.dims) > 1 else None,
                length=mark.length, offset=mark.offset))
        return specs

    def _frames_data(self) -> dict:
        frames = self.frames()
        data = {"t": np.asarray(frames.t, dtype=np.int64).astype(np.float64)}
        for name, values in frames.columns.items():
            data[name] = np.asarray(values, dtype=np.float64)
        return data

    def _frames_note(self) -> str:
        frames = self.frames()
        unit = self.timeline.unit
        if frames.stride == 1:
            # frames at an engine's checkpoints (log-spaced records) are not one per unit
            every = bool(np.all(np.diff(frames.t) == 1))
            return f"{len(frames):,} frames, " + (f"one per {unit}." if every else
                                                   "at the run's checkpoints.")
        return (f"**Strided:** one {unit} in {frames.stride:,} of {frames.total - 1:,} is sent "
                f"({len(frames):,} frames); fewer {unit}s show every one.")

    def timeline_control(self) -> pn.viewable.Viewable:
        """The page's timeline control: the player and its scrubber, the step size, what the
        current frame is, what time means here (the caption) and whether frames are strided."""
        timeline = self.timeline
        frames = self.frames()
        source = ColumnDataSource(data=self._frames_data())
        i = self.frame_index()
        player = _LocalPlayer(start=0, end=max(len(frames) - 1, 1), value=i, step=1,
                              interval=INTERVAL_MS, loop_policy="once", show_value=False,
                              show_loop_controls=True, width=420, height=90,
                              visible_loop_options=["once", "loop", "reflect"],
                              css_classes=["ldx-timeline-player"])
        step = pn.widgets.Select(label="Step size (frames)", options=[1, 10, 100], value=1,
                                 width=120, css_classes=["ldx-timeline-step"])
        # the menu's value is text in the browser; the player's step a whole number
        step.jscallback(args=dict(player=player), value="player.step = parseInt(cb_obj.value)")
        sync = pn.widgets.IntInput(value=i, visible=False)
        note = pn.pane.Markdown(self._frames_note(), margin=(0, 10),
                                css_classes=["ldx-timeline-note"])
        code = (f"const marks = {json.dumps(self._mark_specs())}; "
                f"const unit = {json.dumps(timeline.unit.capitalize())};\n"
                + _DRAW.replace("SYNC_MS", str(SYNC_MS)))
        args = dict(frames=source, player=player, sync=sync)
        # Panel keeps every jscallback in a process-wide registry weakly keyed by its source
        # but holding its args strongly: the player's own callbacks take it as cb_obj, not as
        # an arg (an arg that is the key, or leads back to it, keeps the page of every closed
        # session; tests/views/test_memory.py). One property per call: Panel 1.9 registers
        # only the last of several.
        own = dict(frames=source, sync=sync)
        player.jscallback(args=own, value="const player = cb_obj;\n" + code)
        player.jscallback(args=own, end="const player = cb_obj;\n" + code)
        player.jscallback(direction="const player = cb_obj;\n" + _DIRECTION)
        # a new run's frames arrive with a new count of runs: redraw at the player's frame once
        # the whole update is applied (the frames, the player's end and value come with it)
        runs = pn.widgets.IntInput(value=0, visible=False)
        runs.jscallback(args=args, value="setTimeout(() => { " + code + " }, 0);")
        player.label = self._label_text(frames, i)

        me = weakref.ref(self)  # held weakly from the registry's args (sync), see above

        def on_time(event):
            explorer = me()
            if explorer is None:
                return
            frames = explorer.frames()
            k = int(min(max(event.new, 0), len(frames) - 1))
            explorer.t = None if k == len(frames) - 1 else int(frames.t[k])

        sync.param.watch(on_time, "value")
        shown = {"result": self.result()}

        def on_drawn(_):
            result = self.result()
            if result is shown["result"]:
                return
            shown["result"] = result
            frames = self.frames()
            k = self.frame_index()
            with pn.io.hold():
                # the server's copy of the player's value is stale (the browser does not send
                # it): send it even when unchanged
                player.param.update(end=max(len(frames) - 1, 1), value=k,
                                    label=self._label_text(frames, k))
                player.param.trigger("value")
                source.data = self._frames_data()
                note.object = self._frames_note()
                sync.value = k
                runs.value += 1

        self.param.watch(on_drawn, "drawn")
        caption = pn.pane.Markdown(math_markdown(timeline.caption), margin=(0, 10),
                                   sizing_mode="stretch_width",
                                   css_classes=["ldx-timeline-caption"])
        controls = pn.Column(player, pn.Row(step, note), width=440)
        return pn.Row(controls, pn.Column(caption, sync, runs, sizing_mode="stretch_width"),
                      sizing_mode="stretch_width", css_classes=["ldx-timeline"])

    def _label_text(self, frames: Frames, i: int) -> str:
        return (f"{self.timeline.unit.capitalize()} t = {int(frames.t[i]):,} of "
                f"{int(frames.t[-1]):,}")

