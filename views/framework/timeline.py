"""Time as an axis, played in the browser.

An explorer whose result unfolds in time declares it once::

    def weight_frames(self): ...
    def cones_plot(self): ...

    timeline = Timeline(weight_frames, caption="t is the herding step ...",
                        marks=(Mark(cones_plot, "point", x="w1", y="w2"), ...))

``weight_frames()`` returns the ``Frames`` of the current result: the engine's time of each
frame (``t``, increasing) and per-frame columns (the weight at step t, ...); this module holds
what the model knows of its time (frames, the time shown, marks in exports, the URL's ``t``).
The served page gets one timeline control above its plots (``views.framework.player``): a Panel ``Player``
(play/pause, reverse, step back and forward, first and last, slower and faster, once / loop /
reflect) with its scrubber, and a step size. The frames of the current run are sent to the
browser once, in a ``ColumnDataSource``; playing, stepping and scrubbing then redraw the marks
(``Mark``, ``views.framework.marks``: the point at t, a trail, a vertical line, a veil over the
future, the particles, histogram, image or curve of frame t) in the browser, in a ``jscallback`` on the player's value, with no round trip: the
player and the marks' Bokeh models are not ``syncable``, so the browser sends nothing when they
change. The server hears of the time only through a hidden widget written at most every
``views.framework.player.SYNC_MS`` ms, to keep it in the URL (``t=``) and in exports (marks at the chosen time; at the
default, the end of the run, the paper's figure without marks). A run longer than
``Timeline.max_frames`` frames or ``MAX_BYTES`` bytes sends every k-th frame (and the last), and
the control says so.

A picture builds up in time: what has not happened by t is not drawn (``Mark`` ``grow``: a
curve over the steps ends at t, a cloud of weights holds the steps up to t, a dense cloud's
raster the pixels visited by t: it is sent with, for each pixel, the first frame that shows
it, ``first_frames``). The page sends each such layer whole, once per draw, and the browser
cuts it at every frame; a box on the control shows the rest faded. Exports and
animations at a chosen time draw the same cut (``marks.grown``); at the default time, the
whole run: the paper's figure.

A long run (a job, ``views.framework.jobs``) can unfold in time too: ``Run(timeline=...)`` gives
its panels a control of their own, above them, following the result the run shows (its frames
method takes that result). Its time is kept for exports, not in the URL (a run's result is not
part of the link).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import holoviews as hv
import numpy as np
from bokeh.models import BoxAnnotation, Span

from views.framework import knobs as _knobs
from views.framework.declared import method_name
from views.framework.figure import exporting, style
from views.framework.marks import (FADED_ALPHA, MAX_BYTES, Frames, Mark, arrays_data,
                                   browser_spec, frames_bytes, grown, grows, strided)
from views.framework.workarounds import dictionary_columns

__all__ = ["Frames", "Mark", "Timeline", "Clock", "strided", "MAX_BYTES", "alias_time"]


@dataclass(frozen=True)
class Timeline:
    """An explorer's time axis (``Explorer.timeline``, or a run's, ``Run.timeline``):
    ``frames`` is the method returning the ``Frames`` of the current result (a run's takes the
    result), the function itself, written bare after its ``def`` in the class body (kept as
    its name, looked up on the model or the run; the function is ``frames_function``);
    ``caption`` says what time means on the page (Markdown, shown beside the control);
    ``marks`` what each plot draws at time t; ``unit`` the word for one time step; at
    most ``max_frames`` frames and ``MAX_BYTES`` bytes are sent (strided beyond). ``aliases``
    maps knobs of older links to ``t`` (name -> what to add to their value): a link with the
    old frame knob opens at that time."""

    frames: str  # given as the method, kept as its name
    caption: str
    marks: tuple = ()
    unit: str = "step"
    max_frames: int = 5_000
    aliases: dict = field(default_factory=dict)
    #: The frames method, as declared.
    frames_function: object = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "frames_function", self.frames)
        object.__setattr__(self, "frames", method_name(self.frames, "Timeline"))


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


class _GrowHook:
    """A HoloViews hook naming the data source of a panel's layer that builds up in time
    (``Mark`` ``grow``), so the browser finds it and cuts it at t, and making it not
    ``syncable`` (the browser's cut is not sent back). A raster's second value, the step each
    pixel was first visited, goes in its source too as the first frame that shows the pixel
    (``first_frames``; HoloViews sends only the first value). A
    ``ghost`` layer (what has not happened, shown faded) is sent empty: the browser fills it."""

    def __init__(self, name: str, column: str | None = None, clock=None, run=None):
        self.name, self.column, self.run = name, column, run
        # weakly: the option memo keeps its hooks for the process
        self.clock = None if clock is None else weakref.ref(clock)

    def __repr__(self) -> str:
        return f"_GrowHook({self.name!r}, {self.column!r})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, _GrowHook) and other.name == self.name
                and other.column == self.column)

    def __hash__(self) -> int:
        return hash((self.name, self.column))

    def __call__(self, plot, element) -> None:
        source = plot.handles.get("source")
        if source is None:
            return
        source.name = self.name
        source.syncable = False
        # on Bokeh's overlay layer, as the marks (``_MarkHook``): a frame's cut repaints that
        # layer, not the plot's axes and other layers beneath (drawn above them, the marks
        # above it)
        renderer = plot.handles.get("glyph_renderer")
        if renderer is not None:
            renderer.level = "overlay"
        clock = None if self.clock is None else self.clock()
        if (self.column is not None and clock is not None and isinstance(element, hv.Image)
                and len(element.vdims) > 1):
            first = element.dimension_values(3, flat=False)
            if plot.invert_axes:
                first = first.T
            source.data[self.column] = [first_frames(first, clock.frames(self.run).t)]


def first_frames(first: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The first frame (index into the frames sent, whose times are ``t``) at which each
    pixel of a raster whose first visit is at step ``first`` is drawn: the first frame at
    or after that step; 65,535 where never (NaN). Two bytes a pixel, exact for the frames
    the player shows (at most ``Timeline.max_frames``, below 65,535)."""
    index = np.searchsorted(t, np.nan_to_num(first, nan=np.inf), side="left")
    return np.where(np.isfinite(first), np.minimum(index, 65_535), 65_535).astype(np.uint16)


def _hooked(layer, hook):
    """A copy of ``layer`` with ``hook`` added to the Bokeh hooks it has. A copy: panels that
    share a cloud share its raster element (herding's cones and Tipi), and styling sets the
    element's options in place, so the second panel's hook named the first's source too."""
    hooks = hv.Store.lookup_options("bokeh", layer, "plot").kwargs.get("hooks", []) or []
    return style(layer.clone(), bokeh=dict(hooks=[*[h for h in hooks if not isinstance(h, _GrowHook)],
                                          hook]))


def _ghost(layer, hook):
    """The faded copy of a growing layer (sent empty; the browser puts the future in it)."""
    if isinstance(layer, hv.Image):
        l, b, r, t = layer.bounds.lbrt()
        ghost = layer.clone(np.zeros((1, 1), dtype=layer.dimension_values(2).dtype),
                            bounds=(l, b, r, t), vdims=layer.vdims[:1])
    else:
        ghost = layer.iloc[:0].relabel("")
    plot = hv.Store.lookup_options("bokeh", layer, "plot").kwargs
    bar = dict(colorbar=False) if plot.get("colorbar") else {}  # the layer's bar is enough
    return style(ghost, bokeh=dict(alpha=FADED_ALPHA, hooks=[hook], tools=[], **bar))


class Clock:
    """The model's time (``model.clock``): the frames of each timeline, the time each shows
    and the marks drawn at that time. The page's timeline (``Model.timeline``, ``run=None``)
    follows the model's result, its time being the model's ``t`` (the URL's ``t=``); a run's
    (``Run.timeline``, named by the run's key) follows the result the run shows, its time kept
    here, apart from ``t`` (a run's result is not part of the link). The served page's control
    (``views.framework.player.timeline_control``) reads what it sends to the browser from the
    ``*_data``, ``mark_specs``, ``frames_note`` and ``label`` methods. Uses only the model's
    public names (``timeline``, ``t``, ``result()``, ``jobs``)."""

    def __init__(self, model):
        self.model = model
        #: The time of each run's timeline (None or absent: its last frame).
        self._run_times: dict[str, int | None] = {}
        #: The frames of each timeline, with the result they were made from.
        self._memo: dict = {}
        #: The growing layers of each panel as the last export cut them, whole (``uncut``).
        self._uncut: dict = {}

    def uid(self, run: str | None = None) -> str:
        """The prefix of the Bokeh names of the model's marks (unique within the server)."""
        return f"ldx-time-{id(self.model):x}" + ("" if run is None else f"-{run}")

    def timeline_of(self, run: str | None = None) -> Timeline | None:
        """The declared timeline of ``run`` (None: the page's)."""
        return self.model.timeline if run is None else self.model.jobs[run].run.timeline

    def followed(self, run: str | None = None):
        """The result the timeline of ``run`` follows: the model's current one for the page's
        (None without a timeline), the one the run shows for a run's (None before it has
        one)."""
        if run is None:
            return self.model.result() if self.model.timeline is not None else None
        return self.model.jobs[run].shown

    def time_of(self, run: str | None = None) -> int | None:
        """The time shown by a timeline: ``t`` for the page's, a run's own for a run's."""
        return self.model.t if run is None else self._run_times.get(run)

    def set_time(self, run: str | None, value: int | None) -> None:
        """Show time ``value`` (None: the last frame) on the timeline of ``run``."""
        if run is None:
            self.model.t = value
        else:
            self._run_times[run] = value

    def frames(self, run: str | None = None) -> Frames | None:
        """The frames sent to the browser for the current result (strided when long); None
        without a timeline (or a run's result). Cached per result."""
        timeline, result = self.timeline_of(run), self.followed(run)
        if timeline is None or result is None:
            return None
        memo = self._memo.get(run)
        if memo is not None and memo[0] is result:
            return memo[1]
        owner = self.model if run is None else self.model.jobs[run].run
        method = getattr(owner, timeline.frames)  # by name: a subclass's override plays
        frames = strided(method() if run is None else method(result), timeline.max_frames)
        self._memo[run] = (result, frames)
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
        if self.model.timeline is None or self.model.t is None:
            return None
        frames = self.frames()
        i = self.frame_index()
        return None if i == len(frames) - 1 else str(int(frames.t[i]))

    def parse_time(self, raw) -> int:
        """The time ``t`` of a URL (text), a whole number within the run; ``ValueError`` with a
        sentence otherwise (as for the knobs)."""
        frames = self.frames()
        return _knobs.parse(self.model.param["t"], raw,
                            bounds=(int(frames.t[0]), int(frames.t[-1])))

    def with_marks(self, plot, element, run: str | None = None):
        """``element``, the panel ``plot`` draws, with the marks of the timeline of ``run``
        on that panel drawn at its current time. In an export at the default time (the end of
        the run) only the marks that are the picture itself (``Mark.always``)."""
        timeline = self.timeline_of(run)
        marks = [] if timeline is None else [m for m in timeline.marks if m.plot == plot.method]
        if exporting() and self.time_of(run) is None:
            marks = [m for m in marks if m.always]
        frames = self.frames(run) if marks else None
        if frames is None:
            return element
        i = self.frame_index(run)
        uid = self.uid(run)
        every = [m for m in timeline.marks if m.plot == plot.method]
        for mark in (m for m in marks if m.kind == "grow"):
            element = self._grow(element, mark, frames, i,
                                 f"{uid}-{plot.method}-{every.index(mark)}",
                                 self._uncut.setdefault((run, plot.method), {}), run)
        marks = [m for m in marks if m.kind != "grow"]
        if not marks:
            return element
        with dictionary_columns():  # plain arrays, not DataFrames: cheaper on every draw
            layers = [style(mark.element(frames, i),
                            bokeh=dict(hooks=[_MarkHook(f"{uid}-{plot.method}-{every.index(mark)}")]))
                      for mark in marks]
        if isinstance(element, hv.Overlay):  # a clone keeps the overlay's options (its axes)
            return element.clone(list(element) + layers)
        return hv.Overlay([element, *layers])

    def _grow(self, element, mark: Mark, frames: Frames, i: int, name: str, uncut: dict,
              run: str | None = None):
        """``element`` built up to frame ``i`` under the ``grow`` mark: in an export, its
        growing layers cut at the frame's time (``marks.grown``); on the page, whole (the
        browser cuts them at each frame) and named, each followed by its ghost, the faded
        rest (empty until the browser shows it)."""
        overlay = isinstance(element, hv.Overlay)
        layers = list(element) if overlay else [element]
        if not any(grows(layer, mark) for layer in layers):
            return element
        out = []
        if exporting():
            value = mark.data(frames, i)
            out = [grown(layer, mark, value) if grows(layer, mark) else layer
                   for layer in layers]
            uncut.clear()
            uncut.update({k: (layer, mark) for k, layer in enumerate(layers)
                          if grows(layer, mark)})
        else:
            column = mark.dims[0]
            ghosts = []
            for layer in layers:
                if grows(layer, mark):
                    j = len(ghosts)
                    out.append(_hooked(layer, _GrowHook(f"{name}-L{j}", column, self, run)))
                    ghosts.append(_ghost(layer, _GrowHook(f"{name}-G{j}")))
                else:
                    out.append(layer)
            out += ghosts
        if overlay:
            return element.clone(out)
        return out[0] if len(out) == 1 else hv.Overlay(out)

    def uncut(self, plot: str, run: str | None = None) -> dict:
        """The layers of panel ``plot`` that the last export at a chosen time cut
        (``Mark`` ``grow``), whole, with their mark, by their place in the panel's overlay:
        an animation cuts them again at each of its frames."""
        return dict(self._uncut.get((run, plot), {}))

    def grow_dimension(self, plot: str, run: str | None = None) -> str | None:
        """The dimension along which panel ``plot`` builds up in time (its ``grow`` mark's),
        or None."""
        timeline = self.timeline_of(run)
        for mark in () if timeline is None else timeline.marks:
            if mark.plot == plot and mark.kind == "grow":
                return mark.dims[0]
        return None

    def mark_specs(self, run: str | None = None) -> list[dict]:
        """What the browser redraws at each frame (``marks.browser_spec``), each mark by the
        Bokeh name ``with_marks`` gave it."""
        uid = self.uid(run)
        specs, seen = [], {}
        for mark in self.timeline_of(run).marks:
            k = seen[mark.plot] = seen.get(mark.plot, -1) + 1
            specs.append(browser_spec(mark, f"{uid}-{mark.plot}-{k}"))
        return specs

    def frames_data(self, run: str | None = None) -> dict:
        """The frames' time and per-frame columns as float64 arrays: the data of the
        browser's ``ColumnDataSource`` of frames."""
        frames = self.frames(run)
        data = {"t": np.asarray(frames.t, dtype=np.int64).astype(np.float64)}
        for name, values in frames.columns.items():
            data[name] = np.asarray(values, dtype=np.float64)
        return data

    def arrays_data(self, run: str | None = None) -> dict:
        """The frames' per-frame arrays (images, particles) packed for the browser
        (``marks.arrays_data``)."""
        images = {m.x for m in self.timeline_of(run).marks if m.kind == "image"}
        return arrays_data(self.frames(run), images)

    def frames_note(self, run: str | None = None) -> str:
        """A sentence (Markdown) on the frames sent: how many, how far apart, their size, and
        whether they are strided."""
        frames = self.frames(run)
        unit = self.timeline_of(run).unit
        size = frames_bytes(frames)
        sent = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"
        if frames.stride == 1:
            every = bool(np.all(np.diff(frames.t) == 1))
            return (f"{len(frames):,} frames, " + (f"one per {unit}" if every else
                    "at the run's checkpoints") + f" ({sent}, sent once).")
        return (f"**Strided:** every {_ordinal(frames.stride)} of the run's {frames.total:,} "
                f"frames is sent, and the last ({len(frames):,} frames, {sent}).")

    def label(self, i: int, run: str | None = None) -> str:
        """Frame ``i``'s time in words: "Step t = 1,234 of 20,000"."""
        frames = self.frames(run)
        return (f"{self.timeline_of(run).unit.capitalize()} t = {int(frames.t[i]):,} of "
                f"{int(frames.t[-1]):,}")
