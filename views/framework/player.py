"""The timeline's control on the served page (``timeline_control``, built by
``views.framework.page.Page``): a Panel ``Player`` (play/pause, reverse, step back and forward,
first and last, slower and faster, once / loop / reflect) with its scrubber, and a step size.
The frames of the current run are sent to the browser once, in a ``ColumnDataSource``; playing,
stepping and scrubbing then redraw the marks (``views.framework.marks``) in the browser, in a
``jscallback`` on the player's value, with no round trip: the player and the marks' Bokeh models
are not ``syncable``, so the browser sends nothing when they change. The server hears of the time
only through a hidden widget written at most every ``SYNC_MS`` ms, to keep it in the URL
(``t=``) and in exports. What the model knows of its time is in ``views.framework.timeline``.
"""

from __future__ import annotations

import json
import math
import weakref

import panel as pn
from bokeh.models import ColumnDataSource

from views.framework.text import math_markdown
from views.framework.page_workarounds import Text, steady_text

__all__ = ["timeline_control", "SYNC_MS", "INTERVAL_MS", "PLAY_SECONDS", "pace", "pace_text"]

#: The browser tells the server the time at most this often while playing or scrubbing (ms).
SYNC_MS = 400
#: The shortest time between frames when playing (ms): about 30 frames per second.
INTERVAL_MS = 33
#: A whole run plays in about this many seconds at the default pace, whatever its length: a
#: 4,001-frame herding run took a minute at one frame a tick, PMD's 21 checkpoints 0.7 s.
PLAY_SECONDS = 15
#: The longest time between frames (ms): a run of a few frames still moves.
SLOWEST_MS = 1000


def pace(frames: int) -> tuple[int, int]:
    """The default pace of a timeline of ``frames`` frames: milliseconds between frames and
    frames a step, so that the whole run plays in about ``PLAY_SECONDS``: the fewest frames
    a step that keep the player at most 30 frames a second (one for a short run), then the
    interval that fills the time (at most ``SLOWEST_MS``)."""
    moves = max(int(frames) - 1, 1)
    step = max(1, math.ceil(moves * INTERVAL_MS / (PLAY_SECONDS * 1000)))
    interval = PLAY_SECONDS * 1000 / math.ceil(moves / step)
    return int(min(max(round(interval), INTERVAL_MS), SLOWEST_MS)), step


#: The plural of a timeline's unit where it is not the unit and an s.
PLURALS = {"datum": "data", "data seen": "data"}


