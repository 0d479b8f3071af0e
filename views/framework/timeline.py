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
(``Mark``, ``views.framework.marks``: the point at t, a trail, a vertical line, a veil over the
future, the particles, histogram, image or curve of frame t) in the browser, in a ``jscallback`` on the player's value, with no round trip: the
player and the marks' Bokeh models are not ``syncable``, so the browser sends nothing when they
change. The server hears of the time only through a hidden widget written at most every
``SYNC_MS`` ms, to keep it in the URL (``t=``) and in exports (marks at the chosen time; at the
default, the end of the run, the paper's figure without marks). A run longer than
``Timeline.max_frames`` frames or ``MAX_BYTES`` bytes sends every k-th frame (and the last), and
the control says so.

A long run (a job, ``views.framework.jobs``) can unfold in time too: ``Run(timeline=...)`` gives
its panels a control of their own, above them, following the result the run shows (its frames
method takes that result). Its time is kept for exports, not in the URL (a run's result is not
part of the link).
"""

from __future__ import annotations

import functools
import json
import weakref
from dataclasses import dataclass, field

import holoviews as hv
import numpy as np
import panel as pn
from bokeh.models import BoxAnnotation, ColumnDataSource, Span

from views.framework import knobs as _knobs
from views.framework.figure import exporting, style
from views.framework.marks import (MAX_BYTES, Frames, Mark, arrays_data, browser_spec,
                                   frames_bytes, strided)
from views.framework.text import math_markdown
from views.framework.workarounds import dictionary_columns, steady_text

__all__ = ["Frames", "Mark", "Timeline", "TimelineMixin", "SYNC_MS", "strided", "MAX_BYTES",
           "alias_time"]

#: The browser tells the server the time at most this often while playing or scrubbing (ms).
SYNC_MS = 400
#: Milliseconds between frames when playing at the default speed (about 30 frames per second).
INTERVAL_MS = 33


@dataclass(frozen=True)
class Timeline:
    """An explorer's time axis (``Explorer.timeline``, or a run's, ``Run.timeline``):
    ``frames`` is the method returning the ``Frames`` of the current result (a run's takes the
    result): a function, or the name of the explorer's (or the run's) method; ``caption`` says what time means on the page (Markdown, shown beside the
    control); ``marks`` what each plot draws at time t; ``unit`` the word for one time step; at
    most ``max_frames`` frames and ``MAX_BYTES`` bytes are sent (strided beyond). ``aliases``
    maps knobs of older links to ``t`` (name -> what to add to their value): a link with the
    old frame knob opens at that time."""

    frames: object
    caption: str
    marks: tuple = ()
    unit: str = "step"
    max_frames: int = 5_000
    aliases: dict = field(default_factory=dict)


def _ordinal(k: int) -> str:
    return f"{k:,}" + ("th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th"))


def alias_time(raw, offset: int) -> str:
    """The ``t`` of an older link's frame knob (``Timeline.aliases``): its whole number plus
    ``offset``, as text; anything else as it is (``parse_time`` then refuses it in words)."""
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    if len(text) > _knobs.NUMBER_CHARS:
        return text  # refused by its length, unread
    try:
        return str(int(text.strip()) + int(offset))
    except ValueError:
        return text


# The browser side, run on every change of the player's value. ``marks`` lists what to redraw
# (name of the mark's Bokeh model, kind, columns); the models are looked up by name in the
# document, so a plot HoloViews rebuilt is found again. ``arrays`` holds the per-frame rows:
# ``row(name)`` is frame i's (a view of the flat array, or its bits unpacked).
_DRAW = """
const n = frames.data.t.length;
if (n == 0) return;
const i = Math.max(0, Math.min(player.value, n - 1));
const d = frames.data, A = arrays.data, doc = player.document;
const state = player._ldx || (player._ldx = {last: 0, timer: null, models: {}});
function find(name) {  // cached while it is in the document (HoloViews may rebuild a plot)
  const m = state.models[name];
  return (m != null && m.document === doc) ? m : (state.models[name] = doc.get_model_by_name(name));
}
if (state.text !== A.__meta__[0]) { state.text = A.__meta__[0]; state.meta = JSON.parse(state.text); }
const TypedArray = Object.getPrototypeOf(Int8Array);
function row(name) {
  const a = A[name][0], m = state.meta[name];
  if (m.fixed) return a;
  let T = a.constructor;  // the plain typed array under Bokeh's NDArray
  while (Object.getPrototypeOf(T) !== TypedArray) T = Object.getPrototypeOf(T);
  const view = new T(a.buffer, a.byteOffset + i * m.stride * a.BYTES_PER_ELEMENT, m.stride);
  if (!m.bits) return view;
  const out = new Uint8Array(m.width);
  for (let j = 0; j < m.width; j++) out[j] = (view[j >> 3] >> (7 - (j & 7))) & 1;
  return out;
}
for (const mark of marks) {
  const model = find(mark.name);
  if (model == null) continue;
  if (mark.cols) {  // a frame's rows into the mark's source
    const data = Object.assign({}, model.data);
    for (const [col, name] of Object.entries(mark.cols)) {
      if (!(col in data)) continue;
      if (mark.kind === "image") {
        const old = data.image[0], shape = state.meta[name].shape;
        data.image = [new old.constructor(row(name), shape)];
      } else data[col] = row(name);
    }
    model.data = data;
    continue;
  }
  const x = mark.kind === "prefix" ? A[mark.x][0] : d[mark.x];
  if (mark.kind === "vline") { model.location = x[i]; continue; }
  if (mark.kind === "future") { model.left = x[i] + mark.offset; model.right = x[n - 1] + mark.offset; continue; }
  const y = mark.kind === "prefix" ? A[mark.y][0] : d[mark.y];
  let xs, ys;
  if (mark.kind === "point") { xs = [x[i]]; ys = [y[i]]; }
  else if (mark.kind === "ray") { xs = [0, x[i]]; ys = [0, y[i]]; }
  else if (mark.kind === "prefix") { xs = Array.from(x.slice(0, d.t[i])); ys = Array.from(y.slice(0, d.t[i])); }
  else { const lo = mark.length == null ? 0 : Math.max(0, i - mark.length); xs = Array.from(x.slice(lo, i + 1)); ys = Array.from(y.slice(lo, i + 1)); }
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


# Panel's player draws its handle with the value set before the range (Panel 1.9,
# PlayerView.render): a value above 100 is drawn at 100 (a fresh Ising page's handle sat at a
# tenth of its track while the plot showed the end). A change of the value sets both in order:
# told so once the player is drawn (``_after_render``), and again a moment later.
_HANDLE = """
const handle = () => player.properties.value.change.emit();
setTimeout(handle, 50); setTimeout(handle, 500);
"""


# The keyboard plays the page's timeline (not a run's): space plays and pauses, the arrow keys
# step back and forward by the step size, unless a control has the key (a text field, a menu,
# a slider's handle: the arrows move a slider).
_KEYS = """
window.ldxTimelinePlayer = player;
if (!window.ldxTimelineKeys) {
  window.ldxTimelineKeys = true;
  document.addEventListener('keydown', (event) => {
    const p = window.ldxTimelinePlayer;
    if (p == null || event.ctrlKey || event.metaKey || event.altKey) return;
    const el = event.composedPath()[0];
    const tag = el && el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'BUTTON'
        || (el && (el.isContentEditable || (el.classList && el.classList.contains('noUi-handle')))))
      return;
    if (event.key === ' ') {
      p.direction = p.direction === 0 ? 1 : 0;
    } else if (event.key === 'ArrowRight') {
      p.direction = 0; p.value = Math.min(p.end, p.value + p.step);
    } else if (event.key === 'ArrowLeft') {
      p.direction = 0; p.value = Math.max(p.start, p.value - p.step);
    } else {
      return;
    }
    event.preventDefault();
  });
}
"""


def _after_render(callback) -> None:
    """``callback()`` once the browser has the page (served; at once when it has it already),
    never outside a server."""
    doc = pn.state.curdoc
    if doc is None or getattr(doc, "session_context", None) is None:
        return
    if pn.state.loaded:
        doc.add_next_tick_callback(callback)
    else:
        pn.state.onload(callback)


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
        # plot's data beneath (a 4,000-point log-log curve took 30 ms a paint; a repaint of
        # the plot's own layer also redraws its axes, whose text styles Bokeh reads from the
        # page's CSS: 10-15 ms a plot). Marks drawn over the plot's layers, in their order.
        renderer = glyph if annotation else plot.handles.get("glyph_renderer")
        if renderer is not None:
            renderer.level = "overlay"
        # drawn on a 2-D canvas, not WebGL (HoloViews' default): a software WebGL (headless
        # Chromium, a machine without a GPU) is read back into the page's canvas on every
        # paint, most of the time of a frame (PMD's particles: 53 % in drawImage)
        figure = plot.state
        if getattr(figure, "output_backend", None) == "webgl":
            figure.output_backend = "canvas"


class TimelineMixin:
    """The ``Explorer``'s timelines: frames of the current result, marks at the current time
    (``t``: the engine's time, None for the last frame), the control and the URL's ``t``. A
    run's timeline (``Run.timeline``) is named by the run (``run=``): its result is the one
    the run shows, its time is kept apart from ``t``."""

    def _timeline_uid(self, run: str | None = None) -> str:
        """The prefix of the Bokeh names of this page's marks (unique within the server)."""
        return f"ldx-time-{id(self):x}" + ("" if run is None else f"-{run}")

    def _axis(self, run: str | None):
        """The timeline of ``run`` (None: the page's) and the result it follows."""
        if run is None:
            return self.timeline, (self.result() if self.timeline is not None else None)
        job = self.jobs[run]
        return job.run.timeline, job.shown

    def time_of(self, run: str | None = None) -> int | None:
        """The time shown by a timeline: ``t`` for the page's, a run's own for a run's."""
        return self.t if run is None else self.__dict__.get("_ldx_run_t", {}).get(run)

    def set_time(self, run: str | None, value: int | None) -> None:
        if run is None:
            self.t = value
        else:
            self.__dict__.setdefault("_ldx_run_t", {})[run] = value

    def frames(self, run: str | None = None) -> Frames | None:
        """The frames sent to the browser for the current result (strided when long); None
        without a timeline (or a run's result). Cached per result."""
        timeline, result = self._axis(run)
        if timeline is None or result is None:
            return None
        memo = self.__dict__.setdefault("_ldx_frames", {}).get(run)
        if memo is not None and memo[0] is result:
            return memo[1]
        owner = self if run is None else self.jobs[run].run
        method = (functools.partial(timeline.frames, owner) if callable(timeline.frames)
                  else getattr(owner, timeline.frames))
        frames = strided(method() if run is None else method(result), timeline.max_frames)
        self.__dict__["_ldx_frames"][run] = (result, frames)
        return frames

    def frame_index(self, run: str | None = None) -> int:
        """The frame drawn for the time: the last frame at or before it (the last frame when
        the time is None or beyond the run)."""
        frames = self.frames(run)
        t = self.time_of(run)
        if t is None:
            return len(frames) - 1
        return int(max(0, np.searchsorted(frames.t, t, side="right") - 1))

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

    def _with_marks(self, plot, element, run: str | None = None):
        """``element`` with the timeline's marks of ``plot`` drawn at the current time. In an
        export at the default time (the end of the run) only the marks that are the picture
        itself (``Mark.always``)."""
        timeline, _ = self._axis(run) if run is not None else (self.timeline, None)
        marks = [] if timeline is None else [m for m in timeline.marks if m.plot == plot.method]
        if exporting() and self.time_of(run) is None:
            marks = [m for m in marks if m.always]
        frames = self.frames(run) if marks else None
        if frames is None:
            return element
        i = self.frame_index(run)
        uid = self._timeline_uid(run)
        every = [m for m in timeline.marks if m.plot == plot.method]
        with dictionary_columns():  # plain arrays, not DataFrames: cheaper on every draw
            layers = [style(mark.element(frames, i),
                            bokeh=dict(hooks=[_MarkHook(f"{uid}-{plot.method}-{every.index(mark)}")]))
                      for mark in marks]
        if isinstance(element, hv.Overlay):  # a clone keeps the overlay's options (its axes)
            return element.clone(list(element) + layers)
        return hv.Overlay([element, *layers])

    def _mark_specs(self, run: str | None = None) -> list[dict]:
        uid = self._timeline_uid(run)
        timeline, _ = self._axis(run) if run is not None else (self.timeline, None)
        specs, seen = [], {}
        for mark in timeline.marks:
            k = seen[mark.plot] = seen.get(mark.plot, -1) + 1
            specs.append(browser_spec(mark, f"{uid}-{mark.plot}-{k}"))
        return specs

    def _frames_data(self, run: str | None = None) -> dict:
        frames = self.frames(run)
        data = {"t": np.asarray(frames.t, dtype=np.int64).astype(np.float64)}
        for name, values in frames.columns.items():
            data[name] = np.asarray(values, dtype=np.float64)
        return data

    def _arrays_data(self, run: str | None = None) -> dict:
        timeline, _ = self._axis(run) if run is not None else (self.timeline, None)
        images = {m.x for m in timeline.marks if m.kind == "image"}
        return arrays_data(self.frames(run), images)

    def _frames_note(self, run: str | None = None) -> str:
        frames = self.frames(run)
        timeline, _ = self._axis(run) if run is not None else (self.timeline, None)
        unit = timeline.unit
        size = frames_bytes(frames)
        sent = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"
        if frames.stride == 1:
            every = bool(np.all(np.diff(frames.t) == 1))
            return (f"{len(frames):,} frames, " + (f"one per {unit}" if every else
                    f"at the run's checkpoints") + f" ({sent}, sent once).")
        return (f"**Strided:** every {_ordinal(frames.stride)} of the run's {frames.total:,} "
                f"frames is sent, and the last ({len(frames):,} frames, {sent}); a shorter run "
                "shows every one.")

    def timeline_control(self, run: str | None = None) -> pn.viewable.Viewable:
        """A timeline's control (the page's, or ``run``'s): the player and its scrubber, the
        step size, what the current frame is, what time means here (the caption) and whether
        frames are strided."""
        timeline, _ = self._axis(run) if run is not None else (self.timeline, None)
        frames = self.frames(run)
        source = ColumnDataSource(data=self._frames_data(run))
        arrays = ColumnDataSource(data=self._arrays_data(run))
        i = self.frame_index(run)
        player = _LocalPlayer(start=0, end=max(len(frames) - 1, 1), value=i, step=1,
                              interval=INTERVAL_MS, loop_policy="once", show_value=False,
                              show_loop_controls=True, sizing_mode="stretch_width",
                              min_width=290, max_width=420, height=90,
                              visible_loop_options=["once", "loop", "reflect"],
                              css_classes=["ldx-timeline-player"])
        step = pn.widgets.Select(label="Step size (frames)", options=[1, 10, 100], value=1,
                                 width=120, css_classes=["ldx-timeline-step"])
        # the menu's value is text in the browser; the player's step a whole number
        step.jscallback(args=dict(player=player), value="player.step = parseInt(cb_obj.value)")
        sync = pn.widgets.IntInput(value=i, visible=False)
        note = steady_text(pn.pane.Markdown(self._frames_note(run), margin=(0, 10),
                                            css_classes=["ldx-timeline-note"]))
        code = (f"const marks = {json.dumps(self._mark_specs(run))}; "
                f"const unit = {json.dumps(timeline.unit.capitalize())};\n"
                + _DRAW.replace("SYNC_MS", str(SYNC_MS)))
        args = dict(frames=source, arrays=arrays, player=player, sync=sync)
        # Panel keeps every jscallback in a process-wide registry weakly keyed by its source
        # but holding its args strongly: the player's own callbacks take it as cb_obj, not as
        # an arg (an arg that is the key, or leads back to it, keeps the page of every closed
        # session; tests/views/test_memory.py). One property per call: Panel 1.9 registers
        # only the last of several.
        own = dict(frames=source, arrays=arrays, sync=sync)
        player.jscallback(args=own, value="const player = cb_obj;\n" + code)
        player.jscallback(args=own, end="const player = cb_obj;\n" + code)
        player.jscallback(direction="const player = cb_obj;\n" + _DIRECTION)
        # a new run's frames arrive with a new count of runs: redraw at the player's frame once
        # the whole update is applied (the frames, the player's end and value come with it)
        runs = pn.widgets.IntInput(value=0, visible=False)
        runs.jscallback(args=args, value="setTimeout(() => { " + code + " }, 0);\n" + _HANDLE
                        + (_KEYS if run is None else ""))
        _after_render(lambda: runs.param.update(value=runs.value + 1))
        player.label = self._label_text(frames, i, timeline)

        me = weakref.ref(self)  # held weakly from the registry's args (sync), see above

        def on_time(event):
            explorer = me()
            if explorer is None:
                return
            frames = explorer.frames(run)
            k = int(min(max(event.new, 0), len(frames) - 1))
            explorer.set_time(run, None if k == len(frames) - 1 else int(frames.t[k]))

        sync.param.watch(on_time, "value")
        shown = {"result": self._axis(run)[1]}

        def on_drawn(_):
            result = self._axis(run)[1]
            if result is shown["result"] or result is None:
                return
            shown["result"] = result
            frames = self.frames(run)
            k = self.frame_index(run)
            with pn.io.hold():
                # the server's copy of the player's value is stale (the browser does not send
                # it): send it even when unchanged
                player.param.update(end=max(len(frames) - 1, 1), value=k,
                                    label=self._label_text(frames, k, timeline))
                player.param.trigger("value")
                source.data = self._frames_data(run)
                arrays.data = self._arrays_data(run)
                note.object = self._frames_note(run)
                sync.value = k
                runs.value += 1

        if run is None:
            self.param.watch(on_drawn, "drawn")
        else:
            self.jobs[run].param.watch(on_drawn, "shown")
        caption = pn.pane.Markdown(math_markdown(timeline.caption), margin=(0, 10),
                                   sizing_mode="stretch_width",
                                   css_classes=["ldx-timeline-caption"])
        # the controls and the caption side by side where both fit, the caption below on a
        # narrow screen (a phone's 390 px: a fixed row of 630 px ran off the screen)
        controls = pn.Column(player, pn.Row(step, note), sizing_mode="stretch_width",
                             min_width=300, max_width=440, styles={"flex": "1 1 440px"})
        return pn.FlexBox(controls, pn.Column(caption, sync, runs, sizing_mode="stretch_width",
                                              styles={"flex": "1 1 200px"}),
                          flex_wrap="wrap", sizing_mode="stretch_width",
                          css_classes=["ldx-timeline"])

    @staticmethod
    def _label_text(frames: Frames, i: int, timeline: Timeline) -> str:
        return (f"{timeline.unit.capitalize()} t = {int(frames.t[i]):,} of "
                f"{int(frames.t[-1]):,}")