def pace_text(t, interval: int, step: int, unit: str | None = None) -> str:
    """The pace in words: how long the run plays and how far t advances a second (in
    ``unit``s, the timeline's unit, when given: "t advances 1,322 steps a second")."""
    moves = max(len(t) - 1, 1)
    seconds = math.ceil(moves / step) * interval / 1000
    span = float(t[-1] - t[0]) if len(t) else 0.0
    rate = span / seconds if seconds else 0.0
    per = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
    units = "" if unit is None else " " + PLURALS.get(unit, unit + "s")
    return f"Plays in about {seconds:.0f} s: t advances {per}{units} a second."


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
// a model by name, cached while the document's models stay the same; a plot drawn anew (a
// pin overlaid on a panel) may leave the old one's models in the document a while: the
// newest (Bokeh numbers a session's models in order) is the one drawn
function find(name) {
  if (state.size !== doc._all_models.size) { state.size = doc._all_models.size; state.models = {}; }
  const m = state.models[name];
  if (m !== undefined) return m;
  let found = null;
  for (const x of doc._all_models.values())
    if (x.name === name && (found == null || newer(x.id, found.id))) found = x;
  return (state.models[name] = found);
}
function newer(a, b) {
  const na = Number(a.replace(/^\\D+/, "")), nb = Number(b.replace(/^\\D+/, ""));
  return Number.isFinite(na) && Number.isFinite(nb) ? na > nb : a > b;
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
function plain(a) {  // the plain typed array class under a Bokeh NDArray
  let T = a.constructor;
  while (Object.getPrototypeOf(T) !== TypedArray) T = Object.getPrototypeOf(T);
  return T;
}
function pick(a, keep) { const out = new Array(keep.length); for (let k = 0; k < keep.length; k++) out[k] = a[keep[k]]; return out; }
// a layer that builds up in time: its whole data (the server's, kept until the server sends
// new data) cut at v along column dim; its ghost (the faded rest) holds the other part
function grow(model, ghost, dim, v, i) {
  const G = state.grown || (state.grown = {});
  let s = G[model.id];
  if (s == null) {
    s = G[model.id] = {full: model.data, set: null, clear: false};
    // new data from the server (a redraw): cut again at the time shown
    model.connect(model.properties.data.change, () => {
      if (!s.busy && model.data !== s.set && s.ghost !== undefined) cut(model, s);
    });
  }
  if (model.data !== s.set) s.full = adopt(model.data, s);
  s.ghost = ghost; s.dim = dim; s.v = v; s.i = i;
  cut(model, s);
}
// the server's data after a change: a column it sent alone (a raster's first-visit column,
// set by a hook after the raster) is merged by Bokeh into the data drawn, the cut: every
// column still the cut's own is the server's whole one kept in s.full
function adopt(data, s) {
  if (s.set == null || s.full == null) return data;
  const out = {};
  for (const [k, a] of Object.entries(data)) out[k] = (s.set[k] === a && k in s.full) ? s.full[k] : a;
  return out;
}
function cut(model, s) {
  if (model.data !== s.set) { s.full = adopt(model.data, s); s.clear = false; }
  const full = s.full, faded = !!state.faded, ghost = s.ghost, v = s.v;
  // rectangles (bars over the steps) hold their left ends, not the dimension
  const dim = (s.dim in full) ? s.dim : ("left" in full ? "left" : null);
  if (dim == null) return;
  // a raster whose first-visit column is still the last raster's (its own comes next, in
  // the same message): drawn whole until then
  if ("image" in full && full[dim][0].length !== full.image[0].length) return;
  // what is drawn is what was drawn (no pixel or row more or less, the same data and mode):
  // nothing to send to the canvas
  let count = 0;
  // a raster holds the first frame showing each pixel (``timeline.first_frames``), not a step
  if ("image" in full) { const fv = full[dim][0]; for (let k = 0; k < fv.length; k++) if (fv[k] <= s.i) count++; }
  else { const col = full[dim]; for (let k = 0; k < col.length; k++) if (!(col[k] > v)) count++; }
  if (model.data === s.set && count === s.count && faded === s.faded) return;
  s.count = count; s.faded = faded;
  let past, rest = null;
  if ("image" in full) {  // a raster: the pixels first visited at or before v
    const lv = full.image[0], fv = full[dim][0], P = plain(lv);
    const pa = new P(lv.length), ra = new P(lv.length);
    for (let k = 0; k < lv.length; k++) { if (fv[k] <= s.i) pa[k] = lv[k]; else ra[k] = lv[k]; }
    past = Object.assign({}, full, {image: [new lv.constructor(pa, lv.shape)]});
    if (faded) rest = {image: [new lv.constructor(ra, lv.shape)], x: full.x, y: full.y, dw: full.dw, dh: full.dh};
    else if (!s.clear) rest = {image: [new lv.constructor(new P(lv.length), lv.shape)], x: full.x, y: full.y, dw: full.dw, dh: full.dh};
  } else {  // rows whose value of dim is at most v
    const col = full[dim], keep = [], left = [];
    for (let k = 0; k < col.length; k++) (col[k] > v ? left : keep).push(k);  // NaN: kept
    past = {}; const other = {};
    for (const [key, a] of Object.entries(full)) { past[key] = pick(a, keep); other[key] = faded ? pick(a, left) : []; }
    if (faded || !s.clear) rest = other;
  }
  s.busy = true;
  try { model.data = past; } finally { s.busy = false; }
  s.set = model.data;
  if (ghost != null && rest != null) { ghost.data = rest; s.clear = !faded; }
}
// every growing layer cut at the player's frame (``fresh``: only those not cut yet, a plot
// drawn since, below the fold or after a knob move)
function growAll(fresh) {
  const D = frames.data, m = D.t.length;
  if (m == 0) return;
  const k = Math.max(0, Math.min(player.value, m - 1)), G = state.grown || {};
  for (const mark of marks) {
    if (mark.kind !== "grow") continue;
    for (let j = 0; j < 64; j++) {
      const model = find(`${mark.name}-L${j}`);
      if (model == null) break;
      if (fresh && G[model.id] != null && G[model.id].v === D[mark.x][k]) continue;
      grow(model, find(`${mark.name}-G${j}`), mark.dim, D[mark.x][k], k);
    }
  }
}
if (!state.watching) {  // plots drawn later are cut as they arrive
  state.watching = true;
  doc.on_change(() => {
    if (state.pending) return;
    state.pending = true;
    setTimeout(() => { state.pending = false; growAll(true); }, 0);
  });
}
growAll(false);
for (const mark of marks) {
  if (mark.kind === "grow") continue;
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


# Panel's player buttons are icons without a word (a double arrow is the first frame): each
# gets a tooltip and an accessible name, in every player of the page (inside shadow roots).
_TITLES = """
const titles = {slower: 'Slower', first: 'First frame', previous: 'Step back',
                reverse: 'Play backwards', pause: 'Pause (space)', play: 'Play (space)',
                next: 'Step forward', last: 'Last frame', faster: 'Faster'};
const name = root => root.querySelectorAll('*').forEach(el => {
  if (el.tagName === 'BUTTON') {
    for (const c of el.classList) {
      if (titles[c] && !el.title) { el.title = titles[c]; el.setAttribute('aria-label', titles[c]); }
    }
  }
  if (el.shadowRoot) name(el.shadowRoot);
});
setTimeout(() => name(document), 0); setTimeout(() => name(document), 1000);
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



def timeline_control(model, run: str | None = None) -> pn.viewable.Viewable:
    """A timeline's control of ``model`` (the page's, or ``run``'s): the player and its scrubber, the
    step size, what the current frame is, what time means here (the caption) and whether
    frames are strided. What it shows comes from the model's ``clock``
    (``views.framework.timeline.Clock``)."""
    clock = model.clock
    timeline = clock.timeline_of(run)
    frames = clock.frames(run)
    source = ColumnDataSource(data=clock.frames_data(run))
    arrays = ColumnDataSource(data=clock.arrays_data(run))
    i = clock.frame_index(run)
    interval, stride = pace(len(frames))
    player = _LocalPlayer(start=0, end=max(len(frames) - 1, 1), value=i, step=stride,
                          interval=interval, loop_policy="once", show_value=False,
                          show_loop_controls=True, sizing_mode="stretch_width",
                          min_width=290, max_width=420, height=90,
                          visible_loop_options=["once", "loop", "reflect"],
                          css_classes=["ldx-timeline-player"])
    step = pn.widgets.Select(label="Step size (frames)", options=sorted({1, 10, 100, stride}),
                             value=stride, width=120, css_classes=["ldx-timeline-step"])
    # the menu's value is text in the browser; the player's step a whole number
    step.jscallback(args=dict(player=player), value="player.step = parseInt(cb_obj.value)")
    sync = pn.widgets.IntInput(value=i, visible=False)
    # what has not happened yet: not drawn (the default), or drawn faded
    faded = pn.widgets.Checkbox(label="Show the rest faded", value=False, margin=(2, 10),
                                width=150,
                                css_classes=["ldx-timeline-faded"],
                                visible=any(m.kind == "grow" for m in timeline.marks))
    def note_text() -> str:
        frames = clock.frames(run)
        return (clock.frames_note(run) + " "
                + pace_text(frames.t, *pace(len(frames)), unit=timeline.unit))

    note = steady_text(Text(note_text(), margin=(0, 10),
                                        css_classes=["ldx-timeline-note"]))
    code = (f"const marks = {json.dumps(clock.mark_specs(run))}; "
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
    faded.jscallback(args=args, value="(player._ldx || (player._ldx = {last: 0, timer: null, "
                     "models: {}})).faded = cb_obj.active;\n" + code)
    # a new run's frames arrive with a new count of runs: redraw at the player's frame once
    # the whole update is applied (the frames, the player's end and value come with it)
    runs = pn.widgets.IntInput(value=0, visible=False)
    runs.jscallback(args=args, value="setTimeout(() => { " + code + " }, 0);\n" + _HANDLE
                    + _TITLES + (_KEYS if run is None else ""))
    _after_render(lambda: runs.param.update(value=runs.value + 1))
    player.label = clock.label(i, run)

    me = weakref.ref(model)  # held weakly from the registry's args (sync), see above

    def on_time(event):
        explorer = me()
        if explorer is None:
            return
        frames = explorer.clock.frames(run)
        k = int(min(max(event.new, 0), len(frames) - 1))
        explorer.clock.set_time(run, None if k == len(frames) - 1 else int(frames.t[k]))

    sync.param.watch(on_time, "value")
    shown = {"result": clock.followed(run)}

    def on_drawn(_):
        result = clock.followed(run)
        if result is shown["result"] or result is None:
            return
        shown["result"] = result
        frames = clock.frames(run)
        k = clock.frame_index(run)
        with pn.io.hold():
            # the server's copy of the player's value is stale (the browser does not send
            # it): send it even when unchanged
            interval, stride = pace(len(frames))
            player.param.update(end=max(len(frames) - 1, 1), value=k, interval=interval,
                                step=stride, label=clock.label(k, run))
            step.param.update(options=sorted({1, 10, 100, stride}), value=stride)
            player.param.trigger("value")
            source.data = clock.frames_data(run)
            arrays.data = clock.arrays_data(run)
            note.object = note_text()
            sync.value = k
            runs.value += 1

    if run is None:
        model.param.watch(on_drawn, "drawn")
    else:
        model.jobs[run].param.watch(on_drawn, "shown")
    caption = Text(math_markdown(timeline.caption), margin=(0, 10),
                               sizing_mode="stretch_width",
                               css_classes=["ldx-timeline-caption"])
    # the controls and the caption side by side where both fit, the caption below on a
    # narrow screen (a phone's 390 px: a fixed row of 630 px ran off the screen)
    # the box under the step size: no row of its own (the first plot stays on the screen)
    controls = pn.Column(player, pn.Row(pn.Column(step, faded, margin=0), note),
                         sizing_mode="stretch_width",
                         min_width=300, max_width=440, styles={"flex": "1 1 440px"})
    return pn.FlexBox(controls, pn.Column(caption, sync, runs, sizing_mode="stretch_width",
                                          styles={"flex": "1 1 200px"}),
                      flex_wrap="wrap", sizing_mode="stretch_width",
                      css_classes=["ldx-timeline"])
